// The Window operator: window functions computed in pgrange over rows in window order.

#include "proxy/exec/window.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

namespace pgrange::proxy::exec {

namespace {

using Call = sql::MergeWindowCall;
using Kind = sql::MergeWindowCall::Kind;

constexpr uint32_t kInt2 = 21, kInt4 = 23, kInt8 = 20, kNumeric = 1700, kFloat4 = 700,
                   kFloat8 = 701;

bool is_aggregate(Kind k) {
  return k == Kind::kCount || k == Kind::kSum || k == Kind::kMin || k == Kind::kMax ||
         k == Kind::kAvg;
}

/// Whether the call's value depends on where its frame ends.
bool framed(Kind k) {
  return is_aggregate(k) || k == Kind::kLastValue || k == Kind::kNthValue;
}

/// Whether the call needs the partition's number of rows.
bool counts_partition(Kind k) {
  return k == Kind::kPercentRank || k == Kind::kCumeDist || k == Kind::kNtile;
}

/// A float8 as PostgreSQL writes it with extra_float_digits above 0: the shortest digits that
/// read back as the same value, in fixed notation when the first digit's exponent is in
/// [-4, 15), else as d.ddde±XX.
std::string pg_float8(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d < 0 ? "-Infinity" : "Infinity";
  if (d == 0) return std::signbit(d) ? "-0" : "0";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(end - buf));
  std::string out;
  if (sci.front() == '-') {
    out.push_back('-');
    sci.remove_prefix(1);
  }
  const size_t e_at = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e_at)) {
    if (c != '.') digits.push_back(c);
  }
  int exp = 0;
  std::string_view e = sci.substr(e_at + 1);
  const bool negative = e.front() == '-';
  if (e.front() == '-' || e.front() == '+') e.remove_prefix(1);
  std::from_chars(e.data(), e.data() + e.size(), exp);
  if (negative) exp = -exp;
  if (exp >= -4 && exp < 15) {
    const auto point = static_cast<size_t>(exp + 1);
    if (exp < 0) {
      out += "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
    } else if (digits.size() <= point) {
      out += digits + std::string(point - digits.size(), '0');
    } else {
      out += digits.substr(0, point) + "." + digits.substr(point);
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  std::string x = std::to_string(exp < 0 ? -exp : exp);
  if (x.size() < 2) x = "0" + x;
  out += std::string("e") + (exp < 0 ? "-" : "+") + x;
  return out;
}

routing::AggregateKind aggregate_kind(Kind k) {
  switch (k) {
    case Kind::kCount:
      return routing::AggregateKind::kCount;
    case Kind::kSum:
      return routing::AggregateKind::kSum;
    case Kind::kMin:
      return routing::AggregateKind::kMin;
    case Kind::kMax:
      return routing::AggregateKind::kMax;
    default:
      return routing::AggregateKind::kAvg;
  }
}

/// The combiner that adds the argument's values one by one as PostgreSQL's aggregate does:
/// sums of int2/int4 in int8, of int8 in numeric; avg of float4 in float8.
Result<routing::AggregateCombiner> combiner_for(Kind k, uint32_t arg, bool exact_floats) {
  uint32_t partial = arg;
  if (k == Kind::kCount) {
    partial = kInt8;
  } else if (k == Kind::kSum || k == Kind::kAvg) {
    if (arg == kInt2 || arg == kInt4) partial = kInt8;
    if (arg == kInt8) partial = kNumeric;
    if (arg == kFloat4 && k == Kind::kAvg) partial = kFloat8;
  }
  return routing::AggregateCombiner::make(aggregate_kind(k), partial, k == Kind::kAvg ? kInt8 : 0,
                                          exact_floats);
}

int16_t length_of(uint32_t oid, int16_t fallback) {
  switch (oid) {
    case kInt8:
    case kFloat8:
      return 8;
    case kFloat4:
      return 4;
    case kNumeric:
      return -1;
    default:
      return fallback;
  }
}

/// A float4's text as the float8 of the same value, exactly (17 significant digits).
std::string float4_as_float8(std::string_view text) {
  float f = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), f);
  if (ec != std::errc() || p != text.data() + text.size()) return std::string(text);
  char buf[40];
  int n = std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(f));
  return std::string(buf, static_cast<size_t>(n));
}

std::optional<std::string> owned(std::optional<std::string_view> v) {
  return v ? std::optional<std::string>(std::string(*v)) : std::nullopt;
}

/// What a heap block of `bytes` costs with the allocator's header and rounding (none for 0).
size_t heap(size_t bytes) {
  return bytes == 0 ? 0 : (bytes + 8 + 15) / 16 * 16;
}

/// A string's heap block (none while it fits in the string itself).
size_t heap_of(const std::string& s) {
  return s.capacity() > 15 ? heap(s.capacity() + 1) : 0;
}

/// The heap blocks of a row's values (not the vector object itself).
size_t values_cost(const routing::RowValues& values) {
  size_t c = heap(values.capacity() * sizeof(std::optional<std::string>));
  for (const auto& v : values) {
    if (v) c += heap_of(*v);
  }
  return c;
}

/// The heap blocks of a MergeRow (not the object itself).
size_t row_cost(const routing::MergeRow& row) {
  return heap_of(row.body) + heap(row.offsets.capacity() * sizeof(uint32_t)) +
         heap(row.lengths.capacity() * sizeof(int32_t));
}

Result<routing::RowValues> decode_values(std::string body, size_t n) {
  auto row = routing::MergeRow::parse(std::move(body), n);
  if (!row) return tl::unexpected(row.error());
  routing::RowValues out(n);
  for (size_t i = 0; i < n; ++i) out[i] = owned(row->value(i));
  return out;
}

}  // namespace

Window::Window(std::unique_ptr<RowOperator> input, sql::MergeQuery query, TextOrderCheck text_order,
               bool exact_floats, size_t memory_limit, std::string temp_directory)
    : input_(std::move(input)),
      q_(std::move(query)),
      text_order_(std::move(text_order)),
      exact_floats_(exact_floats),
      memory_limit_(memory_limit) {
  budget_.limit = memory_limit;
  budget_.directory = std::move(temp_directory);
}

awaitable<ExecResult<void>> Window::open() {
  mark_started();
  if (auto o = co_await input_->open(); !o) co_return o;
  auto fields = routing::read_row_description(input_->columns());
  if (!fields) co_return tl::unexpected(ExecFailure::of(fields.error()));
  fields_ = std::move(*fields);
  width_ = fields_.size();
  auto column_ok = [&](int c) { return c < 0 || static_cast<size_t>(c) < width_; };
  bool ok = true;
  for (const sql::MergeSortKey& k : q_.window_order) ok = ok && column_ok(k.column);
  for (const Call& c : q_.windows) ok = ok && column_ok(c.argument) && column_ok(c.default_value);
  for (const sql::MergeOutput& o : q_.outputs) {
    ok = ok && (o.is_group ? column_ok(o.index)
                           : o.index >= 0 && static_cast<size_t>(o.index) < q_.windows.size());
  }
  if (!ok) {
    co_return tl::unexpected(ExecFailure::of(Error::make(
        sqlstate::kInternalError, "a shard answered with an unexpected number of columns")));
  }
  const auto split = q_.window_order.begin() + q_.window_partition_keys;
  auto partition = routing::RowOrder::make(
      fields_, std::vector<sql::MergeSortKey>(q_.window_order.begin(), split), "PARTITION BY");
  if (!partition) co_return tl::unexpected(ExecFailure::of(partition.error()));
  partition_ = std::move(*partition);
  auto peers = routing::RowOrder::make(
      fields_, std::vector<sql::MergeSortKey>(split, q_.window_order.end()), "window ORDER BY");
  if (!peers) co_return tl::unexpected(ExecFailure::of(peers.error()));
  peers_ = std::move(*peers);
  bool compares_text = partition_.compares_text() || peers_.compares_text();
  // Each call's column, and what it needs held.
  std::vector<routing::ResultField> calls;
  for (const Call& c : q_.windows) {
    routing::ResultField f;
    f.name = c.name;
    f.type_oid = kInt8;
    f.type_len = 8;
    std::optional<routing::AggregateCombiner> comb;
    if (c.argument >= 0) {
      const routing::ResultField& arg =
          fields_[static_cast<size_t>(c.default_value >= 0 ? c.default_value : c.argument)];
      if (!is_aggregate(c.kind)) {
        f = arg;
        f.name = c.name;
      }
    }
    if (c.kind == Kind::kPercentRank || c.kind == Kind::kCumeDist) {
      if (!exact_floats_) {
        co_return tl::unexpected(ExecFailure::of(not_supported(
            c.name + "() computed over several shards while extra_float_digits is below 1")));
      }
      f.type_oid = kFloat8;
    }
    if (c.kind == Kind::kNtile) {
      f.type_oid = kInt4;
      f.type_len = 4;
    }
    if (is_aggregate(c.kind)) {
      uint32_t arg = c.argument >= 0 ? fields_[static_cast<size_t>(c.argument)].type_oid : kInt8;
      auto made = combiner_for(c.kind, arg, exact_floats_);
      if (!made) co_return tl::unexpected(ExecFailure::of(made.error()));
      comb = std::move(*made);
      if (c.kind != Kind::kCount) {
        f.type_oid = comb->result_oid();
        const routing::ResultField& a = fields_[static_cast<size_t>(c.argument)];
        f.type_len = length_of(f.type_oid, f.type_oid == a.type_oid ? a.type_len : -1);
        f.type_mod = -1;  // an aggregate's result has its type's, not its argument's
      }
      compares_text = compares_text || ((c.kind == Kind::kMin || c.kind == Kind::kMax) &&
                                        routing::collated_type(arg));
    }
    f.table_oid = 0;
    f.attnum = 0;
    f.format = 0;
    calls.push_back(std::move(f));
    combiners_.push_back(std::move(comb));
    float4_avg_.push_back(c.kind == Kind::kAvg && c.argument >= 0 &&
                          fields_[static_cast<size_t>(c.argument)].type_oid == kFloat4);
    Known known = Known::kRow;
    if (framed(c.kind) && c.frame == Call::Frame::kPeers) known = Known::kGroup;
    if ((framed(c.kind) && c.frame == Call::Frame::kPartition) || counts_partition(c.kind)) {
      known = Known::kPartition;
    }
    if (c.kind == Kind::kLead) known = Known::kLead;
    known_.push_back(known);
    // Calls whose value (or rank) is kept with the row as it is read.
    if (c.kind == Kind::kRank || c.kind == Kind::kDenseRank || c.kind == Kind::kPercentRank ||
        c.kind == Kind::kLag || (is_aggregate(c.kind) && known == Known::kRow)) {
      known_width_ = q_.windows.size();
    }
    needs_group_ = needs_group_ || known == Known::kGroup || c.kind == Kind::kCumeDist;
    needs_partition_ = needs_partition_ || known == Known::kPartition;
    if (c.kind == Kind::kLag) max_lag_ = std::max<uint64_t>(max_lag_, c.offset);
    if (c.kind == Kind::kLead) max_lead_ = std::max<uint64_t>(max_lead_, c.offset);
    if (c.kind != Kind::kLead) {
      leads_.push_back(nullptr);
      continue;
    }
    leads_.push_back(std::make_unique<SpillQueue<std::optional<std::string>>>(
        &budget_,
        SpillQueue<std::optional<std::string>>::Codec{
            [](const std::optional<std::string>& v) { return sizeof(v) + (v ? heap_of(*v) : 0); },
            [](const std::optional<std::string>& v) { return routing::data_row_body({v}); },
            [](std::string body) -> Result<std::optional<std::string>> {
              auto one = decode_values(std::move(body), 1);
              if (!one) return tl::unexpected(one.error());
              return std::move((*one)[0]);
            }}));
  }
  if (compares_text && text_order_) {
    if (auto e = text_order_()) co_return tl::unexpected(ExecFailure::of(std::move(*e)));
  }
  std::vector<routing::ResultField> out;
  for (size_t o = 0; o < q_.outputs.size(); ++o) {
    const sql::MergeOutput& output = q_.outputs[o];
    routing::ResultField f = output.is_group ? fields_[static_cast<size_t>(output.index)]
                                             : calls[static_cast<size_t>(output.index)];
    if (o < q_.output_names.size() && !q_.output_names[o].empty()) f.name = q_.output_names[o];
    out.push_back(std::move(f));
  }
  columns_ = routing::write_row_description(out);
  first_.assign(q_.windows.size(), std::nullopt);
  nth_.assign(q_.windows.size(), std::nullopt);
  partition_values_.assign(q_.windows.size(), std::nullopt);
  // The waiting rows: on disk, the length of their known values, those values, the row's body.
  const size_t calls_n = q_.windows.size();
  const size_t known_width = known_width_;
  const size_t width = width_;
  rows_ = std::make_unique<SpillQueue<Waiting>>(
      &budget_,
      SpillQueue<Waiting>::Codec{
          [](const Waiting& w) { return sizeof(Waiting) + row_cost(w.row) + values_cost(w.known); },
          [](const Waiting& w) {
            std::string record(4, '\0');
            record += routing::data_row_body(w.known);
            const auto n = static_cast<uint32_t>(record.size() - 4);
            record[0] = static_cast<char>(n >> 24);
            record[1] = static_cast<char>(n >> 16);
            record[2] = static_cast<char>(n >> 8);
            record[3] = static_cast<char>(n);
            record += w.row.body;
            return record;
          },
          [known_width, width](std::string record) -> Result<Waiting> {
            if (record.size() < 4) {
              return tl::unexpected(Error::make(sqlstate::kInternalError,
                                                "a row a window wrote to disk came back short"));
            }
            const uint32_t n =
                (static_cast<uint32_t>(static_cast<unsigned char>(record[0])) << 24) |
                (static_cast<uint32_t>(static_cast<unsigned char>(record[1])) << 16) |
                (static_cast<uint32_t>(static_cast<unsigned char>(record[2])) << 8) |
                static_cast<uint32_t>(static_cast<unsigned char>(record[3]));
            if (record.size() < 4 + static_cast<size_t>(n)) {
              return tl::unexpected(Error::make(sqlstate::kInternalError,
                                                "a row a window wrote to disk came back short"));
            }
            Waiting w;
            auto known = decode_values(record.substr(4, n), known_width);
            if (!known) return tl::unexpected(known.error());
            w.known = std::move(*known);
            record.erase(0, 4 + static_cast<size_t>(n));
            auto row = routing::MergeRow::parse(std::move(record), width);
            if (!row) return tl::unexpected(row.error());
            w.row = std::move(*row);
            return w;
          }});
  // The groups' values: on disk, the group's end and then its values.
  groups_ = std::make_unique<SpillQueue<GroupValues>>(
      &budget_,
      SpillQueue<GroupValues>::Codec{
          [](const GroupValues& g) { return sizeof(GroupValues) + values_cost(g.values); },
          [](const GroupValues& g) {
            routing::RowValues all;
            all.reserve(g.values.size() + 1);
            all.push_back(std::to_string(g.end));
            all.insert(all.end(), g.values.begin(), g.values.end());
            return routing::data_row_body(all);
          },
          [calls_n](std::string body) -> Result<GroupValues> {
            auto all = decode_values(std::move(body), calls_n + 1);
            if (!all) return tl::unexpected(all.error());
            GroupValues g;
            g.end = std::stoull((*all)[0].value_or("0"));
            g.values.assign(std::make_move_iterator(all->begin() + 1),
                            std::make_move_iterator(all->end()));
            return g;
          }});
  co_return ExecResult<void>{};
}

size_t Window::held_cost(const routing::MergeRow& row) const {
  return sizeof(routing::MergeRow) + row_cost(row);
}

void Window::start_partition() {
  rows_->clear();
  groups_->clear();
  for (auto& l : leads_) {
    if (l) l->clear();
  }
  history_.clear();
  history_bytes_ = 0;
  any_row_ = false;
  complete_ = false;
  sent_ = taken_ = grouped_ = peer_ = group_start_ = 0;
  have_group_ = false;
  for (auto& c : combiners_) {
    if (c) c->reset();
  }
  std::fill(first_.begin(), first_.end(), std::nullopt);
  std::fill(nth_.begin(), nth_.end(), std::nullopt);
  std::fill(partition_values_.begin(), partition_values_.end(), std::nullopt);
}

Result<void> Window::close_group(uint64_t end) {
  // The group's own values: frames that end at its last peer (last_ is that peer).
  grouped_ = end + 1;
  if (!needs_group_) return {};
  GroupValues group;
  group.end = end;
  group.values.resize(q_.windows.size());
  for (size_t c = 0; c < q_.windows.size(); ++c) {
    std::optional<std::string> v;
    if (known_[c] == Known::kGroup) {
      const Call& call = q_.windows[c];
      if (call.kind == Kind::kLastValue) {
        v = owned(last_.value(static_cast<size_t>(call.argument)));
      } else if (is_aggregate(call.kind)) {
        auto r = combiners_[c]->result();
        if (!r) return tl::unexpected(r.error());
        v = std::move(*r);
      }
    }
    group.values[c] = std::move(v);
  }
  return groups_->push(std::move(group));
}

Result<void> Window::finish_partition() {
  complete_ = true;
  if (!any_row_) return {};
  if (auto g = close_group(taken_ - 1); !g) return g;
  for (size_t c = 0; c < q_.windows.size(); ++c) {
    if (known_[c] != Known::kPartition) continue;
    const Call& call = q_.windows[c];
    if (call.kind == Kind::kLastValue) {
      partition_values_[c] = owned(last_.value(static_cast<size_t>(call.argument)));
    } else if (is_aggregate(call.kind)) {
      auto r = combiners_[c]->result();
      if (!r) return tl::unexpected(r.error());
      partition_values_[c] = std::move(*r);
    }
  }
  return {};
}

Result<void> Window::take(routing::MergeRow row) {
  if (any_row_ && !partition_.empty() && partition_.compare(row, last_) != 0) {
    next_partition_ = std::move(row);
    return finish_partition();
  }
  const uint64_t j = taken_;
  if (!any_row_ || peers_.compare(row, last_) != 0) {
    if (any_row_) {
      if (auto g = close_group(j - 1); !g) return g;
    }
    ++peer_;
    group_start_ = j;
  }
  routing::RowValues values(known_width_);  // none when no call keeps a value with its row
  for (size_t c = 0; c < q_.windows.size(); ++c) {
    const Call& call = q_.windows[c];
    const auto arg = static_cast<size_t>(std::max(call.argument, 0));
    if (call.argument >= 0) {
      if (call.kind == Kind::kFirstValue && j == 0) first_[c] = owned(row.value(arg));
      if (call.kind == Kind::kNthValue && j + 1 == static_cast<uint64_t>(call.offset)) {
        nth_[c] = owned(row.value(arg));
      }
    }
    if (combiners_[c]) {
      if (auto a = add_to(c, row); !a) return a;
    }
    switch (call.kind) {
      case Kind::kRank:
      case Kind::kPercentRank:
        values[c] = std::to_string(group_start_ + 1);
        break;
      case Kind::kDenseRank:
        values[c] = std::to_string(peer_);
        break;
      case Kind::kLag: {
        const auto k = static_cast<uint64_t>(call.offset);
        if (k == 0) {
          values[c] = owned(row.value(arg));
        } else if (k <= history_.size()) {
          values[c] = owned(history_[history_.size() - k].value(arg));
        } else if (call.default_value >= 0) {
          values[c] = owned(row.value(static_cast<size_t>(call.default_value)));
        }
        break;
      }
      case Kind::kLead: {
        // This row is what lead() reads for the row `offset` rows before it.
        const auto k = static_cast<uint64_t>(call.offset);
        if (j >= k) {
          if (auto p = leads_[c]->push(owned(row.value(arg))); !p) {
            return p;
          }
        }
        break;
      }
      default:
        if (known_[c] == Known::kRow && is_aggregate(call.kind)) {
          auto r = combiners_[c]->result();
          if (!r) return tl::unexpected(r.error());
          values[c] = std::move(*r);
        }
    }
  }
  if (max_lag_ > 0) {
    history_bytes_ += held_cost(row);
    history_.push_back(row);
    if (history_.size() > max_lag_) {
      history_bytes_ -= held_cost(history_.front());
      history_.pop_front();
    }
    if (history_bytes_ > memory_limit_) {
      return tl::unexpected(
          query_memory_exceeded("the rows pgrange holds to compute window functions", memory_limit_,
                                std::to_string(history_.size()) + " rows read for lag() to read",
                                "raise query_memory, or read fewer rows back"));
    }
  }
  last_ = row;
  if (auto p = rows_->push(Waiting{std::move(row), std::move(values)}); !p) return p;
  peak_ = std::max(peak_, budget_.used + history_bytes_);
  any_row_ = true;
  ++taken_;
  return {};
}

bool Window::ready() const {
  if (sent_ >= taken_) return false;
  if (complete_) return true;
  if (needs_partition_) return false;
  if (needs_group_ && sent_ >= grouped_) return false;
  return sent_ + max_lead_ < taken_;
}

Result<void> Window::add_to(size_t c, const routing::MergeRow& row) {
  const Call& call = q_.windows[c];
  routing::AggregateCombiner& comb = *combiners_[c];
  if (call.kind == Kind::kCount) {
    if (call.argument >= 0 && !row.value(static_cast<size_t>(call.argument))) return {};
    return comb.add(std::string_view("1"));
  }
  auto v = row.value(static_cast<size_t>(call.argument));
  if (call.kind == Kind::kAvg) {
    if (!v) return {};
    if (float4_avg_[c]) {
      std::string exact = float4_as_float8(*v);
      return comb.add(std::string_view(exact), std::string_view("1"));
    }
    return comb.add(v, std::string_view("1"));
  }
  return comb.add(v);
}

Result<std::string> Window::emit() {
  const uint64_t i = sent_;
  Waiting w;
  auto got = rows_->pop(w);
  if (!got) return tl::unexpected(got.error());
  auto lost = [] {
    return tl::unexpected(
        Error::make(sqlstate::kInternalError, "a window lost track of the rows it holds"));
  };
  if (!*got) return lost();
  const routing::MergeRow& row = w.row;
  if (needs_group_ && (!have_group_ || group_.end < i)) {
    auto popped = groups_->pop(group_);
    if (!popped) return tl::unexpected(popped.error());
    if (!*popped) return lost();
    have_group_ = true;
  }
  std::vector<std::optional<std::string>> values(q_.windows.size());
  for (size_t c = 0; c < q_.windows.size(); ++c) {
    const Call& call = q_.windows[c];
    const size_t arg = static_cast<size_t>(std::max(call.argument, 0));
    // Where the call's frame ends, as a row number of the partition (0-based).
    uint64_t end = i;
    if (call.frame == Call::Frame::kPeers && have_group_) end = group_.end;
    if (call.frame == Call::Frame::kPartition) end = taken_ - 1;
    switch (call.kind) {
      case Kind::kRowNumber:
        values[c] = std::to_string(i + 1);
        break;
      case Kind::kPercentRank: {
        // The partition is complete: taken_ is its number of rows.
        const auto n_rows = static_cast<double>(taken_);
        const double rank = std::stod(w.known[c].value_or("1"));
        values[c] = pg_float8(taken_ > 1 ? (rank - 1) / (n_rows - 1) : 0.0);
        break;
      }
      case Kind::kCumeDist:
        values[c] = pg_float8(static_cast<double>(group_.end + 1) / static_cast<double>(taken_));
        break;
      case Kind::kNtile: {
        // As PostgreSQL deals the rows out: the first (rows % buckets) buckets get one more.
        const uint64_t rows = taken_;
        const auto buckets = static_cast<uint64_t>(call.offset);
        uint64_t bucket = i + 1;
        if (rows >= buckets) {
          const uint64_t base = rows / buckets, extra = rows % buckets;
          const uint64_t big = extra * (base + 1);
          bucket = i < big ? i / (base + 1) + 1 : extra + (i - big) / base + 1;
        }
        values[c] = std::to_string(bucket);
        break;
      }
      case Kind::kLead: {
        std::optional<std::string> v;
        auto popped = leads_[c]->pop(v);
        if (!popped) return tl::unexpected(popped.error());
        if (*popped) {
          values[c] = std::move(v);
        } else if (call.default_value >= 0) {
          values[c] = owned(row.value(static_cast<size_t>(call.default_value)));
        }
        break;
      }
      case Kind::kFirstValue:
        values[c] = first_[c];
        break;
      case Kind::kNthValue:
        if (end + 1 >= static_cast<uint64_t>(call.offset) && nth_[c]) values[c] = *nth_[c];
        break;
      case Kind::kLastValue:
        if (known_[c] == Known::kRow) {
          values[c] = owned(row.value(arg));
          break;
        }
        [[fallthrough]];
      default:
        if (known_[c] == Known::kGroup) {
          values[c] = group_.values[c];
        } else if (known_[c] == Known::kPartition) {
          values[c] = partition_values_[c];
        } else {
          values[c] = std::move(w.known[c]);
        }
    }
  }
  routing::RowValues out;
  out.reserve(q_.outputs.size());
  for (const sql::MergeOutput& o : q_.outputs) {
    if (o.is_group) {
      out.push_back(owned(row.value(static_cast<size_t>(o.index))));
    } else {
      out.push_back(values[static_cast<size_t>(o.index)]);
    }
  }
  ++sent_;
  return routing::data_row_body(out);
}

awaitable<ExecResult<bool>> Window::next_rows(std::vector<std::string>& rows, size_t max) {
  const size_t end = rows.size() + max;
  while (rows.size() < end && !done_) {
    if (ready()) {
      auto row = emit();
      if (!row) co_return tl::unexpected(ExecFailure::of(row.error()));
      rows.push_back(std::move(*row));
      ++rows_out_;
      continue;
    }
    if (complete_ && sent_ >= taken_) {
      if (!next_partition_) {
        done_ = true;
        break;
      }
      start_partition();
      routing::MergeRow first = std::move(*next_partition_);
      next_partition_.reset();
      if (auto t = take(std::move(first)); !t) co_return tl::unexpected(ExecFailure::of(t.error()));
      continue;
    }
    // More input: taken one row at a time, up to the next partition's first row.
    if (next_pending_ < pending_.size()) {
      auto row = routing::MergeRow::parse(std::move(pending_[next_pending_++]), width_);
      if (!row) co_return tl::unexpected(ExecFailure::of(row.error()));
      if (auto t = take(std::move(*row)); !t) co_return tl::unexpected(ExecFailure::of(t.error()));
      continue;
    }
    if (input_ended_) {
      if (!complete_) {
        if (auto f = finish_partition(); !f) co_return tl::unexpected(ExecFailure::of(f.error()));
      }
      if (sent_ >= taken_ && !next_partition_) done_ = true;
      continue;
    }
    pending_.clear();
    next_pending_ = 0;
    auto more = co_await input_->next_rows(pending_, std::max<size_t>(end - rows.size(), 64));
    if (!more) co_return tl::unexpected(more.error());
    input_ended_ = !*more;
  }
  if (done_) {
    mark_ended();
    co_return false;
  }
  co_return true;
}

std::string Window::describe() const {
  std::string calls;
  for (const Call& c : q_.windows) {
    if (!calls.empty()) calls += ", ";
    calls += c.name;
  }
  std::string out = "Window: " + calls + " computed over the merged rows, " +
                    (q_.window_partition_keys > 0 ? "partition by partition" : "as one partition");
  uint64_t spilled = 0;
  if (rows_) spilled += rows_->spilled_bytes() + groups_->spilled_bytes();
  for (const auto& l : leads_) {
    if (l) spilled += l->spilled_bytes();
  }
  if (peak_ > 0) {
    out += " (" + std::to_string(peak_) + " bytes held";
    if (spilled > 0) out += "; " + std::to_string(spilled) + " bytes written to a temporary file";
    out += ")";
  }
  return out;
}

}  // namespace pgrange::proxy::exec
