#pragma once

#include <string>
#include <vector>

namespace pgrange::testing {

/// One token of the small SQL tokenizer the differential tests use to find a statement's
/// top-level ORDER BY and the constants to bind as parameters.
struct Token {
  enum Kind { kWord, kString, kNumber, kOp, kOpen, kClose, kComma, kOther } kind;
  std::string text;  ///< as written
  size_t begin = 0, end = 0;
};

/// Splits SQL into tokens (comments dropped, except `/* … */`, kept as kOther).
std::vector<Token> tokenize(const std::string& sql);

/// True when `t` is the keyword `word` (upper case), in any case.
bool is_word(const Token& t, const char* word);

/// True when the statement ends in a top-level ORDER BY (outside parentheses) that the corpus
/// says is total (no `/*ties*/` mark): its rows are then compared in order.
bool ordered(const std::string& sql);

/// A statement with its literal constants replaced by $n, and their texts.
struct Parameterised {
  std::string sql;
  std::vector<std::string> values;
};

/// Binds as parameters: in WHERE clauses, each constant (string or number, optionally negative)
/// that a comparison operator, LIKE, BETWEEN … AND … or an IN list sets against something; in
/// INSERT … VALUES, each item that is just a constant; the number of a LIMIT or OFFSET. Casts
/// written after a constant stay on the parameter ($1::uuid). Constants inside expressions (x + 1)
/// stay as written.
Parameterised parameterise(const std::string& sql);

}  // namespace pgrange::testing
