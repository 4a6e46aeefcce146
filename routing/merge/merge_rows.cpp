#include "routing/merge/merge_rows.hpp"

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

std::string format_types_query(const std::vector<ResultField>& fields) {
  std::string oids, mods;
  for (const ResultField& f : fields) {
    oids += (oids.empty() ? "" : ",") + std::to_string(f.type_oid);
    mods += (mods.empty() ? "" : ",") + std::to_string(f.type_mod);
  }
  return "SELECT format_type(t, m) FROM unnest('{" + oids + "}'::oid[], '{" + mods +
         "}'::int4[]) WITH ORDINALITY AS u(t, m, i) ORDER BY i";
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

bool same_columns(const std::vector<ResultField>& a, const std::vector<ResultField>& b) {
  // A type made by CREATE TYPE/DOMAIN has an OID of each shard's own (it ran on each): the
  // client gets the first shard's. pgrange compares no value of such a type (ValueOrder).
  constexpr uint32_t kFirstNormalObjectId = 16384;
  auto same_type = [](uint32_t x, uint32_t y) {
    return x == y || (x >= kFirstNormalObjectId && y >= kFirstNormalObjectId);
  };
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || !same_type(a[i].type_oid, b[i].type_oid) ||
        a[i].type_mod != b[i].type_mod || a[i].format != b[i].format) {
      return false;
    }
  }
  return true;
}

Result<MergeRow> MergeRow::parse(std::string body, size_t columns) {
  MergeRow row;
  row.body = std::move(body);
  Reader r(row.body);
  uint16_t n = 0;
  if (!r.u16(n) || n != columns) return tl::unexpected(bad_row());
  row.offsets.assign(n, 0);
  row.lengths.assign(n, -1);
  for (size_t i = 0; i < n; ++i) {
    uint32_t len = 0;
    if (!r.u32(len)) return tl::unexpected(bad_row());
    row.offsets[i] = static_cast<uint32_t>(r.pos());
    if (len == 0xffffffffu) continue;
    std::string_view v;
    if (len > INT32_MAX || !r.bytes(len, v)) return tl::unexpected(bad_row());
    row.lengths[i] = static_cast<int32_t>(len);
  }
  if (!r.done()) return tl::unexpected(bad_row());
  return row;
}

std::string MergeRow::prefix(size_t n) const {
  if (n >= size()) return body;
  // offsets[n] is where value n starts; its length word is the 4 bytes before it.
  size_t end = offsets[n] - 4;
  std::string out;
  out.reserve(end);
  put16(out, static_cast<uint16_t>(n));
  out.append(body, 2, end - 2);
  return out;
}

RowValues MergeRow::values() const {
  RowValues out;
  out.reserve(size());
  for (size_t i = 0; i < size(); ++i) {
    auto v = value(i);
    out.push_back(v ? std::optional<std::string>(std::string(*v)) : std::nullopt);
  }
  return out;
}

std::string data_row_body(const RowValues& values) {
  std::string body;
  put16(body, static_cast<uint16_t>(values.size()));
  for (const auto& v : values) {
    if (!v) {
      put32(body, 0xffffffffu);
      continue;
    }
    put32(body, static_cast<uint32_t>(v->size()));
    body += *v;
  }
  return body;
}

void append_data_row(std::string& out, std::string_view body) {
  out.push_back('D');
  put32(out, static_cast<uint32_t>(body.size() + 4));
  out += body;
}

bool collated_type(uint32_t oid) {
  return collated(oid);
}

Result<RowOrder> RowOrder::make(const std::vector<ResultField>& fields,
                                std::vector<sql::MergeSortKey> keys, const char* what) {
  RowOrder o;
  const int columns = static_cast<int>(fields.size());
  for (sql::MergeSortKey k : keys) {
    if (k.column < 0) k.column += columns;
    if (k.column < 0 || k.column >= columns) {
      return fail(sqlstate::kInternalError, "ORDER BY column out of range in the merge");
    }
    const ResultField& f = fields[static_cast<size_t>(k.column)];
    auto order = ValueOrder::for_type(f.type_oid, f.format);
    if (!order) return tl::unexpected(cannot_compare(f, what));
    o.keys_.push_back(k);
    o.orders_.push_back(*order);
    o.compares_text_ = o.compares_text_ || collated(f.type_oid);
  }
  return o;
}

int RowOrder::compare(const MergeRow& a, const MergeRow& b) const {
  for (size_t k = 0; k < keys_.size(); ++k) {
    size_t c = static_cast<size_t>(keys_[k].column);
    int r = compare_key(orders_[k], keys_[k], a.value(c), b.value(c));
    if (r != 0) return r;
  }
  return 0;
}

bool RowOrder::abbreviates() const {
  return !orders_.empty() && orders_[0].integer_like();
}

std::optional<uint64_t> RowOrder::abbreviation(const MergeRow& row) const {
  if (!abbreviates()) return std::nullopt;
  const sql::MergeSortKey& key = keys_[0];
  const auto v = row.value(static_cast<size_t>(key.column));
  // NULL at the end it sorts to (a value there too ties with it, and compare() decides).
  if (!v) return key.nulls_first ? uint64_t{0} : UINT64_MAX;
  auto i = orders_[0].integer(*v);
  if (!i) return std::nullopt;
  uint64_t u = static_cast<uint64_t>(*i) ^ (uint64_t{1} << 63);  // signed order as unsigned
  return key.descending ? ~u : u;
}

Result<void> RowOrder::check(const MergeRow& row) const {
  for (size_t k = 0; k < keys_.size(); ++k) {
    const auto v = row.value(static_cast<size_t>(keys_[k].column));
    if (v && setting_dependent(orders_[k].type_oid()) && !orders_[k].valid(*v)) {
      return tl::unexpected(
          Error::make(sqlstate::kFeatureNotSupported,
                      "pgrange cannot read the " + type_display_name(orders_[k].type_oid()) +
                          " value \"" + std::string(*v) + "\" to merge the shards' rows")
              .with_hint("pgrange merges dates and timestamps in DateStyle ISO and bytea in "
                         "hex output"));
    }
  }
  return {};
}

Result<AggregateOutputs> aggregate_outputs(const sql::MergeQuery& q,
                                           const std::vector<ResultField>& fields,
                                           bool exact_floats) {
  AggregateOutputs out;
  for (const sql::MergeAggregate& a : q.aggregates) {
    size_t c = static_cast<size_t>(a.column);
    bool avg = a.kind == sql::MergeAggregate::Kind::kAvg;
    if (c + (avg ? 1 : 0) >= fields.size()) {
      return fail(sqlstate::kInternalError,
                  "a shard answered with an unexpected number of columns");
    }
    if (fields[c].format != 0) {
      return fail(sqlstate::kFeatureNotSupported,
                  "aggregates over several shards are combined in text format only");
    }
    bool extreme =
        a.kind == sql::MergeAggregate::Kind::kMin || a.kind == sql::MergeAggregate::Kind::kMax;
    out.compares_text = out.compares_text || (extreme && collated(fields[c].type_oid));
    auto comb = AggregateCombiner::make(kind_of(a.kind), fields[c].type_oid,
                                        avg ? fields[c + 1].type_oid : 0, exact_floats);
    if (!comb) return tl::unexpected(comb.error());
    out.combiners.push_back(std::move(*comb));
  }
  for (size_t o = 0; o < q.outputs.size(); ++o) {
    const sql::MergeOutput& output = q.outputs[o];
    ResultField f;
    if (output.is_group) {
      if (output.index < 0 || static_cast<size_t>(output.index) >= fields.size()) {
        return fail(sqlstate::kInternalError,
                    "a shard answered with an unexpected number of columns");
      }
      f = fields[static_cast<size_t>(output.index)];
    } else {
      const auto& a = q.aggregates[static_cast<size_t>(output.index)];
      const AggregateCombiner& comb = out.combiners[static_cast<size_t>(output.index)];
      f = fields[static_cast<size_t>(a.column)];
      if (comb.result_oid() != f.type_oid) {
        f.type_oid = comb.result_oid();
        f.type_len = type_len_of(f.type_oid, f.type_len);
        f.type_mod = -1;
      }
      f.table_oid = 0;
      f.attnum = 0;
    }
    if (o < q.output_names.size() && !q.output_names[o].empty()) f.name = q.output_names[o];
    out.fields.push_back(std::move(f));
  }
  return out;
}

Result<std::optional<bool>> evaluate_having(const sql::MergePredicate& p, const MergeRow& row,
                                            const std::vector<ResultField>& fields) {
  using Kind = sql::MergePredicate::Kind;
  switch (p.kind) {
    case Kind::kAnd:
    case Kind::kOr: {
      bool is_and = p.kind == Kind::kAnd;
      std::optional<bool> acc = is_and;
      for (const auto& c : p.children) {
        auto r = evaluate_having(c, row, fields);
        if (!r) return r;
        if (*r == !is_and) return std::optional<bool>(!is_and);
        if (!*r) acc.reset();
      }
      return acc;
    }
    case Kind::kNot: {
      auto r = evaluate_having(p.children.at(0), row, fields);
      if (!r || !*r) return r;
      return std::optional<bool>(!**r);
    }
    case Kind::kIsNull:
    case Kind::kIsNotNull: {
      bool null = !row.value(static_cast<size_t>(p.left)).has_value();
      return std::optional<bool>(p.kind == Kind::kIsNull ? null : !null);
    }
    case Kind::kCompare:
      break;
  }
  const auto left = row.value(static_cast<size_t>(p.left));
  std::optional<std::string_view> right;
  uint32_t right_type = 0;
  if (p.right_output >= 0) {
    right = row.value(static_cast<size_t>(p.right_output));
    right_type = fields[static_cast<size_t>(p.right_output)].type_oid;
  } else if (p.right_text) {
    right = *p.right_text;
  }
  if (!left || !right) return std::optional<bool>();
  uint32_t type = fields[static_cast<size_t>(p.left)].type_oid;
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

Result<std::vector<bool>> binary_columns(const std::vector<ResultField>& fields,
                                         const std::vector<int16_t>& client_formats,
                                         bool exact_floats) {
  if (client_formats.size() > 1 && client_formats.size() != fields.size()) {
    return fail(sqlstate::kProtocolViolation,
                "bind message has " + std::to_string(client_formats.size()) +
                    " result formats but query has " + std::to_string(fields.size()) + " columns");
  }
  std::vector<bool> out(fields.size(), false);
  for (size_t o = 0; o < fields.size(); ++o) {
    int16_t want = client_formats.empty() ? 0 : client_formats[client_formats.size() == 1 ? 0 : o];
    if (want != 0 && want != 1) {
      return fail(sqlstate::kInvalidParameterValue,
                  "unsupported format code: " + std::to_string(want));
    }
    if (want == 0 || fields[o].format != 0) continue;
    if (!sends_binary(fields[o].type_oid)) {
      return fail(sqlstate::kFeatureNotSupported,
                  "results of type " + type_display_name(fields[o].type_oid) +
                      " combined over several shards cannot be sent in binary format");
    }
    bool is_float = fields[o].type_oid == kFloat4 || fields[o].type_oid == kFloat8;
    if (is_float && !exact_floats) {
      return fail(sqlstate::kFeatureNotSupported,
                  "results of type " + type_display_name(fields[o].type_oid) +
                      " combined over several shards cannot be sent in binary format while "
                      "extra_float_digits is below 1");
    }
    out[o] = true;
  }
  return out;
}

}  // namespace pgrange::routing
