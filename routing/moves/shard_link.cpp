#include "routing/moves/shard_link.hpp"

#include <poll.h>

#include <algorithm>
#include <charconv>

namespace pgrange::routing::shard_link {
namespace {

std::string chomp(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

void ignore_notice(void*, const char*) {}

}  // namespace

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

Result<Conn> connect(const std::string& dsn, std::string_view role, bool replication) {
  // dbname expands the DSN (key=value or URI); the keys after it override what it says.
  const char* keys[] = {"dbname", "client_encoding", replication ? "replication" : nullptr,
                        nullptr};
  const char* values[] = {dsn.c_str(), "UTF8", replication ? "database" : nullptr, nullptr};
  Conn conn(PQconnectdbParams(keys, values, 1));
  if (!conn) return fail(sqlstate::kConnectionFailure, "out of memory connecting to the shard");
  const std::string shard = role.empty() ? "shard" : std::string(role) + " shard";
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    return fail(sqlstate::kConnectionFailure,
                "cannot connect to the " + shard + ": " + chomp(PQerrorMessage(conn.get())));
  }
  // Index maintenance triggers report their rows as notices; a copy has no use for them.
  PQsetNoticeProcessor(conn.get(), ignore_notice, nullptr);
  if (!replication) {
    PgResult r(PQexec(conn.get(), "SET standard_conforming_strings = on"));
    if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
      return fail(command_error(conn.get(), r.get(), "setting up the " + shard + " connection"));
    }
  }
  return conn;
}

Result<PgResult> exec(PGconn* conn, const std::string& sql, std::string_view what) {
  PgResult r(PQexec(conn, sql.c_str()));
  auto st = PQresultStatus(r.get());
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
    return fail(command_error(conn, r.get(), what));
  }
  return r;
}

Result<PgResult> exec_within(PGconn* conn, const std::string& sql, std::string_view what,
                             std::chrono::milliseconds timeout, std::string_view why_slow) {
  if (PQsendQuery(conn, sql.c_str()) != 1) return fail(command_error(conn, nullptr, what));
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (PQisBusy(conn)) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      if (PGcancel* cancel = PQgetCancel(conn)) {
        char buf[256];
        PQcancel(cancel, buf, sizeof buf);
        PQfreeCancel(cancel);
      }
      drain(conn);
      return fail(sqlstate::kQueryCanceled, std::string(what) + ": gave up after " +
                                                std::to_string(timeout.count() / 1000) +
                                                " s: " + std::string(why_slow));
    }
    pollfd pfd{PQsocket(conn), POLLIN, 0};
    ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (PQconsumeInput(conn) == 0) return fail(command_error(conn, nullptr, what));
  }
  PgResult r(PQgetResult(conn));
  drain(conn);
  auto st = PQresultStatus(r.get());
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
    return fail(command_error(conn, r.get(), what));
  return r;
}

Result<void> commit(PGconn* conn, std::string_view what) {
  auto r = exec(conn, "COMMIT", what);
  if (!r) return tl::unexpected(r.error());
  if (std::string_view(PQcmdStatus(r->get())) != "COMMIT") {
    return fail(sqlstate::kInternalError, std::string(what) + ": the transaction was rolled back");
  }
  return {};
}

int64_t affected_rows(const PGresult* r) {
  int64_t v = 0;
  std::string_view s(PQcmdTuples(const_cast<PGresult*>(r)));
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

void drain(PGconn* conn) {
  while (PGresult* more = PQgetResult(conn)) PQclear(more);
}

Result<std::string> copy_columns(PGconn* conn, const std::string& table_name) {
  const char* params[] = {table_name.c_str()};
  PgResult r(PQexecParams(conn,
                          "SELECT quote_ident(attname) FROM pg_attribute WHERE attrelid = "
                          "$1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '' "
                          "ORDER BY attnum",
                          1, nullptr, params, nullptr, nullptr, 0));
  if (PQresultStatus(r.get()) != PGRES_TUPLES_OK) {
    return tl::unexpected(command_error(conn, r.get(), "reading the columns of " + table_name));
  }
  std::string list;
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    if (i > 0) list += ", ";
    list += PQgetvalue(r.get(), i, 0);
  }
  return list;
}

Result<int64_t> stream_rows(PGconn* source, PGconn* target, const std::string& table_name,
                            const std::string& columns, const std::string& predicate) {
  // ONLY: a partitioned table's or an inheritance parent's own rows; its members move as
  // relations of their own.
  const std::string out_sql = "COPY (SELECT " + columns + " FROM ONLY " + table_name + " WHERE " +
                              predicate + ") TO STDOUT (FORMAT binary)";
  const std::string in_sql = "COPY " + table_name + (columns.empty() ? "" : " (" + columns + ")") +
                             " FROM STDIN (FORMAT binary)";
  auto source_error = [&](const PGresult* r) {
    return tl::unexpected(
        command_error(source, r, "copying rows of " + table_name + " out of the source shard"));
  };
  auto target_error = [&](const PGresult* r) {
    return tl::unexpected(
        command_error(target, r, "copying rows of " + table_name + " into the target shard"));
  };
  PgResult out(PQexec(source, out_sql.c_str()));
  if (PQresultStatus(out.get()) != PGRES_COPY_OUT) return source_error(out.get());
  PgResult in(PQexec(target, in_sql.c_str()));
  if (PQresultStatus(in.get()) != PGRES_COPY_IN) return target_error(in.get());
  for (;;) {
    char* buf = nullptr;
    int n = PQgetCopyData(source, &buf, 0);
    if (n == -1) break;
    if (n < 0) {
      PQputCopyEnd(target, "the source shard failed");
      return source_error(nullptr);
    }
    int sent = PQputCopyData(target, buf, n);
    PQfreemem(buf);
    if (sent != 1) return target_error(nullptr);
  }
  PgResult out_done(PQgetResult(source));
  if (PQresultStatus(out_done.get()) != PGRES_COMMAND_OK) {
    PQputCopyEnd(target, "the source shard failed");
    return source_error(out_done.get());
  }
  const int64_t sent_rows = affected_rows(out_done.get());
  drain(source);
  if (PQputCopyEnd(target, nullptr) != 1) return target_error(nullptr);
  PgResult in_done(PQgetResult(target));
  if (PQresultStatus(in_done.get()) != PGRES_COMMAND_OK) return target_error(in_done.get());
  const int64_t received_rows = affected_rows(in_done.get());
  drain(target);
  if (sent_rows != received_rows) {
    return tl::unexpected(Error::make(sqlstate::kInternalError,
                                      "the source shard sent " + std::to_string(sent_rows) +
                                          " rows of " + table_name + " but the target took " +
                                          std::to_string(received_rows)));
  }
  return received_rows;
}

}  // namespace pgrange::routing::shard_link
