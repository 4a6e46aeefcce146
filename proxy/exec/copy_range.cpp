// The COPY … TO Route: one shard's COPY TO STDOUT, as the client's COPY's next part.

#include "proxy/exec/copy_range.hpp"

#include <cstdlib>
#include <map>
#include <utility>

#include "proxy/exec/concatenate.hpp"
#include "proxy/wire/message_writer.hpp"

namespace pgrange::proxy::exec {
namespace {

constexpr size_t kBatchBytes = 64 * 1024;
constexpr std::string_view kBinaryHeader{"PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0", 19};

/// The row count of a "COPY n" tag.
uint64_t copy_count(const std::string& tag) {
  auto space = tag.rfind(' ');
  return space == std::string::npos ? 0 : std::strtoull(tag.c_str() + space + 1, nullptr, 10);
}

}  // namespace

CopyRange::CopyRange(Options o) : o_(std::move(o)) {}

awaitable<ExecResult<void>> CopyRange::read(char& type, std::string& body) {
  if (auto r = co_await conn_->read_message(type, body); !r) {
    conn_->mark_broken();
    done_ = true;
    co_return tl::unexpected(ExecFailure::of(r.error()));
  }
  co_return ExecResult<void>{};
}

awaitable<ExecResult<void>> CopyRange::open() {
  auto conn = co_await o_.connection(o_.shard);
  if (!conn) co_return tl::unexpected(ExecFailure::of(conn.error()));
  conn_ = *conn;
  if (auto e = co_await o_.session.sync(*conn_)) {
    done_ = true;
    co_return tl::unexpected(ExecFailure::of(*e));
  }
  std::string request;
  write_query(request, o_.statement);
  if (auto r = co_await conn_->send(request); !r) {
    conn_->mark_broken();
    done_ = true;
    co_return tl::unexpected(ExecFailure::of(r.error()));
  }
  // Up to its CopyOutResponse (or its error).
  while (columns_.empty() && !done_) {
    char type = 0;
    std::string body;
    if (auto r = co_await read(type, body); !r) co_return r;
    if (type == 'H') {
      columns_ = std::move(body);
    } else if (type == 'E') {
      if (!shard_error_) shard_error_ = std::move(body);
    } else if (type == 'Z') {
      done_ = true;
    } else if (type == 'N' && o_.session.other) {
      o_.session.other(type, body);
    }
  }
  if (shard_error_) co_return tl::unexpected(ExecFailure::from_shard(*shard_error_));
  co_return ExecResult<void>{};
}

awaitable<ExecResult<bool>> CopyRange::next(Batch& out) {
  while (!done_ && out.data.size() < kBatchBytes) {
    char type = 0;
    std::string body;
    if (auto r = co_await read(type, body); !r) co_return tl::unexpected(r.error());
    switch (type) {
      case 'd': {
        std::string_view data = body;
        if (first_data_) {
          first_data_ = false;
          if (!o_.first && o_.header) break;  // the header line once, from the first part
          if (!o_.first && o_.binary && data.substr(0, kBinaryHeader.size()) == kBinaryHeader) {
            data.remove_prefix(kBinaryHeader.size());
          }
        }
        if (o_.binary) {
          if (holding_ && !held_.empty()) MessageWriter(out.data).begin('d').bytes(held_).end();
          held_.assign(data);
          holding_ = true;
        } else if (!data.empty()) {
          MessageWriter(out.data).begin('d').bytes(data).end();
        }
        break;
      }
      case 'c':
        if (holding_) {
          // The binary trailer goes once, at the very end (the root writes it).
          std::string_view last = held_;
          if (last.size() >= kCopyBinaryTrailer.size() &&
              last.substr(last.size() - kCopyBinaryTrailer.size()) == kCopyBinaryTrailer) {
            last.remove_suffix(kCopyBinaryTrailer.size());
          }
          if (!last.empty()) MessageWriter(out.data).begin('d').bytes(last).end();
          holding_ = false;
        }
        break;
      case 'C': {
        uint64_t n = copy_count(std::string(body.c_str()));
        out.rows += n;
        rows_out_ += n;
        break;
      }
      case 'E':
        if (!shard_error_) shard_error_ = std::move(body);
        break;
      case 'Z':
        done_ = true;
        break;
      case 'N':
        if (o_.session.other) o_.session.other(type, body);
        break;
      default:
        break;
    }
  }
  if (shard_error_ && done_) co_return tl::unexpected(ExecFailure::from_shard(*shard_error_));
  co_return !done_;
}

awaitable<void> CopyRange::close(bool) {
  // A COPY TO cannot be stopped halfway but by losing the connection: it is read to its end.
  while (conn_ && !done_) {
    char type = 0;
    std::string body;
    if (!co_await read(type, body)) break;
    done_ = type == 'Z';
  }
  conn_ = nullptr;
}

std::string CopyRange::describe() const {
  return "Route on shard " + o_.shard_name + ": " + o_.statement;
}

std::unique_ptr<Operator> make_copy_out(
    const routing::CopyOutPlan& plan, const routing::ClusterView& view,
    std::function<awaitable<Result<BackendConnection*>>(int)> connection, ShardSession session) {
  // One connection per shard, asked for when its first step opens: the steps run one after the
  // other, each to its end before the next.
  auto held = std::make_shared<std::map<int, BackendConnection*>>();
  auto per_shard = [held, connection = std::move(connection)](
                       int shard) -> awaitable<Result<BackendConnection*>> {
    if (auto it = held->find(shard); it != held->end()) co_return it->second;
    auto conn = co_await connection(shard);
    if (conn) held->emplace(shard, *conn);
    co_return conn;
  };
  std::vector<std::unique_ptr<Operator>> parts;
  for (size_t step = 0; step < plan.steps.size(); ++step) {
    CopyRange::Options o;
    o.connection = per_shard;
    o.session = session;
    o.shard = plan.steps[step].shard;
    o.shard_name = view.shard_name(o.shard);
    o.statement = plan.steps[step].sql;
    o.first = step == 0;
    o.binary = plan.binary;
    o.header = plan.header;
    parts.push_back(std::make_unique<CopyRange>(std::move(o)));
  }
  return std::make_unique<CopyOut>(std::make_unique<Concatenate>(std::move(parts)), plan.binary);
}

CopyOut::CopyOut(std::unique_ptr<Operator> input, bool binary)
    : input_(std::move(input)), binary_(binary) {}

awaitable<ExecResult<void>> CopyOut::open() {
  co_return co_await input_->open();
}

awaitable<ExecResult<bool>> CopyOut::next(Batch& out) {
  if (!started_) {
    started_ = true;
    MessageWriter(out.data).begin('H').bytes(input_->columns()).end();
  }
  uint64_t before = out.rows;
  auto more = co_await input_->next(out);
  rows_out_ += out.rows - before;
  if (!more || *more) co_return more;
  if (binary_) MessageWriter(out.data).begin('d').bytes(kCopyBinaryTrailer).end();
  MessageWriter(out.data).begin('c').end();
  co_return false;
}

std::string CopyOut::describe() const {
  return std::string("CopyOut: the client's COPY TO STDOUT") + (binary_ ? " (binary)" : "");
}

}  // namespace pgrange::proxy::exec
