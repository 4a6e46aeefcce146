#include "routing/plan/key_predicate.hpp"

#include <optional>
#include <vector>

#include "routing/keys/key_space.hpp"
#include "routing/plan/hash_sharding.hpp"
#include "sql/quoting.hpp"

namespace pgrange::routing {
namespace {

using sql::quote_ident;
using sql::quote_literal;

/// A piece of a boolean SQL expression: a single term, or an AND or OR of terms.
struct Sql {
  enum class Op { kTerm, kAnd, kOr };
  std::string text;
  Op op = Op::kTerm;
};

const Sql kTrue{"true"};
const Sql kFalse{"false"};

bool is(const Sql& s, const Sql& constant) {
  return s.op == Sql::Op::kTerm && s.text == constant.text;
}

/// `s` as an operand of `parent`: parenthesised unless it is a term or the same operator.
std::string operand(const Sql& s, Sql::Op parent) {
  return s.op == Sql::Op::kTerm || s.op == parent ? s.text : "(" + s.text + ")";
}

// Boolean combinators that fold the constants true and false.
Sql sql_or(const Sql& a, const Sql& b) {
  if (is(a, kTrue) || is(b, kTrue)) return kTrue;
  if (is(a, kFalse)) return b;
  if (is(b, kFalse)) return a;
  return {operand(a, Sql::Op::kOr) + " OR " + operand(b, Sql::Op::kOr), Sql::Op::kOr};
}

Sql sql_and(const Sql& a, const Sql& b) {
  if (is(a, kFalse) || is(b, kFalse)) return kFalse;
  if (is(a, kTrue)) return b;
  if (is(b, kTrue)) return a;
  return {operand(a, Sql::Op::kAnd) + " AND " + operand(b, Sql::Op::kAnd), Sql::Op::kAnd};
}

/// A comparison in the key order (not SQL's: DESC columns flip it, NULLs have a set place).
enum class KeyCmp { kLt, kLe, kEq, kGe, kGt };

/// One key column as the predicate compares it.
struct PredicateColumn {
  std::string name;  ///< quoted identifier
  std::string expr;  ///< what is compared: the name, with COLLATE "C" for text types
  KeyColumn column;
  bool nullable = true;
};

Sql is_null(const PredicateColumn& c) {
  return c.nullable ? Sql{c.name + " IS NULL"} : kFalse;
}

Sql is_not_null(const PredicateColumn& c) {
  return c.nullable ? Sql{c.name + " IS NOT NULL"} : kTrue;
}

/// `column <cmp> value` in key order; value is a typed literal or nullopt for NULL.
Sql compare(const PredicateColumn& c, KeyCmp cmp, const std::optional<std::string>& value) {
  // In key order NULL is either below every value or above every value.
  const bool null_low = c.column.nulls_first();
  if (!value) {
    switch (cmp) {
      case KeyCmp::kEq:
        return is_null(c);
      case KeyCmp::kGe:
        return null_low ? kTrue : is_null(c);
      case KeyCmp::kGt:
        return null_low ? is_not_null(c) : kFalse;
      case KeyCmp::kLe:
        return null_low ? is_null(c) : kTrue;
      case KeyCmp::kLt:
        return null_low ? kFalse : is_not_null(c);
    }
  }
  const bool desc = c.column.descending;
  std::string_view op;
  bool null_matches = false;  // does a NULL row satisfy the comparison?
  switch (cmp) {
    case KeyCmp::kEq:
      op = "=";
      break;
    case KeyCmp::kLt:
      op = desc ? ">" : "<";
      null_matches = null_low;
      break;
    case KeyCmp::kLe:
      op = desc ? ">=" : "<=";
      null_matches = null_low;
      break;
    case KeyCmp::kGe:
      op = desc ? "<=" : ">=";
      null_matches = !null_low;
      break;
    case KeyCmp::kGt:
      op = desc ? "<" : ">";
      null_matches = !null_low;
      break;
  }
  Sql sql{c.expr + " " + std::string(op) + " " + *value};
  return null_matches ? sql_or(sql, is_null(c)) : sql;
}

/// (c_i..c_k) compared with (v_i..v_{k-1}) lexicographically in key order, `last` deciding
/// among keys equal on all of them.
Sql lexicographic_then(const std::vector<PredicateColumn>& cols,
                       const std::vector<std::optional<std::string>>& values, size_t i, bool lower,
                       const Sql& last) {
  if (i == values.size()) return last;
  return sql_or(compare(cols[i], lower ? KeyCmp::kGt : KeyCmp::kLt, values[i]),
                sql_and(compare(cols[i], KeyCmp::kEq, values[i]),
                        lexicographic_then(cols, values, i + 1, lower, last)));
}

/// (c1..ck) >= (v1..vk) (lower) or (c1..ck) < (v1..vk) (upper), lexicographically in key order;
/// with `after`, the bound is past every key starting with (v1..vk): > and <=.
Sql lexicographic(const std::vector<PredicateColumn>& cols,
                  std::vector<std::optional<std::string>> values, bool lower, bool after) {
  const size_t k = values.size() - 1;
  KeyCmp cmp = lower ? (after ? KeyCmp::kGt : KeyCmp::kGe) : (after ? KeyCmp::kLe : KeyCmp::kLt);
  Sql last = compare(cols[k], cmp, values[k]);
  values.pop_back();
  return lexicographic_then(cols, values, 0, lower, last);
}

/// The values of a key's columns as typed literals (nullopt = NULL); fails for a zero byte.
Result<std::vector<std::optional<std::string>>> typed_literals(
    const std::vector<PredicateColumn>& cols, const std::vector<std::optional<std::string>>& texts,
    const TableDescriptor& table) {
  std::vector<std::optional<std::string>> values;
  for (size_t i = 0; i < texts.size(); ++i) {
    const auto& text = texts[i];
    if (!text) {
      values.emplace_back();
      continue;
    }
    if (text->find('\0') != std::string::npos) {
      return fail(sqlstate::kInvalidTextRepresentation,
                  "range key of table " + qualified_table_name(table) +
                      " holds a value with a zero byte, which PostgreSQL cannot represent");
    }
    values.push_back(quote_literal(*text) + "::" + std::string(key_type_name(cols[i].column.type)));
  }
  return values;
}

/// The key whose prefix_end() `key` is, when `key` itself does not decode: a span's bound
/// past every key with a prefix (a lookup's `col = 'x'` or `col > 'x'`). Decrements the last
/// byte and tries the trailing 0xff bytes prefix_end dropped.
std::optional<std::vector<std::optional<std::string>>> decode_prefix_end(
    std::string_view key, const std::vector<KeyColumn>& columns) {
  if (key.empty() || key.back() == '\0') return std::nullopt;
  std::string base(key);
  base.back() = static_cast<char>(static_cast<unsigned char>(base.back()) - 1);
  for (int ff = 0; ff <= 16; ++ff) {
    auto decoded = decode_key_text(base, columns);
    if (decoded) return std::move(*decoded);
    base.push_back('\xff');
  }
  return std::nullopt;
}

bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<uint8_t>(s[i]);
    size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xe ? 3 : (b >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size() || (n == 2 && b < 0xc2)) return false;
    for (size_t j = 1; j < n; ++j) {
      if ((static_cast<uint8_t>(s[i + j]) & 0xc0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

/// `column < x` (below) or `column >= x` in the byte (C) order of strings, for a string x that
/// need not be text PostgreSQL accepts: a bound one past a prefix (its last byte raised) may
/// end inside a character; then it is said with the prefix it raised. NULLs are not counted.
Result<Sql> string_bound(const PredicateColumn& c, const std::string& x, bool below) {
  if (x.find('\0') != std::string::npos) {
    return fail(sqlstate::kInvalidTextRepresentation,
                "a key span's bound holds a zero byte, which PostgreSQL cannot represent");
  }
  const std::string type(key_type_name(c.column.type));
  if (valid_utf8(x)) {
    return Sql{c.expr + (below ? " < " : " >= ") + quote_literal(x) + "::" + type};
  }
  if (x.empty() || x.back() == '\0') {
    return fail(sqlstate::kInvalidTextRepresentation, "a key span's bound is not valid text");
  }
  std::string r = x;
  r.back() = static_cast<char>(static_cast<uint8_t>(r.back()) - 1);
  if (!valid_utf8(r)) {
    return fail(sqlstate::kInvalidTextRepresentation, "a key span's bound is not valid text");
  }
  // x is the first string past every string starting with r.
  const std::string lit = quote_literal(r) + "::" + type;
  const std::string starts = "starts_with(" + c.name + "::text, " + lit + ")";
  if (below) return Sql{"(" + c.expr + " <= " + lit + " OR " + starts + ")", Sql::Op::kTerm};
  return Sql{"(" + c.expr + " > " + lit + " AND NOT " + starts + ")", Sql::Op::kTerm};
}

/// The predicate for a bound key whose last value is the start of a string (a span of a
/// string prefix, `LIKE 'abc%'`, or the end of one).
Result<Sql> partial_bound_predicate(const TableDescriptor& table,
                                    const std::vector<PredicateColumn>& cols,
                                    const PartialKeyText& key, bool lower) {
  const size_t k = key.values.size();
  if (k >= cols.size() || !is_text_type(cols[k].column.type)) {
    return fail(sqlstate::kInternalError, "a key span ends inside a value that is not a string");
  }
  const PredicateColumn& c = cols[k];
  // Ascending, the keys at or past the bound are the strings >= its bytes. Descending (bytes
  // inverted), they are the strings below the first string past every one starting with them.
  std::string x = key.prefix;
  if (key.descending) {
    while (!x.empty() && static_cast<uint8_t>(x.back()) == 0xff) x.pop_back();
    if (!x.empty()) x.back() = static_cast<char>(static_cast<uint8_t>(x.back()) + 1);
  }
  // Which strings (NULL aside) are at or past the bound (lower), or before it.
  Sql cond;
  if (key.past_every_string) {
    cond = lower ? kFalse : is_not_null(c);
  } else if (key.descending && x.empty()) {
    cond = lower ? is_not_null(c) : kFalse;  // before every string
  } else {
    auto bound = string_bound(c, x, key.descending == lower);
    if (!bound) return tl::unexpected(bound.error());
    cond = std::move(*bound);
  }
  const bool null_low = c.column.nulls_first();
  Sql last = lower != null_low ? sql_or(cond, is_null(c)) : cond;
  auto values = typed_literals(cols, key.values, table);
  if (!values) return tl::unexpected(values.error());
  return lexicographic_then(cols, *values, 0, lower, last);
}

/// The predicate for one bound key strictly inside the table's primary index.
Result<Sql> bound_predicate(const TableDescriptor& table, const std::vector<PredicateColumn>& cols,
                            std::string_view key, bool lower) {
  std::vector<KeyColumn> columns;
  for (const auto& c : cols) columns.push_back(c.column);
  auto decoded = decode_key_text(key, columns);
  bool after = false;
  if (!decoded) {
    if (auto before = decode_prefix_end(key, columns)) {
      decoded = std::move(*before);
      after = true;
    } else if (auto partial = decode_partial_key_text(key, columns)) {
      return partial_bound_predicate(table, cols, *partial, lower);
    } else {
      Error e = decoded.error();
      e.message = std::string("range ") + (lower ? "start" : "end") + " key of table " +
                  qualified_table_name(table) + " does not decode: " + e.message;
      return fail(std::move(e));
    }
  }
  if (decoded->empty()) return kTrue;
  auto typed = typed_literals(cols, *decoded, table);
  if (!typed) return tl::unexpected(typed.error());
  const std::vector<std::optional<std::string>>& values = *typed;
  Sql expr = lexicographic(cols, values, lower, after);
  // The first column's own bound is implied; stating it lets PostgreSQL scan an index range.
  if (values.size() > 1) {
    expr = sql_and(compare(cols[0], lower ? KeyCmp::kGe : KeyCmp::kLe, values[0]), expr);
  }
  return expr;
}

/// Whether the keys on the range's side of bound `key` (at or past it: `lower`; before it) all
/// have a non-NULL first column: the key's first value is not NULL (or is a string's start) and
/// NULL sorts on the other side of it in the key order.
bool excludes_null_first(const std::vector<PredicateColumn>& cols, std::string_view key,
                         bool lower) {
  if (cols[0].column.nulls_first() != lower) return false;
  std::vector<KeyColumn> columns;
  for (const auto& c : cols) columns.push_back(c.column);
  if (auto full = decode_key_text(key, columns)) return !full->empty() && (*full)[0].has_value();
  if (auto before = decode_prefix_end(key, columns)) {
    return !before->empty() && (*before)[0].has_value();
  }
  if (auto partial = decode_partial_key_text(key, columns)) {
    return partial->values.empty() || partial->values[0].has_value();
  }
  return false;
}

}  // namespace

std::string qualified_table_name(const TableDescriptor& table) {
  return quote_ident(table.schema) + "." + quote_ident(table.name);
}

Result<std::string> key_range_predicate(const TableDescriptor& table, std::string_view start_key,
                                        std::string_view end_key) {
  if (start_key >= end_key) return std::string("false");
  if (table.key_source == KeySource::kUnsharded || table.key.empty()) {
    const std::string lo = table_prefix(table.table_id);
    const std::string hi = prefix_end(lo);
    return std::string(end_key <= lo || start_key >= hi ? "false" : "true");
  }
  const std::string lo = index_prefix(table.table_id, table.index_id);
  const std::string hi = prefix_end(lo);
  if (end_key <= lo || start_key >= hi) return std::string("false");

  std::vector<PredicateColumn> cols;
  const std::vector<std::string> column_sql = key_column_sql(table);
  for (size_t i = 0; i < table.key.size(); ++i) {
    const KeyColumnDef& def = table.key[i];
    PredicateColumn c;
    c.name = column_sql[i];
    c.expr = is_text_type(def.column.type) ? c.name + " COLLATE \"C\"" : c.name;
    c.column = def.column;
    // A hash-sharded key's bucket is computed, never NULL (a NULL column hashes to 0).
    c.nullable = table.key_source != KeySource::kPrimaryKey && !(table.hash_buckets > 0 && i == 0);
    cols.push_back(std::move(c));
  }
  // Where one bound leaves NULLs of the first column out, the other need not let them in: its
  // `OR c IS NULL` would make the shard scan its index twice (a BitmapOr) for nothing.
  if (cols[0].nullable && start_key > lo && end_key < hi &&
      (excludes_null_first(cols, start_key, true) || excludes_null_first(cols, end_key, false))) {
    cols[0].nullable = false;
  }
  Sql lower = kTrue;
  if (start_key > lo) {
    auto p = bound_predicate(table, cols, start_key, true);
    if (!p) return tl::unexpected(p.error());
    lower = std::move(*p);
  }
  Sql upper = kTrue;
  if (end_key < hi) {
    auto p = bound_predicate(table, cols, end_key, false);
    if (!p) return tl::unexpected(p.error());
    upper = std::move(*p);
  }
  return sql_and(lower, upper).text;
}

}  // namespace pgrange::routing
