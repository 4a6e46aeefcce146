#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "proxy/exec/merge_sort.hpp"
#include "proxy/exec/operator.hpp"
#include "proxy/exec/spill_queue.hpp"
#include "routing/merge/aggregate_combine.hpp"
#include "routing/merge/merge_rows.hpp"
#include "sql/merge_query.hpp"

namespace pgrange::proxy::exec {

/// Window: window functions computed in pgrange (sql::MergeQuery's kWindow) over its input's
/// rows, which come sorted by the windows' PARTITION BY and then ORDER BY columns (a MergeSort
/// of the shards' sorted rows). Its rows are the query's outputs (the client's columns, then the
/// hidden ones ORDER BY uses), in text, in the input's order.
///
/// It streams: each row's values are computed as far as they are known when it is read (its
/// rank, lag(), running aggregates of frames ending at the current row); what a frame's end
/// decides is computed once per peer group (frames ending at the last peer) or per partition
/// (frames to UNBOUNDED FOLLOWING, percent_rank, cume_dist, ntile), and lead() values as the
/// rows they read come. A row goes up as soon as all of its values are known, so it waits only
/// for the rest of its peers, the rows lead() reads, or its partition's end. The rows waiting
/// are held within query_memory and past it go to a temporary file in temp_directory, as
/// PostgreSQL's WindowAgg spills past work_mem; only the rows lag() reads back must fit in
/// memory (53200 past it).
class Window final : public RowOperator {
 public:
  Window(std::unique_ptr<RowOperator> input, sql::MergeQuery query, TextOrderCheck text_order,
         bool exact_floats, size_t memory_limit, std::string temp_directory);

  awaitable<ExecResult<void>> open() override;
  std::string columns() const override { return columns_; }
  awaitable<ExecResult<bool>> next_rows(std::vector<std::string>& rows, size_t max) override;
  awaitable<void> close(bool abandon) override { co_await input_->close(abandon); }
  std::vector<const Operator*> inputs() const override { return {input_.get()}; }
  std::string describe() const override;

 private:
  /// When a call's value is known: as its row is read, when the row's peer group ends, when
  /// the partition ends, or (lead) when the row it reads comes.
  enum class Known { kRow, kGroup, kPartition, kLead };

  /// Takes the next input row: into the partition, or held back as the next one's first row.
  Result<void> take(routing::MergeRow row);
  /// The peer group ending at the partition's row `end` (0-based) is complete.
  Result<void> close_group(uint64_t end);
  /// Every row of the partition was taken.
  Result<void> finish_partition();
  void start_partition();
  /// Whether every value of the next row to send is known.
  bool ready() const;
  /// The next row's outputs (a DataRow body).
  Result<std::string> emit();
  Result<void> add_to(size_t call, const routing::MergeRow& row);
  size_t held_cost(const routing::MergeRow& row) const;

  std::unique_ptr<RowOperator> input_;
  sql::MergeQuery q_;
  TextOrderCheck text_order_;
  bool exact_floats_ = true;
  size_t memory_limit_ = 0;
  std::string columns_;
  size_t width_ = 0;
  std::vector<routing::ResultField> fields_;  ///< the input's
  routing::RowOrder partition_;
  routing::RowOrder peers_;
  std::vector<std::optional<routing::AggregateCombiner>> combiners_;  ///< per aggregate call
  std::vector<bool> float4_avg_;  ///< avg of float4: each value read as float8 exactly
  std::vector<Known> known_;      ///< per call
  /// The values kept with each waiting row: one per call, or none when no call keeps one.
  size_t known_width_ = 0;
  bool needs_group_ = false;
  bool needs_partition_ = false;
  uint64_t max_lag_ = 0;
  uint64_t max_lead_ = 0;

  // What waits, in queues that go to disk past query_memory: the rows taken and not sent (each
  // with the values known when it was read), the values of the peer groups those rows are in,
  // and per lead() call the values of the rows waiting for them.
  struct Waiting {
    routing::MergeRow row;
    routing::RowValues known;  ///< per call: its value, when known as the row was read
  };
  struct GroupValues {
    uint64_t end = 0;           ///< the group's last row in the partition (0-based)
    routing::RowValues values;  ///< per call: where its frame ends at the group's last peer
  };
  SpillBudget budget_;
  std::unique_ptr<SpillQueue<Waiting>> rows_;
  std::unique_ptr<SpillQueue<GroupValues>> groups_;
  std::vector<std::unique_ptr<SpillQueue<std::optional<std::string>>>> leads_;  ///< per call

  // The current partition.
  routing::MergeRow last_;                 ///< the last row taken
  std::deque<routing::MergeRow> history_;  ///< the last rows taken (lag() reads them)
  size_t history_bytes_ = 0;
  bool any_row_ = false;   ///< the partition has a row
  bool complete_ = false;  ///< every row of the partition was taken
  std::optional<routing::MergeRow> next_partition_;
  uint64_t sent_ = 0;         ///< rows of the partition sent
  uint64_t taken_ = 0;        ///< rows of the partition taken
  uint64_t grouped_ = 0;      ///< rows of the partition whose peer group is complete
  uint64_t peer_ = 0;         ///< the last taken row's peer group (1, 2, …)
  uint64_t group_start_ = 0;  ///< its first row
  std::vector<std::optional<std::string>> first_;               ///< first_value: the first row's
  std::vector<std::optional<std::optional<std::string>>> nth_;  ///< nth_value: the n-th row's
  std::vector<std::optional<std::string>> partition_values_;    ///< per call (kPartition)
  // The peer group of the row being sent.
  GroupValues group_;
  bool have_group_ = false;

  std::vector<std::string> pending_;  ///< input rows read and not yet taken
  size_t next_pending_ = 0;
  bool input_ended_ = false;
  bool done_ = false;
  size_t peak_ = 0;
};

}  // namespace pgrange::proxy::exec
