#pragma once

#include <libpq-fe.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tests/support/differential.hpp"
#include "tests/support/table_compare.hpp"

namespace pgrange::testing {

/// Runs statements — writes above all — through pgrange and on a plain PostgreSQL holding the
/// same rows, and judges each by its answer and by what it left behind: after every statement
/// both sides' transaction status and the whole of every table are compared. A statement is
/// identical (same answer, status and tables), refused (0A000 from pgrange, not run on the
/// reference, tables unchanged) or mismatched. After a mismatch the reference takes pgrange's
/// rows and transaction status, so that each later statement is judged on its own; where it
/// cannot take the rows, the difference left is accepted and only a change of it is reported.
class WriteComparer {
 public:
  /// Compares `tables` after every statement, on the two connections (owned by the caller).
  WriteComparer(PGconn* pgrange, PGconn* reference, std::vector<TableSpec> tables);

  /// The judgement of one statement.
  struct Verdict {
    enum Kind { kIdentical, kRefused, kMismatched } kind = kIdentical;
    Comparison statement;
    /// For a mismatch: what differed (answer, transaction status, tables), one item a line.
    std::string differences;
    /// For a refusal: whether its message names the construct (names_construct).
    bool named = true;
  };

  /// Runs `sql` (from `line` of `group`; `extended`: constants bound as parameters) and judges
  /// it.
  Verdict run(const std::string& sql, const std::string& group, int line, bool extended);

  /// Compares every table now; "" when all are equal, else their differences (and the
  /// reference takes pgrange's rows).
  std::string compare_tables();

  /// Adds a check run after every statement's tables are compared: what it returns (when not
  /// "") makes the statement a mismatch.
  void add_check(std::function<std::string()> check) { checks_.push_back(std::move(check)); }

  /// Counts `v` in `tally`; a refusal naming no construct, or one of a statement that must run,
  /// is also a failure.
  static void count(Tally* tally, const std::string& group, bool must_run, const Verdict& v);

  /// Tables whose rows could not be brought back in line at some point, and why (from then on
  /// a statement is judged by whether it changes the difference that remained).
  const std::map<std::string, std::string>& diverged() const { return diverged_; }
  /// Table comparisons made, in all.
  int comparisons() const { return comparisons_; }

 private:
  /// Makes the reference's transaction status pgrange's; "" when they were equal already.
  std::string align_transaction_status(bool refused);

  PGconn* pgrange_;
  PGconn* reference_;
  std::vector<TableSpec> tables_;
  std::map<std::string, std::string> diverged_;
  std::map<std::string, std::string> accepted_;  ///< table → the difference that remained
  int comparisons_ = 0;
  std::vector<std::function<std::string()>> checks_;
};

}  // namespace pgrange::testing
