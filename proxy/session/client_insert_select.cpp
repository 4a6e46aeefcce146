// ClientSession: INSERT … SELECT whose rows the shards cannot make on their own (the query
// reads other shards than the rows go to, or the INSERT leaves out a key pgrange makes).
// pgrange runs the query (a merge over several shards, or one shard's), in the block's
// transaction when there is one, then writes the rows out as INSERT … VALUES, which is routed,
// filled with generated keys and committed as any other INSERT of several rows: atomically over
// the shards it reaches (two-phase commit), with the INSERT's own ON CONFLICT and RETURNING.

#include <spdlog/spdlog.h>

#include <utility>  // before asio/awaitable.hpp (Boost 1.74)

#include "proxy/control/control_plane.hpp"
#include "proxy/exec/insert_parts.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/frame_reader.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "routing/keys/key_type.hpp"
#include "sql/insert_select.hpp"
#include "sql/quoting.hpp"
#include "sql/sql_tokens.hpp"

namespace pgrange::proxy {

awaitable<Result<std::string>> ClientSession::write_parameters_in(
    const std::string& sql, std::string_view parameter_types, const routing::BindParams& params) {
  // The parameters' types as PostgreSQL infers them, from the transaction's first part.
  if (!coord_) co_await become_coordinated();
  auto part = co_await coordinated_part(coord_->first_shard >= 0 ? coord_->first_shard : 0);
  if (!part) co_return tl::unexpected(part.error());
  auto described = co_await inferred_parameter_types(**part, sql, parameter_types);
  if (!described) co_return tl::unexpected(error_of_response(described.error()));
  BodyReader r(*described);
  int16_t count = 0;
  std::vector<uint32_t> oids;
  if (r.i16(count)) {
    for (int16_t i = 0; i < count; ++i) {
      int32_t oid = 0;
      if (!r.i32(oid)) break;
      oids.push_back(static_cast<uint32_t>(oid));
    }
  }
  if (oids.size() != params.values.size()) {
    co_return tl::unexpected(Error::make(
        sqlstate::kProtocolViolation,
        "bind message supplies " + std::to_string(params.values.size()) +
            " parameters, but prepared statement \"\" requires " + std::to_string(oids.size())));
  }
  // Names of the types pgrange does not know by their OID (enums, domains, …), asked once.
  std::vector<std::string> names(oids.size());
  std::string unknown;
  for (size_t i = 0; i < oids.size(); ++i) {
    names[i] = std::string(routing::builtin_type_name(oids[i]));
    if (names[i].empty()) unknown += (unknown.empty() ? "" : ",") + std::to_string(oids[i]);
  }
  if (!unknown.empty()) {
    auto rows = co_await query_rows(**part, "SELECT t::text, format_type(t, NULL) FROM unnest('{" +
                                                unknown + "}'::oid[]) AS t");
    if (!rows) co_return tl::unexpected(rows.error());
    for (const auto& values : *rows) {
      if (values.size() != 2 || !values[0] || !values[1]) continue;
      for (size_t i = 0; i < oids.size(); ++i) {
        if (names[i].empty() && std::to_string(oids[i]) == *values[0]) names[i] = *values[1];
      }
    }
  }
  std::vector<std::string> literals;
  for (size_t i = 0; i < oids.size(); ++i) {
    if (names[i].empty()) {
      co_return tl::unexpected(
          Error::make(sqlstate::kInternalError, "no type of OID " + std::to_string(oids[i])));
    }
    const auto& v = params.values[i];
    std::optional<std::string> text;
    if (v) text = std::string(*v);
    int16_t format = params.formats.size() == 1  ? params.formats[0]
                     : i < params.formats.size() ? params.formats[i]
                                                 : 0;
    if (v && format != 0) {
      // A binary value (pgjdbc binds its integers so): its text, for the types pgrange reads.
      auto type = routing::key_type_from_oid(oids[i]);
      if (!type) {
        co_return tl::unexpected(not_supported(
            "INSERT … SELECT whose rows pgrange routes, bound with a parameter of type " +
                names[i] + " in the binary format, is not supported",
            "bind it in the text format"));
      }
      text = params.text(static_cast<int>(i + 1), *type);
      if (!text) {
        co_return tl::unexpected(Error::make(
            "22P03", "incorrect binary data format in bind parameter " + std::to_string(i + 1)));
      }
    }
    literals.push_back("CAST(" + (text ? sql::quote_literal(*text) : std::string("NULL")) + " AS " +
                       names[i] + ")");
  }
  co_return sql::replace_parameters(sql, literals);
}

awaitable<Result<bool>> ClientSession::expand_insert_select(std::string_view sql) {
  expanded_sql_.clear();
  expanded_answer_.clear();
  insert_rows_.reset();
  if (worker_.pool_count() < 2 || !transaction_pooling_ || pinned() || temp_objects_) {
    co_return false;
  }
  // The analysis is cached and used again to route: an INSERT … VALUES costs nothing more.
  const Analysis analysis = worker_.analyze(sql);
  if (!*analysis || (*analysis)->size() != 1 ||
      (*analysis)->front().kind != sql::StatementKind::kInsert ||
      (*analysis)->front().insert_values) {
    co_return false;
  }
  auto ins = sql::read_insert_select(sql);
  if (!ins) co_return false;
  // Left as it is when the shards can run it: on one shard, making no key pgrange makes.
  auto fill = generated_key_fill(sql);
  bool makes_keys = !fill && fill.error().sqlstate == sqlstate::kFeatureNotSupported;
  if (!fill && !makes_keys) co_return false;  // PostgreSQL's error: the normal path says it
  if (!makes_keys) {
    Plan whole = plan_text('Q', sql);
    if (whole.kind != Plan::Kind::kRefuse || !whole.error ||
        whole.error->sqlstate != sqlstate::kFeatureNotSupported) {
      co_return false;
    }
  }
  bool in_block = txn_status_ != 'I' || !deferred_begin_.empty();
  if (txn_status_ == 'E') co_return false;  // the aborted block answers it
  Plan source = plan_text('Q', ins->query);
  if (source.kind == Plan::Kind::kRefuse && source.error) co_return tl::unexpected(*source.error);
  bool merged = source.merge && *source.merge && source.route.shards.size() > 1;
  bool gathered = source.gather != nullptr;
  bool one_shard = source.kind == Plan::Kind::kPass ||
                   (source.kind == Plan::Kind::kCoordinate && !merged && !gathered);
  if (!merged && !one_shard && !gathered) {
    co_return tl::unexpected(not_supported(
        "INSERT … SELECT whose query pgrange cannot run over several shards is not supported"));
  }
  if (backend_ || (in_block && !coord_ && !can_coordinate())) {
    co_return tl::unexpected(not_supported(
        "INSERT … SELECT whose rows go to other shards than its query reads, in a transaction "
        "tied to one connection, is not supported yet",
        "run it outside a transaction block, or before the block's other statements"));
  }
  if (in_block && !coord_) co_await become_coordinated();

  // The query's answer, as the client would get it (text): held in pgrange until its rows are
  // written, so read only up to query_memory's bytes.
  const uint64_t memory = config().query_memory;
  const AnswerCap cap{
      memory, query_memory_exceeded("the rows of this INSERT … SELECT", memory,
                                    "pgrange holds the rows of its query until it writes them, "
                                    "because they go to other shards than the query reads.",
                                    "insert them in parts or with COPY, or raise query_memory in "
                                    "pgrange's configuration")};
  // The tree of operators of the query's plan (over the block's parts in a block): a merge or
  // gather over several shards, or one shard's answer relayed; its whole answer (an error
  // included) kept in `answer`.
  if (one_shard) {
    int shard = !source.route.shards.empty()         ? source.route.shards.front()
                : source.shard >= 0                  ? source.shard
                : coord_ && coord_->first_shard >= 0 ? coord_->first_shard
                                                     : 0;
    source.route.shards = {shard};
    source.merge = std::make_shared<const Result<sql::MergeQuery>>(sql::relayed(ins->query));
    source.gather.reset();
  }
  std::string answer;
  co_await send_read(source, ins->query, nullptr, answer, false, &cap);
  // A failure fails the block's transaction.
  auto done = [&](std::optional<Error> e) -> Result<bool> {
    if (!e) return true;
    if (coord_) coord_->failed = true;
    return tl::unexpected(*e);
  };

  // Its rows as VALUES: in one INSERT, or in parts past one INSERT's worth of them.
  exec::InsertParts parts(std::move(answer), ins->before_rows, ins->after_rows);
  if (parts.error()) co_return done(*parts.error());
  if (parts.rows() == 0) {
    // Nothing to insert: the INSERT with a query that finds nothing anywhere gives
    // PostgreSQL's answer (RETURNING's columns included) from one shard. `(query) LIMIT 0`
    // keeps an untyped literal of the query (SELECT NULL, …) the target column's, as the
    // INSERT's own query; one with a LIMIT of its own goes in a derived table instead.
    std::string none = ins->limited
                           ? ins->before_rows + " SELECT * FROM (" + ins->query +
                                 ") AS pgrange_no_rows WHERE false" + ins->after_rows
                           : ins->before_rows + " (" + ins->query + ") LIMIT 0" + ins->after_rows;
    // (An INSERT, which no read's tree runs: sent on a connection of its own, or the block's
    // first part.)
    std::shared_ptr<BackendConnection> conn;
    bool borrowed = !coord_;
    if (coord_) {
      int shard = coord_->first_shard >= 0 ? coord_->first_shard : 0;
      auto part = co_await coordinated_part(shard);
      if (!part) co_return done(part.error());
      conn = coord_->parts.at(shard);
    } else {
      auto acquired = co_await acquire_for_client(0);
      if (!acquired) co_return done(acquired.error());
      conn = *acquired;
    }
    std::optional<Error> failed;
    std::string request;
    write_query(request, none);
    if (auto e = co_await start_request(*conn, std::move(request))) {
      conn->mark_broken();
      failed = *e;
    }
    for (char type = 0; !failed && type != 'Z';) {
      std::string body;
      if (auto r = co_await conn->read_message(type, body); !r) {
        failed = r.error();
      } else if (type == 'E') {
        failed = error_of_response(body);
        // The rest of the answer, up to its ReadyForQuery, leaves the connection usable.
        for (char rest = 0; rest != 'Z';) {
          if (!co_await conn->read_message(rest, body)) {
            conn->mark_broken();
            break;
          }
        }
      } else if (type == 'T' || type == 'C') {
        MessageWriter(expanded_answer_).begin(type).bytes(body).end();
      }
    }
    if (borrowed) pool(0).release(conn, !conn->broken());
    if (failed) expanded_answer_.clear();
    co_return done(failed);
  }
  std::optional<std::string> first = parts.next();
  if (parts.rows_left() == 0) {
    // One INSERT holds them all: it goes on as if the client had sent it.
    expanded_sql_ = std::move(*first);
    co_return done(std::nullopt);
  }
  // ON CONFLICT DO UPDATE may not change a row twice in one statement: in parts, a row of a
  // later part would change one of an earlier part where PostgreSQL raises 21000.
  if ((*analysis)->front().on_conflict_update) {
    co_return done(not_supported(
        "INSERT … SELECT … ON CONFLICT DO UPDATE of more than " +
            std::to_string(exec::InsertParts::kPartRows) +
            " rows whose query reads other shards than its rows go to is not supported",
        "insert them in parts"));
  }
  // The first part, written first.
  insert_rows_ = std::make_unique<InsertRows>(InsertRows{std::move(parts), std::move(first)});
  co_return done(std::nullopt);
}

std::optional<std::string> ClientSession::next_insert_part() {
  if (!insert_rows_) return std::nullopt;
  std::optional<std::string> part = std::move(insert_rows_->ready);
  insert_rows_->ready.reset();
  if (!part) part = insert_rows_->parts.next();
  if (!part) insert_rows_.reset();
  return part;
}

awaitable<void> ClientSession::write_insert_parts(std::string& steps) {
  if (!coord_) co_await become_coordinated();
  while (coord_ && !coord_->failed) {
    std::optional<std::string> part = next_insert_part();
    if (!part) break;
    // Keys pgrange makes, written in as for a Query's INSERT.
    auto filled = co_await fill_generated_keys(*part);
    if (!filled) {
      write_error(steps, filled.error());
      coord_->failed = true;
      txn_status_ = 'E';
      break;
    }
    if (*filled) part = std::move(**filled);
    Plan p = plan_text('Q', *part);
    if (p.kind == Plan::Kind::kWait) {
      p = co_await wait_out_moves(std::move(p), [&] { return plan_text('Q', *part); });
    }
    if (p.kind == Plan::Kind::kCoordinate) {
      co_await run_coordinated(*part, p, nullptr, true);
      continue;
    }
    write_error(steps,
                p.kind == Plan::Kind::kRefuse && p.error
                    ? *p.error
                    : not_supported("this INSERT … SELECT is not supported by pgrange here yet"));
    coord_->failed = true;
    txn_status_ = 'E';
  }
  insert_rows_.reset();
}

}  // namespace pgrange::proxy
