#include "routing/moves/range_data.hpp"

#include <libpq-fe.h>

#include <charconv>
#include <optional>
#include <vector>

#include "routing/plan/key_predicate.hpp"

namespace pgrange::routing {
namespace {

// ---------------------------------------------------------------------------------------------
// libpq helpers

struct ConnDeleter {
  void operator()(PGconn* c) const { PQfinish(c); }
};
using Conn = std::unique_ptr<PGconn, ConnDeleter>;

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, ResultDeleter>;

std::string chomp(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

/// The error of a failed command: the server's SQLSTATE, or 08006 when the connection broke.
Error command_error(PGconn* conn, const PGresult* res, std::string_view what) {
  const char* state = res != nullptr ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  std::string msg =
      chomp(res != nullptr && *PQresultErrorMessage(res) != '\0' ? PQresultErrorMessage(res)
                                                                 : PQerrorMessage(conn));
  std::string_view code = state != nullptr                  ? std::string_view(state)
                          : PQstatus(conn) != CONNECTION_OK ? sqlstate::kConnectionFailure
                                                            : sqlstate::kInternalError;
  return Error::make(code, std::string(what) + ": " + msg);
}

Result<Conn> connect(const std::string& dsn, std::string_view role) {
  Conn conn(PQconnectdb(dsn.c_str()));
  if (!conn) return fail(sqlstate::kConnectionFailure, "out of memory connecting to the shard");
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    const std::string shard = role.empty() ? "shard" : std::string(role) + " shard";
    return fail(sqlstate::kConnectionFailure,
                "cannot connect to the " + shard + ": " + chomp(PQerrorMessage(conn.get())));
  }
  // The predicates' literals rely on backslashes being ordinary characters.
  PgResult r(PQexec(conn.get(), "SET standard_conforming_strings = on"));
  if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
    return fail(command_error(conn.get(), r.get(), "setting up the shard connection"));
  }
  return conn;
}

/// Runs one command that must succeed (command or rows).
Result<PgResult> exec(PGconn* conn, const std::string& sql, std::string_view what) {
  PgResult r(PQexec(conn, sql.c_str()));
  auto st = PQresultStatus(r.get());
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
    return fail(command_error(conn, r.get(), what));
  }
  return r;
}

/// COMMIT, which must really commit (a failed transaction's COMMIT reports ROLLBACK).
Result<void> commit(PGconn* conn, std::string_view what) {
  auto r = exec(conn, "COMMIT", what);
  if (!r) return tl::unexpected(r.error());
  if (std::string_view(PQcmdStatus(r->get())) != "COMMIT") {
    return fail(sqlstate::kInternalError, std::string(what) + ": the transaction was rolled back");
  }
  return {};
}

int64_t to_int64(const char* text) {
  int64_t v = 0;
  std::string_view s(text);
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

/// Rows affected by a command (DELETE n, COPY n).
int64_t affected_rows(const PGresult* r) {
  return to_int64(PQcmdTuples(const_cast<PGresult*>(r)));
}

/// Reads the rest of a command's results so the connection is ready for the next one.
void drain(PGconn* conn) {
  while (PGresult* more = PQgetResult(conn)) PQclear(more);
}

/// The columns COPY moves: not dropped, not generated, in attribute order, quoted.
Result<std::string> copy_columns(PGconn* conn, const std::string& table_name) {
  const char* params[] = {table_name.c_str()};
  PgResult r(PQexecParams(conn,
                          "SELECT quote_ident(attname) FROM pg_attribute WHERE attrelid = "
                          "$1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '' "
                          "ORDER BY attnum",
                          1, nullptr, params, nullptr, nullptr, 0));
  if (PQresultStatus(r.get()) != PGRES_TUPLES_OK) {
    return fail(command_error(conn, r.get(), "reading the columns of " + table_name));
  }
  std::string list;
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    if (i > 0) list += ", ";
    list += PQgetvalue(r.get(), i, 0);
  }
  return list;
}

/// Streams `COPY (SELECT …) TO STDOUT` on the source into `COPY … FROM STDIN` on the target;
/// returns the rows the target took (the source's count must agree).
Result<int64_t> stream_rows(PGconn* source, PGconn* target, const std::string& table_name,
                            const std::string& columns, const std::string& predicate) {
  // ONLY: a partitioned table's or an inheritance parent's own rows; its members move as
  // relations of their own.
  const std::string out_sql = "COPY (SELECT " + columns + " FROM ONLY " + table_name + " WHERE " +
                              predicate + ") TO STDOUT (FORMAT binary)";
  const std::string in_sql = "COPY " + table_name + (columns.empty() ? "" : " (" + columns + ")") +
                             " FROM STDIN (FORMAT binary)";
  PgResult out(PQexec(source, out_sql.c_str()));
  if (PQresultStatus(out.get()) != PGRES_COPY_OUT) {
    return fail(command_error(source, out.get(), "copying the range out of the source shard"));
  }
  PgResult in(PQexec(target, in_sql.c_str()));
  if (PQresultStatus(in.get()) != PGRES_COPY_IN) {
    return fail(command_error(target, in.get(), "copying the range into the target shard"));
  }
  for (;;) {
    char* buf = nullptr;
    int n = PQgetCopyData(source, &buf, 0);
    if (n == -1) break;
    if (n < 0) {
      PQputCopyEnd(target, "the source shard failed");
      return fail(command_error(source, nullptr, "copying the range out of the source shard"));
    }
    int sent = PQputCopyData(target, buf, n);
    PQfreemem(buf);
    if (sent != 1) {
      return fail(command_error(target, nullptr, "copying the range into the target shard"));
    }
  }
  PgResult out_done(PQgetResult(source));
  if (PQresultStatus(out_done.get()) != PGRES_COMMAND_OK) {
    PQputCopyEnd(target, "the source shard failed");
    return fail(command_error(source, out_done.get(), "copying the range out of the source shard"));
  }
  const int64_t sent_rows = affected_rows(out_done.get());
  drain(source);
  if (PQputCopyEnd(target, nullptr) != 1) {
    return fail(command_error(target, nullptr, "copying the range into the target shard"));
  }
  PgResult in_done(PQgetResult(target));
  if (PQresultStatus(in_done.get()) != PGRES_COMMAND_OK) {
    return fail(command_error(target, in_done.get(), "copying the range into the target shard"));
  }
  const int64_t received_rows = affected_rows(in_done.get());
  drain(target);
  if (sent_rows != received_rows) {
    return fail(sqlstate::kInternalError, "the source shard sent " + std::to_string(sent_rows) +
                                              " rows of " + table_name + " but the target took " +
                                              std::to_string(received_rows));
  }
  return received_rows;
}

}  // namespace

Result<RangeStats> range_stats(const std::string& dsn, const TableDescriptor& table,
                               std::string_view start_key, std::string_view end_key) {
  auto pred = key_range_predicate(table, start_key, end_key);
  if (!pred) return tl::unexpected(pred.error());
  auto conn = connect(dsn, "");
  if (!conn) return tl::unexpected(conn.error());
  auto r = exec(conn->get(),
                "SELECT count(*), coalesce(sum(pg_column_size(pgrange_t.*)), 0) FROM ONLY " +
                    qualified_table_name(table) + " AS pgrange_t WHERE " + *pred,
                "counting the rows of a range");
  if (!r) return tl::unexpected(r.error());
  RangeStats stats;
  stats.row_count = to_int64(PQgetvalue(r->get(), 0, 0));
  stats.bytes = to_int64(PQgetvalue(r->get(), 0, 1));
  return stats;
}

// ---------------------------------------------------------------------------------------------
// RangeMove

struct RangeMove::State {
  Conn source;  ///< in the transaction holding the SHARE lock while open
  Conn target;  ///< idle after prepare (its copy is committed)
  std::string target_dsn;
  std::string table_name;
  std::string predicate;
  int64_t rows_copied = 0;
  bool source_open = false;      ///< the source transaction (and lock) is still open
  bool target_has_copy = false;  ///< the target holds the copy and abort() must delete it

  bool pending() const { return source_open || target_has_copy; }
};

RangeMove::RangeMove(std::unique_ptr<State> state) : state_(std::move(state)) {}
RangeMove::RangeMove(RangeMove&&) noexcept = default;

RangeMove& RangeMove::operator=(RangeMove&& other) noexcept {
  if (this != &other) {
    if (state_ && state_->pending()) (void)abort();
    state_ = std::move(other.state_);
  }
  return *this;
}

RangeMove::~RangeMove() {
  if (state_ && state_->pending()) (void)abort();
}

int64_t RangeMove::rows_copied() const {
  return state_ ? state_->rows_copied : 0;
}

const std::string& RangeMove::predicate() const {
  static const std::string kNone;
  return state_ ? state_->predicate : kNone;
}

Result<RangeMove> RangeMove::prepare(const std::string& source_dsn, const std::string& target_dsn,
                                     const TableDescriptor& table, std::string_view start_key,
                                     std::string_view end_key) {
  return prepare(source_dsn, target_dsn, table, start_key, end_key, Options{});
}

Result<RangeMove> RangeMove::prepare(const std::string& source_dsn, const std::string& target_dsn,
                                     const TableDescriptor& table, std::string_view start_key,
                                     std::string_view end_key, const Options& options) {
  auto state = std::make_unique<State>();
  state->target_dsn = target_dsn;
  state->table_name = qualified_table_name(table);
  auto pred = key_range_predicate(table, start_key, end_key);
  if (!pred) return tl::unexpected(pred.error());
  state->predicate = std::move(*pred);

  // Source: lock out writers, keep the transaction open. On any failure below the connections
  // close, which rolls back both transactions.
  auto source = connect(source_dsn, "source");
  if (!source) return tl::unexpected(source.error());
  state->source = std::move(*source);
  PGconn* src = state->source.get();
  if (auto r = exec(src, "BEGIN ISOLATION LEVEL READ COMMITTED", "starting the source transaction");
      !r) {
    return tl::unexpected(r.error());
  }
  if (options.lock_timeout.count() > 0) {
    auto r = exec(src, "SET LOCAL lock_timeout = " + std::to_string(options.lock_timeout.count()),
                  "setting lock_timeout");
    if (!r) return tl::unexpected(r.error());
  }
  if (auto r = exec(src, "LOCK TABLE ONLY " + state->table_name + " IN SHARE MODE",
                    "locking " + state->table_name + " on the source shard");
      !r) {
    return tl::unexpected(r.error());
  }
  if (options.lock_timeout.count() > 0) {
    auto r = exec(src, "SET LOCAL lock_timeout TO DEFAULT", "resetting lock_timeout");
    if (!r) return tl::unexpected(r.error());
  }
  auto columns = copy_columns(src, state->table_name);
  if (!columns) return tl::unexpected(columns.error());

  // Target: clear what an earlier failed move left, copy, commit.
  auto target = connect(target_dsn, "target");
  if (!target) return tl::unexpected(target.error());
  state->target = std::move(*target);
  PGconn* dst = state->target.get();
  if (auto r = exec(dst, "BEGIN", "starting the target transaction"); !r) {
    return tl::unexpected(r.error());
  }
  if (auto r = exec(dst, "DELETE FROM ONLY " + state->table_name + " WHERE " + state->predicate,
                    "clearing the range on the target shard");
      !r) {
    return tl::unexpected(r.error());
  }
  auto copied = stream_rows(src, dst, state->table_name, *columns, state->predicate);
  if (!copied) return tl::unexpected(copied.error());
  if (auto r = commit(dst, "committing the copy on the target shard"); !r) {
    return tl::unexpected(r.error());
  }
  state->rows_copied = *copied;
  state->source_open = true;
  state->target_has_copy = true;
  return RangeMove(std::move(state));
}

Result<int64_t> RangeMove::finish() {
  if (!state_ || !state_->source_open) {
    return fail(sqlstate::kInternalError, "finish() of a range move that is not prepared");
  }
  State& s = *state_;
  s.source_open = false;
  s.target_has_copy = false;
  s.target.reset();
  auto deleted = exec(s.source.get(), "DELETE FROM ONLY " + s.table_name + " WHERE " + s.predicate,
                      "deleting the moved rows on the source shard");
  if (!deleted) {
    s.source.reset();
    return tl::unexpected(deleted.error());
  }
  const int64_t rows = affected_rows(deleted->get());
  auto committed = commit(s.source.get(), "committing on the source shard");
  s.source.reset();
  if (!committed) return tl::unexpected(committed.error());
  if (rows != s.rows_copied) {
    return fail(sqlstate::kInternalError, "moved " + std::to_string(s.rows_copied) + " rows of " +
                                              s.table_name + " but deleted " +
                                              std::to_string(rows) + " on the source shard");
  }
  return rows;
}

Result<int64_t> RangeMove::abort() {
  if (!state_ || !state_->pending()) return int64_t{0};
  State& s = *state_;
  if (s.source_open) {
    s.source_open = false;
    // Closing the connection would roll back too; ROLLBACK releases the lock without waiting
    // for the server to notice the closed socket.
    PgResult r(PQexec(s.source.get(), "ROLLBACK"));
    s.source.reset();
  }
  if (!s.target || PQstatus(s.target.get()) != CONNECTION_OK ||
      PQtransactionStatus(s.target.get()) != PQTRANS_IDLE) {
    s.target.reset();
    auto conn = connect(s.target_dsn, "target");
    if (!conn) return tl::unexpected(conn.error());
    s.target = std::move(*conn);
  }
  auto deleted = exec(s.target.get(), "DELETE FROM ONLY " + s.table_name + " WHERE " + s.predicate,
                      "deleting the copied rows on the target shard");
  s.target.reset();
  if (!deleted) return tl::unexpected(deleted.error());
  s.target_has_copy = false;
  return affected_rows(deleted->get());
}

}  // namespace pgrange::routing
