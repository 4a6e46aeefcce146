#include "proxy/exec/shard_write.hpp"

#include "proxy/wire/message_writer.hpp"

namespace pgrange::proxy::exec {

namespace {

/// A batch handed up once it holds this much.
constexpr size_t kBatchBytes = 64 * 1024;

}  // namespace

std::vector<std::string> in_values_order(std::vector<std::string> rows,
                                         const std::map<int, size_t>& returned,
                                         const std::vector<int>& row_shards) {
  std::map<int, size_t> sent;
  for (int s : row_shards) ++sent[s];
  if (sent.size() < 2 || sent.size() != returned.size()) return rows;
  std::map<int, size_t> next;  // shard → index in `rows` of its next row
  size_t offset = 0;
  for (const auto& [shard, n] : returned) {
    auto it = sent.find(shard);
    if (it == sent.end() || it->second != n) return rows;
    next[shard] = offset;
    offset += n;
  }
  std::vector<std::string> ordered;
  ordered.reserve(rows.size());
  for (int s : row_shards) ordered.push_back(std::move(rows[next[s]++]));
  return ordered;
}

ShardWrite::ShardWrite(Options o) : o_(std::move(o)), at_(o_.statements.end()) {}

awaitable<ExecResult<void>> ShardWrite::open() {
  at_ = o_.statements.begin();
  co_return ExecResult<void>{};
}

awaitable<ExecResult<bool>> ShardWrite::next(Batch& out) {
  if (done_) co_return false;
  while (at_ != o_.statements.end()) {
    if (part_.conn == nullptr) {
      replica_ = o_.replicated && at_ != o_.statements.begin();
      auto started = co_await o_.start(at_->first, at_->second);
      if (!started) {
        done_ = true;
        co_return tl::unexpected(started.error());
      }
      part_ = *started;
      if (o_.hold_rows && !replica_) returned_[at_->first] = 0;
    }
    auto ended = co_await read_shard(out);
    if (!ended) {
      done_ = true;
      co_return tl::unexpected(ended.error());
    }
    if (!*ended) co_return true;  // a batch's worth: the rest at the next call
    if (failure_) {
      done_ = true;
      co_return tl::unexpected(*failure_);
    }
    part_ = Started{};
    ++at_;
  }
  done_ = true;
  if (o_.before_end) {
    if (auto e = co_await o_.before_end()) co_return tl::unexpected(ExecFailure::of(*e));
  }
  if (o_.hold_rows) {
    for (const std::string& row : in_values_order(std::move(held_), returned_, o_.row_shards)) {
      MessageWriter(out.data).begin('D').bytes(row).end();
      ++out.rows;
      ++rows_out_;
    }
    held_.clear();
  }
  co_return false;
}

awaitable<ExecResult<bool>> ShardWrite::read_shard(Batch& out) {
  BackendConnection& conn = *part_.conn;
  while (part_.readies > 0) {
    char type = 0;
    std::string body;
    if (auto r = co_await conn.read_message(type, body); !r) {
      conn.mark_broken();
      // After the shard's own error (a FATAL), that one says why.
      if (!failure_) failure_ = ExecFailure::of(r.error());
      co_return true;
    }
    switch (type) {
      case 'Z':
        --part_.readies;
        break;
      case 'E':
        if (!part_.parsed.empty()) conn.prepared().erase(part_.parsed);
        if (failure_) break;
        if (parse_error_fields(body).sqlstate == "55P03") {
          failure_ = ExecFailure::of(
              Error::make("40P01", "deadlock detected")
                  .with_detail("a lock wait on shard \"" + conn.shard().name +
                               "\" of a transaction over several shards lasted 2 s: it may be "
                               "part of a deadlock across shards"));
        } else {
          failure_ = ExecFailure::from_shard(std::move(body));
        }
        break;
      case 'C': {
        std::string tag(body.c_str());
        if (part_.opening_tags > 0) {
          --part_.opening_tags;
        } else if (replica_) {
          if (tag != tag_ && !failure_) {
            failure_ = ExecFailure::of(
                Error::make(sqlstate::kInternalError,
                            "the copies of reference table \"" + o_.table + "\" differ: shard \"" +
                                conn.shard().name + "\" answered \"" + tag +
                                "\" where the first shard answered \"" + tag_ + "\"")
                    .with_detail("The statement was rolled back on every shard."));
          }
        } else {
          tag_ = add_tag_counts(tag_, tag);
        }
        break;
      }
      case 'T':
        if (replica_) break;
        if (!described_) {
          columns_ = body;
          if (o_.describe) MessageWriter(out.data).begin('T').bytes(body).end();
        }
        described_ = true;
        break;
      case 'n':
        if (replica_) break;
        if (!described_ && o_.describe) MessageWriter(out.data).begin('n').end();
        described_ = true;
        break;
      case 'D':
        if (replica_) break;
        if (o_.hold_rows) {
          held_.push_back(std::move(body));
          ++returned_[at_->first];
          break;
        }
        MessageWriter(out.data).begin('D').bytes(body).end();
        ++out.rows;
        ++rows_out_;
        break;
      case 'N':
        if (replica_) break;
        MessageWriter(out.data).begin('N').bytes(body).end();
        break;
      default:  // ParseComplete, BindComplete
        break;
    }
    if (out.data.size() >= kBatchBytes) co_return false;
  }
  co_return true;
}

awaitable<void> ShardWrite::close(bool abandon) {
  // A shard whose answer was not read to its end cannot take another statement.
  if (abandon && part_.conn != nullptr && part_.readies > 0) part_.conn->mark_broken();
  part_ = Started{};
  co_return;
}

std::string ShardWrite::describe() const {
  std::string shards;
  for (const auto& [shard, sql] : o_.statements) {
    shards += (shards.empty() ? "" : ", ") + std::to_string(shard);
  }
  return std::string("Write") + (o_.replicated ? " (every copy of " + o_.table + ")" : "") +
         ": shards " + shards + " one after the other, each in its transaction";
}

}  // namespace pgrange::proxy::exec
