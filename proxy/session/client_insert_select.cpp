// ClientSession: INSERT … SELECT whose rows the shards cannot make on their own (the query
// reads other shards than the rows go to, or the INSERT leaves out a key pgrange makes).
// pgrange runs the query (a merge over several shards, or one shard's), in the block's
// transaction when there is one, then writes the rows out as INSERT … VALUES, which is routed,
// filled with generated keys and committed as any other INSERT of several rows: atomically over
// the shards it reaches (two-phase commit), with the INSERT's own ON CONFLICT and RETURNING.

#include <spdlog/spdlog.h>

#include <utility>  // before asio/awaitable.hpp (Boost 1.74)

#include "proxy/control/control_plane.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/frame_reader.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "sql/insert_select.hpp"
#include "sql/quoting.hpp"
#include "sql/sql_tokens.hpp"

namespace pgrange::proxy {
namespace {

/// The most rows pgrange holds for one INSERT … SELECT (they are written into one statement).
constexpr size_t kInsertSelectRows = 100000;

}  // namespace

awaitable<Result<std::string>> ClientSession::write_parameters_in(
    const std::string& sql, std::string_view parameter_types, const routing::BindParams& params) {
  // The parameters' types as PostgreSQL infers them, from the transaction's first part.
  if (!coord_) co_await become_coordinated();
  auto part = co_await coordinated_part(coord_->first_shard >= 0 ? coord_->first_shard : 0);
  if (!part) co_return tl::unexpected(part.error());
  auto described = co_await inferred_parameter_types(**part, sql, parameter_types);
  if (!described) {
    ErrorFields f = parse_error_fields(described.error());
    co_return tl::unexpected(Error::make(f.sqlstate.empty() ? "XX000" : f.sqlstate,
                                         f.message.empty() ? described.error() : f.message));
  }
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
    std::string request;
    write_query(request, "SELECT t::text, format_type(t, NULL) FROM unnest('{" + unknown +
                             "}'::oid[]) AS t");
    if (auto e = co_await start_request(**part, std::move(request))) {
      (*part)->mark_broken();
      co_return tl::unexpected(*e);
    }
    auto reply = co_await read_replies(**part);
    if (!reply) co_return tl::unexpected(reply.error());
    for (const std::string& row : reply->rows) {
      auto values = data_row_values(row);
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
    literals.push_back("CAST(" + (v ? sql::quote_literal(*v) : std::string("NULL")) + " AS " +
                       names[i] + ")");
  }
  co_return sql::replace_parameters(sql, literals);
}

awaitable<Result<bool>> ClientSession::expand_insert_select(std::string_view sql) {
  expanded_sql_.clear();
  expanded_answer_.clear();
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

  // The query's answer, as the client would get it (text): read only up to the rows pgrange
  // holds for one INSERT … SELECT.
  const RowCap cap{
      kInsertSelectRows,
      not_supported("INSERT … SELECT of more than " + std::to_string(kInsertSelectRows) +
                        " rows whose query reads other shards than its rows go to "
                        "is not supported",
                    "insert them in parts, or with COPY")};
  std::string answer;
  std::vector<std::shared_ptr<BackendConnection>> conns;  // borrowed outside a block
  std::vector<std::shared_ptr<BackendConnection>> used;
  std::optional<Error> error;
  if (merged || gathered) {
    // Over several shards: the tree of operators a SELECT's plan makes (over the block's parts
    // in a block), its whole answer (an error included) kept in `answer`.
    co_await send_read(source, ins->query, nullptr, answer, false, &cap);
  } else {
    int shard = !source.route.shards.empty() ? source.route.shards.front()
                : source.shard >= 0          ? source.shard
                                             : 0;
    if (coord_) {
      auto part = co_await coordinated_part(shard);
      if (part) {
        used.push_back(coord_->parts.at(shard));
      } else {
        error = part.error();
      }
    } else {
      auto acquired = co_await acquire_for_client(static_cast<size_t>(shard));
      if (acquired) {
        conns.push_back(*acquired);
        used.push_back(*acquired);
      } else {
        error = acquired.error();
      }
    }
    if (!error) {
      std::string request;
      write_query(request, ins->query);
      if (auto e = co_await start_request(*used[0], std::move(request))) {
        used[0]->mark_broken();
        error = *e;
      }
    }
    // Past the cap the rest is read (the connection stays usable) but not kept.
    uint64_t rows = 0;
    bool past = false;
    for (char type = 0; !error && type != 'Z';) {
      std::string body;
      if (auto r = co_await used[0]->read_message(type, body); !r) {
        error = r.error();
      } else if (type == 'D' && ++rows > cap.rows) {
        past = true;
      } else if (!past && (type == 'T' || type == 'D' || type == 'E' || type == 'C')) {
        MessageWriter(answer).begin(type).bytes(body).end();
      }
    }
    if (past && !error) error = cap.error;
  }
  // Gives the borrowed connections back; the error fails the block's transaction.
  auto done = [&](std::optional<Error> e) -> Result<bool> {
    for (auto& conn : conns) {
      worker_.pool(static_cast<size_t>(conn->shard_index())).release(conn, !conn->broken());
    }
    conns.clear();
    if (!e) return true;
    if (coord_) coord_->failed = true;
    return tl::unexpected(*e);
  };
  if (error) co_return done(error);

  // Its rows as VALUES.
  std::string values;
  size_t rows = 0;
  for (std::string_view rest = answer;;) {
    FrameResult fr = read_typed_frame(rest, rest.size());
    if (fr.status != FrameStatus::kReady) break;
    char type = fr.frame.type;
    std::string_view body = fr.frame.body;
    rest.remove_prefix(fr.frame.total_size);
    if (type == 'E') {
      ErrorFields f = parse_error_fields(body);
      co_return done(Error::make(f.sqlstate, f.message));
    }
    if (type != 'D') continue;
    ++rows;
    BodyReader b(body);
    int16_t n = 0;
    b.i16(n);
    values += rows == 1 ? " VALUES (" : ", (";
    for (int16_t i = 0; i < n; ++i) {
      int32_t vlen = 0;
      std::string_view v;
      b.i32(vlen);
      if (i > 0) values += ", ";
      if (vlen < 0) {
        values += "NULL";
      } else {
        b.bytes(static_cast<size_t>(vlen), v);
        values += sql::quote_literal(v);
      }
    }
    values += ")";
  }
  if (rows == 0 && used.empty()) {
    // A query over several shards held its connections only while it ran: one for the
    // answer below.
    if (coord_) {
      int shard = coord_->first_shard >= 0 ? coord_->first_shard : 0;
      auto part = co_await coordinated_part(shard);
      if (!part) co_return done(part.error());
      used.push_back(coord_->parts.at(shard));
    } else {
      auto acquired = co_await acquire_for_client(0);
      if (!acquired) co_return done(acquired.error());
      conns.push_back(*acquired);
      used.push_back(*acquired);
    }
  }
  if (rows == 0) {
    // Nothing to insert: the INSERT with a query that finds nothing anywhere gives
    // PostgreSQL's answer (RETURNING's columns included) from one shard.
    std::string none = ins->before_rows + " SELECT * FROM (" + ins->query +
                       ") AS pgrange_no_rows WHERE false" + ins->after_rows;
    std::string request;
    write_query(request, none);
    if (auto e = co_await start_request(*used[0], std::move(request))) {
      used[0]->mark_broken();
      co_return done(*e);
    }
    std::optional<Error> failed;
    for (char type = 0; type != 'Z';) {
      std::string body;
      if (auto r = co_await used[0]->read_message(type, body); !r) {
        co_return done(r.error());
      } else if (type == 'E' && !failed) {
        ErrorFields f = parse_error_fields(body);
        failed = Error::make(f.sqlstate, f.message);
      } else if (type == 'T' || type == 'C') {
        MessageWriter(expanded_answer_).begin(type).bytes(body).end();
      }
    }
    if (failed) expanded_answer_.clear();
    co_return done(failed);
  }
  expanded_sql_ = ins->before_rows + values + ins->after_rows;
  co_return done(std::nullopt);
}

}  // namespace pgrange::proxy
