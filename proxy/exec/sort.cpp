// The Sort operator: rows put in order in pgrange, in memory up to query_memory, then in sorted
// runs on disk merged at the end.

#include "proxy/exec/sort.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

namespace pgrange::proxy::exec {

Sort::Sort(std::unique_ptr<RowOperator> input, std::vector<sql::MergeSortKey> keys,
           std::string what, size_t memory_limit, TextOrderCheck text_order,
           std::string temp_directory)
    : input_(std::move(input)),
      keys_(std::move(keys)),
      what_(std::move(what)),
      memory_limit_(memory_limit),
      text_order_(std::move(text_order)),
      temp_directory_(std::move(temp_directory)) {}

size_t Sort::row_cost(const routing::MergeRow& row) {
  return sizeof(routing::MergeRow) + row.body.capacity() +
         row.offsets.capacity() * sizeof(uint32_t) + row.lengths.capacity() * sizeof(int32_t);
}

awaitable<ExecResult<void>> Sort::open() {
  mark_started();
  if (auto o = co_await input_->open(); !o) co_return o;
  auto fields = routing::read_row_description(input_->columns());
  if (!fields) co_return tl::unexpected(ExecFailure::of(fields.error()));
  width_ = fields->size();
  auto order = routing::RowOrder::make(*fields, keys_, what_.c_str());
  if (!order) co_return tl::unexpected(ExecFailure::of(order.error()));
  order_ = std::move(*order);
  if (order_.compares_text() && text_order_) {
    if (auto e = text_order_()) co_return tl::unexpected(ExecFailure::of(std::move(*e)));
  }
  co_return ExecResult<void>{};
}

namespace {

/// How many bytes each run's reader reads at a time while the runs are merged.
size_t reader_buffer(size_t memory_limit, size_t runs) {
  return std::clamp<size_t>(memory_limit / (2 * (runs + 1)), 4096, 256 * 1024);
}

}  // namespace

size_t Sort::holding() const {
  // The rows' own bytes, the vector that holds them (its whole capacity) and the order that
  // sorts them.
  // (The index, and the abbreviations beside it while it is sorted: 16 bytes a row.)
  return held_ + rows_.capacity() * sizeof(routing::MergeRow) + rows_.size() * 20;
}

void Sort::sort_held() {
  // An order of indexes (rows equal by the keys in their input order: stable), not the rows
  // moved: no buffer of rows beside them. With an integer first key, each row's abbreviation
  // sits beside its index, so most comparisons read neither the row nor its text
  // (PostgreSQL's abbreviated keys).
  order_index_.resize(rows_.size());
  if (!order_.abbreviates()) {
    std::iota(order_index_.begin(), order_index_.end(), 0u);
    std::sort(order_index_.begin(), order_index_.end(), [&](uint32_t a, uint32_t b) {
      int c = order_.compare(rows_[a], rows_[b]);
      return c < 0 || (c == 0 && a < b);
    });
    return;
  }
  struct Entry {
    uint64_t key;
    uint32_t index;
    bool abbreviated;
  };
  std::vector<Entry> entries(rows_.size());
  for (uint32_t i = 0; i < rows_.size(); ++i) {
    auto a = order_.abbreviation(rows_[i]);
    entries[i] = Entry{a.value_or(0), i, a.has_value()};
  }
  std::sort(entries.begin(), entries.end(), [&](const Entry& x, const Entry& y) {
    if (x.abbreviated && y.abbreviated && x.key != y.key) return x.key < y.key;
    int c = order_.compare(rows_[x.index], rows_[y.index]);
    return c < 0 || (c == 0 && x.index < y.index);
  });
  for (size_t k = 0; k < entries.size(); ++k) order_index_[k] = entries[k].index;
}

Result<void> Sort::spill() {
  sort_held();
  if (!spill_) {
    auto file = SpillFile::create(temp_directory_);
    if (!file) return tl::unexpected(file.error());
    spill_ = std::move(*file);
  }
  for (uint32_t i : order_index_) {
    if (auto a = spill_->append(rows_[i].body); !a) return a;
  }
  if (auto e = spill_->end_run(); !e) return e;
  spilled_runs_ = spill_->runs();
  spilled_bytes_ = spill_->bytes();
  rows_.clear();  // its capacity is kept for the next run
  order_index_.clear();
  held_ = 0;
  return {};
}

bool Sort::after(size_t a, size_t b) const {
  const routing::MergeRow& x = a < heads_.size() ? heads_[a] : rows_[order_index_[next_]];
  const routing::MergeRow& y = b < heads_.size() ? heads_[b] : rows_[order_index_[next_]];
  int c = order_.compare(x, y);
  return c > 0 || (c == 0 && a > b);
}

Result<void> Sort::start_merge() {
  const size_t runs = spill_->runs();
  const size_t buffer = reader_buffer(memory_limit_, runs);
  heads_.resize(runs);
  for (size_t r = 0; r < runs; ++r) {
    readers_.push_back(spill_->reader(r, buffer));
    std::string body;
    auto got = readers_[r].next(body);
    if (!got) return tl::unexpected(got.error());
    if (!*got) continue;
    auto row = routing::MergeRow::parse(std::move(body), width_);
    if (!row) return tl::unexpected(row.error());
    heads_[r] = std::move(*row);
    heap_.push_back(r);
  }
  // The rows held last are the last run (index `runs`).
  if (next_ < rows_.size()) heap_.push_back(runs);
  auto cmp = [this](size_t a, size_t b) { return after(a, b); };
  std::make_heap(heap_.begin(), heap_.end(), cmp);
  return {};
}

Result<bool> Sort::next_merged(std::string& body) {
  if (heap_.empty()) return false;
  auto cmp = [this](size_t a, size_t b) { return after(a, b); };
  std::pop_heap(heap_.begin(), heap_.end(), cmp);
  const size_t run = heap_.back();
  heap_.pop_back();
  if (run == heads_.size()) {
    body = std::move(rows_[order_index_[next_++]].body);
    if (next_ < rows_.size()) {
      heap_.push_back(run);
      std::push_heap(heap_.begin(), heap_.end(), cmp);
    }
    return true;
  }
  body = std::move(heads_[run].body);
  std::string following;
  auto got = readers_[run].next(following);
  if (!got) return tl::unexpected(got.error());
  if (*got) {
    auto row = routing::MergeRow::parse(std::move(following), width_);
    if (!row) return tl::unexpected(row.error());
    heads_[run] = std::move(*row);
    heap_.push_back(run);
    std::push_heap(heap_.begin(), heap_.end(), cmp);
  }
  return true;
}

awaitable<ExecResult<bool>> Sort::next_rows(std::vector<std::string>& rows, size_t max) {
  if (!sorted_) {
    std::vector<std::string> got;
    for (bool more = true; more;) {
      got.clear();
      auto r = co_await input_->next_rows(got, kRowsAtOnce);
      if (!r) co_return tl::unexpected(r.error());
      more = *r;
      for (std::string& body : got) {
        auto row = routing::MergeRow::parse(std::move(body), width_);
        if (!row) co_return tl::unexpected(ExecFailure::of(row.error()));
        held_ += row_cost(*row) - sizeof(routing::MergeRow);
        rows_.push_back(std::move(*row));
        peak_ = std::max(peak_, holding());
        if (holding() > memory_limit_) {
          // Past query_memory: this run to disk.
          if (auto s = spill(); !s) co_return tl::unexpected(ExecFailure::of(s.error()));
        }
      }
    }
    sort_held();
    sorted_ = true;
    if (spill_) {
      if (auto m = start_merge(); !m) co_return tl::unexpected(ExecFailure::of(m.error()));
    }
  }
  if (spill_) {
    for (size_t got = 0; got < max; ++got) {
      std::string body;
      auto more = next_merged(body);
      if (!more) co_return tl::unexpected(ExecFailure::of(more.error()));
      if (!*more) {
        rows_.clear();
        rows_.shrink_to_fit();
        order_index_.clear();
        order_index_.shrink_to_fit();
        readers_.clear();
        heads_.clear();
        spill_.reset();
        mark_ended();
        co_return false;
      }
      rows.push_back(std::move(body));
      ++rows_out_;
    }
    co_return true;
  }
  for (size_t got = 0; got < max && next_ < rows_.size(); ++got) {
    rows.push_back(std::move(rows_[order_index_[next_++]].body));
    ++rows_out_;
  }
  if (next_ >= rows_.size()) {
    rows_.clear();
    rows_.shrink_to_fit();
    order_index_.clear();
    order_index_.shrink_to_fit();
    mark_ended();
    co_return false;
  }
  co_return true;
}

std::string Sort::describe() const {
  std::string out = "Sort: in pgrange, by " + what_ + " (" + std::to_string(peak_) + " bytes held";
  if (spilled_runs_ > 0) {
    out += "; " + std::to_string(spilled_bytes_) + " bytes in " + std::to_string(spilled_runs_) +
           " sorted runs on disk";
  }
  return out + ")";
}

}  // namespace pgrange::proxy::exec
