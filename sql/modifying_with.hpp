#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace pgrange::sql {

/// A statement whose top-level WITH holds data-modifying CTEs (`WITH d AS (DELETE … RETURNING
/// …) INSERT …`), taken apart so that pgrange can run each of them as a statement of its own and
/// then the statement with their rows written in: where each CTE's body is in the text.
struct ModifyingWith {
  struct Cte {
    std::string name;     ///< as PostgreSQL folds it
    size_t head = 0;      ///< where the CTE begins (its name)
    size_t body = 0;      ///< just after the parenthesis that opens its body
    size_t body_end = 0;  ///< the parenthesis that closes it
    bool writes = false;  ///< INSERT, UPDATE or DELETE
    bool returning = false;
  };
  std::string text;  ///< the statement
  bool recursive = false;
  std::vector<Cte> ctes;  ///< in the order written

  /// Each CTE's body as written.
  std::vector<std::string> bodies() const;
  /// CTE `i` as a statement of its own: its body, after a WITH of the CTEs before it that it
  /// reads (directly or through each other), with the bodies `bodies` gives them. 0A000 for a
  /// body with a WITH of its own under a WITH RECURSIVE.
  Result<std::string> cte_statement(size_t i, const std::vector<std::string>& bodies) const;
  /// The statement with `bodies` in place of its CTEs' bodies.
  std::string with_bodies(const std::vector<std::string>& bodies) const;
  /// Whether `sql` names CTE `i` (an identifier token spelled as its name).
  bool names_cte(std::string_view sql, size_t i) const;
};

/// `sql` taken apart when it is one statement whose top-level WITH holds a data-modifying CTE;
/// nullopt for any other statement (or one that does not parse: the normal path says why).
/// 0A000 for SEARCH or CYCLE clauses, which pgrange does not carry over.
Result<std::optional<ModifyingWith>> modifying_with(std::string_view sql);

/// `WITH … INSERT INTO t [(columns)] query …` written as `INSERT INTO t [(columns)] WITH …
/// query …` (the same statement, for CTEs that its ON CONFLICT and RETURNING do not read), so
/// that it is an INSERT … SELECT to pgrange; nullopt for any other statement.
std::optional<std::string> with_inside_insert(std::string_view sql);

/// A query whose rows are `rows` (text values as PostgreSQL prints them, nullopt for NULL) in
/// columns named `names` of types `types` (as format_type writes them): a VALUES list with
/// every value cast, or no row of such columns.
std::string rows_query(const std::vector<std::string>& names, const std::vector<std::string>& types,
                       const std::vector<std::vector<std::optional<std::string>>>& rows);

}  // namespace pgrange::sql
