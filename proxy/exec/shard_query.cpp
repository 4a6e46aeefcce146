// The Route operator: a query on one shard, read as the rows arrive.

#include "proxy/exec/shard_query.hpp"

#include <utility>

#include "proxy/wire/message_writer.hpp"

namespace pgrange::proxy::exec {

ShardQuery::ShardQuery(Options o) : o_(std::move(o)) {}

awaitable<ExecResult<void>> ShardQuery::start() {
  if (started_) co_return ExecResult<void>{};
  started_ = true;
  mark_started();
  if (auto r = co_await o_.conn->send(*o_.request); !r) {
    failed_ = true;
    co_return tl::unexpected(ExecFailure::of(r.error()));
  }
  ready_ = false;
  co_return ExecResult<void>{};
}

awaitable<ExecResult<char>> ShardQuery::read(std::string& body) {
  char type = 0;
  if (auto r = co_await o_.conn->read_message(type, body); !r) {
    failed_ = ready_ = ended_ = true;
    co_return tl::unexpected(ExecFailure::of(r.error()));
  }
  switch (type) {
    case 'T':
      described_ = true;
      columns_ = body;
      break;
    case 'C':
      ended_ = true;
      break;
    case 'E':
      ended_ = true;
      co_return tl::unexpected(ExecFailure::from_shard(std::move(body)));
    case 'Z':
      ready_ = ended_ = true;
      if (!described_) {
        co_return tl::unexpected(ExecFailure::of(
            Error::make(sqlstate::kInternalError, "a shard answered the query without rows")));
      }
      break;
    case 'D':
    case 'I':  // EmptyQueryResponse cannot happen for a SELECT
    case '1':  // ParseComplete, BindComplete of the extended protocol
    case '2':
      break;
    default:  // NoticeResponse, ParameterStatus
      if (o_.other) o_.other(type, body);
      break;
  }
  co_return type;
}

awaitable<ExecResult<void>> ShardQuery::open() {
  if (auto s = co_await start(); !s) co_return s;
  std::string body;
  while (!described_ && !ready_) {
    auto t = co_await read(body);
    if (!t) co_return tl::unexpected(t.error());
  }
  co_return ExecResult<void>{};
}

awaitable<ExecResult<bool>> ShardQuery::next_row(std::string& body) {
  while (!ended_) {
    auto t = co_await read(body);
    if (!t) co_return tl::unexpected(t.error());
    if (*t == 'D') {
      ++rows_out_;
      co_return true;
    }
  }
  mark_ended();
  co_return false;
}

awaitable<void> ShardQuery::close(bool abandon) {
  if (!o_.conn) co_return;
  if (!ready_) {
    bool cancelled = false;
    if (!o_.in_transaction && !ended_ && (abandon || !o_.bounded)) {
      co_await send_cancel_request(o_.conn->shard(), o_.conn->pid(), o_.conn->secret());
      cancelled = true;
    }
    bool saw_cancel = false;
    while (!ready_) {
      char type = 0;
      std::string body;
      if (auto r = co_await o_.conn->read_message(type, body); !r) {
        failed_ = ready_ = true;
        break;
      }
      if (type == 'E' && parse_error_fields(body).sqlstate == sqlstate::kQueryCanceled) {
        saw_cancel = true;
      }
      if (type == 'Z') ready_ = true;
    }
    // A cancel that found the query already done may still strike the connection's next
    // statement: such a connection is closed, not reused.
    if (cancelled && !saw_cancel) failed_ = true;
  }
  if (failed_) o_.conn->mark_broken();
}

std::string ShardQuery::describe() const {
  return "Route on shard " + o_.conn->shard().name + ": " + o_.sql;
}

}  // namespace pgrange::proxy::exec
