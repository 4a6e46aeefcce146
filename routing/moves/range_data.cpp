#include "routing/moves/range_data.hpp"

#include <libpq-fe.h>

#include <charconv>
#include <optional>
#include <vector>

#include "routing/keys/key_space.hpp"
#include "routing/plan/hash_sharding.hpp"
#include "sql/quoting.hpp"

namespace pgrange::routing {
namespace {

using sql::quote_ident;
using sql::quote_literal;

/// A piece of a boolean SQL expression: a single term, or an AND or OR of terms.
struct Sql {
  enum class Op { kTerm, kAnd, kOr };
  std::string text;
  Op op = Op::kTerm;
};

const Sql kTrue{"true"};
const Sql kFalse{"false"};

bool is(const Sql& s, const Sql& constant) {
  return s.op == Sql::Op::kTerm && s.text == constant.text;
}

/// `s` as an operand of `parent`: parenthesised unless it is a term or the same operator.
std::string operand(const Sql& s, Sql::Op parent) {
  return s.op == Sql::Op::kTerm || s.op == parent ? s.text : "(" + s.text + ")";
}

// Boolean combinators that fold the constants true and false.
Sql sql_or(const Sql& a, const Sql& b) {
  if (is(a, kTrue) || is(b, kTrue)) return kTrue;
  if (is(a, kFalse)) return b;
  if (is(b, kFalse)) return a;
  return {operand(a, Sql::Op::kOr) + " OR " + operand(b, Sql::Op::kOr), Sql::Op::kOr};
}

Sql sql_and(const Sql& a, const Sql& b) {
  if (is(a, kFalse) || is(b, kFalse)) return kFalse;
  if (is(a, kTrue)) return b;
  if (is(b, kTrue)) return a;
  return {operand(a, Sql::Op::kAnd) + " AND " + operand(b, Sql::Op::kAnd), Sql::Op::kAnd};
}

/// A comparison in the key order (not SQL's: DESC columns flip it, NULLs have a set place).
enum class KeyCmp { kLt, kLe, kEq, kGe, kGt };

/// One key column as the predicate compares it.
struct PredicateColumn {
  std::string name;  ///< quoted identifier
  std::string expr;  ///< what is compared: the name, with COLLATE "C" for text types
  KeyColumn column;
  bool nullable = true;
};

Sql is_null(const PredicateColumn& c) {
  return c.nullable ? Sql{c.name + " IS NULL"} : kFalse;
}

Sql is_not_null(const PredicateColumn& c) {
  return c.nullable ? Sql{c.name + " IS NOT NULL"} : kTrue;
}

/// `column <cmp> value` in key order; value is a typed literal or nullopt for NULL.
Sql compare(const PredicateColumn& c, KeyCmp cmp, const std::optional<std::string>& value) {
  // In key order NULL is either below every value or above every value.
  const bool null_low = c.column.nulls_first();
  if (!value) {
    switch (cmp) {
      case KeyCmp::kEq:
        return is_null(c);
      case KeyCmp::kGe:
        return null_low ? kTrue : is_null(c);
      case KeyCmp::kGt:
        return null_low ? is_not_null(c) : kFalse;
      case KeyCmp::kLe:
        return null_low ? is_null(c) : kTrue;
      case KeyCmp::kLt:
        return null_low ? kFalse : is_not_null(c);
    }
  }
  const bool desc = c.column.descending;
  std::string_view op;
  bool null_matches = false;  // does a NULL row satisfy the comparison?
  switch (cmp) {
    case KeyCmp::kEq:
      op = "=";
      break;
    case KeyCmp::kLt:
      op = desc ? ">" : "<";
      null_matches = null_low;
      break;
    case KeyCmp::kLe:
      op = desc ? ">=" : "<=";
      null_matches = null_low;
      break;
    case KeyCmp::kGe:
      op = desc ? "<=" : ">=";
      null_matches = !null_low;
      break;
    case KeyCmp::kGt:
      op = desc ? "<" : ">";
      null_matches = !null_low;
      break;
  }
  Sql sql{c.expr + " " + std::string(op) + " " + *value};
  return null_matches ? sql_or(sql, is_null(c)) : sql;
}

/// (c1..ck) >= (v1..vk) (lower) or (c1..ck) < (v1..vk) (upper), lexicographically in key order,
/// from column i on; with `after`, the bound is past every key starting with (v1..vk): > and <=.
Sql lexicographic(const std::vector<PredicateColumn>& cols,
                  const std::vector<std::optional<std::string>>& values, size_t i, bool lower,
                  bool after) {
  if (i + 1 == values.size()) {
    KeyCmp last = lower ? (after ? KeyCmp::kGt : KeyCmp::kGe) : (after ? KeyCmp::kLe : KeyCmp::kLt);
    return compare(cols[i], last, values[i]);
  }
  return sql_or(compare(cols[i], lower ? KeyCmp::kGt : KeyCmp::kLt, values[i]),
                sql_and(compare(cols[i], KeyCmp::kEq, values[i]),
                        lexicographic(cols, values, i + 1, lower, after)));
}

/// The key whose prefix_end() `key` is, when `key` itself does not decode: a span's bound
/// past every key with a prefix (a lookup's `col = 'x'` or `col > 'x'`). Decrements the last
/// byte and tries the trailing 0xff bytes prefix_end dropped.
std::optional<std::vector<std::optional<std::string>>> decode_prefix_end(
    std::string_view key, const std::vector<KeyColumn>& columns) {
  if (key.empty() || key.back() == '\0') return std::nullopt;
  std::string base(key);
  base.back() = static_cast<char>(static_cast<unsigned char>(base.back()) - 1);
  for (int ff = 0; ff <= 16; ++ff) {
    auto decoded = decode_key_text(base, columns);
    if (decoded) return std::move(*decoded);
    base.push_back('\xff');
  }
  return std::nullopt;
}

/// The predicate for one bound key strictly inside the table's primary index.
Result<Sql> bound_predicate(const TableDescriptor& table, const std::vector<PredicateColumn>& cols,
                            std::string_view key, bool lower) {
  std::vector<KeyColumn> columns;
  for (const auto& c : cols) columns.push_back(c.column);
  auto decoded = decode_key_text(key, columns);
  bool after = false;
  if (!decoded) {
    if (auto before = decode_prefix_end(key, columns)) {
      decoded = std::move(*before);
      after = true;
    } else {
      Error e = decoded.error();
      e.message = std::string("range ") + (lower ? "start" : "end") + " key of table " +
                  qualified_table_name(table) + " does not decode: " + e.message;
      return fail(std::move(e));
    }
  }
  if (decoded->empty()) return kTrue;
  std::vector<std::optional<std::string>> values;
  for (size_t i = 0; i < decoded->size(); ++i) {
    const auto& text = (*decoded)[i];
    if (!text) {
      values.emplace_back();
      continue;
    }
    if (text->find('\0') != std::string::npos) {
      return fail(sqlstate::kInvalidTextRepresentation,
                  "range key of table " + qualified_table_name(table) +
                      " holds a value with a zero byte, which PostgreSQL cannot represent");
    }
    values.push_back(quote_literal(*text) + "::" + std::string(key_type_name(cols[i].column.type)));
  }
  Sql expr = lexicographic(cols, values, 0, lower, after);
  // The first column's own bound is implied; stating it lets PostgreSQL scan an index range.
  if (values.size() > 1) {
    expr = sql_and(compare(cols[0], lower ? KeyCmp::kGe : KeyCmp::kLe, values[0]), expr);
  }
  return expr;
}

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

std::string qualified_table_name(const TableDescriptor& table) {
  return quote_ident(table.schema) + "." + quote_ident(table.name);
}

Result<std::string> key_range_predicate(const TableDescriptor& table, std::string_view start_key,
                                        std::string_view end_key) {
  if (start_key >= end_key) return std::string("false");
  if (table.key_source == KeySource::kUnsharded || table.key.empty()) {
    const std::string lo = table_prefix(table.table_id);
    const std::string hi = prefix_end(lo);
    return std::string(end_key <= lo || start_key >= hi ? "false" : "true");
  }
  const std::string lo = index_prefix(table.table_id, table.index_id);
  const std::string hi = prefix_end(lo);
  if (end_key <= lo || start_key >= hi) return std::string("false");

  std::vector<PredicateColumn> cols;
  const std::vector<std::string> column_sql = key_column_sql(table);
  for (size_t i = 0; i < table.key.size(); ++i) {
    const KeyColumnDef& def = table.key[i];
    PredicateColumn c;
    c.name = column_sql[i];
    c.expr = is_text_type(def.column.type) ? c.name + " COLLATE \"C\"" : c.name;
    c.column = def.column;
    // A hash-sharded key's bucket is computed, never NULL (a NULL column hashes to 0).
    c.nullable = table.key_source != KeySource::kPrimaryKey && !(table.hash_buckets > 0 && i == 0);
    cols.push_back(std::move(c));
  }
  Sql lower = kTrue;
  if (start_key > lo) {
    auto p = bound_predicate(table, cols, start_key, true);
    if (!p) return tl::unexpected(p.error());
    lower = std::move(*p);
  }
  Sql upper = kTrue;
  if (end_key < hi) {
    auto p = bound_predicate(table, cols, end_key, false);
    if (!p) return tl::unexpected(p.error());
    upper = std::move(*p);
  }
  return sql_and(lower, upper).text;
}

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
