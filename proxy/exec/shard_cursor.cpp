// A shard's cursor as an operator: its rows fetched a batch at a time.

#include "proxy/exec/shard_cursor.hpp"

#include <utility>

#include "proxy/wire/message_writer.hpp"

namespace pgrange::proxy::exec {

ShardCursor::ShardCursor(std::shared_ptr<BackendConnection> conn, std::string fetch, uint64_t batch,
                         std::string name)
    : conn_(std::move(conn)), fetch_(std::move(fetch)), batch_(batch), name_(std::move(name)) {}

awaitable<ExecResult<void>> ShardCursor::start() {
  if (sent_ || drained_) co_return ExecResult<void>{};
  if (auto r = co_await conn_->send(fetch_); !r) {
    conn_->mark_broken();
    co_return tl::unexpected(ExecFailure::of(r.error()));
  }
  sent_ = true;
  co_return ExecResult<void>{};
}

awaitable<ExecResult<void>> ShardCursor::read_batch() {
  sent_ = false;
  uint64_t got = 0;
  std::optional<std::string> shard_error;
  for (;;) {
    char type = 0;
    std::string body;
    if (auto r = co_await conn_->read_message(type, body); !r) {
      co_return tl::unexpected(ExecFailure::of(r.error()));
    }
    if (type == 'T' && columns_.empty()) {
      columns_ = std::move(body);
    } else if (type == 'D') {
      rows_.push_back(std::move(body));
      ++got;
    } else if (type == 'E' && !shard_error) {
      shard_error = std::move(body);
    } else if (type == 'Z') {
      break;
    }
  }
  if (shard_error) co_return tl::unexpected(ExecFailure::from_shard(std::move(*shard_error)));
  if (got < batch_) drained_ = true;
  co_return ExecResult<void>{};
}

awaitable<ExecResult<void>> ShardCursor::open() {
  if (auto s = co_await start(); !s) co_return s;
  if (sent_) co_return co_await read_batch();
  co_return ExecResult<void>{};
}

awaitable<ExecResult<bool>> ShardCursor::next_row(std::string& body) {
  while (rows_.empty() && !drained_) {
    if (auto s = co_await start(); !s) co_return tl::unexpected(s.error());
    if (auto r = co_await read_batch(); !r) co_return tl::unexpected(r.error());
  }
  if (rows_.empty()) co_return false;
  body = std::move(rows_.front());
  rows_.pop_front();
  ++rows_out_;
  co_return true;
}

awaitable<ExecResult<bool>> ShardCursor::next(Batch& out) {
  std::string body;
  while (out.rows < out.max_rows) {
    auto more = co_await next_row(body);
    if (!more) co_return tl::unexpected(more.error());
    if (!*more) co_return false;
    MessageWriter(out.data).begin('D').bytes(body).end();
    ++out.rows;
    if (rows_.empty()) break;  // what is fetched is handed up; no fetch ahead
  }
  co_return true;
}

std::string ShardCursor::describe() const {
  return "Cursor " + name_ + " on shard " + conn_->shard().name + ", " + std::to_string(batch_) +
         " rows a fetch";
}

}  // namespace pgrange::proxy::exec
