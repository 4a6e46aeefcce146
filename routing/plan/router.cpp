#include "routing/plan/router.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "routing/keys/key_codec.hpp"
#include "routing/keys/key_space.hpp"
#include "routing/keys/span.hpp"
#include "routing/meta/colocation.hpp"
#include "routing/plan/equalities.hpp"
#include "routing/plan/hash_sharding.hpp"
#include "sql/where_condition.hpp"

namespace pgrange::routing {
namespace {

bool is_write(const sql::StatementInfo& s) {
  using K = sql::StatementKind;
  return s.kind == K::kInsert || s.kind == K::kUpdate || s.kind == K::kDelete ||
         (s.kind == K::kCopy && s.copy_from);
}

std::string_view kind_name(const sql::StatementInfo& s) {
  using K = sql::StatementKind;
  switch (s.kind) {
    case K::kInsert:
      return "INSERT";
    case K::kUpdate:
      return "UPDATE";
    case K::kDelete:
      return "DELETE";
    case K::kCopy:
      return "COPY";
    case K::kSelect:
      return "SELECT";
    default:
      return "statement";
  }
}

/// Whether a literal of `type` means the same value to pgrange's codec as to the backend,
/// whatever the session: not a float4 (compared as float8), not 'now'/'today'/…, and a
/// timestamptz only with an explicit offset (without one, the session's TimeZone decides).
bool session_independent(KeyType type, std::string_view text) {
  // A float4 column is compared with a numeric literal as float8, where 0.1 is not 0.1::float4:
  // the key of the parsed float4 would be the wrong place to look.
  if (type == KeyType::kFloat4) return false;
  if (type != KeyType::kDate && type != KeyType::kTimestamp && type != KeyType::kTimestamptz) {
    return true;
  }
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* word : {"now", "today", "tomorrow", "yesterday"}) {
    if (lower.find(word) != std::string::npos) return false;
  }
  if (type != KeyType::kTimestamptz || lower.find("infinity") != std::string::npos) return true;
  while (!lower.empty() && lower.back() == ' ') lower.pop_back();
  if (lower.ends_with("z") || lower.ends_with("utc") || lower.ends_with("gmt")) return true;
  // ±hh, ±hh:mm or ±hhmm after the time of day.
  size_t time = lower.find(':');
  if (time == std::string::npos) return false;
  size_t sign = lower.find_first_of("+-", time);
  return sign != std::string::npos;
}

bool integer_key(KeyType type) {
  return type == KeyType::kInt2 || type == KeyType::kInt4 || type == KeyType::kInt8;
}

/// A cast to an integer type (canonical names, as ValueRef::cast_type).
bool integer_cast(std::string_view cast) {
  return cast == "int2" || cast == "int4" || cast == "int8";
}

/// Whether a value written with a cast to `cast` compares with a `type` column as its text
/// parsed as `type` does. A cast can change the value ('abc  '::char(5) is 'abc', a
/// timestamptz cast to date loses its time, numeric(2,1) rounds), so only casts to the
/// column's own type without a type modifier (or between integer types) keep it.
bool cast_keeps_value(KeyType type, std::string_view cast) {
  if (cast.empty()) return true;
  if (integer_key(type) && integer_cast(cast)) return true;
  if (cast != key_type_name(type)) return false;
  switch (type) {  // types whose casts can carry a modifier that changes the value
    case KeyType::kNumeric:
    case KeyType::kVarchar:
    case KeyType::kBpchar:
    case KeyType::kTimestamp:
    case KeyType::kTimestamptz:
      return false;
    default:
      return true;
  }
}

/// Why session_independent(type, text) is false, for explanations.
std::string session_dependence(KeyType type, std::string_view text) {
  if (type == KeyType::kFloat4) return "a float4 key compares with the value as float8";
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* word : {"now", "today", "tomorrow", "yesterday"}) {
    if (lower.find(word) != std::string::npos) return "'" + lower + "' depends on the current time";
  }
  return "a timestamptz without an explicit offset depends on the session's TimeZone";
}

/// How a value is written in SQL: numbers and booleans bare, strings quoted, $n, NULL, casts.
std::string value_display(const sql::ValueRef& v) {
  std::string out;
  switch (v.kind) {
    case sql::ValueRef::Kind::kNull:
      out = "NULL";
      break;
    case sql::ValueRef::Kind::kParam:
      out = "$" + std::to_string(v.param);
      break;
    case sql::ValueRef::Kind::kSum:
      for (const sql::ValueRef& term : v.terms) {
        if (!out.empty() || term.subtracted) out += term.subtracted ? " - " : " + ";
        out += value_display(term);
      }
      if (!v.cast_type.empty()) out = "(" + out + ")";
      break;
    case sql::ValueRef::Kind::kConst: {
      bool number = !v.text.empty() && v.text != "-" && v.text != ".";
      for (size_t i = 0; i < v.text.size() && number; ++i) {
        char c = v.text[i];
        number = std::isdigit(static_cast<unsigned char>(c)) || c == '.' || (i == 0 && c == '-') ||
                 ((c == 'e' || c == 'E') && i > 0);
      }
      if (number || v.text == "true" || v.text == "false") {
        out = v.text;
      } else {
        out = "'";
        for (char c : v.text) {
          if (c == '\'') out += '\'';
          out += c;
        }
        out += "'";
      }
      break;
    }
  }
  if (!v.cast_type.empty()) out += "::" + v.cast_type;
  return out;
}

/// A condition as SQL text (an opaque one as "<expression>").
std::string condition_display(const sql::Condition& c) {
  using K = sql::Condition::Kind;
  std::string out;
  switch (c.kind) {
    case K::kCompare:
      return c.column + " " + c.op + " " + value_display(c.values.front());
    case K::kIn:
      out = c.column + " IN (";
      for (size_t i = 0; i < c.values.size(); ++i) {
        if (i > 0) out += ", ";
        out += value_display(c.values[i]);
      }
      return out + ")";
    case K::kIsNull:
      return c.column + " IS NULL";
    case K::kLike:
      return c.column + " LIKE " + value_display(c.values.front());
    case K::kAnd:
    case K::kOr:
      for (size_t i = 0; i < c.children.size(); ++i) {
        if (i > 0) out += c.kind == K::kAnd ? " AND " : " OR ";
        const sql::Condition& child = c.children[i];
        bool group = child.kind == K::kOr || (c.kind == K::kOr && child.kind == K::kAnd);
        out += group ? "(" + condition_display(child) + ")" : condition_display(child);
      }
      return out;
    case K::kOpaque:
      break;
  }
  return "<expression>";
}

/// An integer written in decimal digits, with an optional minus sign, as PostgreSQL reads an
/// integer constant or parameter; nullopt for anything else (a fraction, an exponent, spaces,
/// a value beyond int8).
std::optional<int64_t> decimal_integer(std::string_view text) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

/// The value of an integer sum (`$1 + 100`, `500 - 10`) for an integer key, as PostgreSQL
/// computes it: every term an integer constant or parameter (cast to an integer type at most).
/// nullopt (with the reason) for anything else, or a result beyond int8. PostgreSQL may compute
/// in int4 and fail where int8 does not overflow; then the statement fails on any shard.
std::optional<int64_t> integer_sum(const sql::ValueRef& v, const BindParams* params,
                                   std::string& why) {
  int64_t total = 0;
  for (const sql::ValueRef& term : v.terms) {
    if (!term.cast_type.empty() && !integer_cast(term.cast_type)) {
      why = "a term cast to " + term.cast_type + " is not added up";
      return std::nullopt;
    }
    std::optional<int64_t> n;
    if (term.kind == sql::ValueRef::Kind::kConst) {
      n = decimal_integer(term.text);
    } else if (term.kind == sql::ValueRef::Kind::kParam) {
      if (params == nullptr) {
        why = "parameter $" + std::to_string(term.param) + " is only known at Bind";
        return std::nullopt;
      }
      if (params->format(term.param) != 0 && params->declared_type(term.param) == 0) {
        // PostgreSQL gives the parameter the integer type of the other operand and takes
        // only a value of that type's length: the length says which.
        auto value = params->bigint(term.param);
        if (value && *value) n = **value;
      } else if (auto text = params->text(term.param, KeyType::kInt8)) {
        n = decimal_integer(*text);
      }
    }
    if (!n) {
      why = "only sums of integer constants and parameters are added up";
      return std::nullopt;
    }
    bool overflow = term.subtracted ? __builtin_sub_overflow(total, *n, &total)
                                    : __builtin_add_overflow(total, *n, &total);
    if (overflow) {
      why = "the sum is out of range for int8";
      return std::nullopt;
    }
  }
  return total;
}

/// A key value's text (inner nullopt = NULL), or nullopt when it is not known: a parameter
/// without a Bind value. With `why`, says why it is not known.
std::optional<std::optional<std::string>> value_text(const sql::ValueRef& v, KeyType type,
                                                     const BindParams* params,
                                                     std::string* why = nullptr) {
  auto fail = [&](auto&& reason) -> std::optional<std::optional<std::string>> {
    if (why != nullptr) *why = reason();
    return std::nullopt;
  };
  auto cast_reason = [&] {
    return "the cast to " + v.cast_type + " may change the value for the " +
           std::string(key_type_name(type)) + " key";
  };
  switch (v.kind) {
    case sql::ValueRef::Kind::kNull:
      return std::optional<std::string>();
    case sql::ValueRef::Kind::kConst:
      if (!cast_keeps_value(type, v.cast_type)) return fail(cast_reason);
      if (!session_independent(type, v.text)) {
        return fail([&] { return session_dependence(type, v.text); });
      }
      return std::optional<std::string>(v.text);
    case sql::ValueRef::Kind::kParam:
      if (!cast_keeps_value(type, v.cast_type)) return fail(cast_reason);
      if (params != nullptr) {
        auto text = params->text(v.param, type);
        if (text && session_independent(type, *text)) return std::optional<std::string>(*text);
        if (text) return fail([&] { return session_dependence(type, *text); });
        return fail([&] {
          return "parameter $" + std::to_string(v.param) + " is NULL, missing or not of type " +
                 std::string(key_type_name(type));
        });
      }
      return fail(
          [&] { return "parameter $" + std::to_string(v.param) + " is only known at Bind"; });
    case sql::ValueRef::Kind::kSum: {
      if (!cast_keeps_value(type, v.cast_type)) return fail(cast_reason);
      if (!integer_key(type)) {
        return fail([&] {
          return "arithmetic is worked out for integer keys only, not " +
                 std::string(key_type_name(type));
        });
      }
      std::string reason;
      auto sum = integer_sum(v, params, reason);
      if (!sum) return fail([&] { return reason; });
      return std::optional<std::string>(std::to_string(*sum));
    }
  }
  return std::nullopt;
}

/// Appends an explanation step (callers check that notes is set: it is null on the hot path,
/// where the strings are not even built).
void note(std::vector<RouteReason>* notes, std::string condition, std::string effect) {
  if (notes != nullptr) notes->push_back({std::move(condition), std::move(effect)});
}

/// The point keys a statement pins its target table to, or nullopt for "the whole table".
/// With notes, records how (and, for an INSERT, why not).
std::optional<std::vector<std::string>> point_keys(const TableDescriptor& t,
                                                   const sql::StatementInfo& s,
                                                   const BindParams* params,
                                                   std::vector<RouteReason>* notes = nullptr) {
  using K = sql::StatementKind;
  // An INSERT's VALUES rows give its keys whatever else it reads (its subqueries are relations
  // of their own to the router); other statements' equalities are read for one table only.
  if (t.key.empty() || (!s.single_table && s.kind != K::kInsert)) return std::nullopt;
  const auto key_columns = row_key_columns(t);  // a hash-sharded key's bucket is computed
  std::vector<std::string> keys;
  if (s.kind == K::kSelect || s.kind == K::kUpdate || s.kind == K::kDelete) {
    std::vector<std::optional<std::string>> values;
    std::string shown;
    for (const KeyColumnDef& col : key_columns) {
      const sql::ValueRef* found = nullptr;
      for (const auto& [name, value] : s.equalities) {
        if (name == col.name) {
          found = &value;
          break;
        }
      }
      if (found == nullptr || found->kind == sql::ValueRef::Kind::kNull) return std::nullopt;
      auto text = value_text(*found, col.column.type, params);
      if (!text || !*text) return std::nullopt;
      values.push_back(std::move(*text));
      if (notes != nullptr) {
        shown += (shown.empty() ? "" : " AND ") + col.name + " = " + value_display(*found);
      }
    }
    auto key = point_key(t, values);
    if (!key) return std::nullopt;  // the shard will report the bad value itself
    keys.push_back(std::move(*key));
    if (notes != nullptr) {
      note(notes, std::move(shown), "point");
      // Further equalities on key columns (a contradiction finds no row on the shard anyway).
      for (const KeyColumnDef& col : key_columns) {
        bool first = true;
        for (const auto& [name, value] : s.equalities) {
          if (name != col.name) continue;
          if (!first) {
            note(notes, name + " = " + value_display(value),
                 "left out: " + name + " is already given by =");
          }
          first = false;
        }
      }
    }
    return keys;
  }
  // Without a column list the VALUES fill the table's columns in order.
  const std::vector<std::string>& columns = s.insert_columns.empty() ? t.columns : s.insert_columns;
  if (s.kind == K::kInsert && s.insert_values && !columns.empty()) {
    std::vector<size_t> positions;
    for (const KeyColumnDef& col : key_columns) {
      auto it = std::find(columns.begin(), columns.end(), col.name);
      if (it == columns.end()) {  // a default fills the key
        if (notes != nullptr)
          note(notes, "INSERT without key column " + col.name, "a default fills it: not read");
        return std::nullopt;
      }
      positions.push_back(static_cast<size_t>(it - columns.begin()));
    }
    constexpr size_t kShownRows = 8;
    for (size_t r = 0; r < s.insert_rows.size(); ++r) {
      const auto& row = s.insert_rows[r];
      std::vector<std::optional<std::string>> values;
      std::string shown;
      auto where = [&] { return "VALUES row " + std::to_string(r + 1) + ": "; };
      for (size_t i = 0; i < positions.size(); ++i) {
        size_t p = positions[i];
        const std::string& name = key_columns[i].name;
        if (p >= row.size() || !row[p]) {
          if (notes != nullptr)
            note(notes, where() + name, "not a constant or parameter: not read");
          return std::nullopt;
        }
        std::string why;
        auto text = value_text(*row[p], key_columns[i].column.type, params,
                               notes != nullptr ? &why : nullptr);
        if (!text) {
          if (notes != nullptr)
            note(notes, where() + name + " = " + value_display(*row[p]), "not read: " + why);
          return std::nullopt;
        }
        if (notes != nullptr) {
          shown += (shown.empty() ? "" : " AND ") + name + " = " + value_display(*row[p]);
        }
        values.push_back(std::move(*text));
      }
      auto key = point_key(t, values);
      if (!key) {
        if (notes != nullptr)
          note(notes, where() + shown, "not a valid key: " + key.error().message);
        return std::nullopt;
      }
      keys.push_back(std::move(*key));
      if (r < kShownRows) {
        if (notes != nullptr) note(notes, where() + shown, "point");
      } else if (r == kShownRows) {
        if (notes != nullptr)
          note(notes, std::to_string(s.insert_rows.size() - kShownRows) + " more VALUES rows",
               "points");
      }
    }
    return keys;
  }
  if (s.kind == K::kInsert) {
    if (notes != nullptr)
      note(notes,
           s.insert_values ? "INSERT without a column list into a table of unknown columns"
                           : "INSERT without VALUES (… SELECT, DEFAULT VALUES)",
           "the key is not known before it runs");
  }
  return std::nullopt;
}

/// The key spans of a table's primary index that a WHERE condition allows, or nullopt when it
/// does not narrow them. Conservative: whatever it cannot read exactly (a value that does not
/// parse as the column's type, an ordering comparison on a string column whose collation
/// pgrange does not know, an opaque condition) widens, never narrows.
class SpanBuilder {
 public:
  SpanBuilder(const TableDescriptor& t, const BindParams* params,
              std::vector<RouteReason>* notes = nullptr)
      : t_(t), params_(params), notes_(notes), index_(index_prefix(t.table_id, t.index_id)) {}

  std::optional<SpanSet> spans(const sql::Condition& c) {
    using K = sql::Condition::Kind;
    switch (c.kind) {
      case K::kOr: {
        SpanSet out;
        for (const auto& child : c.children) {
          auto s = spans(child);
          if (!s) {
            if (notes_ != nullptr) {
              note(notes_, condition_display(c), "an OR branch does not narrow: not read");
            }
            return std::nullopt;
          }
          out = union_spans(out, *s);
        }
        return out;
      }
      case K::kAnd: {
        std::vector<const sql::Condition*> parts;
        sql::conjuncts(c, parts);
        return conjunction(parts);
      }
      case K::kOpaque:
        if (notes_ != nullptr) note(notes_, "<expression>", std::string(kOpaqueEffect));
        return std::nullopt;
      default:
        return conjunction({&c});
    }
  }

 private:
  static constexpr std::string_view kOpaqueEffect =
      "not read (a function, an operator other than = < <= > >=, NOT, a cast on the column, a "
      "comparison of columns…)";

  int position(const std::string& column) const {
    for (size_t i = 0; i < t_.key.size(); ++i) {
      if (t_.key[i].name == column) return static_cast<int>(i);
    }
    return -1;
  }

  /// The value of v for a column of `col`'s type, or nullopt (and, explaining, why in *why).
  std::optional<KeyValue> value(const sql::ValueRef& v, const KeyColumn& col,
                                std::string* why = nullptr) const {
    auto text = value_text(v, col.type, params_, notes_ != nullptr ? why : nullptr);
    if (!text) return std::nullopt;
    if (!*text) {
      if (notes_ != nullptr && why != nullptr) *why = "NULL";
      return std::nullopt;
    }
    auto parsed = parse_text_value(col.type, **text);
    if (!parsed) {
      if (notes_ != nullptr && why != nullptr) {
        *why = "'" + **text + "' is not of type " + std::string(key_type_name(col.type));
      }
      return std::nullopt;
    }
    return *parsed;
  }

  static bool is_string(KeyType t) {
    return t == KeyType::kText || t == KeyType::kVarchar || t == KeyType::kBpchar;
  }

  static std::optional<SpanSet> meet(std::optional<SpanSet> a, const std::optional<SpanSet>& b) {
    if (!a) return b;
    if (!b) return a;
    return intersect_spans(*a, *b);
  }

  std::optional<SpanSet> conjunction(const std::vector<const sql::Condition*>& parts) {
    using K = sql::Condition::Kind;
    const size_t n = t_.key.size();
    // Equal leading key columns make a prefix.
    std::string prefix = index_;
    std::vector<bool> used(parts.size(), false);
    std::string shown;  // the equalities used, when explaining
    size_t j = 0;
    for (; j < n; ++j) {
      const KeyColumn& col = t_.key[j].column;
      bool found = false;
      for (size_t i = 0; i < parts.size() && !found; ++i) {
        const sql::Condition& p = *parts[i];
        bool eq =
            (p.kind == K::kCompare && p.op == "=") || (p.kind == K::kIn && p.values.size() == 1);
        if (!eq || position(p.column) != static_cast<int>(j)) continue;
        if (auto v = value(p.values.front(), col)) {
          append_key_value(prefix, col, *v);
          used[i] = true;
          found = true;
          if (notes_ != nullptr) shown += (shown.empty() ? "" : " AND ") + condition_display(p);
        }
      }
      if (!found) break;
    }
    std::optional<SpanSet> result;
    if (j == n && n > 0) {
      result = SpanSet{point_span(prefix)};
      if (notes_ != nullptr) note(notes_, std::move(shown), "point");
    } else if (j > 0) {
      result = SpanSet{prefix_span(prefix)};
      if (notes_ != nullptr) note(notes_, std::move(shown), "prefix of the key");
    }
    for (size_t i = 0; i < parts.size(); ++i) {
      if (used[i]) continue;
      const sql::Condition& p = *parts[i];
      int pos =
          p.kind == K::kAnd || p.kind == K::kOr || p.kind == K::kOpaque ? -2 : position(p.column);
      if (pos == -2) {
        result = meet(result, spans(p));  // an OR: narrows on its own
        continue;
      }
      if (pos != static_cast<int>(j) || j >= n) {  // constrains a later column only
        if (notes_ != nullptr) explain_unused(p, pos, j);
        continue;
      }
      result = meet(result, leaf(p, prefix, j));
    }
    return result;
  }

  /// Why a condition on a column the conjunction cannot narrow by is left out.
  void explain_unused(const sql::Condition& p, int pos, size_t j) const {
    if (pos < 0) {
      note(notes_, condition_display(p), "not on the key");
    } else if (static_cast<size_t>(pos) < j) {
      note(notes_, condition_display(p),
           "left out: " + t_.key[static_cast<size_t>(pos)].name + " is already given by =");
    } else {
      std::string leading;
      for (size_t i = 0; i < static_cast<size_t>(pos); ++i) {
        leading += (i > 0 ? ", " : "") + t_.key[i].name;
      }
      note(notes_, condition_display(p), "not read: narrows only with " + leading + " given by =");
    }
  }

  /// The spans under `prefix` of one condition on key column j.
  std::optional<SpanSet> leaf(const sql::Condition& p, const std::string& prefix, size_t j) {
    using K = sql::Condition::Kind;
    const KeyColumn& col = t_.key[j].column;
    bool last = j + 1 == t_.key.size();
    std::string why;
    auto unread = [&]() -> std::optional<SpanSet> {
      if (notes_ != nullptr) note(notes_, condition_display(p), "not read: " + why);
      return std::nullopt;
    };
    auto read = [&](SpanSet out, std::string_view effect) -> std::optional<SpanSet> {
      if (notes_ != nullptr) {
        note(notes_, condition_display(p), out.empty() ? "matches no key" : std::string(effect));
      }
      return out;
    };
    switch (p.kind) {
      case K::kCompare: {
        if (p.op == "=") {
          auto v = value(p.values.front(), col, &why);
          if (!v) return unread();
          std::string k = prefix;
          append_key_value(k, col, *v);
          return read(SpanSet{last ? point_span(k) : prefix_span(k)}, last ? "point" : "prefix");
        }
        if (is_string(col.type)) {  // collation unknown
          why = "the order of " + std::string(key_type_name(col.type)) +
                " values depends on the collation";
          return unread();
        }
        auto v = value(p.values.front(), col, &why);
        if (!v) return unread();
        std::optional<ColumnBound> lower, upper;
        if (p.op == ">" || p.op == ">=") lower = ColumnBound{*v, p.op == ">="};
        if (p.op == "<" || p.op == "<=") upper = ColumnBound{*v, p.op == "<="};
        return read(normalize_spans({interval_span(prefix, col, lower, upper)}), "span");
      }
      case K::kIn: {
        std::vector<Span> out;
        for (const auto& vr : p.values) {
          auto v = value(vr, col, &why);
          if (!v) return unread();
          std::string k = prefix;
          append_key_value(k, col, *v);
          out.push_back(last ? point_span(k) : prefix_span(k));
        }
        return read(normalize_spans(std::move(out)), last ? "points" : "prefixes");
      }
      case K::kIsNull:
        return read(normalize_spans({null_span(prefix, col)}), "NULL span");
      case K::kLike: {
        if (col.type != KeyType::kText && col.type != KeyType::kVarchar &&
            col.type != KeyType::kBytea) {
          why = "LIKE on the " + std::string(key_type_name(col.type)) + " key";
          return unread();  // char(n) pads; other types do not LIKE
        }
        auto pattern = value_text(p.values.front(), KeyType::kText, params_,
                                  notes_ != nullptr ? &why : nullptr);
        if (!pattern) return unread();
        if (!*pattern) {
          why = "NULL pattern";
          return unread();
        }
        auto text_prefix = sql::like_prefix_of(**pattern);
        if (!text_prefix) {
          why = "not a prefix pattern ('abc%' without escapes)";
          return unread();
        }
        Span span = string_prefix_span(prefix, col, *text_prefix);
        // The smallest string with the prefix is the prefix itself, so no key below its
        // encoding (above it, DESC) starts with it: a split at 'g' keeps LIKE 'g%' on its right.
        std::string smallest = prefix;
        append_key_value(smallest, col, KeyValue{*text_prefix});
        if (col.descending) {
          span.end = std::min(span.end, prefix_end(smallest));
        } else {
          span.start = std::max(span.start, smallest);
        }
        return read(normalize_spans({std::move(span)}), "prefix span");
      }
      default:
        return std::nullopt;
    }
  }

  const TableDescriptor& t_;
  const BindParams* params_;
  std::vector<RouteReason>* notes_;
  std::string index_;
};

bool all_points(const SpanSet& spans) {
  for (const Span& s : spans) {
    if (s.end.size() != s.start.size() + 1 || s.end.back() != '\0' ||
        s.end.compare(0, s.start.size(), s.start) != 0) {
      return false;
    }
  }
  return true;
}

/// The key spans a WHERE condition allows (see SpanBuilder). A hash-sharded table's are those
/// of its hashed columns placed in the buckets: points in their own, other spans in every one.
std::optional<SpanSet> key_spans(const TableDescriptor& t, const sql::Condition& where,
                                 const BindParams* params, std::vector<RouteReason>* notes) {
  if (t.hash_buckets == 0) return SpanBuilder(t, params, notes).spans(where);
  TableDescriptor hashed = t;
  hashed.key.erase(hashed.key.begin());
  hashed.hash_buckets = 0;
  auto spans = SpanBuilder(hashed, params, notes).spans(where);
  if (!spans) return std::nullopt;
  SpanSet placed = spread_over_buckets(t, *spans);
  if (notes != nullptr && !spans->empty()) {
    note(notes, "hash-sharded key (" + std::to_string(t.hash_buckets) + " buckets)",
         all_points(*spans) ? "each point in its bucket" : "the spans in every bucket");
  }
  return placed;
}

}  // namespace

Result<std::string> point_key(const TableDescriptor& table,
                              std::span<const std::optional<std::string>> values) {
  if (table.hash_buckets > 0) {
    // The bucket comes from the values: parse them first.
    auto columns = row_key_columns(table);
    if (values.size() != columns.size()) {
      return fail(sqlstate::kSyntaxError, "a hash-sharded key needs a value for every key column");
    }
    std::vector<std::optional<KeyValue>> parsed;
    for (size_t i = 0; i < values.size(); ++i) {
      if (!values[i]) {
        parsed.emplace_back();
        continue;
      }
      auto v = parse_text_value(columns[i].column.type, *values[i]);
      if (!v) return tl::unexpected(v.error());
      parsed.emplace_back(std::move(*v));
    }
    return row_key(table, parsed);
  }
  std::vector<KeyColumn> columns;
  std::vector<std::optional<std::string_view>> views;
  for (const KeyColumnDef& k : table.key) columns.push_back(k.column);
  for (const auto& v : values) {
    views.push_back(v ? std::optional<std::string_view>(*v) : std::nullopt);
  }
  return encode_key_text(table.table_id, table.index_id, columns, views);
}

int16_t BindParams::format(int n) const {
  if (formats.empty()) return 0;
  if (formats.size() == 1) return formats[0];
  return static_cast<size_t>(n) <= formats.size() ? formats[static_cast<size_t>(n - 1)] : 0;
}

uint32_t BindParams::declared_type(int n) const {
  return n >= 1 && static_cast<size_t>(n) <= types.size() ? types[static_cast<size_t>(n - 1)] : 0;
}

std::optional<std::string> BindParams::text(int n, KeyType type) const {
  if (n < 1 || static_cast<size_t>(n) > values.size()) return std::nullopt;
  const auto& v = values[static_cast<size_t>(n - 1)];
  if (!v) return std::nullopt;
  const int16_t format = this->format(n);
  if (format == 0) return std::string(*v);
  const uint32_t declared = declared_type(n);
  KeyType as = type;  // the type whose binary form the value has
  if (declared != 0 && declared != key_type_oid(type)) {
    auto given = key_type_from_oid(declared);
    if (!given) return std::nullopt;
    auto textual = [](KeyType t) { return t == KeyType::kText || t == KeyType::kVarchar; };
    bool number = (integer_key(*given) || *given == KeyType::kNumeric) &&
                  (integer_key(type) || type == KeyType::kNumeric);
    if (!number && !(textual(*given) && textual(type))) return std::nullopt;
    as = *given;
  }
  auto value = parse_binary_value(as, *v);
  if (!value) return std::nullopt;
  return format_text_value(as, *value);
}

Result<std::optional<int64_t>> BindParams::bigint(int n) const {
  if (n < 1 || static_cast<size_t>(n) > values.size()) {
    return tl::unexpected(Error::make(sqlstate::kProtocolViolation,
                                      "bind message supplies " + std::to_string(values.size()) +
                                          " parameters, but the statement uses $" +
                                          std::to_string(n)));
  }
  const auto& v = values[static_cast<size_t>(n - 1)];
  if (!v) return std::optional<int64_t>{};
  const int16_t format = this->format(n);
  std::string_view s = *v;
  if (format != 0) {
    if (s.size() != 2 && s.size() != 4 && s.size() != 8) {
      return tl::unexpected(Error::make(
          "22P03", "incorrect binary data format in bind parameter " + std::to_string(n)));
    }
    uint64_t u = 0;
    for (char c : s) u = (u << 8) | static_cast<unsigned char>(c);
    int64_t value = s.size() == 8   ? static_cast<int64_t>(u)
                    : s.size() == 4 ? static_cast<int32_t>(static_cast<uint32_t>(u))
                                    : static_cast<int16_t>(static_cast<uint16_t>(u));
    return std::optional<int64_t>{value};
  }
  // int8in: blanks around an optionally signed run of digits.
  std::string_view t = s;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  int64_t value = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size()) {
    return tl::unexpected(
        Error::make(ec == std::errc::result_out_of_range ? "22003" : "22P02",
                    ec == std::errc::result_out_of_range
                        ? "value \"" + std::string(s) + "\" is out of range for type bigint"
                        : "invalid input syntax for type bigint: \"" + std::string(s) + "\""));
  }
  return std::optional<int64_t>{value};
}

std::string RouteReason::text() const {
  return condition + " → " + effect;
}

namespace {

/// Why the router reads no key condition of a table, as the last reason of a whole-table route.
RouteReason whole_table_reason(const TableDescriptor& t, const sql::StatementInfo& s,
                               bool is_target) {
  using K = sql::StatementKind;
  if (t.key.empty()) return {"table " + t.name + " is unsharded", "its one range"};
  if (!is_target && s.kind != K::kSelect) {
    return {s.target.name.empty() ? "referenced by a statement of kind " +
                                        std::string(sql::statement_kind_name(s.kind))
                                  : "read by " + std::string(kind_name(s)) + " into another table",
            "whole table"};
  }
  if (!s.single_table) {
    return {"not a single-table statement (a join, subquery, CTE, set operation…)", "whole table"};
  }
  if (s.kind == K::kInsert) return {"INSERT rows", "whole table"};
  if (s.kind == K::kCopy) return {"COPY", "whole table"};
  if (s.kind != K::kSelect && s.kind != K::kUpdate && s.kind != K::kDelete) {
    return {std::string(sql::statement_kind_name(s.kind)), "whole table"};
  }
  if (!s.where) return {"no WHERE clause", "whole table"};
  return {"no condition on the key that pgrange can read", "whole table"};
}

/// The name of a table's index with that id.
std::string find_index_id(const TableDescriptor& t, uint32_t index_id) {
  for (const IndexDescriptor& i : t.indexes) {
    if (i.index_id == index_id) return i.name;
  }
  return std::to_string(index_id);
}

/// The first public global index of `t` whose key spans the WHERE condition narrows, with them.
std::optional<Route::IndexLookup> index_lookup(const TableDescriptor& t,
                                               const sql::Condition& where,
                                               const BindParams* params) {
  for (const IndexDescriptor& i : t.indexes) {
    if (i.state != IndexDescriptor::State::kPublic) continue;
    auto spans = key_spans(index_relation(t, i), where, params, nullptr);
    if (!spans) continue;
    Route::IndexLookup lookup;
    lookup.table_id = t.table_id;
    lookup.index_id = i.index_id;
    lookup.spans = std::move(*spans);
    return lookup;
  }
  return std::nullopt;
}

/// One relation a statement reads or writes, as the router places it.
struct Touch {
  const TableDescriptor* table = nullptr;  ///< null: no table pgrange manages
  std::string schema, name;                ///< as the statement (or view, function) names it
  std::string construct;  ///< how the statement reaches it: "UPDATE … FROM", "view \"v\"", …
  bool target = false;    ///< the statement's own INSERT/UPDATE/DELETE/COPY target
  bool writes = false;
  /// The statement's own mention of its one table (or an INSERT's target): its equalities and
  /// VALUES rows are this relation's (point_keys), and a SELECT may read it through an index.
  bool own = false;
  /// Written by the statement's own INSERT/UPDATE/DELETE/COPY, whose index entries pgrange
  /// writes (not by a WITH, a view or a function).
  bool own_write = false;
  /// The relation the statement works on shard by shard (its target, or a single-table
  /// SELECT's table): run on several shards, each sees its own rows of it, which is right; any
  /// other relation it reads must be whole on every shard it runs on.
  bool driver = false;
  const sql::Condition* where = nullptr;  ///< what narrows it, if anything
  /// Not a relation: state that lives on this one shard (pool index), such as sequences.
  int home_shard = -1;
  /// The statement's own mention, a FROM item whose rows each make their own rows of the
  /// answer (RelationUse::preserved).
  bool preserved = false;
  /// The statement's own mention of it (not through a view or function), if any.
  const sql::RelationUse* use = nullptr;
};

/// Whether a function call reads or advances a sequence.
bool is_sequence_function(const sql::TableRef& f) {
  if (!f.schema.empty() && f.schema != "pg_catalog") return false;
  return f.name == "nextval" || f.name == "currval" || f.name == "setval" || f.name == "lastval";
}

constexpr int kMaxReaderDepth = 8;

/// Adds the relation schema.name as the statement reaches it: a table, or the relations a view
/// reads (and the functions it calls), or a relation pgrange does not manage.
void add_touch(const ClusterView& view, std::vector<Touch>& out, Touch touch, int depth);

/// Adds what a function of that name reads and writes (every overload pgrange knows).
void add_function_touches(const ClusterView& view, std::vector<Touch>& out,
                          const std::string& schema, const std::string& name, int depth) {
  for (const ReaderDescriptor* f : view.find_functions(schema, name)) {
    std::string construct = "function " + f->name + "()";
    if (depth >= kMaxReaderDepth) {
      Touch t;  // calls nested this deep: what they read is not followed (refused if it matters)
      t.name = f->name + "()";
      t.construct = construct;
      out.push_back(std::move(t));
      continue;
    }
    for (const QualifiedName& r : f->reads) {
      Touch t;
      t.schema = r.schema;
      t.name = r.name;
      t.construct = construct;
      t.writes = std::find(f->writes.begin(), f->writes.end(), r) != f->writes.end();
      add_touch(view, out, std::move(t), depth + 1);
    }
    for (const QualifiedName& c : f->calls) {
      add_function_touches(view, out, c.schema, c.name, depth + 1);
    }
  }
}

void add_touch(const ClusterView& view, std::vector<Touch>& out, Touch touch, int depth) {
  if (touch.schema == "*" && touch.name == "*") {
    // A body pgrange could not read: it may read any of its tables.
    for (const TableDescriptor& t : view.tables()) {
      Touch any = touch;
      any.schema = t.schema;
      any.name = t.name;
      any.table = &t;
      any.driver = false;
      out.push_back(std::move(any));
    }
    return;
  }
  touch.table = view.find_table(touch.schema, touch.name);
  if (touch.table != nullptr) {
    out.push_back(std::move(touch));
    return;
  }
  const ReaderDescriptor* v = view.find_view(touch.schema, touch.name);
  if (v == nullptr || depth >= kMaxReaderDepth) {
    out.push_back(std::move(touch));  // pgrange does not know what it holds
    return;
  }
  // Named for the statement's construct that reads the view ("subquery reading view "v""),
  // or for the view when the statement reads or writes it itself.
  std::string construct = "view \"" + v->name + "\"";
  if (!touch.target && !touch.own && touch.construct != "statement" && touch.construct != "FROM" &&
      !touch.construct.starts_with("view ")) {
    construct = touch.construct + " reading " + construct;
  }
  // A view's rows are those of the relations it reads, each read whole (its conditions are
  // not read), and written through it when it is written.
  for (const QualifiedName& r : v->reads) {
    Touch t;
    t.schema = r.schema;
    t.name = r.name;
    t.construct = construct;
    t.writes = touch.writes;
    // A plain view read by a SELECT spreads as its relation does; written through (a key
    // column may move rows, index entries must follow), it is not pgrange's to split up.
    t.driver = touch.driver && v->plain && !touch.writes;
    add_touch(view, out, std::move(t), depth + 1);
  }
  for (const QualifiedName& c : v->calls)
    add_function_touches(view, out, c.schema, c.name, depth + 1);
}

/// Every relation statement `s` reads or writes, with what narrows it: its own mentions
/// (sql::RelationUse, or its one table), and what the views it reads and the SQL functions it
/// calls read, through their bodies.
std::vector<Touch> touches_of(const ClusterView& view, const sql::StatementInfo& s, bool write) {
  std::vector<Touch> out;
  if (!s.relations.empty()) {
    for (const sql::RelationUse& u : s.relations) {
      Touch t;
      t.schema = u.table.schema;
      t.name = u.table.name;
      t.construct = u.construct;
      t.target = u.target;
      t.writes = u.writes;
      t.where = u.where ? &*u.where : nullptr;
      t.own = u.target && s.kind == sql::StatementKind::kInsert;
      t.own_write = u.target && write;
      // SELECT count(…) over a query of one table's rows runs on that table shard by shard.
      t.driver = u.target || (s.sums_counts && s.relations.size() == 1);
      t.preserved = u.preserved;
      t.use = &u;
      add_touch(view, out, std::move(t), 0);
    }
  } else {
    for (const sql::TableRef& ref : s.tables) {
      Touch t;
      t.schema = ref.schema;
      t.name = ref.name;
      t.construct = "statement";
      t.target = ref == s.target;
      t.writes = write && t.target;
      bool narrows = s.single_table && s.where &&
                     (t.target || s.kind == sql::StatementKind::kSelect || s.declares_cursor);
      t.where = narrows ? &*s.where : nullptr;
      t.own = s.single_table;
      t.own_write = t.writes;
      t.driver = s.tables.size() == 1;
      add_touch(view, out, std::move(t), 0);
    }
  }
  for (const sql::TableRef& f : s.functions) {
    if (is_sequence_function(f) && !view.shards().empty()) {
      // Every shard has each sequence, but only the first one's counts: others would hand
      // out the same numbers again.
      Touch t;
      t.name = f.name + "()";
      t.construct = "sequence function " + f.name + "()";
      t.home_shard = 0;
      out.push_back(std::move(t));
      continue;
    }
    add_function_touches(view, out, f.schema, f.name, 0);
  }
  return out;
}

/// The refusal of a statement over several shards that reads `side` besides the relation it
/// works on: each shard would see only its own rows of it (or its own copy of a relation
/// pgrange does not manage).
Error partial_read_refusal(const ClusterView& view, const Touch& side, bool unmanaged,
                           const std::vector<int>& shards) {
  std::string names;
  for (int i : shards) names += (names.empty() ? "\"" : ", \"") + view.shard_name(i) + "\"";
  if (side.home_shard >= 0) {
    return not_supported(side.construct + " in a statement over other shards (" + names +
                         ") is not supported yet")
        .with_detail("Sequences count on shard \"" + view.shard_name(side.home_shard) + "\" only.")
        .with_hint("call it in a statement of its own, and use the value it returns");
  }
  if (unmanaged) {
    std::string rel = side.schema.empty() ? side.name : side.schema + "." + side.name;
    return not_supported("relation \"" + rel + "\" (" + side.construct +
                         "), which is no table pgrange manages, in a statement over several "
                         "shards (" +
                         names + ") is not supported")
        .with_detail("Each shard would read its own copy of it.")
        .with_hint("run the statement so that its tables' rows are on one shard");
  }
  return not_supported(side.construct + " over tables spread across several shards (" + names +
                       ") is not supported yet")
      .with_detail("Each shard would read only its own rows of table \"" + side.table->name + "\".")
      .with_hint(
          "give the key of every table it reads with = so that the statement runs on "
          "one shard");
}

/// Whether the spread tables `spread` (mentions of tables of one co-location group, FROM items
/// of the statement's own query) are joined on the group's key prefix into one connected whole
/// (every root key column of one equated with the same column of the other, in WHERE or ON),
/// and every outer join that adds rows of NULLs for one of them keeps a table of the group on
/// its other side, to which its ON so equates a table of the NULL-extended side: every row of
/// the join is then made of rows holding one key prefix, and whether a row finds its match
/// is decided on the shard holding that prefix.
bool joined_on_group_key(const ClusterView& view, const std::vector<Touch*>& spread) {
  uint64_t root_id = group_root(*spread.front()->table);
  const TableDescriptor* root = view.find_table_id(root_id);
  if (root == nullptr) return false;
  for (const Touch* t : spread) {
    if (t->use == nullptr || group_root(*t->table) != root_id) return false;
  }
  const size_t n = root->key.size();
  auto index_at = [&](int location) -> int {
    for (size_t i = 0; i < spread.size(); ++i) {
      if (spread[i]->use->location == location) return static_cast<int>(i);
    }
    return -1;
  };
  // Whether `has(k)` holds for every key prefix column k of a and b.
  auto on_key = [&](size_t a, size_t b, const auto& has) {
    for (size_t k = 0; k < n; ++k) {
      if (!has(spread[a]->table->key[k].name, spread[b]->table->key[k].name)) return false;
    }
    return true;
  };
  std::vector<size_t> component(spread.size());
  for (size_t i = 0; i < spread.size(); ++i) component[i] = i;
  auto find = [&](size_t i) {
    while (component[i] != i) i = component[i];
    return i;
  };
  for (size_t a = 0; a < spread.size(); ++a) {
    for (size_t b = 0; b < spread.size(); ++b) {
      if (a == b) continue;
      bool linked = on_key(a, b, [&](const std::string& mine, const std::string& theirs) {
        const auto& eqs = spread[a]->use->equalities;
        return std::any_of(eqs.begin(), eqs.end(), [&](const sql::RelationUse::Equality& e) {
          return e.other == spread[b]->use->location && e.column == mine &&
                 e.other_column == theirs;
        });
      });
      if (linked) component[find(a)] = find(b);
    }
  }
  for (const Touch* t : spread) {
    for (const sql::RelationUse::OuterJoin& oj : t->use->null_extended_by) {
      // A group table kept by the join, equated on the key with one of the extended side.
      bool safe = false;
      for (const auto& p : oj.pairs) {
        int x = index_at(p.nullable);
        int y = index_at(p.kept);
        if (x < 0 || y < 0) continue;
        bool linked =
            on_key(static_cast<size_t>(x), static_cast<size_t>(y),
                   [&](const std::string& mine, const std::string& theirs) {
                     return std::any_of(oj.pairs.begin(), oj.pairs.end(), [&](const auto& q) {
                       return q.nullable == p.nullable && q.kept == p.kept &&
                              q.nullable_column == mine && q.kept_column == theirs;
                     });
                   });
        if (linked) {
          safe = true;
          component[find(static_cast<size_t>(x))] = find(static_cast<size_t>(y));
        }
      }
      if (!safe) return false;
    }
  }
  for (size_t i = 1; i < spread.size(); ++i) {
    if (find(i) != find(0)) return false;
  }
  return aligned(view, group_of(view, *root));
}

/// A SELECT of a FROM of relations only, whose tables other than reference tables are either
/// one table, a preserved FROM item, or tables of one co-location group joined on the group's
/// key prefix (joined_on_group_key), FROM items of the statement's own query: each shard makes
/// exactly the answer's rows that come from its own rows. Those touches made the statement's
/// drivers, and the rows its merge is planned with (Route::joined). nullopt otherwise.
std::optional<TableDescriptor> joined_rows(const ClusterView& view, const sql::StatementInfo& s,
                                           std::vector<Touch>& touches) {
  if (s.kind != sql::StatementKind::kSelect || !s.plain_from || s.select_into ||
      s.relations.empty()) {
    return std::nullopt;
  }
  std::vector<Touch*> spread;
  bool all_preserved = true;
  for (Touch& t : touches) {
    if (t.table == nullptr) return std::nullopt;  // a relation pgrange does not manage
    if (t.table->reference) continue;
    if (!t.preserved) {
      if (t.use == nullptr || !t.use->top_from) return std::nullopt;
      all_preserved = false;
    }
    spread.push_back(&t);
  }
  if (spread.empty() || (spread.size() == 1 && !all_preserved)) return std::nullopt;
  if (spread.size() > 1 && !joined_on_group_key(view, spread)) return std::nullopt;
  for (Touch* t : spread) t->driver = true;
  const Touch* first = spread.front();
  TableDescriptor rows;
  rows.schema = first->table->schema;
  rows.name = first->table->name;
  for (const Touch& t : touches) {
    for (const std::string& c : t.table->columns) {
      if (std::find(rows.columns.begin(), rows.columns.end(), c) == rows.columns.end()) {
        rows.columns.push_back(c);
      }
    }
  }
  return rows;
}

bool reads_reference(const std::vector<Touch>& touches) {
  return std::any_of(touches.begin(), touches.end(),
                     [](const Touch& t) { return t.table != nullptr && t.table->reference; });
}

/// A reference table as statement `s` reaches it: read, nothing (the shard the statement
/// runs on holds its rows); written, every shard, and the route becomes a replicated write.
void reference_touch(const ClusterView& view, const sql::StatementInfo& s, const TableDescriptor& t,
                     bool write, std::vector<int>& mine, Route& route, TableRoute* ex) {
  const RangeMapSnapshot& ranges = view.ranges();
  std::vector<size_t> own = view.table_ranges(t.table_id);
  if (ex != nullptr) {
    ex->reach = TableRoute::Reach::kWholeTable;
    ex->spans = SpanSet{table_span(t.table_id)};
    ex->reasons.push_back(
        {"reference table", write ? "every shard holds all of its rows: written on every shard"
                                  : "every shard holds all of its rows: read where the "
                                    "statement runs"});
    for (size_t i : own) {
      // Read, no range of it is used: the shard the statement runs on has all of its rows.
      const RangeDescriptor& r = ranges.at(i);
      if (write) ex->ranges.push_back({r.range_id, r.shard, r.start_key, r.end_key});
    }
  }
  if (!write || route.refusal) return;
  if (!(s.target.name == t.name && (s.target.schema.empty() || s.target.schema == t.schema))) {
    route.refusal =
        not_supported("writing reference table \"" + t.name +
                          "\" other than as the statement's own target "
                          "(a data-modifying WITH, a view, a function) is not supported yet",
                      "write it with an INSERT, UPDATE or DELETE of its own");
    return;
  }
  for (size_t i = 0; i < view.shard_order().size(); ++i) mine.push_back(static_cast<int>(i));
  for (size_t i : own) {
    const RangeDescriptor& r = ranges.at(i);
    int shard = view.shard_index(r.shard);
    if (shard >= 0) {
      route.uses.push_back(
          RangeActivity::Use{r.range_id, r.generation, shard, true, false, r.start_key, r.end_key});
    }
  }
  route.replicated = true;
  std::string why;
  if (s.reads_clock) why = "CURRENT_TIMESTAMP (or another clock value)";
  for (const sql::TableRef& f : s.functions) {
    if (why.empty() && sql::varies_by_server(f)) why = "function " + f.name + "()";
  }
  if (!why.empty()) {
    route.refusal =
        not_supported("a write to reference table \"" + t.name + "\" computing values with " + why +
                          " is not supported: each shard would compute a value of its own",
                      "compute the value first and write it as a constant");
  }
}

Route route_impl(const ClusterView& view, std::span<const sql::StatementInfo> statements,
                 const BindParams* params, bool explain) {
  // What the statements' join equalities imply about their relations' keys narrows them too
  // (statements of one table have no relation uses: nothing to look at).
  std::vector<sql::StatementInfo> implied;
  for (size_t k = 0; k < statements.size(); ++k) {
    if (statements[k].relations.empty()) continue;
    auto more = with_implied_conditions(view, statements[k]);
    if (!more) continue;
    if (implied.empty()) implied.assign(statements.begin(), statements.end());
    implied[k] = std::move(*more);
  }
  if (!implied.empty()) statements = implied;
  Route route;
  route.view_version = view.version();
  const RangeMapSnapshot& ranges = view.ranges();
  const sql::StatementInfo* multi_shard = nullptr;
  bool read_reference = false;  // some statement reads a reference table
  for (const sql::StatementInfo& s : statements) {
    bool write = is_write(s);
    route.writes = route.writes || write;
    std::vector<int> mine;
    TableRoute* ex = nullptr;  // the table's explanation, when explaining
    auto use = [&](const RangeDescriptor& r, bool w, bool scan) {
      if (ex != nullptr) ex->ranges.push_back({r.range_id, r.shard, r.start_key, r.end_key});
      int shard = view.shard_index(r.shard);
      if (shard < 0) {
        route.refusal = Error::make(sqlstate::kConnectionFailure,
                                    "range " + std::to_string(r.range_id) + " is on shard \"" +
                                        r.shard + "\", which this pgrange has not configured");
        return;
      }
      mine.push_back(shard);
      route.uses.push_back(
          RangeActivity::Use{r.range_id, r.generation, shard, w, scan, r.start_key, r.end_key});
    };
    std::vector<Touch> touches = touches_of(view, s, write);
    read_reference = read_reference || reads_reference(touches);
    std::optional<TableDescriptor> joined = joined_rows(view, s, touches);
    const Touch* side = nullptr;  // the first relation read besides the one it runs on
    bool unmanaged_only = true;   // the side relations are none of pgrange's tables
    for (const Touch& touch : touches) {
      const TableDescriptor* t = touch.table;
      if (t == nullptr) {
        if (touch.home_shard >= 0) mine.push_back(touch.home_shard);
        if (!touch.driver && side == nullptr) side = &touch;
        continue;
      }
      bool is_target = touch.target;
      bool w = touch.writes;
      size_t before = mine.size();
      ex = nullptr;
      if (explain) {
        ex = &route.explanation.emplace_back();
        ex->statement = static_cast<size_t>(&s - statements.data());
        ex->table_id = t->table_id;
        ex->table = t->name;
        ex->write = w;
      }
      if (t->reference) {
        // Every shard holds all of its rows: read anywhere (where the statement's other tables
        // are), written everywhere. Never a relation a shard holds only part of.
        reference_touch(view, s, *t, w, mine, route, ex);
        continue;
      }
      std::vector<RouteReason>* notes = ex != nullptr ? &ex->reasons : nullptr;
      const size_t uses_before = route.uses.size();
      std::optional<std::vector<std::string>> keys;
      if (touch.own && (is_target || s.kind == sql::StatementKind::kSelect)) {
        keys = point_keys(*t, s, params, notes);
      }
      std::optional<SpanSet> spans;
      if (!keys && !t->key.empty() && touch.where != nullptr) {
        spans = key_spans(*t, *touch.where, params, notes);
      }
      if (keys) {
        bool rows = s.kind == sql::StatementKind::kInsert && is_target;
        // One statement's keys in every kSampleEvery on this thread: cheap, and over many
        // statements as spread as the keys themselves.
        constexpr uint32_t kSampleEvery = 8;
        thread_local uint32_t sample_tick = 0;
        const bool sample = !explain && ++sample_tick % kSampleEvery == 0;
        for (const std::string& k : *keys) {
          const RangeDescriptor* r = ranges.lookup(k);
          if (r != nullptr) use(*r, w, false);
          if (r != nullptr && sample) route.samples.push_back({r->range_id, k});
          if (rows) route.row_shards.push_back(r != nullptr ? view.shard_index(r->shard) : -1);
        }
      } else if (spans) {
        // Exactly the ranges the WHERE clause's key spans overlap.
        bool points = all_points(*spans);
        for (size_t i : ranges.scan_spans(*spans)) use(ranges.at(i), w, !points);
      } else {
        // No key condition narrows it: a SELECT may still read through a global index.
        auto lookup =
            touch.own && s.kind == sql::StatementKind::kSelect && s.single_table && s.where
                ? index_lookup(*t, *s.where, params)
                : std::nullopt;
        if (lookup) {
          for (size_t i : ranges.scan_spans(lookup->spans)) {
            const RangeDescriptor& r = ranges.at(i);
            int shard = view.shard_index(r.shard);
            if (shard < 0) continue;  // refused below, when the rows' ranges are read
            lookup->shards.push_back(shard);
            route.uses.push_back(RangeActivity::Use{r.range_id, r.generation, shard, false, true,
                                                    r.start_key, r.end_key});
          }
          std::sort(lookup->shards.begin(), lookup->shards.end());
          lookup->shards.erase(std::unique(lookup->shards.begin(), lookup->shards.end()),
                               lookup->shards.end());
          if (notes != nullptr) {
            note(notes, "global index " + t->name + "@" + find_index_id(*t, lookup->index_id),
                 "the index's entries name the rows to read");
          }
          route.index_lookup = std::move(lookup);
        }
        // Without the index (or until its entries are read) the rows may be in any range.
        for (size_t i : view.table_ranges(t->table_id)) use(ranges.at(i), w, true);
      }
      // Keys in several ranges: each shard the statement goes to gets all of them, so a shard
      // holding a copy of a range it does not own (a move's target before the switch, its
      // source before its delete) would answer for it too. Such a statement waits out a
      // cut-over as a whole-table read does; keys of one range go to its owner alone.
      bool many_ranges = false;
      for (size_t u = uses_before + 1; u < route.uses.size(); ++u) {
        many_ranges = many_ranges || route.uses[u].range_id != route.uses[uses_before].range_id;
      }
      if (many_ranges) {
        for (size_t u = uses_before; u < route.uses.size(); ++u) route.uses[u].scan = true;
      }
      // A relation the statement reads besides the one it works on counts only where it
      // reaches a range (a contradiction reads no row of it anywhere).
      if (!touch.driver && side == nullptr && mine.size() > before) {
        side = &touch;
        unmanaged_only = false;
      }
      if (w && !touch.own_write && !t->indexes.empty() && !route.refusal) {
        route.refusal =
            not_supported("writing table \"" + t->name + "\", which has global indexes, through " +
                              std::string(touch.construct) + " is not supported yet",
                          "write it with an INSERT, UPDATE or DELETE of its own");
      }
      if (ex != nullptr) {
        if (keys) {
          ex->reach = TableRoute::Reach::kPoints;
          std::vector<Span> points;
          for (const std::string& k : *keys) points.push_back(point_span(k));
          ex->spans = normalize_spans(std::move(points));
        } else if (spans) {
          ex->reach = TableRoute::Reach::kSpans;
          ex->spans = *spans;
          if (spans->empty()) {
            ex->reasons.push_back({"the key conditions together", "no key can match: no range"});
          }
        } else {
          ex->reach = TableRoute::Reach::kWholeTable;
          ex->spans = SpanSet{table_span(t->table_id)};
          if (touch.own) {
            ex->reasons.push_back(whole_table_reason(*t, s, is_target));
          } else if (touch.where != nullptr) {
            ex->reasons.push_back({"no condition on the key that pgrange can read", "whole table"});
          } else {
            ex->reasons.push_back(
                {"read through " + touch.construct + ", no condition on its key", "whole table"});
          }
        }
        std::sort(ex->ranges.begin(), ex->ranges.end(),
                  [](const auto& a, const auto& b) { return a.start_key < b.start_key; });
        ex->ranges.erase(std::unique(ex->ranges.begin(), ex->ranges.end()), ex->ranges.end());
      }
    }
    if (mine.empty() && s.locks_rows && reads_reference(touches)) {
      // Rows of reference tables locked by a statement of no other table: on the first shard,
      // where their writers queue first.
      mine.push_back(0);
    }
    std::sort(mine.begin(), mine.end());
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
    if (side != nullptr) route.side_reads = true;
    if (joined && mine.size() > 1 && statements.size() == 1) route.joined = std::move(joined);
    // Run on several shards, a statement sees on each only that shard's rows of every relation
    // it reads: right for the one relation it works on shard by shard, wrong for any other
    // (unless it is whole there). A SELECT that is no single-table one is refused below for
    // its construct (JOIN, subquery, WITH, …).
    bool select_refused_below = s.kind == sql::StatementKind::kSelect && !s.relations.empty();
    if (side != nullptr && mine.size() > 1 && !route.refusal && !select_refused_below) {
      route.refusal = partial_read_refusal(view, *side, unmanaged_only, mine);
    }
    if (mine.size() > 1 && multi_shard == nullptr) multi_shard = &s;
    route.shards.insert(route.shards.end(), mine.begin(), mine.end());
  }
  // An UPDATE that assigns a key column may move a row to another range, and so to another
  // shard, when the table's ranges are on several shards: the proxy runs it on the shards its
  // WHERE reaches and moves the rows whose new key another shard owns (deleted there, inserted
  // on the new shard, in the statement's transaction). The new key may belong to any range of
  // the table, so the statement writes (and waits for moves of) every one of them.
  for (const sql::StatementInfo& s : statements) {
    if (s.set_columns.empty() || route.refusal) continue;
    const TableDescriptor* t = view.find_table(s.target.schema, s.target.name);
    if (t == nullptr || t->key.empty()) continue;
    for (const KeyColumnDef& k : t->key) {
      if (std::find(s.set_columns.begin(), s.set_columns.end(), k.name) == s.set_columns.end()) {
        continue;
      }
      std::vector<int> holders;
      for (size_t i : view.table_ranges(t->table_id)) {
        holders.push_back(view.shard_index(ranges.at(i).shard));
      }
      std::sort(holders.begin(), holders.end());
      holders.erase(std::unique(holders.begin(), holders.end()), holders.end());
      if (holders.size() <= 1) break;
      std::string assigns = "key column \"" + k.name + "\" of table \"" + t->name + "\"";
      if (s.kind != sql::StatementKind::kUpdate) {
        route.refusal = Error::make(sqlstate::kFeatureNotSupported,
                                    "INSERT … ON CONFLICT DO UPDATE assigning " + assigns +
                                        " may move rows between shards, which is not supported")
                            .with_hint("UPDATE the row's key in a statement of its own");
      } else if (statements.size() > 1) {
        route.refusal = Error::make(sqlstate::kFeatureNotSupported,
                                    "an UPDATE that assigns " + assigns +
                                        " in a query string of several statements is not "
                                        "supported yet")
                            .with_hint("send the statements one at a time");
      } else {
        route.moves_keys = true;
        for (TableRoute& ex : route.explanation) {
          if (ex.table_id == t->table_id && ex.write) {
            ex.reasons.push_back(
                {"SET " + k.name, "a row may move to any range of the table: all are written"});
          }
        }
        for (size_t i : view.table_ranges(t->table_id)) {
          const RangeDescriptor& r = ranges.at(i);
          int shard = view.shard_index(r.shard);
          if (shard < 0) continue;  // refused above if the statement reaches it
          route.uses.push_back(RangeActivity::Use{r.range_id, r.generation, shard, true, false,
                                                  r.start_key, r.end_key});
        }
      }
      break;
    }
  }
  std::sort(route.shards.begin(), route.shards.end());
  route.shards.erase(std::unique(route.shards.begin(), route.shards.end()), route.shards.end());
  route.reference_only = read_reference && route.shards.empty() && !route.writes && !route.refusal;
  // A write to a table with global indexes writes their entries too, wherever they are.
  for (const sql::StatementInfo& s : statements) {
    if (!is_write(s)) continue;
    const TableDescriptor* t = view.find_table(s.target.schema, s.target.name);
    if (t == nullptr || t->indexes.empty()) continue;
    route.maintains_index = true;
    if (s.on_conflict && !route.refusal) {
      // The shards see the table's own unique constraints only: a conflict in a UNIQUE global
      // index is found when its entry is written, too late to do nothing (or update) instead.
      for (const IndexDescriptor& i : t->indexes) {
        if (!i.unique) continue;
        bool named = s.conflict_constraint == i.name;
        bool same = s.conflict_columns.size() == i.columns.size() &&
                    std::all_of(i.columns.begin(), i.columns.end(), [&](const KeyColumnDef& k) {
                      return std::find(s.conflict_columns.begin(), s.conflict_columns.end(),
                                       k.name) != s.conflict_columns.end();
                    });
        bool any = s.conflict_columns.empty() && s.conflict_constraint.empty();
        if (named || same || any) {
          route.refusal =
              Error::make(sqlstate::kFeatureNotSupported,
                          "INSERT … ON CONFLICT " +
                              std::string(any ? "without a conflict target" : "on") +
                              (any ? " on table \"" + t->name + "\", which has" : "") +
                              " UNIQUE global index \"" + i.name +
                              "\" is not supported: its conflicts are found on another shard")
                  .with_hint("name the table's key as the conflict target: ON CONFLICT (" + [&] {
                    std::string cols;
                    for (const auto& k : row_key_columns(*t)) {
                      cols += (cols.empty() ? "" : ", ") + k.name;
                    }
                    return cols;
                  }() + ")");
          break;
        }
      }
    }
    for (const IndexDescriptor& i : t->indexes) {
      for (size_t k : view.index_ranges(t->table_id, i.index_id)) {
        const RangeDescriptor& r = ranges.at(k);
        int shard = view.shard_index(r.shard);
        if (shard < 0) continue;
        route.uses.push_back(RangeActivity::Use{r.range_id, r.generation, shard, true, false,
                                                r.start_key, r.end_key});
      }
    }
  }
  std::sort(route.uses.begin(), route.uses.end(), [](const auto& a, const auto& b) {
    return std::tie(a.range_id, a.generation, a.shard, a.write, a.scan) <
           std::tie(b.range_id, b.generation, b.shard, b.write, b.scan);
  });
  route.uses.erase(std::unique(route.uses.begin(), route.uses.end()), route.uses.end());
  // Even on one shard, a key-moving UPDATE may need another for its rows' new keys, and a write
  // maintaining a global index the shards of its entries.
  if ((route.moves_keys || route.maintains_index) && !route.refusal && !route.shards.empty()) {
    route.distributed_write = true;
  }
  if (route.refusal || route.shards.size() <= 1) return route;

  auto names = [&] {
    std::string out;
    for (int i : route.shards) {
      if (!out.empty()) out += ", ";
      out += "\"" + view.shard_name(i) + "\"";
    }
    return out;
  };
  if (statements.size() > 1) {
    route.several_statements = true;
    route.refusal = Error::make(sqlstate::kFeatureNotSupported,
                                "a query string whose statements run on several shards (" +
                                    names() + ") is not supported yet")
                        .with_hint("send the statements one at a time");
    return route;
  }
  const sql::StatementInfo& s = multi_shard ? *multi_shard : statements.front();
  if (route.replicated && s.kind != sql::StatementKind::kCopy) {
    // The same statement on every shard, committed atomically.
    route.distributed_write = true;
    return route;
  }
  if (s.kind == sql::StatementKind::kCopy && !s.copy_from) {
    route.refusal = Error::make(sqlstate::kFeatureNotSupported,
                                "COPY … TO of a table spread over several shards (" + names() +
                                    ") is not supported yet")
                        .with_hint("a plain SELECT over the table works");
    return route;
  }
  bool placed_rows =
      s.kind == sql::StatementKind::kInsert && s.insert_values &&
      route.row_shards.size() == s.insert_rows.size() &&
      std::find(route.row_shards.begin(), route.row_shards.end(), -1) == route.row_shards.end();
  if (placed_rows || s.kind == sql::StatementKind::kUpdate ||
      s.kind == sql::StatementKind::kDelete) {
    // One transaction on every shard it touches, committed atomically (two-phase commit).
    route.distributed_write = true;
    return route;
  }
  if (s.kind != sql::StatementKind::kSelect) {
    // Name what makes the statement impossible to split up by shard.
    std::string what = std::string(kind_name(s)) + " touching several shards";
    std::string why = ": it could not be applied atomically";
    if (s.kind == sql::StatementKind::kInsert) {
      what = !s.insert_values ? "INSERT … SELECT or DEFAULT VALUES over several shards"
                              : "INSERT … VALUES whose key a DEFAULT or an expression gives, "
                                "over several shards";
      why = ": the rows' keys are known only once they are made";
    } else if (!s.relations.empty() && s.relations.front().target) {
      what = s.relations.front().construct + " over several shards";
    }
    route.refusal = Error::make(sqlstate::kFeatureNotSupported,
                                what + " (" + names() + ") is not supported yet" + why)
                        .with_hint(s.kind == sql::StatementKind::kInsert
                                       ? "insert the rows of each shard with a statement of its "
                                         "own (SHOW RANGE FROM TABLE … FOR ROW tells where a row "
                                         "goes)"
                                       : "give every key column with = so that the statement "
                                         "runs on one shard");
    return route;
  }
  if (s.sums_counts && !s.select_into) {
    route.fanout_select = true;
    route.sum_counts = true;
    return route;
  }
  if (!s.fanout_blocker.empty() || s.select_into) {
    route.refusal =
        Error::make(sqlstate::kFeatureNotSupported,
                    (s.select_into ? std::string("SELECT INTO") : s.fanout_blocker) +
                        " over tables spread across several shards (" + names() +
                        ") is not supported yet")
            .with_hint("give every key column with = so that the statement runs on one shard");
    return route;
  }
  route.fanout_select = true;
  return route;
}

}  // namespace

Route route_statements(const ClusterView& view, std::span<const sql::StatementInfo> statements,
                       const BindParams* params) {
  return route_impl(view, statements, params, false);
}

Route explain_statements(const ClusterView& view, std::span<const sql::StatementInfo> statements,
                         const BindParams* params) {
  return route_impl(view, statements, params, true);
}

bool mergeable_select(std::span<const sql::StatementInfo> statements, const Route& route) {
  if (statements.size() != 1 || route.shards.size() < 2 || route.side_reads) return false;
  if (route.joined) return true;  // the merge planner says what it cannot answer
  const sql::StatementInfo& s = statements.front();
  if (s.kind == sql::StatementKind::kSelect && s.sums_counts && s.tables.size() == 1) return true;
  if (s.kind != sql::StatementKind::kSelect || s.select_into || !s.single_table ||
      s.tables.size() != 1) {
    return false;
  }
  const std::string& b = s.fanout_blocker;
  // Row locks: every shard locks its own rows, as one server would lock them all.
  bool locks =
      b == "FOR UPDATE" || b == "FOR NO KEY UPDATE" || b == "FOR SHARE" || b == "FOR KEY SHARE";
  // A window function is no merge's: the merge planner says so, and the statement is gathered.
  return b.empty() || b == "ORDER BY" || b == "LIMIT" || b == "OFFSET" || b == "GROUP BY" ||
         b == "HAVING" || b == "DISTINCT" || b == "window function" ||
         b.rfind("aggregate ", 0) == 0 || locks;
}

}  // namespace pgrange::routing
