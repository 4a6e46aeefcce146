#pragma once

#include <libpq-fe.h>

#include <map>
#include <string>
#include <vector>

#include "tests/support/sql_parameters.hpp"

namespace pgrange::testing {

/// What a client sees of one statement's answer, as the differential tests compare it.
struct Outcome {
  bool ok = false;
  std::string sqlstate;
  std::string message;
  std::string command;  ///< CommandComplete tag ("SELECT 3", "UPDATE 1")
  std::vector<std::string> columns;
  std::vector<std::string> rows;  ///< each row as one line: values separated by " | "
                                  ///< (binary values as "\\x" and their bytes in hex)
};

/// Copies a statement's result (and clears it, and drains what else the connection returns).
/// With `round_floats`, float8 values (text or binary) are kept to 12 significant digits
/// (float4 ones to 6): sums of floats combined from several shards may differ from one server's in
/// their last digits, as PostgreSQL's parallel plans' do.
Outcome outcome_of(PGresult* res, PGconn* conn, bool round_floats = false);

/// Runs a statement: a simple Query, or with `extended` PQexecParams binding `q.values` as text
/// parameters, its results in the binary format with `binary` (their bytes compared, as hex).
Outcome run_statement(PGconn* conn, const Parameterised& q, bool extended, bool binary = false,
                      bool round_floats = false);

/// Whether a statement's float results are compared to 12 significant digits: it sums or
/// averages (sum(…), avg(…)).
bool sums_floats(const std::string& sql);

/// What is compared, as text: an error's SQLSTATE; else the command tag, the columns and the
/// rows (sorted unless `in_order`).
std::string rendering(const Outcome& o, bool in_order);

/// A refusal's construct: its message without the list of shards.
std::string construct_of(const std::string& message);

/// True when a 0A000 message names what is not supported — an SQL construct (`UPDATE … FROM`,
/// a subquery, a JOIN, FOR UPDATE, a FOREIGN KEY, a view, a function, …) or the circumstance
/// (a transaction block, the extended protocol) — rather than only saying that a statement
/// touches several shards.
bool names_construct(const std::string& message);

/// One statement run through pgrange and, unless pgrange refused it (0A000), on the reference.
struct Comparison {
  Parameterised query;  ///< as sent (with $n and their values in the extended protocol)
  std::string where;    ///< "line N [group] statement  -- params: …", for reports
  Outcome got;          ///< pgrange's answer
  Outcome want;         ///< the reference's answer (empty when refused)
  bool refused = false;
  bool identical = false;
  std::string difference;  ///< the first difference, and the errors, when neither
};

/// Runs statement `sql` of `group` (from `line` of the corpus) through pgrange first, then on
/// the reference unless refused, and compares their renderings (rows in order under a total
/// top-level ORDER BY). `extended` binds its constants as parameters (parameterise), and
/// `binary` asks for binary results.
Comparison compare_statement(PGconn* pgrange, PGconn* reference, const std::string& sql,
                             const std::string& group, int line, bool extended,
                             bool binary = false);

/// A setup statement as the plain server takes it: without pgrange's hash sharding and local
/// index options, and with STORING spelled INCLUDE.
std::string reference_sql(const std::string& sql);

/// Counts of a differential run, per group and in all, and the lines its report lists.
struct Tally {
  struct Group {
    int identical = 0, refused = 0, mismatched = 0, skipped = 0;
  };
  int run = 0, identical = 0, refused = 0, mismatched = 0, skipped = 0, parameterised = 0;
  std::map<std::string, Group> groups;
  std::vector<std::string> refusals;        ///< each refused statement and its message
  std::map<std::string, int> constructs;    ///< refusals by construct
  std::vector<std::string> mismatches;      ///< each wrong answer, with its first difference
  std::map<std::string, int> skip_reasons;  ///< skipped statements by reason
  std::vector<std::string> failures;        ///< what else fails the test (e.g. unnamed refusals)
  /// Statements the reference answered with an error, by SQLSTATE (to check they are meant).
  std::map<std::string, std::vector<std::string>> reference_errors;

  void add_identical(const std::string& group);
  void add_refused(const std::string& group, const std::string& where, const std::string& message);
  void add_mismatch(const std::string& group, const std::string& where_and_difference);
  void add_skipped(const std::string& group, const std::string& reason);
  /// Counts a comparison: identical, refused or mismatched.
  void add(const std::string& group, const Comparison& c);

  /// The summary as text: refusals, refusals by construct, per group counts, skips, failures,
  /// mismatches and the totals.
  std::string report(const std::string& title) const;
};

}  // namespace pgrange::testing
