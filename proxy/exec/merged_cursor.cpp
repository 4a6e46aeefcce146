// A cursor over several shards, read forward as the client fetches: the shards' own cursors
// merged.

#include "proxy/exec/merged_cursor.hpp"

#include <utility>

#include "proxy/exec/shard_cursor.hpp"
#include "proxy/wire/frame_reader.hpp"
#include "proxy/wire/message_writer.hpp"

namespace pgrange::proxy::exec {
namespace {

/// Reading backward: PostgreSQL's own error for a cursor declared NO SCROLL; one it declared
/// neither way PostgreSQL may read backward, depending on the query's plan, pgrange never.
Error only_forward(bool no_scroll) {
  if (!no_scroll) {
    return not_supported(
        "reading backward a cursor whose query spans several shards is not "
        "supported: pgrange reads it forward only",
        "declare a new cursor to read the rows again");
  }
  return Error::make("55000", "cursor can only scan forward")
      .with_hint("Declare it with SCROLL option to enable backward scan.");
}

}  // namespace

Result<CursorSteps> forward_steps(const sql::CursorStatement& stmt, uint64_t position,
                                  bool no_scroll, bool on_row) {
  using Direction = sql::CursorStatement::Direction;
  const bool fetch = stmt.kind == sql::CursorStatement::Kind::kFetch;
  CursorSteps steps;
  int64_t n = stmt.count;
  switch (stmt.direction) {
    case Direction::kForward:
    case Direction::kBackward:
    case Direction::kRelative:
      if (stmt.direction == Direction::kBackward) n = n == sql::CursorStatement::kAll ? -1 : -n;
      if (n < 0) return tl::unexpected(only_forward(no_scroll));
      if (n == 0) {
        // The current row, if it sits on one: MOVE only counts it; FETCH reads it again,
        // which PostgreSQL does by backing up a row.
        if (on_row && fetch && no_scroll) return tl::unexpected(only_forward(true));
        steps.again = on_row;
      } else if (stmt.direction == Direction::kRelative) {
        steps.skip = static_cast<uint64_t>(n) - 1;
        steps.take = 1;
      } else {
        steps.take = static_cast<uint64_t>(n);
      }
      break;
    case Direction::kAbsolute:
      if (n < 0 || (n == 0 && position > 0) || (n > 0 && static_cast<uint64_t>(n) < position)) {
        return tl::unexpected(only_forward(no_scroll));
      }
      if (n > 0 && static_cast<uint64_t>(n) == position) {
        // Row n again: PostgreSQL backs up to it, FETCH or MOVE.
        if (no_scroll) return tl::unexpected(only_forward(true));
        steps.again = true;
      } else if (n > 0) {
        steps.skip = static_cast<uint64_t>(n) - position - 1;
        steps.take = 1;
      }
      break;
  }
  return steps;
}

MergedCursor::MergedCursor(const sql::MergeQuery& merge,
                           const std::vector<std::shared_ptr<BackendConnection>>& conns,
                           const std::string& fetch, const std::string& name, bool no_scroll,
                           MergeTreeOptions options)
    : no_scroll_(no_scroll) {
  std::vector<std::unique_ptr<ShardRows>> inputs;
  for (const auto& conn : conns) {
    inputs.push_back(std::make_unique<ShardCursor>(conn, fetch, kCursorBatch, name));
  }
  tree_ = make_merge_tree(merge, std::move(inputs), std::move(options));
}

awaitable<ExecResult<uint64_t>> MergedCursor::advance(uint64_t n, bool keep, std::string& rows) {
  // The columns first: every shard's cursor is read once before the merge hands out a row.
  if (!opened_) {
    if (auto o = co_await tree_->open(); !o) co_return tl::unexpected(o.error());
    opened_ = true;
  }
  uint64_t moved = 0;
  while (moved < n) {
    if (!ready_.empty()) {
      if (keep) rows += ready_.front();
      last_row_ = std::move(ready_.front());
      ready_.pop_front();
      ++moved;
      ++position_;
      continue;
    }
    if (finished_) {
      at_end_ = true;
      break;
    }
    Batch batch;
    batch.max_rows = n - moved;
    auto more = co_await tree_->next(batch);
    if (!more) co_return tl::unexpected(more.error());
    finished_ = !*more;
    // One DataRow message at a time, as the client fetches them.
    for (std::string_view rest = batch.data;;) {
      FrameResult fr = read_typed_frame(rest, rest.size());
      if (fr.status != FrameStatus::kReady) break;
      ready_.emplace_back(rest.substr(0, fr.frame.total_size));
      rest.remove_prefix(fr.frame.total_size);
    }
  }
  co_return moved;
}

awaitable<ExecResult<void>> MergedCursor::fetch(const sql::CursorStatement& stmt,
                                                std::string& out) {
  auto steps = forward_steps(stmt, position_, no_scroll_, position_ > 0 && !at_end_);
  if (!steps) co_return tl::unexpected(ExecFailure::of(steps.error()));
  bool fetch = stmt.kind == sql::CursorStatement::Kind::kFetch;
  std::string rows;
  uint64_t moved = 0;
  uint64_t take = steps->take;
  if (steps->skip > 0) {
    auto skipped = co_await advance(steps->skip, false, rows);
    if (!skipped) co_return tl::unexpected(skipped.error());
    // ABSOLUTE and RELATIVE answer for the one row they land on (none past the end).
    if (*skipped < steps->skip) take = 0;
  }
  if (take > 0) {
    auto got = co_await advance(take, fetch, rows);
    if (!got) co_return tl::unexpected(got.error());
    moved += *got;
  }
  if (steps->again) {
    if (fetch) rows += last_row_;
    moved = 1;
  }
  if (fetch) {
    if (!opened_) {
      // Nothing was read yet (FETCH ABSOLUTE 0): the columns come from every shard first.
      auto none = co_await advance(0, false, rows);
      if (!none) co_return tl::unexpected(none.error());
    }
    MessageWriter(out).begin('T').bytes(tree_->columns()).end();
    out += rows;
  }
  MessageWriter(out).begin('C').cstr((fetch ? "FETCH " : "MOVE ") + std::to_string(moved)).end();
  co_return ExecResult<void>{};
}

}  // namespace pgrange::proxy::exec
