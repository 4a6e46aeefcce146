#include "sql/statement_shape.hpp"

#include <cctype>

namespace pgrange::sql {
namespace {

bool ident_start(unsigned char c) {
  return std::isalpha(c) || c == '_' || c >= 0x80;
}
bool ident_char(unsigned char c) {
  return std::isalnum(c) || c == '_' || c == '$' || c >= 0x80;
}
bool digit(char c) {
  return c >= '0' && c <= '9';
}

constexpr char kStringMark = '\x01';
constexpr char kNumberMark = '\x02';

/// f(v), then f of each term of a sum (whose constants are literals of the text too).
template <typename Value, typename F>
void visit_value(Value& v, F& f) {
  f(v);
  for (auto& term : v.terms) visit_value(term, f);
}

template <typename Cond, typename F>
void for_each_condition_value(Cond& c, F& f) {
  for (auto& v : c.values) visit_value(v, f);
  for (auto& child : c.children) for_each_condition_value(child, f);
}

/// Calls f(ValueRef&) for every value the router reads, in a fixed order.
template <typename Infos, typename F>
void for_each_value(Infos& infos, F&& f) {
  for (auto& info : infos) {
    for (auto& eq : info.equalities) visit_value(eq.second, f);
    if (info.where) for_each_condition_value(*info.where, f);
    for (auto& use : info.relations) {
      if (use.where) for_each_condition_value(*use.where, f);
    }
    for (auto& row : info.insert_rows) {
      for (auto& v : row) {
        if (v) visit_value(*v, f);
      }
    }
  }
}

/// The text the grammar gives a constant written as `lit` (after a folded minus sign when
/// `negated`): integers that fit int4 are printed from their value (007 → 7, -0 → 0), other
/// numbers and strings stay as written.
std::string constant_text(const Literal& lit, bool negated) {
  if (!lit.is_string && !lit.value.empty() &&
      lit.value.find_first_not_of("0123456789") == std::string::npos) {
    size_t digits = lit.value.find_first_not_of('0');
    std::string_view sig = digits == std::string::npos ? std::string_view("0")
                                                       : std::string_view(lit.value).substr(digits);
    if (sig.size() < 10 || (sig.size() == 10 && sig <= "2147483647")) {
      long long v = std::stoll(std::string(sig));
      return std::to_string(negated ? -v : v);
    }
  }
  return (negated ? "-" : "") + lit.value;
}

}  // namespace

std::optional<StatementShape> statement_shape(std::string_view sql) {
  StatementShape sh;
  sh.key.reserve(sql.size());
  const size_t n = sql.size();
  size_t i = 0;
  auto at = [&](size_t k) { return k < n ? sql[k] : '\0'; };
  while (i < n) {
    char c = sql[i];
    if (c == kStringMark || c == kNumberMark) return std::nullopt;
    if (c == '-' && at(i + 1) == '-') {
      size_t e = sql.find('\n', i);
      e = e == std::string_view::npos ? n : e;
      sh.key.append(sql.substr(i, e - i));
      i = e;
    } else if (c == '/' && at(i + 1) == '*') {
      // Block comments nest in PostgreSQL.
      size_t j = i + 2;
      int depth = 1;
      while (j < n && depth > 0) {
        if (sql[j] == '/' && at(j + 1) == '*') {
          ++depth;
          j += 2;
        } else if (sql[j] == '*' && at(j + 1) == '/') {
          --depth;
          j += 2;
        } else {
          ++j;
        }
      }
      if (depth > 0) return std::nullopt;
      sh.key.append(sql.substr(i, j - i));
      i = j;
    } else if (c == '"') {
      size_t j = i + 1;
      for (;;) {
        if (j >= n) return std::nullopt;
        if (sql[j] == '"') {
          if (at(j + 1) == '"') {
            j += 2;
            continue;
          }
          break;
        }
        ++j;
      }
      sh.key.append(sql.substr(i, j + 1 - i));
      i = j + 1;
    } else if (c == '\'') {
      // E'…', U&'…', B'…', X'…', N'…' carry a prefix: not a plain literal.
      if (i > 0 && (ident_char(static_cast<unsigned char>(sql[i - 1])) || sql[i - 1] == '&')) {
        return std::nullopt;
      }
      Literal lit;
      lit.begin = i;
      lit.is_string = true;
      size_t j = i + 1;
      for (;;) {
        if (j >= n) return std::nullopt;
        if (sql[j] == '\'') {
          if (at(j + 1) == '\'') {
            lit.value += '\'';
            j += 2;
            continue;
          }
          break;
        }
        lit.value += sql[j++];
      }
      lit.end = j + 1;
      // 'a' <newline> 'b' is one literal in PostgreSQL: leave such texts alone.
      size_t k = lit.end;
      bool newline = false;
      while (k < n && std::isspace(static_cast<unsigned char>(sql[k]))) newline |= sql[k++] == '\n';
      if (newline && at(k) == '\'') return std::nullopt;
      sh.key += kStringMark;
      i = lit.end;
      sh.literals.push_back(std::move(lit));
    } else if (c == '$') {
      if (!digit(at(i + 1))) return std::nullopt;  // $$ or $tag$ quoting
      size_t j = i + 1;
      while (j < n && digit(sql[j])) ++j;
      sh.key.append(sql.substr(i, j - i));
      i = j;
    } else if (digit(c) || (c == '.' && digit(at(i + 1)))) {
      size_t j = i;
      while (j < n && digit(sql[j])) ++j;
      if (at(j) == '.' && at(j + 1) != '.') {
        ++j;
        while (j < n && digit(sql[j])) ++j;
      }
      if ((at(j) == 'e' || at(j) == 'E') &&
          (digit(at(j + 1)) || ((at(j + 1) == '+' || at(j + 1) == '-') && digit(at(j + 2))))) {
        j += 2;
        while (j < n && digit(sql[j])) ++j;
      }
      if (j < n && ident_char(static_cast<unsigned char>(sql[j]))) return std::nullopt;
      Literal lit;
      lit.begin = i;
      lit.end = j;
      lit.value = std::string(sql.substr(i, j - i));
      sh.key += kNumberMark;
      sh.literals.push_back(std::move(lit));
      i = j;
    } else if (ident_start(static_cast<unsigned char>(c))) {
      size_t j = i + 1;
      while (j < n && ident_char(static_cast<unsigned char>(sql[j]))) ++j;
      sh.key.append(sql.substr(i, j - i));
      i = j;
    } else {
      sh.key += c;
      ++i;
    }
  }
  return sh;
}

constexpr size_t kLongText = 64 * 1024;

AnalysisCache::Analysis AnalysisCache::parse(std::string_view sql) {
  ++parses_;
  return std::make_shared<const Result<std::vector<StatementInfo>>>(analyze_statements(sql));
}

AnalysisCache::Analysis AnalysisCache::analyze(std::string_view sql) {
  if (by_text_.size() + by_shape_.size() >= max_entries_) {
    by_text_.clear();
    by_shape_.clear();
  }
  // A long text (rows pgrange wrote into a statement, a big literal) is parsed each time: the
  // cache would hold it and its analysis for nothing.
  if (sql.size() > kLongText) return parse(sql);
  if (auto it = by_text_.find(sql); it != by_text_.end()) return it->second;
  auto shape = statement_shape(sql);
  if (!shape || shape->literals.empty()) {
    auto a = parse(sql);
    by_text_.emplace(std::string(sql), a);
    return a;
  }
  if (auto it = by_shape_.find(shape->key); it != by_shape_.end()) {
    if (it->second.usable) return substitute(it->second, shape->literals);
    return parse(sql);  // a shape whose constants do not map onto its literals
  }
  ShapeEntry entry;
  entry.analysis = parse(sql);
  entry.literals = shape->literals;
  entry.usable = static_cast<bool>(*entry.analysis);
  if (entry.usable) {
    // Only the values of reads and writes are put in; other statements may keep a literal
    // elsewhere in their analysis (PREPARE TRANSACTION 'name'), so each text is parsed.
    for (const StatementInfo& info : **entry.analysis) {
      using K = StatementKind;
      if (info.kind != K::kSelect && info.kind != K::kInsert && info.kind != K::kUpdate &&
          info.kind != K::kDelete) {
        entry.usable = false;
      }
    }
  }
  if (entry.usable) {
    // Every constant must be exactly one literal (or no literal at all, like TRUE): then a
    // text of the same shape has the same analysis with its own literals in those places.
    for_each_value(**entry.analysis, [&](const ValueRef& v) {
      ValueSource src;
      if (v.kind == ValueRef::Kind::kConst) {
        if (v.location < 0) {
          entry.usable = false;
        } else {
          size_t loc = static_cast<size_t>(v.location);
          bool minus = loc < sql.size() && sql[loc] == '-';
          if (minus) {
            ++loc;
            while (loc < sql.size() && std::isspace(static_cast<unsigned char>(sql[loc]))) ++loc;
          }
          for (size_t k = 0; k < entry.literals.size(); ++k) {
            if (entry.literals[k].begin == loc) src.literal = static_cast<int>(k);
          }
          if (src.literal >= 0) {
            const Literal& lit = entry.literals[static_cast<size_t>(src.literal)];
            src.negated = minus;
            if (constant_text(lit, minus) != v.text) entry.usable = false;
          } else if (minus) {
            entry.usable = false;
          }
        }
      }
      entry.sources.push_back(src);
    });
  }
  Analysis a = entry.analysis;
  by_shape_.emplace(std::move(shape->key), std::move(entry));
  return a;
}

AnalysisCache::Analysis AnalysisCache::substitute(const ShapeEntry& entry,
                                                  const std::vector<Literal>& literals) {
  std::vector<StatementInfo> infos = **entry.analysis;
  // Offsets move by the difference in length of the literals before them.
  auto shift = [&](size_t old) {
    long delta = 0;
    for (size_t k = 0; k < entry.literals.size() && k < literals.size(); ++k) {
      if (entry.literals[k].end > old) break;
      delta += static_cast<long>(literals[k].end - literals[k].begin) -
               static_cast<long>(entry.literals[k].end - entry.literals[k].begin);
    }
    return static_cast<size_t>(static_cast<long>(old) + delta);
  };
  for (auto& info : infos) {
    info.begin = shift(info.begin);
    info.end = shift(info.end);
    auto moved = [&](int location) {
      return location < 0 ? location : static_cast<int>(shift(static_cast<size_t>(location)));
    };
    for (RelationUse& use : info.relations) {
      use.location = moved(use.location);
      for (RelationUse::Equality& e : use.equalities) e.other = moved(e.other);
    }
  }
  size_t n = 0;
  for_each_value(infos, [&](ValueRef& v) {
    const ValueSource& src = entry.sources[n++];
    if (v.location >= 0) v.location = static_cast<int>(shift(static_cast<size_t>(v.location)));
    if (src.literal < 0) return;
    const Literal& lit = literals[static_cast<size_t>(src.literal)];
    v.text = constant_text(lit, src.negated);
  });
  return std::make_shared<const Result<std::vector<StatementInfo>>>(std::move(infos));
}

}  // namespace pgrange::sql
