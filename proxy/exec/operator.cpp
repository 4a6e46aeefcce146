// What the operators that hand up rows share: their batches made messages for the root, and a
// shard's rows read a row at a time.

#include "proxy/exec/operator.hpp"

#include <algorithm>

#include "routing/merge/merge_rows.hpp"

namespace pgrange::proxy::exec {
namespace {

constexpr size_t kBatchBytes = 64 * 1024;

}  // namespace

awaitable<ExecResult<bool>> RowOperator::next(Batch& out) {
  std::vector<std::string> rows;
  while (out.data.size() < kBatchBytes && out.rows < out.max_rows) {
    rows.clear();
    auto more = co_await next_rows(rows, std::min<uint64_t>(out.max_rows - out.rows, kRowsAtOnce));
    for (const std::string& body : rows) routing::append_data_row(out.data, body);
    out.rows += rows.size();
    if (!more) co_return tl::unexpected(more.error());
    if (!*more) co_return false;
  }
  co_return true;
}

awaitable<ExecResult<bool>> ShardRows::next_rows(std::vector<std::string>& rows, size_t max) {
  std::string body;
  for (size_t got = 0; got < max; ++got) {
    auto more = co_await next_row(body);
    if (!more) co_return tl::unexpected(more.error());
    if (!*more) co_return false;
    rows.push_back(std::move(body));
  }
  co_return true;
}

}  // namespace pgrange::proxy::exec
