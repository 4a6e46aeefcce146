// What every operator that hands up rows one at a time shares: batching them for the root.

#include "proxy/exec/operator.hpp"

#include "routing/merge/merge_rows.hpp"

namespace pgrange::proxy::exec {
namespace {

constexpr size_t kBatchBytes = 64 * 1024;

}  // namespace

awaitable<ExecResult<bool>> RowOperator::next(Batch& out) {
  std::string body;
  while (out.data.size() < kBatchBytes && out.rows < out.max_rows) {
    auto more = co_await next_row(body);
    if (!more) co_return tl::unexpected(more.error());
    if (!*more) co_return false;
    routing::append_data_row(out.data, body);
    ++out.rows;
  }
  co_return true;
}

}  // namespace pgrange::proxy::exec
