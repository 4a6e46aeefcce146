#include "tests/support/side_by_side.hpp"

#include <gtest/gtest.h>

#include <set>

namespace pgrange::testing {

std::string outcome_text(const SqlResult& r) {
  if (!r.ok()) {
    return "ERROR " + r.sqlstate + ": " + r.message + (r.detail.empty() ? "" : "\nDETAIL: ") +
           r.detail + "\n";
  }
  std::string out;
  for (const auto& row : r.rows) {
    for (size_t i = 0; i < row.size(); ++i) out += (i > 0 ? "|" : "") + row[i];
    out += "\n";
  }
  return out;
}

SideBySide::SideBySide(const ShardCluster& cluster)
    : cluster_(cluster), pgrange_(cluster.client()), reference_(cluster.reference()) {}

void SideBySide::same(const std::string& sql) {
  SCOPED_TRACE(sql);
  std::string got = outcome_text(pq_exec(pgrange(), sql));
  std::string want = outcome_text(pq_exec(reference(), sql));
  EXPECT_EQ(got, want) << first_difference(got, want);
}

void SideBySide::same_contents(const std::string& table) {
  same("SELECT * FROM " + table + " ORDER BY 1");
}

void SideBySide::ok(const std::string& sql) {
  SqlResult r = pq_exec(pgrange(), sql);
  EXPECT_TRUE(r.ok()) << sql << ": " << r.message;
}

void SideBySide::both(const std::string& sql) {
  ok(sql);
  SqlResult r = pq_exec(reference(), sql);
  EXPECT_TRUE(r.ok()) << "reference: " << sql << ": " << r.message;
}

std::string SideBySide::refused(const std::string& sql) {
  SqlResult r = pq_exec(pgrange(), sql);
  EXPECT_EQ(r.sqlstate, "0A000") << sql << ": " << outcome_text(r);
  return r.message;
}

void SideBySide::spread(const std::string& table, const std::string& at) {
  ASSERT_EQ(cluster_.run_setup({"ALTER TABLE " + table + " SPLIT AT VALUES " + at,
                                "ALTER TABLE " + table + " SCATTER"}),
            "");
  SqlResult ranges = pq_exec(pgrange(), "SHOW RANGES FROM TABLE " + table);
  std::set<std::string> shards;
  for (const auto& row : ranges.rows) shards.insert(row[3]);
  EXPECT_EQ(shards.size(), static_cast<size_t>(cluster_.size())) << outcome_text(ranges);
}

}  // namespace pgrange::testing
