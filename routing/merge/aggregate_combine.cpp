#include "routing/merge/aggregate_combine.hpp"

#include <charconv>
#include <cmath>

#include "routing/keys/key_float.hpp"

namespace pgrange::routing {
namespace {

constexpr uint32_t kInt8Oid = 20;
constexpr uint32_t kFloat4Oid = 700;
constexpr uint32_t kFloat8Oid = 701;
constexpr uint32_t kNumericOid = 1700;

tl::unexpected<Error> refuse(AggregateKind kind, uint32_t oid, std::string_view why) {
  std::string msg = std::string(aggregate_name(kind)) + "() of " + type_display_name(oid) +
                    " values across shards is not supported";
  if (!why.empty()) msg += " (" + std::string(why) + ")";
  return fail(sqlstate::kFeatureNotSupported, std::move(msg));
}

Result<int64_t> parse_int8(std::string_view text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range) {
    return fail(sqlstate::kNumericValueOutOfRange,
                "value \"" + std::string(text) + "\" is out of range for type bigint");
  }
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    return fail(sqlstate::kInvalidTextRepresentation,
                "invalid input syntax for type bigint: \"" + std::string(text) + "\"");
  }
  return v;
}

}  // namespace

std::string_view aggregate_name(AggregateKind kind) {
  switch (kind) {
    case AggregateKind::kCount:
      return "count";
    case AggregateKind::kSum:
      return "sum";
    case AggregateKind::kMin:
      return "min";
    case AggregateKind::kMax:
      return "max";
    case AggregateKind::kAvg:
      return "avg";
  }
  return "?";
}

Result<AggregateCombiner> AggregateCombiner::make(AggregateKind kind, uint32_t partial_oid,
                                                  uint32_t count_oid, bool exact_floats) {
  AggregateCombiner c(kind, partial_oid);
  switch (kind) {
    case AggregateKind::kCount:
      if (partial_oid != kInt8Oid) return refuse(kind, partial_oid, "a count is an int8");
      return c;
    case AggregateKind::kSum:
    case AggregateKind::kAvg:
      if (partial_oid == kFloat4Oid || partial_oid == kFloat8Oid) {
        if (!exact_floats) {
          return refuse(kind, partial_oid,
                        "extra_float_digits is below 1, so the shards print them rounded");
        }
        if (kind == AggregateKind::kAvg && partial_oid == kFloat4Oid) {
          return tl::unexpected(
              Error::make(sqlstate::kFeatureNotSupported,
                          "avg() of float4 values across shards is not supported (each shard "
                          "would sum them as float4, where PostgreSQL averages them as float8)")
                  .with_hint("average them as double precision: avg(x::float8)"));
        }
      } else if (partial_oid != kInt8Oid && partial_oid != kNumericOid) {
        return refuse(kind, partial_oid, "");
      }
      if (kind == AggregateKind::kAvg && count_oid != kInt8Oid) {
        return refuse(kind, partial_oid, "the count column is " + type_display_name(count_oid));
      }
      return c;
    case AggregateKind::kMin:
    case AggregateKind::kMax:
      c.order_ = ValueOrder::for_type(partial_oid, 0);
      if (!c.order_) {
        return refuse(kind, partial_oid, "pgrange cannot order its values as PostgreSQL does");
      }
      return c;
  }
  return refuse(kind, partial_oid, "");
}

Result<int64_t> AggregateCombiner::add_int8(int64_t sum, std::string_view text) const {
  auto v = parse_int8(text);
  if (!v) return fail(std::move(v.error()));
  int64_t out;
  // int8pl, the combine function of count and of sum(int2/int4), checks the same way.
  if (__builtin_add_overflow(sum, *v, &out)) {
    return fail(sqlstate::kNumericValueOutOfRange, "bigint out of range");
  }
  return out;
}

Result<void> AggregateCombiner::add(std::optional<std::string_view> partial,
                                    std::optional<std::string_view> count) {
  if (!partial) return {};
  switch (kind_) {
    case AggregateKind::kCount: {
      auto total = add_int8(int_total_, *partial);
      if (!total) return fail(std::move(total.error()));
      int_total_ = *total;
      seen_ = true;
      return {};
    }
    case AggregateKind::kSum:
      if (partial_oid_ == kInt8Oid) {
        auto total = add_int8(int_total_, *partial);
        if (!total) return fail(std::move(total.error()));
        int_total_ = *total;
        seen_ = true;
        return {};
      }
      [[fallthrough]];
    case AggregateKind::kAvg: {
      if (partial_oid_ == kFloat4Oid || partial_oid_ == kFloat8Oid)
        return add_float(*partial, count);
      auto value = PgNumeric::parse(*partial);
      if (!value) return fail(std::move(value.error()));
      int64_t new_count = int_total_;
      if (kind_ == AggregateKind::kAvg) {
        if (!count) {
          return fail(sqlstate::kInternalError, "avg() across shards: a sum without its count");
        }
        auto total = add_int8(int_total_, *count);
        if (!total) return fail(std::move(total.error()));
        new_count = *total;
      }
      auto sum = numeric_total_.add(*value);
      if (!sum) return fail(std::move(sum.error()));
      numeric_total_ = std::move(*sum);
      int_total_ = new_count;
      seen_ = true;
      return {};
    }
    case AggregateKind::kMin:
    case AggregateKind::kMax: {
      if (!order_->valid(*partial)) {
        return fail(sqlstate::kFeatureNotSupported,
                    std::string(aggregate_name(kind_)) + "() across shards cannot read the " +
                        type_display_name(partial_oid_) + " value \"" + std::string(*partial) +
                        "\" (DateStyle must be ISO, bytea_output hex)");
      }
      if (seen_) {
        int c = order_->compare(*partial, best_);
        // Strictly better only: among equal values the first one stays.
        if (kind_ == AggregateKind::kMin ? c >= 0 : c <= 0) return {};
      }
      best_.assign(partial->data(), partial->size());
      seen_ = true;
      return {};
    }
  }
  return {};
}

Result<void> AggregateCombiner::add_float(std::string_view partial,
                                          std::optional<std::string_view> count) {
  const bool single = partial_oid_ == kFloat4Oid;
  auto value = parse_float_text(partial, single);
  if (!value) return fail(std::move(value.error()));
  if (kind_ == AggregateKind::kAvg) {
    if (!count)
      return fail(sqlstate::kInternalError, "avg() across shards: a sum without its count");
    auto total = add_int8(int_total_, *count);
    if (!total) return fail(std::move(total.error()));
    int_total_ = *total;
  }
  // float4pl / float8pl, the combine functions of sum and (for its sum) of avg: an infinite
  // result from finite values is an overflow.
  bool overflow = false;
  if (single) {
    float a = float4_total_;
    float b = static_cast<float>(*value);
    float4_total_ = seen_ ? a + b : b;
    overflow = seen_ && std::isinf(float4_total_) && !std::isinf(a) && !std::isinf(b);
  } else {
    double a = float_total_;
    float_total_ = seen_ ? a + *value : *value;
    overflow = seen_ && std::isinf(float_total_) && !std::isinf(a) && !std::isinf(*value);
  }
  if (overflow) return fail(sqlstate::kNumericValueOutOfRange, "value out of range: overflow");
  seen_ = true;
  return {};
}

Result<std::optional<std::string>> AggregateCombiner::result() const {
  switch (kind_) {
    case AggregateKind::kCount:
      return std::to_string(int_total_);
    case AggregateKind::kSum:
      if (!seen_) return std::nullopt;
      if (partial_oid_ == kInt8Oid) return std::to_string(int_total_);
      if (partial_oid_ == kFloat4Oid) return format_float_text(float4_total_, true);
      if (partial_oid_ == kFloat8Oid) return format_float_text(float_total_, false);
      return numeric_total_.to_string();
    case AggregateKind::kMin:
    case AggregateKind::kMax:
      if (!seen_) return std::nullopt;
      return best_;
    case AggregateKind::kAvg: {
      if (!seen_) return std::nullopt;
      // float8_avg: the sum over the count (no rows: NULL, which seen_ said).
      if (partial_oid_ == kFloat8Oid) {
        if (int_total_ == 0) return std::nullopt;
        return format_float_text(float_total_ / static_cast<double>(int_total_), false);
      }
      // numeric_avg / int8_avg: the sum as numeric over the count as numeric.
      auto avg = numeric_total_.divide(PgNumeric::from_int64(int_total_));
      if (!avg) return fail(std::move(avg.error()));
      return avg->to_string();
    }
  }
  return std::nullopt;
}

uint32_t AggregateCombiner::result_oid() const {
  switch (kind_) {
    case AggregateKind::kCount:
      return kInt8Oid;
    case AggregateKind::kAvg:
      return partial_oid_ == kFloat8Oid ? kFloat8Oid : kNumericOid;
    case AggregateKind::kSum:
    case AggregateKind::kMin:
    case AggregateKind::kMax:
      return partial_oid_;
  }
  return partial_oid_;
}

void AggregateCombiner::reset() {
  seen_ = false;
  int_total_ = 0;
  numeric_total_ = PgNumeric();
  float_total_ = 0;
  float4_total_ = 0;
  best_.clear();
}

}  // namespace pgrange::routing
