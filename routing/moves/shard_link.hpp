#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/error.hpp"

/// Blocking libpq connections to one shard for the control plane's work on a range's rows
/// (counting, copying, deleting them): connect, run a command, commit, with errors that carry
/// the server's SQLSTATE.
namespace pgrange::routing::shard_link {

struct ConnDeleter {
  void operator()(PGconn* c) const { PQfinish(c); }
};
using Conn = std::unique_ptr<PGconn, ConnDeleter>;

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, ResultDeleter>;

/// The error of a failed command: the server's SQLSTATE, or 08006 when the connection broke.
Error command_error(PGconn* conn, const PGresult* res, std::string_view what);

/// Connects to the shard at `dsn` (`role` names it in errors: "source", "target"), with
/// standard_conforming_strings on (the key predicates' literals rely on it), notices ignored.
/// With `replication`, a logical replication connection (replication=database).
Result<Conn> connect(const std::string& dsn, std::string_view role, bool replication = false);

/// Runs one command that must succeed (a command or rows).
Result<PgResult> exec(PGconn* conn, const std::string& sql, std::string_view what);

/// exec() that gives up after `timeout`: the command is cancelled (PQcancel) and 57014 returned
/// with `why_slow` in the message.
Result<PgResult> exec_within(PGconn* conn, const std::string& sql, std::string_view what,
                             std::chrono::milliseconds timeout, std::string_view why_slow);

/// COMMIT, which must really commit (a failed transaction's COMMIT reports ROLLBACK).
Result<void> commit(PGconn* conn, std::string_view what);

/// Rows affected by a command (DELETE n, COPY n).
int64_t affected_rows(const PGresult* r);

/// The columns of `table_name` COPY moves: not dropped, not generated, in attribute order,
/// quoted, comma-separated.
Result<std::string> copy_columns(PGconn* conn, const std::string& table_name);

/// Streams `COPY (SELECT columns FROM ONLY table_name WHERE predicate) TO STDOUT` on `source`
/// into `COPY … FROM STDIN` on `target` (binary); returns the rows the target took (the
/// source's count must agree).
Result<int64_t> stream_rows(PGconn* source, PGconn* target, const std::string& table_name,
                            const std::string& columns, const std::string& predicate);

/// Reads the rest of a command's results so the connection is ready for the next one.
void drain(PGconn* conn);

}  // namespace pgrange::routing::shard_link
