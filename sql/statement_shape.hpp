#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/error.hpp"
#include "sql/statement_info.hpp"

namespace pgrange::sql {

/// A plain literal of a statement text: a number or a standard '…' string.
struct Literal {
  size_t begin = 0;  ///< offset of the first byte (a quote for strings)
  size_t end = 0;    ///< one past the last byte
  bool is_string = false;
  std::string value;  ///< strings unquoted ('' → '), numbers as written
};

/// A statement text with its literals taken out: texts that differ only in their literals have
/// the same key (and, PostgreSQL's grammar being blind to literal values, the same parse tree).
struct StatementShape {
  std::string key;
  std::vector<Literal> literals;
};

/// The shape of `sql`, or nullopt for texts whose literals this lexer does not take apart
/// safely (E'…', U&'…', B'…', X'…', $$ quoting, strings continued over a newline, …).
std::optional<StatementShape> statement_shape(std::string_view sql);

/// Analyses of statement texts, cached by text and by shape: pgbench-style statements that
/// differ only in their literals are parsed once, and later texts get the first analysis with
/// their own literal values put in. A shape is used only when every constant of its first
/// analysis maps exactly onto one of its literals; otherwise texts of that shape are parsed.
class AnalysisCache {
 public:
  using Analysis = std::shared_ptr<const Result<std::vector<StatementInfo>>>;
  explicit AnalysisCache(size_t max_entries = 4096) : max_entries_(max_entries) {}

  Analysis analyze(std::string_view sql);

  size_t parses() const { return parses_; }  ///< how many texts libpg_query parsed

 private:
  /// Where a constant of the first analysis came from: a literal (and whether the grammar
  /// folded a minus sign into it), or -1 for a constant that is not a literal (TRUE, NULL).
  struct ValueSource {
    int literal = -1;
    bool negated = false;
  };
  struct ShapeEntry {
    Analysis analysis;                 ///< of the first text of this shape
    std::vector<Literal> literals;     ///< that text's literals
    std::vector<ValueSource> sources;  ///< per constant, in visiting order
    bool usable = false;
  };
  Analysis parse(std::string_view sql);
  static Analysis substitute(const ShapeEntry& entry, const std::vector<Literal>& literals);

  size_t max_entries_;
  size_t parses_ = 0;
  /// Lets a text be looked up without copying it into a std::string first.
  struct TextHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_map<std::string, Analysis, TextHash, std::equal_to<>> by_text_;
  std::unordered_map<std::string, ShapeEntry> by_shape_;
};

}  // namespace pgrange::sql
