#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pgrange::sql {

/// A call of nextval, currval, setval or lastval as a statement writes it.
struct SequenceCall {
  std::string function;  ///< "nextval", "currval", "setval", "lastval"
  /// The arguments' constant texts (a string unquoted, a number as written, true/false);
  /// nullopt for an argument that is not a constant (possibly cast).
  std::vector<std::optional<std::string>> args;
  /// The output column's name: the alias, else the function's name.
  std::string column;
};

/// `SELECT f(…) [AS alias]` and nothing else (no FROM, WHERE, other columns, …), f one of the
/// sequence functions: that call. nullopt for anything else (or text that does not parse).
std::optional<SequenceCall> sole_sequence_call(std::string_view sql);

/// A cheap test before parsing (no allocation, one pass): whether the text may call nextval,
/// currval, setval or lastval, in any case.
bool mentions_sequence_function(std::string_view sql);

/// Every call of a sequence function anywhere in the SELECT, INSERT, UPDATE, DELETE and MERGE
/// statements of `sql`, in order (DDL naming one, as a DEFAULT, calls nothing).
std::vector<SequenceCall> sequence_calls(std::string_view sql);

/// The schema and name of a sequence as nextval('…') reads its text argument: an unquoted part
/// folded to lower case, a quoted one as written; schema empty when not qualified. nullopt when
/// it is not a name of one or two parts.
std::optional<std::pair<std::string, std::string>> sequence_name_of(std::string_view text);

}  // namespace pgrange::sql
