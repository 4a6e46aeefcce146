// The executor of a gather plan: its inputs read (GatherReads), the statement runs on one shard
// with their rows in place of its tables (or on each shard of the last input's, merged).

#include "proxy/exec/gather_run.hpp"

#include <chrono>

#include "proxy/wire/message_writer.hpp"

namespace pgrange::proxy::exec {
namespace {

constexpr size_t kFlushAt = 64 * 1024;

}  // namespace

Gather::Gather(const routing::GatherPlan& plan, GatherContext& ctx)
    : plan_(plan), ctx_(ctx), reads_(plan, ctx, true) {}

awaitable<ExecResult<void>> Gather::open() {
  // 1. The inputs (GatherReads).
  GatherOutcome& outcome = reads_.outcome();
  if (auto read = co_await reads_.open(); !read) co_return read;
  if (!reads_.broadcast_shards().empty()) co_return co_await open_broadcast();

  // 2. The statement, on the shard of a table read in place, or the block's own, or the one
  // that read the most.
  shard_ = reads_.kept_shard() >= 0 ? reads_.kept_shard() : ctx_.preferred_shard;
  if (shard_ < 0) shard_ = reads_.busiest_shard();
  if (shard_ < 0) shard_ = 0;
  final_started_ = std::chrono::steady_clock::now();
  auto conn = co_await reads_.statement_connection(shard_);
  if (!conn) {
    outcome.error = conn.error();
    co_return reads_.failure();
  }
  final_ = *conn;
  if (reads_.spilled()) {
    // Rows past query_memory: into temporary tables there, which the statement reads.
    co_await reads_.load_spilled(shard_);
    if (!outcome.ok()) co_return reads_.failure();
  }
  std::string final_sql = reads_.statement_with_kept();
  reads_.release_rows();
  std::string request;
  int settle = 0;  // answers to read before the statement's own
  if (reads_.read_on(shard_) && !ctx_.float_digits_sql.empty()) {
    write_query(request, ctx_.float_digits_sql);
    ++settle;
  }
  // Described always: its columns are the operator's (the client gets them if it asked).
  if (ctx_.bind_rest == nullptr) {
    MessageWriter(request).begin('P').cstr("").cstr(final_sql).i16(0).end();
    MessageWriter(request).begin('B').cstr("").cstr("").i16(0).i16(0).i16(0).end();
  } else {
    MessageWriter(request)
        .begin('P')
        .cstr("")
        .cstr(final_sql)
        .bytes(reads_.parameter_types() != nullptr ? *reads_.parameter_types() : std::string())
        .end();
    MessageWriter(request).begin('B').cstr("").cstr("").bytes(*ctx_.bind_rest).end();
  }
  MessageWriter(request).begin('D').byte('P').cstr("").end();
  MessageWriter(request).begin('E').cstr("").i32(0).end();
  MessageWriter(request).begin('S').end();
  std::string().swap(final_sql);  // the request holds it now
  // The statement's own transaction there ends with it (one round trip less); the other
  // shards' end now.
  ends_here_ = co_await reads_.statement_runs_on(shard_);
  if (ends_here_) write_query(request, "COMMIT");
  if (auto s = co_await final_->send(request); !s) {
    final_->mark_broken();
    outcome.error = s.error();
    final_done_ = true;
    co_return reads_.failure();
  }
  final_done_ = false;
  for (; settle > 0 && outcome.ok(); --settle) {
    auto e = co_await drain(*final_);
    if (!e) {
      outcome.error = e.error();
      final_done_ = true;
    } else if (*e) {
      outcome.shard_error = std::move(**e);
    }
  }
  // Up to its RowDescription (or its error).
  while (outcome.ok() && !final_done_ && columns_.empty()) {
    char type = 0;
    std::string body;
    if (!co_await read_final(type, body) || !take_final(type, body)) break;
  }
  if (outcome.ok() && columns_.empty()) {
    outcome.error = Error::make(sqlstate::kInternalError, "the statement answered without rows");
  }
  co_return reads_.failure();
}

awaitable<ExecResult<void>> Gather::open_broadcast() {
  final_started_ = std::chrono::steady_clock::now();
  GatherOutcome& outcome = reads_.outcome();
  sql::MergeQuery query = *plan_.broadcast;
  query.shard_sql = reads_.broadcast_sql();
  reads_.release_rows();
  std::vector<BackendConnection*> conns;
  std::vector<BackendConnection*> settle;
  // Outside a block, a shard read before is in the statement's own transaction (read to its
  // end there, never cancelled); a block's parts always are.
  bool in_transaction = !ctx_.own_transaction;
  for (int shard : reads_.broadcast_shards()) {
    auto conn = co_await reads_.statement_connection(shard);
    if (!conn) {
      outcome.error = conn.error();
      co_return reads_.failure();
    }
    conns.push_back(*conn);
    in_transaction = in_transaction || reads_.in_own_transaction(shard);
    if (reads_.read_on(shard) && !ctx_.float_digits_sql.empty()) {
      // The client's float digits again where the reads changed them.
      std::string request;
      write_query(request, ctx_.float_digits_sql);
      if (auto r = co_await (*conn)->send(request); !r) {
        (*conn)->mark_broken();
        outcome.error = r.error();
        co_return reads_.failure();
      }
      settle.push_back(*conn);
    }
  }
  for (BackendConnection* conn : settle) {
    auto e = co_await drain(*conn);
    if (!e && outcome.ok()) outcome.error = e.error();
    if (e && *e && outcome.ok()) outcome.shard_error = std::move(**e);
  }
  if (!outcome.ok()) co_return reads_.failure();
  auto merge = co_await ctx_.merge(std::move(query), conns, in_transaction);
  if (!merge) {
    reads_.fail(merge.error());
    co_return reads_.failure();
  }
  merge_ = std::move(*merge);
  if (auto opened = co_await merge_->open(); !opened) {
    reads_.fail(opened.error());
    co_return reads_.failure();
  }
  columns_ = merge_->columns();
  co_return ExecResult<void>{};
}

std::vector<const Operator*> Gather::inputs() const {
  if (merge_) return {&reads_, merge_.get()};
  return {&reads_};
}

awaitable<bool> Gather::read_final(char& type, std::string& body) {
  if (auto r = co_await final_->read_message(type, body); !r) {
    final_->mark_broken();
    if (reads_.outcome().ok()) reads_.outcome().error = r.error();
    final_done_ = true;
    co_return false;
  }
  co_return true;
}

bool Gather::take_final(char type, std::string& body) {
  switch (type) {
    case 'Z':
      final_done_ = true;
      return false;
    case 'T':
      columns_ = std::move(body);
      return true;
    case 'E':
      if (reads_.outcome().ok()) reads_.outcome().shard_error = std::move(body);
      return true;
    case 'C':
      final_ended_ = true;
      return true;
    case '1':
    case '2':
    case 'n':
    case 'D':
      return true;
    default:  // NoticeResponse, ParameterStatus
      if (ctx_.other) ctx_.other(type, body);
      return true;
  }
}

awaitable<ExecResult<bool>> Gather::next(Batch& out) {
  if (merge_) {
    uint64_t before = out.rows;
    auto more = co_await merge_->next(out);
    rows_out_ += out.rows - before;
    reads_.outcome().rows += out.rows - before;
    if (!more) {
      reads_.fail(more.error());
      co_return tl::unexpected(more.error());
    }
    co_return *more;
  }
  while (reads_.outcome().ok() && !final_done_ && !final_ended_ && out.data.size() < kFlushAt &&
         out.rows < out.max_rows) {
    char type = 0;
    std::string body;
    if (!co_await read_final(type, body)) break;
    if (type == 'D') {
      MessageWriter(out.data).begin('D').bytes(body).end();
      ++out.rows;
      ++rows_out_;
      ++reads_.outcome().rows;
      continue;
    }
    if (!take_final(type, body)) break;
  }
  if (auto f = reads_.failure(); !f) co_return tl::unexpected(f.error());
  co_return !final_done_ && !final_ended_;
}

awaitable<void> Gather::close(bool abandon) {
  if (closed_) co_return;
  closed_ = true;
  GatherOutcome& outcome = reads_.outcome();
  if (merge_) co_await merge_->close(abandon || !outcome.ok());
  // The statement's answer, to its end (a statement that failed is read out too).
  while (final_ != nullptr && !final_done_) {
    char type = 0;
    std::string body;
    if (!co_await read_final(type, body)) break;
    if (type == 'E' && outcome.ok()) outcome.shard_error = std::move(body);
    final_done_ = type == 'Z';
  }
  if (final_ != nullptr && ends_here_ && !final_->broken()) {
    auto e = co_await drain(*final_);
    if (!e && outcome.ok()) outcome.error = e.error();
  }
  if (std::string drop = reads_.drop_spilled_sql();
      !drop.empty() && final_ != nullptr && !final_->broken()) {
    // The tables that held rows past query_memory in the block's transaction, done with.
    std::string request;
    write_query(request, drop);
    if (auto r = co_await final_->send(request); !r) {
      final_->mark_broken();
      if (outcome.ok()) outcome.error = r.error();
    } else {
      auto e = co_await drain(*final_);
      if (!e && outcome.ok()) outcome.error = e.error();
      // (After a statement that failed, the block's transaction refuses it too: no matter.)
      if (e && *e && outcome.ok()) outcome.shard_error = std::move(**e);
    }
  }
  auto& step = outcome.steps.emplace_back();
  step.shards =
      reads_.broadcast_shards().empty() ? std::vector<int>{shard_} : reads_.broadcast_shards();
  step.rows = outcome.rows;
  if (final_started_ != std::chrono::steady_clock::time_point{}) {  // else it never ran
    step.ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - final_started_)
            .count();
  }
  // The statement's own transactions ended, the client's float digits back.
  co_await reads_.close(abandon);
}

std::string Gather::describe() const {
  return "Gather: the statement runs on one shard with the rows read for its tables";
}

}  // namespace pgrange::proxy::exec
