// ClientSession: a data-modifying WITH over tables spread across several shards
// (`WITH d AS (DELETE … RETURNING …) INSERT INTO archive SELECT * FROM d`). PostgreSQL runs the
// CTEs and the statement as one, on one snapshot; pgrange runs each data-modifying CTE as a
// statement of its own, keeps its RETURNING rows, and runs the statement with those rows
// written in place of the CTE, all in one transaction over the shards (the block's, or one of
// its own committed with two-phase commit when several shards wrote). What one snapshot would
// let the statement see differently (a table a data-modifying CTE writes, read or written by
// any other part of the statement) is refused.

#include <spdlog/spdlog.h>

#include <utility>  // before asio/awaitable.hpp (Boost 1.74)

#include "proxy/exec/insert_parts.hpp"
#include "proxy/session/bound_answer.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/frame_reader.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "routing/merge/merge_rows.hpp"
#include "sql/modifying_with.hpp"
#include "sql/session_statement.hpp"

namespace pgrange::proxy {

namespace {

/// The messages of `answer` of the given types, in order (type byte and length included).
std::string messages_of(std::string_view answer, std::string_view types) {
  std::string out;
  for (std::string_view rest = answer;;) {
    FrameResult fr = read_typed_frame(rest, rest.size());
    if (fr.status != FrameStatus::kReady) break;
    if (types.find(fr.frame.type) != std::string_view::npos) {
      out += rest.substr(0, fr.frame.total_size);
    }
    rest.remove_prefix(fr.frame.total_size);
  }
  return out;
}

}  // namespace

Result<std::optional<sql::ModifyingWith>> ClientSession::modifying_with_plan(std::string_view sql) {
  std::optional<sql::ModifyingWith> none;
  if (worker_.pool_count() < 2 || !transaction_pooling_ || pinned() || temp_objects_ ||
      txn_status_ == 'E') {
    return none;
  }
  const Analysis analysis = worker_.analyze(sql);
  if (!*analysis || (*analysis)->size() != 1) return none;
  const sql::StatementInfo& info = (*analysis)->front();
  bool modifies = std::any_of(info.relations.begin(), info.relations.end(),
                              [](const sql::RelationUse& u) { return u.writes && !u.target; });
  if (!modifies) return none;
  auto view = routing_view();
  if (view == nullptr) return none;
  // On one shard (or co-located ranges) the statement runs there whole, as PostgreSQL runs it.
  routing::Route route = routing::route_statements(*view, **analysis);
  if (!route.refusal || route.refusal->sqlstate != sqlstate::kFeatureNotSupported) {
    return none;
  }
  auto split = sql::modifying_with(std::string_view(sql).substr(info.begin, info.end - info.begin));
  if (!split) return tl::unexpected(split.error());
  if (!*split) return none;
  const sql::ModifyingWith& with = **split;
  // PostgreSQL runs every part on one snapshot: no part sees what another writes, and the
  // actions of foreign keys come at the statement's end. One after the other they would see
  // them, where a table a data-modifying CTE writes is used anywhere else: directly (by its
  // name, in any schema), through a view or a function, or (a reference table, which foreign
  // keys may reference) by what reads or changes another table's rows.
  auto cte_of = [&](int location) -> const sql::ModifyingWith::Cte* {
    if (location < 0) return nullptr;
    size_t at = static_cast<size_t>(location) - info.begin;
    for (const auto& c : with.ctes) {
      if (c.writes && at >= c.body && at < c.body_end) return &c;
    }
    return nullptr;
  };
  auto refused = [](const std::string& table, const std::string& how) {
    return tl::unexpected(not_supported(
        "a data-modifying WITH over several shards that writes table \"" + table +
            "\" and uses it elsewhere in the statement (" + how + ") is not supported",
        "write the table in a statement of its own, in a transaction block"));
  };
  for (const sql::RelationUse& w : info.relations) {
    if (!w.writes || w.target) continue;
    const sql::ModifyingWith::Cte* mine = cte_of(w.location);
    const routing::TableDescriptor* written = view->find_table(w.table.schema, w.table.name);
    for (const sql::RelationUse& u : info.relations) {
      if (cte_of(u.location) == mine && mine != nullptr) continue;
      if (u.table.name == w.table.name) return refused(w.table.name, u.construct);
      if (const routing::ReaderDescriptor* v = view->find_view(u.table.schema, u.table.name)) {
        if (!v->reads.empty()) return refused(w.table.name, "view \"" + u.table.name + "\"");
      }
      bool insert_target = u.target && info.kind == sql::StatementKind::kInsert;
      if (written != nullptr && written->reference && !insert_target) {
        return refused(w.table.name, "its foreign keys' actions on table \"" + u.table.name +
                                         "\", at the statement's end");
      }
    }
    for (const sql::TableRef& f : info.functions) {
      for (const routing::ReaderDescriptor* r : view->find_functions(f.schema, f.name)) {
        if (!r->reads.empty() || !r->calls.empty()) {
          return refused(w.table.name, "function " + f.name + "()");
        }
      }
    }
  }
  if (!floats_exact()) {
    return tl::unexpected(not_supported(
        "a data-modifying WITH over several shards in a session whose extra_float_digits is "
        "below 1 is not supported",
        "SET extra_float_digits = 1 or more"));
  }
  for (size_t i = 0; i < with.ctes.size(); ++i) {
    const sql::ModifyingWith::Cte& c = with.ctes[i];
    if (!c.writes || c.returning) continue;
    // Read anywhere, it has no rows to read: PostgreSQL's own error.
    std::string elsewhere = with.text.substr(0, c.head) + " " + with.text.substr(c.body_end + 1);
    if (with.names_cte(elsewhere, i)) {
      return tl::unexpected(
          Error::make(sqlstate::kFeatureNotSupported,
                      "WITH query \"" + c.name + "\" does not have a RETURNING clause"));
    }
  }
  bool in_block = txn_status_ != 'I' || !deferred_begin_.empty();
  if (backend_ || (in_block && !coord_ && !can_coordinate())) {
    return tl::unexpected(not_supported(
        "a data-modifying WITH over several shards in a transaction tied to one connection is "
        "not supported yet",
        "run it outside a transaction block, or before the block's other statements"));
  }
  return std::move(*split);
}

awaitable<void> ClientSession::modifying_with_steps(const sql::ModifyingWith& with,
                                                    std::string& answer) {
  coord_->lock_timeout = true;  // several statements, in order: a wait may be half a deadlock
  std::vector<std::string> bodies = with.bodies();
  for (size_t i = 0; i < with.ctes.size() && !coord_->failed; ++i) {
    if (!with.ctes[i].writes) continue;
    auto statement = with.cte_statement(i, bodies);
    if (!statement) {
      fail_modifying_with(statement.error(), answer);
      break;
    }
    std::string rows;
    co_await run_with_part(*statement, rows);
    if (coord_->failed) {
      answer += messages_of(rows, "EN");
      break;
    }
    if (!with.ctes[i].returning) {
      bodies[i] = "SELECT";  // no column, as PostgreSQL's CTE without RETURNING
      continue;
    }
    auto written = co_await rows_written_in(rows);
    if (!written) {
      fail_modifying_with(written.error(), answer);
      break;
    }
    bodies[i] = std::move(*written);
  }
  if (!coord_->failed) {
    std::string statement = with.with_bodies(bodies);
    spdlog::debug("session {}: data-modifying WITH runs as: {}", key_pid_, statement);
    std::string out;
    co_await run_with_part(statement, out);
    answer += coord_->failed ? messages_of(out, "EN") : out;
  }
}

awaitable<Result<bool>> ClientSession::run_modifying_with(std::string_view sql) {
  auto planned = modifying_with_plan(sql);
  if (!planned) co_return tl::unexpected(planned.error());
  if (!*planned) co_return false;
  bool implicit = !coord_ && txn_status_ == 'I' && deferred_begin_.empty();
  if (!coord_) co_await become_coordinated();
  std::string answer;  // the client's
  co_await modifying_with_steps(**planned, answer);
  if (implicit) {
    bool commit = !coord_->failed;
    if (auto e = co_await end_implicit_transaction(commit)) {
      // Committed first on PostgreSQL too: when the commit fails, the rows came and the
      // CommandComplete does not.
      if (commit) answer = messages_of(answer, "TDN");
      write_error(answer, *e);
    }
  }
  write_ready_for_query(answer, txn_status_);
  channel_.send(std::move(answer));
  co_return true;
}

awaitable<bool> ClientSession::run_bound_modifying_with(ExtendedMerge& run) {
  // Its parameters written in as literals of their types; the steps as for a Query, in the
  // block's transaction or the pipeline's own (ended at its Sync).
  std::string text = run.statement_text;
  auto params = bind_params(run.bind_rest, run.parameter_types);
  if (!params) {
    fail_bound(run, Error::make(sqlstate::kProtocolViolation, "invalid Bind message"),
               std::nullopt);
    co_return true;
  }
  if (!params->values.empty()) {
    auto bound = co_await write_parameters_in(text, run.parameter_types, *params);
    if (!bound) {
      fail_bound(run, bound.error(), std::nullopt);
      co_return true;
    }
    text = std::move(*bound);
  }
  auto planned = modifying_with_plan(text);
  if (!planned || !*planned) {
    fail_bound(run,
               planned ? not_supported("this data-modifying WITH over several shards is not "
                                       "supported")
                       : planned.error(),
               std::nullopt);
    co_return true;
  }
  if (!coord_) co_await become_coordinated();
  std::string answer;
  co_await modifying_with_steps(**planned, answer);
  std::string_view values;
  std::vector<int16_t> formats;
  if (!coord_->failed && split_bind(run.bind_rest, values, formats)) {
    if (auto e = in_result_formats(answer, formats, floats_exact())) {
      answer.clear();
      fail_modifying_with(*e, answer);
    }
  }
  as_bound_answer(answer, run.describe);
  std::string reply;
  emit_ready_synthetics(reply);
  if (!run.bind_answered) MessageWriter(reply).begin('2').end();
  run.bind_answered = true;
  reply += answer;
  // PostgreSQL skips to the Sync after an error; else what follows goes on in the transaction.
  skip_until_sync_ = coord_->failed;
  channel_.send(std::move(reply));
  co_return true;
}

void ClientSession::fail_modifying_with(const Error& e, std::string& answer) {
  write_error(answer, e);
  coord_->failed = true;
  txn_status_ = 'E';
}

awaitable<void> ClientSession::run_with_part(const std::string& sql, std::string& out) {
  // As a Query of it would go: its INSERT … SELECT rows routed, the tables its write reads
  // read, the keys pgrange makes written in, then planned in the transaction.
  std::string text = sql;
  std::string kw = sql::leading_keyword(text);
  if (kw == "with") {
    // WITH … INSERT … query: an INSERT … SELECT whose query has the WITH.
    if (auto inside = sql::with_inside_insert(text)) {
      text = std::move(*inside);
      kw = "insert";
    }
  }
  bool expanded = false;
  if (kw == "insert") {
    auto e = co_await expand_insert_select(text);
    if (!e) {
      fail_modifying_with(e.error(), out);
      co_return;
    }
    expanded = *e;
    if (expanded && insert_rows_) {
      insert_rows_.reset();
      fail_modifying_with(
          not_supported("a data-modifying WITH over several shards whose INSERT … SELECT writes "
                        "more than " +
                        std::to_string(exec::InsertParts::kPartRows) + " rows is not supported"),
          out);
      co_return;
    }
    if (expanded && !expanded_answer_.empty()) {
      out += expanded_answer_;
      co_return;
    }
  }
  if (!expanded && (kw == "update" || kw == "delete" || kw == "insert" || kw == "with")) {
    auto e = co_await expand_write_reads(text);
    if (!e) {
      fail_modifying_with(e.error(), out);
      co_return;
    }
    expanded = *e;
  }
  if (expanded) text = expanded_sql_;
  auto filled = co_await fill_generated_keys(text);
  if (!filled) {
    fail_modifying_with(filled.error(), out);
    co_return;
  }
  if (*filled) text = std::move(**filled);
  Plan p = plan_text('Q', text);
  if (p.kind == Plan::Kind::kWait) {
    p = co_await wait_out_moves(std::move(p), [&] { return plan_text('Q', text); });
  }
  if (p.kind == Plan::Kind::kRead) {
    if (!co_await send_read(p, text, nullptr, out, false)) {
      coord_->failed = true;
      txn_status_ = 'E';
    }
    co_return;
  }
  if (p.kind != Plan::Kind::kCoordinate) {
    fail_modifying_with(p.kind == Plan::Kind::kRefuse && p.error
                            ? *p.error
                            : not_supported("this statement in a data-modifying WITH over "
                                            "several shards is not supported"),
                        out);
    co_return;
  }
  co_await run_coordinated(text, p, nullptr, true, &out);
}

awaitable<Result<std::string>> ClientSession::rows_written_in(std::string_view answer) {
  std::vector<routing::ResultField> fields;
  std::vector<std::vector<std::optional<std::string>>> rows;
  size_t bytes = 0;
  const auto memory = static_cast<size_t>(config().query_memory);
  for (std::string_view rest = answer;;) {
    FrameResult fr = read_typed_frame(rest, rest.size());
    if (fr.status != FrameStatus::kReady) break;
    std::string_view body = rest.substr(5, fr.frame.total_size - 5);
    if (fr.frame.type == 'T') {
      auto f = routing::read_row_description(body);
      if (!f) co_return tl::unexpected(f.error());
      fields = std::move(*f);
    } else if (fr.frame.type == 'D') {
      bytes += body.size();
      if (bytes > memory) {
        co_return tl::unexpected(query_memory_exceeded(
            "the RETURNING rows of a data-modifying WITH over several shards", memory,
            "pgrange holds them until the statement that reads them runs.",
            "write the rows in parts, or raise query_memory"));
      }
      rows.push_back(data_row_values(body));
    }
    rest.remove_prefix(fr.frame.total_size);
  }
  if (fields.empty()) {
    co_return tl::unexpected(
        Error::make(sqlstate::kInternalError, "a data-modifying WITH's RETURNING gave no columns"));
  }
  // The columns' types as format_type writes them (with their modifiers), asked of a part.
  std::vector<std::string> names, types;
  for (const auto& f : fields) names.push_back(f.name);
  int shard = coord_->first_shard >= 0 ? coord_->first_shard : 0;
  auto part = co_await coordinated_part(shard);
  if (!part) co_return tl::unexpected(part.error());
  auto named = co_await query_rows(**part, routing::format_types_query(fields));
  if (!named) co_return tl::unexpected(named.error());
  for (const auto& values : *named) {
    if (values.size() != 1 || !values[0]) break;
    types.push_back(*values[0]);
  }
  if (types.size() != names.size()) {
    co_return tl::unexpected(Error::make(sqlstate::kInternalError,
                                         "cannot name the types of a data-modifying WITH's rows"));
  }
  co_return sql::rows_query(names, types, rows);
}

}  // namespace pgrange::proxy
