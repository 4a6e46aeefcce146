#include "routing/merge/result_merge.hpp"

#include <algorithm>
#include <cstring>

#include "routing/keys/pg_numeric.hpp"
#include "routing/merge/binary_value.hpp"

namespace pgrange::routing {
namespace {

constexpr uint32_t kInt2 = 21, kInt4 = 23, kInt8 = 20, kNumeric = 1700, kDate = 1082,
                   kTimestamp = 1114, kTimestamptz = 1184, kBytea = 17, kFloat4 = 700,
                   kFloat8 = 701;

class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  bool u16(uint16_t& v) {
    if (b_.size() - pos_ < 2) return false;
    v = static_cast<uint16_t>((static_cast<uint8_t>(b_[pos_]) << 8) |
                              static_cast<uint8_t>(b_[pos_ + 1]));
    pos_ += 2;
    return true;
  }
  bool u32(uint32_t& v) {
    if (b_.size() - pos_ < 4) return false;
    v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(b_[pos_ + i]);
    pos_ += 4;
    return true;
  }
  bool cstr(std::string& s) {
    size_t z = b_.find('\0', pos_);
    if (z == std::string_view::npos) return false;
    s.assign(b_.substr(pos_, z - pos_));
    pos_ = z + 1;
    return true;
  }
  bool bytes(size_t n, std::string_view& v) {
    if (b_.size() - pos_ < n) return false;
    v = b_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  size_t pos() const { return pos_; }
  bool done() const { return pos_ == b_.size(); }

 private:
  std::string_view b_;
  size_t pos_ = 0;
};

void put16(std::string& out, uint16_t v) {
  out.push_back(static_cast<char>(v >> 8));
  out.push_back(static_cast<char>(v & 0xff));
}
void put32(std::string& out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<char>((v >> s) & 0xff));
}

Error bad_row() {
  return Error::make(sqlstate::kInternalError, "a shard sent a malformed row");
}

Error cannot_compare(const ResultField& f, const char* what) {
  // A type without a name of pgrange's reads "type 2205": not "of type type 2205".
  std::string type = type_display_name(f.type_oid);
  if (type.rfind("type ", 0) != 0) type = "type " + type;
  return Error::make(sqlstate::kFeatureNotSupported,
                     std::string(what) + " on column \"" + f.name + "\" of " + type +
                         " over a table spread across several shards is not supported: "
                         "pgrange cannot compare its values exactly")
      .with_hint("give every key column with = so that the statement runs on one shard");
}

/// Types whose text form depends on session settings (DateStyle, bytea_output): their values
/// are checked before pgrange compares them.
bool setting_dependent(uint32_t oid) {
  return oid == kDate || oid == kTimestamp || oid == kTimestamptz || oid == kBytea;
}

/// Text types whose order is their collation's (name always orders as C).
bool collated(uint32_t oid) {
  return oid == 25 || oid == 1043 || oid == 1042;
}

bool numeric_family(uint32_t oid) {
  return oid == kInt2 || oid == kInt4 || oid == kInt8 || oid == kNumeric;
}

AggregateKind kind_of(sql::MergeAggregate::Kind k) {
  switch (k) {
    case sql::MergeAggregate::Kind::kCount:
      return AggregateKind::kCount;
    case sql::MergeAggregate::Kind::kSum:
      return AggregateKind::kSum;
    case sql::MergeAggregate::Kind::kMin:
      return AggregateKind::kMin;
    case sql::MergeAggregate::Kind::kMax:
      return AggregateKind::kMax;
    case sql::MergeAggregate::Kind::kAvg:
      return AggregateKind::kAvg;
  }
  return AggregateKind::kCount;
}

int16_t type_len_of(uint32_t oid, int16_t fallback) {
  switch (oid) {
    case kInt8:
      return 8;
    case kNumeric:
      return -1;
    default:
      return fallback;
  }
}

/// Compares two possibly-NULL values as an ORDER BY key does.
int compare_key(const ValueOrder& order, const sql::MergeSortKey& key,
                const std::optional<std::string_view>& a,
                const std::optional<std::string_view>& b) {
  if (!a || !b) {
    if (!a && !b) return 0;
    bool a_first = !a ? key.nulls_first : !key.nulls_first;
    return a_first ? -1 : 1;
  }
  int c = order.compare(*a, *b);
  return key.descending ? -c : c;
}

std::optional<std::string_view> view_of(const std::optional<std::string>& v) {
  if (!v) return std::nullopt;
  return std::string_view(*v);
}

}  // namespace

Result<std::vector<ResultField>> read_row_description(std::string_view body) {
  Reader r(body);
  uint16_t n = 0;
  if (!r.u16(n)) return fail(sqlstate::kInternalError, "a shard sent a malformed RowDescription");
  std::vector<ResultField> out(n);
  for (ResultField& f : out) {
    uint32_t table = 0, type = 0, mod = 0;
    uint16_t att = 0, len = 0, format = 0;
    if (!r.cstr(f.name) || !r.u32(table) || !r.u16(att) || !r.u32(type) || !r.u16(len) ||
        !r.u32(mod) || !r.u16(format)) {
      return fail(sqlstate::kInternalError, "a shard sent a malformed RowDescription");
    }
    f.table_oid = table;
    f.attnum = static_cast<int16_t>(att);
    f.type_oid = type;
    f.type_len = static_cast<int16_t>(len);
    f.type_mod = static_cast<int32_t>(mod);
    f.format = static_cast<int16_t>(format);
  }
  return out;
}

std::string write_row_description(const std::vector<ResultField>& fields) {
  std::string out;
  put16(out, static_cast<uint16_t>(fields.size()));
  for (const ResultField& f : fields) {
    out += f.name;
    out.push_back('\0');
    put32(out, f.table_oid);
    put16(out, static_cast<uint16_t>(f.attnum));
    put32(out, f.type_oid);
    put16(out, static_cast<uint16_t>(f.type_len));
    put32(out, static_cast<uint32_t>(f.type_mod));
    put16(out, static_cast<uint16_t>(f.format));
  }
  return out;
}

ResultMerge::ResultMerge(sql::MergeQuery query, size_t shards, std::vector<int16_t> client_formats,
                         bool exact_floats)
    : q_(std::move(query)),
      shards_(shards),
      client_formats_(std::move(client_formats)),
      exact_floats_(exact_floats),
      heads_(shards),
      ended_(shards, false) {
  if (q_.limit && *q_.limit == 0) finished_ = true;
}

Result<void> ResultMerge::describe(size_t shard, std::string_view body) {
  auto fields = read_row_description(body);
  if (!fields) return tl::unexpected(fields.error());
  (void)shard;
  if (described_ == 0) {
    fields_ = std::move(*fields);
  } else {
    // A type made by CREATE TYPE/DOMAIN has an OID of each shard's own (it ran on each): the
    // client gets the first shard's. pgrange compares no value of such a type (ValueOrder).
    constexpr uint32_t kFirstNormalObjectId = 16384;
    auto same_type = [](uint32_t a, uint32_t b) {
      return a == b || (a >= kFirstNormalObjectId && b >= kFirstNormalObjectId);
    };
    bool same = fields->size() == fields_.size();
    for (size_t i = 0; same && i < fields_.size(); ++i) {
      same = (*fields)[i].name == fields_[i].name &&
             same_type((*fields)[i].type_oid, fields_[i].type_oid) &&
             (*fields)[i].type_mod == fields_[i].type_mod &&
             (*fields)[i].format == fields_[i].format;
    }
    if (!same) {
      return tl::unexpected(Error::make(sqlstate::kInternalError,
                                        "shards returned different columns for the same query")
                                .with_detail("the table differs between shards"));
    }
  }
  if (++described_ == shards_) return prepare();
  return {};
}

Result<void> ResultMerge::prepare() {
  const int columns = static_cast<int>(fields_.size());
  if (q_.mode == sql::MergeQuery::Mode::kOrdered) {
    int visible = columns - q_.hidden;
    if (visible < 0 || (q_.visible >= 0 && visible != q_.visible)) {
      return fail(sqlstate::kInternalError,
                  "a shard answered with an unexpected number of columns");
    }
    out_fields_.assign(fields_.begin(), fields_.begin() + visible);
    for (sql::MergeSortKey k : q_.order) {
      if (k.column < 0) k.column += columns;
      if (k.column < 0 || k.column >= columns) {
        return fail(sqlstate::kInternalError, "ORDER BY column out of range in the merge");
      }
      const ResultField& f = fields_[static_cast<size_t>(k.column)];
      auto order = ValueOrder::for_type(f.type_oid, f.format);
      if (!order) {
        return tl::unexpected(cannot_compare(f, q_.distinct ? "SELECT DISTINCT" : "ORDER BY"));
      }
      keys_.push_back(k);
      key_orders_.push_back(*order);
      compares_text_ = compares_text_ || collated(f.type_oid);
    }
    return {};
  }
  // Aggregate mode: the group columns, then the partials.
  for (int g = 0; g < q_.group_columns; ++g) {
    const ResultField& f = fields_[static_cast<size_t>(g)];
    auto order = ValueOrder::for_type(f.type_oid, f.format);
    if (!order) return tl::unexpected(cannot_compare(f, "GROUP BY"));
    keys_.push_back({g, false, false});
    key_orders_.push_back(*order);
    compares_text_ = compares_text_ || collated(f.type_oid);
  }
  for (const sql::MergeAggregate& a : q_.aggregates) {
    size_t c = static_cast<size_t>(a.column);
    bool avg = a.kind == sql::MergeAggregate::Kind::kAvg;
    if (c + (avg ? 1 : 0) >= fields_.size()) {
      return fail(sqlstate::kInternalError,
                  "a shard answered with an unexpected number of columns");
    }
    if (fields_[c].format != 0) {
      return fail(sqlstate::kFeatureNotSupported,
                  "aggregates over several shards are combined in text format only");
    }
    bool extreme =
        a.kind == sql::MergeAggregate::Kind::kMin || a.kind == sql::MergeAggregate::Kind::kMax;
    compares_text_ = compares_text_ || (extreme && collated(fields_[c].type_oid));
    auto comb = AggregateCombiner::make(kind_of(a.kind), fields_[c].type_oid,
                                        avg ? fields_[c + 1].type_oid : 0);
    if (!comb) return tl::unexpected(comb.error());
    combiners_.push_back(std::move(*comb));
  }
  std::vector<ResultField> all;
  for (size_t o = 0; o < q_.outputs.size(); ++o) {
    const sql::MergeOutput& out = q_.outputs[o];
    ResultField f;
    if (out.is_group) {
      f = fields_[static_cast<size_t>(out.index)];
    } else {
      const auto& a = q_.aggregates[static_cast<size_t>(out.index)];
      const AggregateCombiner& comb = combiners_[static_cast<size_t>(out.index)];
      f = fields_[static_cast<size_t>(a.column)];
      if (comb.result_oid() != f.type_oid) {
        f.type_oid = comb.result_oid();
        f.type_len = type_len_of(f.type_oid, f.type_len);
        f.type_mod = -1;
      }
      f.table_oid = 0;
      f.attnum = 0;
    }
    if (o < q_.output_names.size() && !q_.output_names[o].empty()) f.name = q_.output_names[o];
    auto order = ValueOrder::for_type(f.type_oid, 0);
    bool compared =
        std::any_of(q_.order.begin(), q_.order.end(),
                    [&](const sql::MergeSortKey& k) { return k.column == static_cast<int>(o); }) ||
        (q_.distinct && static_cast<int>(o) < q_.visible_outputs);
    if (!order && compared) {
      return tl::unexpected(cannot_compare(f, q_.distinct ? "SELECT DISTINCT" : "ORDER BY"));
    }
    compares_text_ = compares_text_ || ((compared || q_.having) && collated(f.type_oid));
    output_orders_.push_back(order ? *order : *ValueOrder::for_type(kInt8, 0));
    all.push_back(f);
  }
  out_fields_.assign(all.begin(), all.begin() + q_.visible_outputs);
  // The combined values are text: those the client asked in binary are converted as sent.
  if (client_formats_.size() > 1 && client_formats_.size() != out_fields_.size()) {
    return fail(sqlstate::kProtocolViolation, "bind message has " +
                                                  std::to_string(client_formats_.size()) +
                                                  " result formats but query has " +
                                                  std::to_string(out_fields_.size()) + " columns");
  }
  for (size_t o = 0; o < out_fields_.size(); ++o) {
    int16_t want =
        client_formats_.empty() ? 0 : client_formats_[client_formats_.size() == 1 ? 0 : o];
    if (want != 0 && want != 1) {
      return fail(sqlstate::kInvalidParameterValue,
                  "unsupported format code: " + std::to_string(want));
    }
    if (want == 0 || out_fields_[o].format != 0) continue;
    if (!sends_binary(out_fields_[o].type_oid)) {
      return fail(sqlstate::kFeatureNotSupported,
                  "results of type " + type_display_name(out_fields_[o].type_oid) +
                      " combined over several shards cannot be sent in binary format");
    }
    bool is_float = out_fields_[o].type_oid == kFloat4 || out_fields_[o].type_oid == kFloat8;
    if (is_float && !exact_floats_) {
      return fail(sqlstate::kFeatureNotSupported,
                  "results of type " + type_display_name(out_fields_[o].type_oid) +
                      " combined over several shards cannot be sent in binary format while "
                      "extra_float_digits is below 1");
    }
    binary_outputs_.resize(out_fields_.size(), false);
    binary_outputs_[o] = true;
    out_fields_[o].format = 1;
  }
  return {};
}

std::string ResultMerge::row_description() const {
  return write_row_description(out_fields_);
}

std::optional<size_t> ResultMerge::wanted() const {
  if (finished_) return std::nullopt;
  if (q_.mode == sql::MergeQuery::Mode::kOrdered && keys_.empty()) {
    if (current_ < shards_ && !heads_[current_] && !ended_[current_]) return current_;
    return std::nullopt;
  }
  for (size_t i = 0; i < shards_; ++i) {
    if (!heads_[i] && !ended_[i]) return i;
  }
  return std::nullopt;
}

Result<ResultMerge::Row> ResultMerge::parse(std::string body) const {
  Row row;
  row.body = std::move(body);
  Reader r(row.body);
  uint16_t n = 0;
  if (!r.u16(n) || n != fields_.size()) return tl::unexpected(bad_row());
  row.offsets.assign(n, 0);
  row.lengths.assign(n, -1);
  size_t visible = q_.mode == sql::MergeQuery::Mode::kOrdered
                       ? fields_.size() - static_cast<size_t>(q_.hidden)
                       : fields_.size();
  row.visible_end = row.body.size();
  for (size_t i = 0; i < n; ++i) {
    if (i == visible) row.visible_end = r.pos();
    uint32_t len = 0;
    if (!r.u32(len)) return tl::unexpected(bad_row());
    if (len == 0xffffffffu) continue;
    std::string_view v;
    if (len > INT32_MAX || !r.bytes(len, v)) return tl::unexpected(bad_row());
    row.offsets[i] = static_cast<uint32_t>(r.pos() - len);
    row.lengths[i] = static_cast<int32_t>(len);
  }
  for (size_t k = 0; k < keys_.size(); ++k) {
    const auto v = row.value(static_cast<size_t>(keys_[k].column));
    if (v && setting_dependent(key_orders_[k].type_oid()) && !key_orders_[k].valid(*v)) {
      return tl::unexpected(
          Error::make(sqlstate::kFeatureNotSupported,
                      "pgrange cannot read the " + type_display_name(key_orders_[k].type_oid()) +
                          " value \"" + std::string(*v) + "\" to merge the shards' rows")
              .with_hint("pgrange merges dates and timestamps in DateStyle ISO and bytea in "
                         "hex output"));
    }
  }
  return row;
}

Result<void> ResultMerge::add_row(size_t shard, std::string body) {
  auto row = parse(std::move(body));
  if (!row) return tl::unexpected(row.error());
  heads_[shard] = std::move(*row);
  return {};
}

void ResultMerge::end_of_rows(size_t shard) {
  ended_[shard] = true;
  while (current_ < shards_ && ended_[current_] && !heads_[current_]) ++current_;
}

int ResultMerge::compare_rows(const Row& a, const Row& b) const {
  for (size_t k = 0; k < keys_.size(); ++k) {
    size_t c = static_cast<size_t>(keys_[k].column);
    int r = compare_key(key_orders_[k], keys_[k], a.value(c), b.value(c));
    if (r != 0) return r;
  }
  return 0;
}

/// The shard holding the least row, once every shard that may still send one has.
std::optional<size_t> ResultMerge::pick() const {
  std::optional<size_t> best;
  for (size_t i = 0; i < shards_; ++i) {
    if (!heads_[i]) continue;
    if (!best || compare_rows(*heads_[i], *heads_[*best]) < 0) best = i;
  }
  return best;
}

/// OFFSET and LIMIT: whether the next row goes to the client.
bool ResultMerge::take_slot() {
  if (skipped_ < static_cast<uint64_t>(q_.offset)) {
    ++skipped_;
    return false;
  }
  return true;
}

Result<void> ResultMerge::emit_row(const Row& row, std::string& out) {
  if (q_.distinct && last_) {
    bool same = true;
    for (size_t k = 0; k < keys_.size() && same; ++k) {
      size_t c = static_cast<size_t>(keys_[k].column);
      const auto a = row.value(c);
      const auto b = last_->value(c);
      same = (!a && !b) || (a && b && key_orders_[k].compare(*a, *b) == 0);
    }
    if (same) return {};
  }
  if (q_.distinct) last_ = row;
  if (!take_slot()) return {};
  size_t visible = fields_.size() - static_cast<size_t>(q_.hidden);
  out.push_back('D');
  if (q_.hidden == 0) {
    put32(out, static_cast<uint32_t>(row.body.size() + 4));
    out += row.body;
  } else {
    put32(out, static_cast<uint32_t>(row.visible_end + 4));
    put16(out, static_cast<uint16_t>(visible));
    out.append(row.body, 2, row.visible_end - 2);
  }
  ++sent_;
  if (q_.limit && sent_ >= static_cast<uint64_t>(*q_.limit)) finished_ = true;
  return {};
}

Result<void> ResultMerge::step(std::string& out) {
  if (finished_ || wanted()) return {};
  return q_.mode == sql::MergeQuery::Mode::kOrdered ? step_ordered(out) : step_aggregate(out);
}

Result<void> ResultMerge::step_ordered(std::string& out) {
  std::optional<size_t> i =
      keys_.empty() ? (current_ < shards_ && heads_[current_] ? std::optional<size_t>(current_)
                                                              : std::nullopt)
                    : pick();
  if (!i) {
    finished_ = true;
    return {};
  }
  Row row = std::move(*heads_[*i]);
  heads_[*i].reset();
  return emit_row(row, out);
}

Result<void> ResultMerge::step_aggregate(std::string& out) {
  std::optional<size_t> i = pick();
  if (!i) {
    if (in_group_ || (!any_group_ && q_.group_columns == 0)) {
      if (!in_group_) {
        for (auto& c : combiners_) c.reset();
        in_group_ = true;
      }
      if (auto r = finish_group(out); !r) return r;
    }
    // Everything is combined: sort, make distinct, cut.
    if (q_.distinct) {
      std::stable_sort(buffered_.begin(), buffered_.end(), [&](const Values& a, const Values& b) {
        return compare_outputs(a, b, true) < 0;
      });
      buffered_.erase(std::unique(buffered_.begin(), buffered_.end(),
                                  [&](const Values& a, const Values& b) {
                                    return compare_outputs(a, b, true) == 0;
                                  }),
                      buffered_.end());
    }
    if (!q_.order.empty()) {
      std::stable_sort(buffered_.begin(), buffered_.end(), [&](const Values& a, const Values& b) {
        return compare_outputs(a, b, false) < 0;
      });
    }
    for (const Values& v : buffered_) {
      if (q_.limit && sent_ >= static_cast<uint64_t>(*q_.limit)) break;
      if (!take_slot()) continue;
      if (auto e = emit_values(v, out); !e) return e;
    }
    buffered_.clear();
    finished_ = true;
    return {};
  }
  Row row = std::move(*heads_[*i]);
  heads_[*i].reset();
  bool same = in_group_;
  for (size_t k = 0; k < keys_.size() && same; ++k) {
    const auto a = row.value(k);
    const auto& b = group_values_[k];
    same = (!a && !b) || (a && b && key_orders_[k].compare(*a, *b) == 0);
  }
  if (!same) {
    if (in_group_) {
      if (auto r = finish_group(out); !r) return r;
    }
    group_values_.clear();
    for (size_t k = 0; k < keys_.size(); ++k) {
      const auto v = row.value(k);
      group_values_.push_back(v ? std::optional<std::string>(std::string(*v)) : std::nullopt);
    }
    for (auto& c : combiners_) c.reset();
    in_group_ = true;
    any_group_ = true;
  }
  for (size_t a = 0; a < combiners_.size(); ++a) {
    size_t c = static_cast<size_t>(q_.aggregates[a].column);
    bool avg = q_.aggregates[a].kind == sql::MergeAggregate::Kind::kAvg;
    auto r =
        avg ? combiners_[a].add(row.value(c), row.value(c + 1)) : combiners_[a].add(row.value(c));
    if (!r) return r;
  }
  return {};
}

Result<void> ResultMerge::finish_group(std::string& out) {
  in_group_ = false;
  Values v;
  v.reserve(q_.outputs.size());
  for (const sql::MergeOutput& o : q_.outputs) {
    if (o.is_group) {
      v.push_back(group_values_[static_cast<size_t>(o.index)]);
      continue;
    }
    auto r = combiners_[static_cast<size_t>(o.index)].result();
    if (!r) return tl::unexpected(r.error());
    v.push_back(std::move(*r));
  }
  if (q_.having) {
    auto keep = having(*q_.having, v);
    if (!keep) return tl::unexpected(keep.error());
    if (*keep != true) return {};
  }
  if (q_.distinct || !q_.order.empty()) {
    buffered_.push_back(std::move(v));
    return {};
  }
  if (take_slot()) {
    if (auto e = emit_values(v, out); !e) return e;
  }
  if (q_.limit && sent_ >= static_cast<uint64_t>(*q_.limit)) finished_ = true;
  return {};
}

Result<std::optional<bool>> ResultMerge::having(const sql::MergePredicate& p,
                                                const Values& v) const {
  using Kind = sql::MergePredicate::Kind;
  switch (p.kind) {
    case Kind::kAnd:
    case Kind::kOr: {
      bool is_and = p.kind == Kind::kAnd;
      std::optional<bool> acc = is_and;
      for (const auto& c : p.children) {
        auto r = having(c, v);
        if (!r) return r;
        if (*r == !is_and) return std::optional<bool>(!is_and);
        if (!*r) acc.reset();
      }
      return acc;
    }
    case Kind::kNot: {
      auto r = having(p.children.at(0), v);
      if (!r || !*r) return r;
      return std::optional<bool>(!**r);
    }
    case Kind::kIsNull:
    case Kind::kIsNotNull: {
      bool null = !v[static_cast<size_t>(p.left)].has_value();
      return std::optional<bool>(p.kind == Kind::kIsNull ? null : !null);
    }
    case Kind::kCompare:
      break;
  }
  const auto& left = v[static_cast<size_t>(p.left)];
  std::optional<std::string_view> right;
  uint32_t right_type = 0;
  if (p.right_output >= 0) {
    right = view_of(v[static_cast<size_t>(p.right_output)]);
    right_type = output_orders_[static_cast<size_t>(p.right_output)].type_oid();
  } else if (p.right_text) {
    right = *p.right_text;
  }
  if (!left || !right) return std::optional<bool>();
  uint32_t type = output_orders_[static_cast<size_t>(p.left)].type_oid();
  int c = 0;
  if (numeric_family(type) && (p.right_output < 0 || numeric_family(right_type))) {
    auto a = PgNumeric::parse(*left);
    auto b = PgNumeric::parse(*right);
    if (!a || !b) {
      return fail(sqlstate::kFeatureNotSupported,
                  "pgrange cannot compare \"" + std::string(*right) + "\" in HAVING");
    }
    c = a->compare(*b);
  } else {
    auto order = ValueOrder::for_type(type, 0);
    if (!order || (p.right_output >= 0 && right_type != type) || !order->valid(*left) ||
        !order->valid(*right)) {
      return fail(sqlstate::kFeatureNotSupported,
                  "this HAVING comparison over a table spread across several shards is not "
                  "supported: pgrange cannot compare its values exactly");
    }
    c = order->compare(*left, *right);
  }
  bool r = p.op == "="    ? c == 0
           : p.op == "<>" ? c != 0
           : p.op == "<"  ? c < 0
           : p.op == "<=" ? c <= 0
           : p.op == ">"  ? c > 0
                          : c >= 0;
  return std::optional<bool>(r);
}

int ResultMerge::compare_outputs(const Values& a, const Values& b, bool all_visible) const {
  if (all_visible) {
    for (size_t o = 0; o < static_cast<size_t>(q_.visible_outputs); ++o) {
      int r = compare_key(output_orders_[o], {static_cast<int>(o), false, false}, view_of(a[o]),
                          view_of(b[o]));
      if (r != 0) return r;
    }
    return 0;
  }
  for (const sql::MergeSortKey& k : q_.order) {
    size_t o = static_cast<size_t>(k.column);
    int r = compare_key(output_orders_[o], k, view_of(a[o]), view_of(b[o]));
    if (r != 0) return r;
  }
  return 0;
}

Result<void> ResultMerge::emit_values(const Values& v, std::string& out) {
  std::string body;
  put16(body, static_cast<uint16_t>(q_.visible_outputs));
  for (size_t o = 0; o < static_cast<size_t>(q_.visible_outputs); ++o) {
    if (!v[o]) {
      put32(body, 0xffffffffu);
      continue;
    }
    if (!binary_outputs_.empty() && binary_outputs_[o]) {
      auto b = binary_value(out_fields_[o].type_oid, *v[o]);
      if (!b) return tl::unexpected(b.error());
      put32(body, static_cast<uint32_t>(b->size()));
      body += *b;
      continue;
    }
    put32(body, static_cast<uint32_t>(v[o]->size()));
    body += *v[o];
  }
  out.push_back('D');
  put32(out, static_cast<uint32_t>(body.size() + 4));
  out += body;
  ++sent_;
  return {};
}

}  // namespace pgrange::routing
