#pragma once

#include <libpq-fe.h>

#include <map>
#include <string>
#include <vector>

#include "tests/support/statement_file.hpp"

namespace pgrange::testing {

/// What building a differential test's tables did: the features (`-- provides:`) pgrange could
/// not take, the statements it refused or failed, and what that made the set-up skip.
struct SetupResult {
  /// Features that are missing, and why (the refusal or error of the statement providing it).
  std::map<std::string, std::string> missing;
  /// Set-up statements pgrange refused with 0A000 naming the construct: allowed.
  std::vector<std::string> refusals;
  /// What fails the test: a pgrange error other than 0A000, a 0A000 that names no construct, a
  /// statement the reference server fails (a corpus error), a range that could not be placed.
  std::vector<std::string> failures;
  int run = 0;      ///< statements that ran on both sides
  int skipped = 0;  ///< statements skipped for a missing feature, or as unneeded fallbacks

  /// True when `features` are all present; else `why` says which is missing and why.
  bool has(const std::vector<std::string>& features, std::string* why) const;
  /// The set-up's summary as text.
  std::string report() const;
};

/// Runs set-up statements through pgrange and (as reference_sql translates them) on the
/// reference server. A statement pgrange refuses (0A000) or fails is not run on the reference,
/// and the feature it provides is missing: statements requiring it are skipped, and those marked
/// `-- unless:` it run instead. A statement that fails on the reference is a failure.
void run_setup(PGconn* pgrange, PGconn* reference, const std::vector<Statement>& statements,
               SetupResult* result);

/// Runs range statements through pgrange only: SPLIT AT, SCATTER, RELOCATE, and the
/// meta-command `\place [index] TABLE[@INDEX] [(key values)] SHARD`, which moves the range
/// holding that key (every range of the table without one) to SHARD. `ALTER INDEX t@i SCATTER`,
/// while pgrange does not take it, spreads the index's ranges round-robin from the second shard.
void run_ranges(PGconn* pgrange, const std::vector<Statement>& statements, SetupResult* result);

/// `SHOW RANGES FROM TABLE t` (or INDEX t@i) for every name given, as text for a report.
std::string range_map_text(PGconn* pgrange, const std::vector<std::string>& tables);

}  // namespace pgrange::testing
