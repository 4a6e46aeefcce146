#pragma once

#include <string>

#include "tests/support/shard_cluster.hpp"

namespace pgrange::testing {

/// A statement's outcome as a client sees it, as text: its rows (columns separated by '|'), or
/// its error with SQLSTATE, message and detail.
std::string outcome_text(const SqlResult& r);

/// A connection to pgrange and one to the plain PostgreSQL database "ref" of a ShardCluster,
/// side by side: statements run on both must give the same outcome. Failed checks are gtest
/// failures of the running test.
class SideBySide {
 public:
  explicit SideBySide(const ShardCluster& cluster);

  /// Runs `sql` through pgrange and on the reference: the same rows, or the same error.
  void same(const std::string& sql);
  /// The table's rows through pgrange are the reference's (ORDER BY its first column).
  void same_contents(const std::string& table);
  /// A statement through pgrange that must succeed.
  void ok(const std::string& sql);
  /// A statement that must succeed through pgrange and on the reference.
  void both(const std::string& sql);
  /// A statement that pgrange refuses with 0A000 (not run on the reference); its message.
  std::string refused(const std::string& sql);
  /// Splits the table at the given VALUES (e.g. "(100), (200)") and spreads its ranges over
  /// every shard (checked).
  void spread(const std::string& table, const std::string& at);

  PGconn* pgrange() const { return pgrange_.get(); }
  PGconn* reference() const { return reference_.get(); }

 private:
  const ShardCluster& cluster_;
  PgConnPtr pgrange_;
  PgConnPtr reference_;
};

}  // namespace pgrange::testing
