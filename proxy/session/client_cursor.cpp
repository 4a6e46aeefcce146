// ClientSession: cursors whose query spans several shards. DECLARE runs the query's shard SQL
// as a cursor of the same name on each shard, inside the transaction pgrange coordinates over
// them; FETCH and MOVE read those cursors forward a batch at a time, only from the shard the
// merge needs next, so that pgrange holds at most a batch per shard, never the whole result.
// The cursors are NO SCROLL and WITHOUT HOLD, PostgreSQL's defaults: reading backward and
// keeping a cursor past its transaction are refused (0A000) for a query over several shards.

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>  // before asio/awaitable.hpp (Boost 1.74)

#include "proxy/control/control_plane.hpp"
#include "proxy/exec/merge_build.hpp"
#include "proxy/session/bound_answer.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/frame_reader.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "routing/merge/binary_value.hpp"
#include "routing/merge/merge_rows.hpp"
#include "sql/quoting.hpp"

namespace pgrange::proxy {
namespace {

/// A cursor's formats: a BINARY cursor's rows are binary (exec::merge_formats of a Bind asking
/// every column in binary); a shard's cursor is BINARY when `shard` is not empty.
exec::MergeFormats cursor_formats(const sql::CursorStatement& stmt, const sql::MergeQuery& merge) {
  if (!stmt.binary) return {};
  exec::MergeFormats f = exec::merge_formats(merge, {1});
  if (!f.shard.empty()) f.shard = {1};  // DECLARE … BINARY: every column, hidden ones too
  return f;
}

using sql::quote_ident;

}  // namespace

std::string ClientSession::cursor_declare_request(const std::string& declare,
                                                  const ExtendedMerge* ext) {
  std::string request;
  std::string_view params;
  std::vector<int16_t> formats;
  if (ext == nullptr || !split_bind(ext->bind_rest, params, formats)) {
    write_query(request, declare);
    return request;
  }
  MessageWriter(request).begin('P').cstr("").cstr(declare).bytes(ext->parameter_types).end();
  MessageWriter(request).begin('B').cstr("").cstr("").bytes(params).i16(0).end();
  MessageWriter(request).begin('E').cstr("").i32(0).end();
  MessageWriter(request).begin('S').end();
  return request;
}

ClientSession::Plan ClientSession::plan_cursor_query(std::string_view query,
                                                     const routing::BindParams* params,
                                                     bool scroll) {
  Plan p = params == nullptr ? plan_text('Q', query)
                             : plan_analysis('B', worker_.analyze(query), params, query);
  if (!scroll || !p.merge || !*p.merge || p.route.shards.size() < 2 || p.gather || !p.analysis ||
      !*p.analysis || (*p.analysis)->size() != 1) {
    return p;
  }
  // A SCROLL cursor reads backward, which a merge of the shards' cursors cannot: the query's
  // one table is gathered instead (its rows read into one shard, within query_memory), and the
  // cursor is that shard's own. Where no gather runs it, the refusal of SCROLL stands.
  auto gather = one_table_gather(query, params);
  if (!gather) return p;
  p.merge.reset();
  p.gather = std::move(gather);
  return p;
}

std::shared_ptr<const routing::GatherPlan> ClientSession::one_table_gather(
    std::string_view query, const routing::BindParams* params) {
  auto view = routing_view();
  if (view == nullptr) return nullptr;
  auto analysis = worker_.analyze(query);
  if (!*analysis || (*analysis)->size() != 1) return nullptr;
  auto gather = routing::plan_gather_one_table(
      *view, (*analysis)->front(), query, params, table_sizes().get(),
      [this](std::string_view sql, const routing::TableDescriptor& t) {
        return *worker_.merge_plan(sql, t);
      });
  if (!gather) return nullptr;
  return std::make_shared<const routing::GatherPlan>(std::move(*gather));
}

bool ClientSession::runs_cursor_through_pgrange(std::string_view sql, std::string_view bind_body,
                                                std::optional<Plan>& query_plan) {
  auto stmt = sql::read_cursor_statement(sql);
  if (!stmt) return false;
  if (stmt->kind != sql::CursorStatement::Kind::kDeclare) {
    if (stmt->name.empty()) {
      return (coord_ && !coord_->cursors.empty()) || !held_cursors_.empty();  // CLOSE ALL
    }
    return (coord_ &&
            (coord_->cursors.count(stmt->name) || coord_->shard_cursors.count(stmt->name))) ||
           held_cursors_.count(stmt->name);
  }
  BodyReader b(bind_body);
  std::string_view portal, statement;
  if (!b.cstr(portal) || !b.cstr(statement)) return false;
  auto params = bind_params(b.rest(), parameter_types(statement));
  if (!params) return false;  // malformed: the normal path reports it
  Plan plan = plan_cursor_query(stmt->query, &*params, stmt->scroll);
  bool in_block = txn_status_ != 'I' || !deferred_begin_.empty();
  // (A cursor of one shard in a transaction over several: its later FETCH must find it.)
  bool ours = plan.gather || (plan.kind == Plan::Kind::kRefuse && plan.error) ||
              (plan.merge && *plan.merge && plan.route.shards.size() > 1) ||
              (in_block && plan.kind == Plan::Kind::kCoordinate && plan.route.shards.size() == 1);
  if (ours) query_plan = std::move(plan);
  return ours;
}

awaitable<bool> ClientSession::run_cursor_statement(std::string_view sql, bool& ok,
                                                    ExtendedMerge* ext, int32_t max_rows) {
  ok = true;
  if (worker_.pool_count() < 2 || !transaction_pooling_) co_return false;
  auto stmt = sql::read_cursor_statement(sql);
  if (!stmt) co_return false;
  bool in_block = txn_status_ != 'I' || !deferred_begin_.empty();
  std::string out;
  std::vector<int16_t> result_formats;  // a Bind's
  auto answer = [&](std::string& o) {
    if (ext != nullptr) {
      // The rows in the formats the Bind asked for; what cannot be is the statement's error.
      if (auto e = in_result_formats(o, result_formats, floats_exact())) {
        o.clear();
        fail_cursor(*e, std::nullopt, o);
      }
    }
    if (ext == nullptr) {
      write_ready_for_query(o, txn_status_);
      channel_.send(std::move(o));
      return;
    }
    // Bound: after its BindComplete, and PostgreSQL skips to the Sync after an error.
    std::string reply;
    emit_ready_synthetics(reply);
    if (!ext->bind_answered) MessageWriter(reply).begin('2').end();
    ext->bind_answered = true;
    as_bound_answer(o, ext->describe);
    if (has_error(o)) skip_until_sync_ = true;
    reply += o;
    channel_.send(std::move(reply));
  };
  auto fail = [&](const Error& e) { fail_cursor(e, std::nullopt, out); };
  auto* cursors = coord_ ? &coord_->cursors : nullptr;
  std::optional<routing::BindParams> params;
  if (ext != nullptr) {
    std::string_view values;
    std::vector<int16_t> formats;
    params = bind_params(ext->bind_rest, ext->parameter_types);
    if (!params || !split_bind(ext->bind_rest, values, formats)) {
      fail(Error::make(sqlstate::kProtocolViolation, "invalid Bind message"));
      answer(out);
      co_return true;
    }
    result_formats = std::move(formats);
    if (max_rows != 0 && stmt->kind == sql::CursorStatement::Kind::kFetch) {
      fail(
          not_supported("a row limit on the Execute of a FETCH from a cursor over several "
                        "shards is not supported",
                        "give FETCH the count instead"));
      answer(out);
      co_return true;
    }
  }
  // A bound statement its Bind gave to pgrange that no longer runs as planned then (its cursor
  // closed meanwhile in the same pipeline, say): it cannot go back to the normal way.
  auto replanned = [&]() {
    fail(
        not_supported("the cursor statement no longer runs as its Bind planned it: the cursor "
                      "or the ranges changed since",
                      "run the statement again"));
    answer(out);
  };
  switch (stmt->kind) {
    case sql::CursorStatement::Kind::kDeclare: {
      if ((cursors != nullptr && cursors->count(stmt->name)) || held_cursors_.count(stmt->name)) {
        fail(Error::make("42P03", "cursor \"" + stmt->name + "\" already exists"));
        break;
      }
      // Where its query runs: a DECLARE whose query stays on one shard runs there as it is.
      // Bound: the plan its Bind made (with the map and the values of that moment).
      Plan plan = ext != nullptr && ext->cursor_query
                      ? std::move(*ext->cursor_query)
                      : plan_cursor_query(stmt->query, params ? &*params : nullptr, stmt->scroll);
      if (plan.gather) {
        // Tables read from several shards: their rows are read now, and the query, with them
        // written in, becomes a cursor of one shard's part (any cursor option PostgreSQL has).
        if (!in_block && !stmt->hold) {
          fail(Error::make("25P01", "DECLARE CURSOR can only be used in transaction blocks"));
        } else if (stmt->hold && (in_block || backend_ || coord_)) {
          fail(not_supported(
              "a cursor WITH HOLD over tables read from several shards is supported outside "
              "transaction blocks only, for now",
              "declare it outside the block (as in autocommit), or WITHOUT HOLD"));
        } else if (stmt->hold) {
          co_await declare_gathered_held_cursor(*stmt, *plan.gather, out, ext);
        } else if (plan.kind != Plan::Kind::kCoordinate) {
          fail(
              not_supported("a cursor whose query spans several shards inside a transaction "
                            "block tied to one connection is not supported"));
        } else {
          ok = co_await declare_gathered_cursor(*stmt, *plan.gather, ext);
          co_return true;
        }
        break;
      }
      bool several = plan.merge && *plan.merge && plan.route.shards.size() > 1 &&
                     (plan.kind == Plan::Kind::kCoordinate || plan.kind == Plan::Kind::kRead);
      if (!several) {
        if (plan.kind != Plan::Kind::kRefuse || !plan.error) {
          // It runs the normal way, on its one shard: its FETCH and CLOSE must go there too.
          bool one_part =
              in_block && plan.kind == Plan::Kind::kCoordinate && plan.route.shards.size() == 1;
          if (one_part) {
            if (!coord_) co_await become_coordinated();
            coord_->shard_cursors[stmt->name] = plan.route.shards.front();
          }
          if (ext == nullptr) co_return false;
          // Bound: the DECLARE runs on that part with the Bind's values.
          Plan declare = plan_analysis('B', worker_.analyze(sql), &*params, sql);
          if (!one_part || declare.kind != Plan::Kind::kCoordinate) {
            replanned();
            co_return true;
          }
          declare.route.shards = {plan.route.shards.front()};
          ok = co_await run_coordinated(sql, declare, ext);
          co_return true;
        }
        fail(*plan.error);
        break;
      }
      if (!in_block && !stmt->hold) {
        fail(Error::make("25P01", "DECLARE CURSOR can only be used in transaction blocks"));
      } else if (stmt->scroll) {
        fail(
            not_supported("a SCROLL cursor whose query spans several shards is not supported "
                          "yet: pgrange reads it forward only",
                          "declare it NO SCROLL"));
      } else if (stmt->hold && (in_block || backend_ || coord_)) {
        fail(
            not_supported("a cursor WITH HOLD whose query spans several shards is supported "
                          "outside transaction blocks only, for now",
                          "declare it outside the block (as in autocommit), or WITHOUT HOLD"));
      } else if (stmt->hold) {
        auto instead = one_table_gather(stmt->query, params ? &*params : nullptr);
        co_await declare_held_cursor(*stmt, plan, out, ext, instead.get());
      } else if (plan.kind != Plan::Kind::kCoordinate) {
        fail(
            not_supported("a cursor whose query spans several shards inside a transaction "
                          "block tied to one connection is not supported"));
      } else {
        // Where the merge cannot compare the columns' values, the query's table is gathered.
        auto instead = one_table_gather(stmt->query, params ? &*params : nullptr);
        if (co_await declare_cursor(*stmt, plan, out, ext, instead.get())) {
          ok = co_await declare_gathered_cursor(*stmt, *instead, ext);
          co_return true;
        }
      }
      break;
    }
    case sql::CursorStatement::Kind::kFetch:
    case sql::CursorStatement::Kind::kMove: {
      auto held = held_cursors_.find(stmt->name);
      bool merged = cursors != nullptr && cursors->count(stmt->name);
      if ((held != held_cursors_.end() || merged) && coord_ && coord_->failed) {
        fail(aborted_transaction_error());
        break;
      }
      if (held != held_cursors_.end() && held->second.whole) {
        // Its shard's own cursor: the statement goes there as the client wrote it.
        co_await forward_to_held_cursor(held->second, sql, out);
        break;
      }
      if (held != held_cursors_.end()) {
        co_await fetch_cursor(held->second, *stmt, out);
        break;
      }
      if (merged) {
        co_await fetch_cursor(cursors->at(stmt->name), *stmt, out);
        break;
      }
      auto it = cursors != nullptr ? coord_->shard_cursors.find(stmt->name)
                                   : std::map<std::string, int>::iterator();
      Plan plan;
      if (cursors != nullptr && it != coord_->shard_cursors.end()) plan = plan_text('Q', sql);
      if (cursors == nullptr || it == coord_->shard_cursors.end() ||
          plan.kind != Plan::Kind::kCoordinate) {
        if (ext == nullptr) co_return false;
        replanned();
        co_return true;
      }
      // A cursor of one shard's part: the statement runs there (one naming no table would run
      // on the first shard).
      plan.route.shards = {it->second};
      ok = co_await run_coordinated(sql, plan, ext);
      co_return true;
    }
    case sql::CursorStatement::Kind::kClose: {
      if (coord_ && coord_->failed) {
        fail(aborted_transaction_error());
        break;
      }
      if (!stmt->name.empty() && held_cursors_.count(stmt->name)) {
        co_await close_held_cursor(std::move(held_cursors_.extract(stmt->name).mapped()));
        MessageWriter(out).begin('C').cstr("CLOSE CURSOR").end();
        break;
      }
      if (stmt->name.empty()) {
        // CLOSE ALL closes the held cursors too; the shards' own go as below.
        auto held = std::move(held_cursors_);
        held_cursors_.clear();
        for (auto& [name, cursor] : held) co_await close_held_cursor(std::move(cursor));
      }
      if (cursors == nullptr && ext != nullptr && stmt->name.empty()) {
        MessageWriter(out).begin('C').cstr("CLOSE CURSOR ALL").end();  // the held ones were all
        break;
      }
      if (cursors == nullptr) co_return false;
      // CLOSE ALL closes the shards' other cursors too: every part runs it. A cursor of one
      // shard is closed on its part.
      std::vector<int> shards;
      if (stmt->name.empty()) {
        for (const auto& [shard, conn] : coord_->parts) shards.push_back(shard);
      } else if (cursors->count(stmt->name)) {
        shards = cursors->at(stmt->name).shards;
      } else if (auto it = coord_->shard_cursors.find(stmt->name);
                 it != coord_->shard_cursors.end()) {
        shards = {it->second};
      } else {
        shards = {coord_->first_shard >= 0 ? coord_->first_shard : 0};
      }
      bool all = stmt->name.empty();
      std::string close = all ? "CLOSE ALL" : "CLOSE " + quote_ident(stmt->name);
      std::optional<Error> error;
      for (int shard : shards) {
        auto it = coord_->parts.find(shard);
        if (it == coord_->parts.end()) {
          // No part there: the transaction declared nothing on that shard.
          if (!all) error = Error::make("34000", "cursor \"" + stmt->name + "\" does not exist");
          continue;
        }
        if (auto r = co_await it->second->run_simple(close); !r && !error) error = r.error();
      }
      if (all) {
        cursors->clear();
        coord_->shard_cursors.clear();
      } else {
        cursors->erase(stmt->name);
        coord_->shard_cursors.erase(stmt->name);
      }
      if (error) {
        fail(*error);
      } else {
        MessageWriter(out).begin('C').cstr(all ? "CLOSE CURSOR ALL" : "CLOSE CURSOR").end();
      }
      break;
    }
  }
  answer(out);
  co_return true;
}

awaitable<bool> ClientSession::describe_cursor_portal(std::string_view name) {
  Coordinated::Cursor* cursor = nullptr;
  BackendConnection* holder = nullptr;  // a cursor of one connection: it describes it
  const std::string key(name);
  if (coord_) {
    if (auto it = coord_->cursors.find(key); it != coord_->cursors.end()) cursor = &it->second;
  }
  if (cursor == nullptr && coord_ && coord_->shard_cursors.count(key)) {
    auto part = co_await coordinated_part(coord_->shard_cursors.at(key));
    if (part) holder = *part;
  }
  if (cursor == nullptr && holder == nullptr) {
    auto it = held_cursors_.find(key);
    if (it == held_cursors_.end()) co_return false;
    if (it->second.whole) {
      holder = it->second.conns.front().get();
    } else {
      cursor = &it->second;
    }
  }
  unsynced_ = true;
  PendingEntry entry;
  entry.kind = Pending::kSyntheticReply;
  if (holder != nullptr) {
    std::string request;
    MessageWriter(request).begin('D').byte('P').cstr(key).end();
    MessageWriter(request).begin('S').end();
    std::optional<Error> error;
    if (auto e = co_await start_request(*holder, std::move(request))) error = *e;
    for (char type = 0; !error && type != 'Z';) {
      std::string body;
      if (auto r = co_await holder->read_message(type, body); !r) {
        error = r.error();
      } else if (type == 'T' || type == 'n' || type == 'E') {
        if (type == 'E') {
          entry.kind = Pending::kSyntheticError;
          if (coord_) {
            coord_->failed = true;  // an error inside the block aborts it
            txn_status_ = 'E';
          }
        }
        MessageWriter(entry.payload).begin(type).bytes(body).end();
      }
    }
    if (error) {
      holder->mark_broken();
      entry.kind = Pending::kSyntheticError;
      entry.payload.clear();
      fail_cursor(*error, std::nullopt, entry.payload);
    }
  } else {
    // Its columns are known once every shard's cursor was read once (no row is handed out).
    std::string rows;
    exec::ExecResult<uint64_t> opened = 0;
    if (auto e = co_await sync_cursor(*cursor)) {
      opened = tl::unexpected(exec::ExecFailure::of(*e));
    } else {
      opened = co_await cursor->rows->advance(0, false, rows);
    }
    if (opened) {
      MessageWriter(entry.payload).begin('T').bytes(cursor->rows->columns()).end();
    } else {
      entry.kind = Pending::kSyntheticError;
      fail_cursor(opened.error().error.value_or(Error{}), opened.error().shard_error,
                  entry.payload);
    }
  }
  if (entry.kind == Pending::kSyntheticError) skip_until_sync_ = true;
  pending_.push_back(std::move(entry));
  std::string out;
  emit_ready_synthetics(out);
  if (!out.empty()) channel_.send(std::move(out));
  co_return true;
}

awaitable<bool> ClientSession::declare_gathered_cursor(const sql::CursorStatement& stmt,
                                                       const routing::GatherPlan& gather,
                                                       ExtendedMerge* ext) {
  if (!coord_) co_await become_coordinated();
  std::string out;
  if (ext != nullptr) {
    // Bound: the tables' rows read in the transaction, the query with them written in keeps
    // the Bind's `$n`, and the DECLARE runs on the block's first part with its parameters.
    auto read = co_await read_for_bound(*ext, gather);
    if (!read) co_return true;
    std::string declare = "DECLARE " + quote_ident(stmt.name);
    if (stmt.binary) declare += " BINARY";
    if (stmt.scroll) declare += " SCROLL";
    if (stmt.no_scroll) declare += " NO SCROLL";
    declare += " CURSOR FOR " + *read;
    Plan plan = plan_text('Q', declare);
    if (plan.kind != Plan::Kind::kCoordinate) {
      fail_bound(*ext, plan.error.value_or(Error::make("XX000", "the cursor's query has no plan")),
                 std::nullopt);
      co_return true;
    }
    int shard = coord_->first_shard >= 0 ? coord_->first_shard : 0;
    plan.route.shards = {shard};
    coord_->shard_cursors[stmt.name] = shard;
    co_return co_await run_coordinated(declare, plan, ext);
  }
  if (coord_->failed) {
    fail_coordinated(aborted_transaction_error(), std::nullopt, out);
    write_ready_for_query(out, txn_status_);
    channel_.send(std::move(out));
    co_return true;  // answered: the session goes on
  }
  exec::GatherOutcome read = co_await execute_gather(gather, out, GatherSink::kInputs);
  if (!read.ok()) {
    fail_coordinated(read.error.value_or(Error::make("XX000", "")), read.shard_error, out);
    write_ready_for_query(out, txn_status_);
    channel_.send(std::move(out));
    co_return true;  // answered: the session goes on
  }
  std::string declare = "DECLARE " + quote_ident(stmt.name);
  if (stmt.binary) declare += " BINARY";
  if (stmt.scroll) declare += " SCROLL";
  if (stmt.no_scroll) declare += " NO SCROLL";
  declare += " CURSOR FOR " + read.statement;
  // The rows are in the query now: it reads no table, and runs on the block's first part.
  int shard = coord_->first_shard >= 0 ? coord_->first_shard : 0;
  Plan plan = plan_text('Q', declare);
  if (plan.kind != Plan::Kind::kCoordinate) {
    fail_coordinated(plan.error.value_or(Error::make("XX000", "the cursor's query has no plan")),
                     std::nullopt, out);
    write_ready_for_query(out, txn_status_);
    channel_.send(std::move(out));
    co_return true;  // answered: the session goes on
  }
  plan.route.shards = {shard};
  coord_->shard_cursors[stmt.name] = shard;
  co_return co_await run_coordinated(declare, plan);
}

awaitable<bool> ClientSession::declare_cursor(const sql::CursorStatement& stmt, const Plan& plan,
                                              std::string& out, const ExtendedMerge* ext,
                                              const routing::GatherPlan* instead) {
  if (!coord_) co_await become_coordinated();
  Coordinated& c = *coord_;
  auto fail = [&](const Error& e) { fail_coordinated(e, std::nullopt, out); };
  if (c.failed) {
    fail(aborted_transaction_error());
    co_return false;
  }
  const sql::MergeQuery& merge = **plan.merge;
  // A BINARY cursor: the shards' cursors are binary where the values pass through.
  exec::MergeFormats formats = cursor_formats(stmt, merge);
  std::string declare = "DECLARE " + quote_ident(stmt.name) +
                        (formats.shard.empty() ? "" : " BINARY") + " NO SCROLL CURSOR FOR " +
                        merge.shard_sql;
  std::string request = cursor_declare_request(declare, ext);
  Coordinated::Cursor cursor;
  if (!co_await open_shard_cursors(cursor, plan.route.shards, request, out)) co_return false;
  if (instead != nullptr &&
      co_await merge_refuses_cursor(cursor, merge, stmt.name, {}, formats.client)) {
    co_return co_await close_shard_cursors(cursor, quote_ident(stmt.name), out);
  }
  std::string fetch;
  write_query(fetch, exec::cursor_fetch_sql(quote_ident(stmt.name)));
  build_cursor_tree(cursor, merge, fetch, stmt.name, stmt.no_scroll, std::move(formats.client));
  cursor.replay_mark = c.replay.size();
  c.cursors.emplace(stmt.name, std::move(cursor));
  MessageWriter(out).begin('C').cstr("DECLARE CURSOR").end();
  co_return false;
}

awaitable<void> ClientSession::fetch_cursor(Coordinated::Cursor& cursor,
                                            const sql::CursorStatement& stmt, std::string& out) {
  if (auto e = co_await sync_cursor(cursor)) {
    fail_cursor(*e, std::nullopt, out);
    co_return;
  }
  if (auto r = co_await cursor.rows->fetch(stmt, out); !r) {
    fail_cursor(r.error().error.value_or(Error{}), r.error().shard_error, out);
  }
}

awaitable<std::optional<Error>> ClientSession::sync_cursor(Coordinated::Cursor& cursor) {
  for (const auto& conn : cursor.conns) {
    if (auto e = co_await sync_settings(*conn)) co_return e;
  }
  co_return std::nullopt;
}

exec::MergeTreeOptions ClientSession::cursor_tree_options(
    std::vector<int16_t> client_formats) const {
  exec::MergeTreeOptions options;
  options.client_formats = std::move(client_formats);
  options.exact_floats = floats_exact();
  options.memory_limit = static_cast<size_t>(config().query_memory);
  options.temp_directory = config().temp_directory;
  return options;
}

void ClientSession::build_cursor_tree(Coordinated::Cursor& cursor, const sql::MergeQuery& merge,
                                      const std::string& fetch, const std::string& name,
                                      bool no_scroll, std::vector<int16_t> client_formats) {
  cursor.rows = std::make_unique<exec::MergedCursor>(
      merge, cursor.conns, fetch, name, no_scroll, cursor_tree_options(std::move(client_formats)));
}

awaitable<bool> ClientSession::merge_refuses_cursor(const Coordinated::Cursor& cursor,
                                                    const sql::MergeQuery& merge,
                                                    const std::string& name,
                                                    const std::vector<int16_t>& shard_formats,
                                                    std::vector<int16_t> client_formats) {
  if (cursor.conns.size() < 2) co_return false;
  // The columns as the first shard's cursor (a portal of that name) describes them.
  BackendConnection& conn = *cursor.conns.front();
  std::string request;
  MessageWriter(request).begin('D').byte('P').cstr(name).end();
  MessageWriter(request).begin('S').end();
  if (auto e = co_await start_request(conn, request)) {
    conn.mark_broken();
    co_return false;  // the cursor's first FETCH meets it
  }
  std::string columns;
  for (char type = 0; type != 'Z';) {
    std::string body;
    if (auto r = co_await conn.read_message(type, body); !r) {
      conn.mark_broken();
      co_return false;
    }
    if (type == 'T') columns = std::move(body);
  }
  auto fields = routing::read_row_description(columns);
  if (!fields) co_return false;
  // In the formats the rows are fetched in.
  for (size_t i = 0; i < fields->size() && !shard_formats.empty(); ++i) {
    (*fields)[i].format = shard_formats.size() == 1  ? shard_formats[0]
                          : i < shard_formats.size() ? shard_formats[i]
                                                     : int16_t{0};
  }
  auto refusal = co_await exec::merge_refusal(merge, routing::write_row_description(*fields),
                                              cursor.conns.size(),
                                              cursor_tree_options(std::move(client_formats)));
  bool refused = refusal && !refusal->shard_error && refusal->error &&
                 refusal->error->sqlstate == sqlstate::kFeatureNotSupported;
  if (refused) {
    spdlog::debug("session {}: cursor {} is gathered: {}", key_pid_, name, refusal->error->message);
  }
  co_return refused;
}

awaitable<bool> ClientSession::close_shard_cursors(const Coordinated::Cursor& cursor,
                                                   const std::string& name, std::string& out) {
  std::string request;
  write_query(request, "CLOSE " + name);
  for (const auto& conn : cursor.conns) {
    if (auto e = co_await start_request(*conn, request)) {
      conn->mark_broken();
      fail_coordinated(*e, std::nullopt, out);
      co_return false;
    }
  }
  std::optional<std::string> shard_error;
  for (const auto& conn : cursor.conns) {
    auto e = co_await exec::drain(*conn);
    if (!e) {
      fail_coordinated(e.error(), std::nullopt, out);
      co_return false;
    }
    if (*e && !shard_error) shard_error = std::move(**e);
  }
  if (shard_error) {
    fail_coordinated(Error{}, shard_error, out);
    co_return false;
  }
  co_return true;
}

awaitable<bool> ClientSession::run_portal(ExtendedMerge& run, const Plan& plan, int32_t max_rows) {
  std::string out;
  emit_ready_synthetics(out);
  if (!run.bind_answered) MessageWriter(out).begin('2').end();
  run.bind_answered = true;
  // Outside a block: pgrange's own transaction over the shards, ended at the Sync as
  // PostgreSQL's implicit one is (the portal lives until then).
  if (!coord_) co_await become_coordinated();
  Coordinated& c = *coord_;
  auto fail = [&](const Error& e) {
    fail_coordinated(e, std::nullopt, out);
    skip_until_sync_ = true;
    channel_.send(std::move(out));
  };
  if (c.failed) {
    fail(aborted_transaction_error());
    co_return true;
  }
  std::string_view params;
  std::vector<int16_t> results;
  if (!split_bind(run.bind_rest, params, results)) {
    fail(Error::make(sqlstate::kProtocolViolation, "invalid Bind message"));
    co_return true;
  }
  const sql::MergeQuery& merge = **plan.merge;
  std::string name = "pgrange_portal_" + std::to_string(++c.portals_made);
  // The shards' cursors take the portal's parameters; their rows come in the client's formats.
  std::string declare;
  MessageWriter(declare)
      .begin('P')
      .cstr("")
      .cstr("DECLARE " + name + " NO SCROLL CURSOR FOR " + merge.shard_sql)
      .bytes(run.parameter_types)
      .end();
  MessageWriter(declare).begin('B').cstr("").cstr("").bytes(params).i16(0).end();
  MessageWriter(declare).begin('E').cstr("").i32(0).end();
  MessageWriter(declare).begin('S').end();
  Coordinated::Cursor portal;
  if (!co_await open_shard_cursors(portal, plan.route.shards, declare, out)) {
    skip_until_sync_ = true;
    channel_.send(std::move(out));
    co_return true;
  }
  exec::MergeFormats formats = exec::merge_formats(merge, std::move(results));
  if (plan.route.shards.size() > 1) {
    // Where the merge cannot compare the columns' values, the query's table is gathered: the
    // portal becomes one shard's cursor over its rows.
    auto bound = bind_params(run.bind_rest, run.parameter_types);
    auto instead = one_table_gather(run.statement_text, bound ? &*bound : nullptr);
    if (instead &&
        co_await merge_refuses_cursor(portal, merge, name, formats.shard, formats.client)) {
      if (!co_await close_shard_cursors(portal, name, out)) {
        skip_until_sync_ = true;
        channel_.send(std::move(out));
        co_return true;
      }
      channel_.send(std::move(out));  // its BindComplete
      co_return co_await run_gathered_portal(run, *instead, max_rows);
    }
  }
  std::string fetch;
  MessageWriter(fetch).begin('P').cstr("").cstr(exec::cursor_fetch_sql(name)).i16(0).end();
  MessageWriter bind(fetch);
  bind.begin('B').cstr("").cstr("").i16(0).i16(0).i16(static_cast<int16_t>(formats.shard.size()));
  for (int16_t f : formats.shard) bind.i16(f);
  bind.end();
  MessageWriter(fetch).begin('D').byte('P').cstr("").end();
  MessageWriter(fetch).begin('E').cstr("").i32(0).end();
  MessageWriter(fetch).begin('S').end();
  build_cursor_tree(portal, merge, fetch, name, true, std::move(formats.client));
  auto& held = c.portals[run.portal];
  held = std::move(portal);
  co_await answer_portal(held, max_rows, run.describe, out);
  channel_.send(std::move(out));
  co_return true;
}

awaitable<bool> ClientSession::run_gathered_portal(ExtendedMerge& run,
                                                   const routing::GatherPlan& gather,
                                                   int32_t max_rows) {
  // The tables' rows, read in the transaction; the query with them written in (its `$n` still
  // the Bind's) is the one shard's cursor, read a batch per Execute as any portal's.
  auto read = co_await read_for_bound(run, gather);
  if (!read) co_return true;
  sql::MergeQuery one;
  one.shard_sql = std::move(*read);
  Plan plan;
  plan.merge = std::make_shared<const Result<sql::MergeQuery>>(std::move(one));
  plan.route.shards = {coord_->first_shard >= 0 ? coord_->first_shard : 0};
  co_return co_await run_portal(run, plan, max_rows);
}

awaitable<void> ClientSession::continue_portal(std::string_view body) {
  BodyReader br(body);
  std::string_view name;
  int32_t max_rows = 0;
  br.cstr(name);
  br.i32(max_rows);
  std::string out;
  emit_ready_synthetics(out);
  Coordinated& c = *coord_;
  if (c.failed) {
    write_error(out, aborted_transaction_error());
    skip_until_sync_ = true;
  } else {
    co_await answer_portal(c.portals.at(std::string(name)), max_rows, false, out);
  }
  channel_.send(std::move(out));
}

awaitable<void> ClientSession::answer_portal(Coordinated::Cursor& portal, int32_t max_rows,
                                             bool describe, std::string& out) {
  uint64_t want = max_rows > 0 ? static_cast<uint64_t>(max_rows) : sql::CursorStatement::kAll;
  std::string rows;
  exec::ExecResult<uint64_t> got = 0;
  if (auto e = co_await sync_cursor(portal)) {
    got = tl::unexpected(exec::ExecFailure::of(*e));
  } else {
    got = co_await portal.rows->advance(want, true, rows);
  }
  if (!got) {
    fail_coordinated(got.error().error.value_or(Error{}), got.error().shard_error, out);
    skip_until_sync_ = true;
    co_return;
  }
  if (describe) MessageWriter(out).begin('T').bytes(portal.rows->columns()).end();
  out += rows;
  if (max_rows > 0 && *got == want) {
    MessageWriter(out).begin('s').end();  // PortalSuspended: the next Execute goes on
  } else {
    MessageWriter(out).begin('C').cstr("SELECT " + std::to_string(*got)).end();
  }
}

awaitable<void> ClientSession::declare_held_cursor(const sql::CursorStatement& stmt,
                                                   const Plan& plan, std::string& out,
                                                   const ExtendedMerge* ext,
                                                   const routing::GatherPlan* instead) {
  const sql::MergeQuery& merge = **plan.merge;
  exec::MergeFormats formats = cursor_formats(stmt, merge);
  std::string request = cursor_declare_request(
      "DECLARE " + quote_ident(stmt.name) + (formats.shard.empty() ? "" : " BINARY") +
          " NO SCROLL CURSOR WITH HOLD FOR " + merge.shard_sql,
      ext);
  Coordinated::Cursor cursor;
  std::optional<Error> error;
  std::optional<std::string> shard_error;
  for (int shard : plan.route.shards) {
    auto acquired = co_await acquire_for_client(static_cast<size_t>(shard));
    if (!acquired) {
      error = acquired.error();
      break;
    }
    std::shared_ptr<BackendConnection> conn = *acquired;
    cursor.held = true;
    cursor.conns.push_back(conn);
    cursor.shards.push_back(shard);
    // Outside a block the DECLARE is its own transaction: PostgreSQL materializes the cursor's
    // rows as it commits, and the cursor stays on the connection.
    if (auto e = co_await start_request(*conn, request)) {
      conn->mark_broken();
      error = *e;
      break;
    }
    for (char type = 0; type != 'Z';) {
      std::string body;
      if (auto r = co_await conn->read_message(type, body); !r) {
        conn->mark_broken();
        error = r.error();
        break;
      }
      if (type == 'E' && !shard_error) shard_error = std::move(body);
    }
    if (error || shard_error) break;
  }
  if (error || shard_error) {
    // The cursors made so far are closed with the pool's reset of their connections.
    co_await close_held_cursor(std::move(cursor));  // those made so far
    fail_cursor(error ? *error : Error{}, shard_error, out);
    co_return;
  }
  if (instead != nullptr &&
      co_await merge_refuses_cursor(cursor, merge, stmt.name, {}, formats.client)) {
    // The merge cannot compare the columns' values: the query's table is gathered instead.
    co_await close_held_cursor(std::move(cursor));
    co_await declare_gathered_held_cursor(stmt, *instead, out, ext);
    co_return;
  }
  std::string fetch;
  write_query(fetch, exec::cursor_fetch_sql(quote_ident(stmt.name)));
  build_cursor_tree(cursor, merge, fetch, stmt.name, stmt.no_scroll, std::move(formats.client));
  held_cursors_.emplace(stmt.name, std::move(cursor));
  MessageWriter(out).begin('C').cstr("DECLARE CURSOR").end();
}

awaitable<void> ClientSession::declare_gathered_held_cursor(const sql::CursorStatement& stmt,
                                                            const routing::GatherPlan& gather,
                                                            std::string& out,
                                                            const ExtendedMerge* ext) {
  // The tables' rows, read in a snapshot of each shard of the statement's own; the query with
  // them written in reads no table, and becomes a cursor of the first shard: PostgreSQL
  // materializes its rows as the DECLARE (its own transaction) commits.
  exec::GatherOutcome read = co_await execute_gather(gather, out, GatherSink::kInputs);
  if (!read.ok()) {
    fail_cursor(read.error.value_or(Error::make(sqlstate::kInternalError, "")), read.shard_error,
                out);
    co_return;
  }
  std::string declare = "DECLARE " + quote_ident(stmt.name);
  if (stmt.binary) declare += " BINARY";
  if (stmt.scroll) declare += " SCROLL";
  if (stmt.no_scroll) declare += " NO SCROLL";
  declare += " CURSOR WITH HOLD FOR " + read.statement;
  read.statement.clear();
  // Bound: the query with the rows written in keeps the Bind's `$n`.
  std::string request = cursor_declare_request(declare, ext);
  declare.clear();
  const int shard = 0;
  auto acquired = co_await acquire_for_client(static_cast<size_t>(shard));
  if (!acquired) {
    fail_cursor(acquired.error(), std::nullopt, out);
    co_return;
  }
  Coordinated::Cursor cursor;
  cursor.held = true;
  cursor.whole = true;
  cursor.conns.push_back(*acquired);
  cursor.shards.push_back(shard);
  BackendConnection& conn = **acquired;
  std::optional<Error> error;
  std::optional<std::string> shard_error;
  if (auto e = co_await start_request(conn, std::move(request))) {
    conn.mark_broken();
    error = *e;
  }
  for (char type = 0; !error && type != 'Z';) {
    std::string body;
    if (auto r = co_await conn.read_message(type, body); !r) {
      conn.mark_broken();
      error = r.error();
    } else if (type == 'E' && !shard_error) {
      shard_error = std::move(body);
    }
  }
  if (error || shard_error) {
    co_await close_held_cursor(std::move(cursor));
    fail_cursor(error.value_or(Error{}), shard_error, out);
    co_return;
  }
  held_cursors_.emplace(stmt.name, std::move(cursor));
  MessageWriter(out).begin('C').cstr("DECLARE CURSOR").end();
}

awaitable<void> ClientSession::forward_to_held_cursor(Coordinated::Cursor& cursor,
                                                      std::string_view sql, std::string& out) {
  BackendConnection& conn = *cursor.conns.front();
  std::string request;
  write_query(request, sql);
  std::optional<Error> error;
  std::optional<std::string> shard_error;
  if (auto r = co_await conn.send(request); !r) {
    conn.mark_broken();
    error = r.error();
  }
  for (char type = 0; !error && type != 'Z';) {
    std::string body;
    if (auto r = co_await conn.read_message(type, body); !r) {
      conn.mark_broken();
      error = r.error();
    } else if (type == 'E') {
      if (!shard_error) shard_error = std::move(body);
    } else if (type != 'Z') {
      MessageWriter(out).begin(type).bytes(body).end();  // its rows, notices, CommandComplete
    }
  }
  if (error || shard_error) fail_cursor(error.value_or(Error{}), shard_error, out);
}

awaitable<void> ClientSession::close_held_cursor(Coordinated::Cursor cursor) {
  for (size_t i = 0; i < cursor.conns.size(); ++i) {
    auto& conn = cursor.conns[i];
    bool reusable = false;
    if (!conn->broken()) {
      auto closed = co_await conn->run_simple("CLOSE ALL");
      reusable = static_cast<bool>(closed);
    }
    pool(static_cast<size_t>(cursor.shards[i])).release(conn, reusable);
  }
}

void ClientSession::fail_cursor(const Error& e, const std::optional<std::string>& shard_error,
                                std::string& out) {
  if (coord_) {
    fail_coordinated(e, shard_error, out);
    return;
  }
  if (shard_error) {
    write_shard_error(out, *shard_error);
  } else {
    write_error(out, e);
  }
  if (txn_status_ != 'I' || !deferred_begin_.empty()) txn_status_ = 'E';
}

void ClientSession::fail_coordinated(const Error& e, const std::optional<std::string>& shard_error,
                                     std::string& out) {
  if (shard_error) {
    write_shard_error(out, *shard_error);  // as the shard said it
  } else {
    write_error(out, e);
  }
  coord_->failed = true;
  txn_status_ = 'E';
}

awaitable<bool> ClientSession::open_shard_cursors(Coordinated::Cursor& cursor,
                                                  const std::vector<int>& shards,
                                                  const std::string& request, std::string& out) {
  for (int shard : shards) {
    auto part = co_await coordinated_part(shard);
    if (!part) {
      fail_coordinated(part.error(), std::nullopt, out);
      co_return false;
    }
    if (auto e = co_await start_request(**part, request)) {
      (*part)->mark_broken();
      fail_coordinated(*e, std::nullopt, out);
      co_return false;
    }
    std::optional<std::string> shard_error;
    for (;;) {
      char type = 0;
      std::string body;
      if (auto r = co_await (*part)->read_message(type, body); !r) {
        fail_coordinated(r.error(), std::nullopt, out);
        co_return false;
      }
      if (type == 'E' && !shard_error) shard_error = std::move(body);
      if (type == 'Z') break;
    }
    if (shard_error) {
      fail_coordinated(Error{}, shard_error, out);
      co_return false;
    }
    cursor.shards.push_back(shard);
    cursor.conns.push_back(coord_->parts.at(shard));
  }
  co_return true;
}

}  // namespace pgrange::proxy
