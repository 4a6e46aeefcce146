#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "routing/meta/prepared_recovery.hpp"

namespace pgrange::routing {
namespace {

TEST(TransactionGid, EachPartOfATransactionHasItsOwnGidThatLeadsBackToIt) {
  const std::string gid = transaction_gid("4242-00ab12cd", 7);
  EXPECT_EQ(gid, "pgrange:4242-00ab12cd:7");
  const std::string s1 = part_gid(gid, "s1");
  const std::string s2 = part_gid(gid, "s2");
  EXPECT_EQ(s1, "pgrange:4242-00ab12cd:7@s1");
  EXPECT_NE(s1, s2);
  for (const std::string& part : {s1, s2}) {
    EXPECT_EQ(transaction_of_part(part), gid);
    EXPECT_EQ(gid_instance(part), "4242-00ab12cd");
  }
  // A gid from before parts had their own: its own transaction.
  EXPECT_EQ(transaction_of_part(gid), gid);
  EXPECT_EQ(gid_instance(gid), "4242-00ab12cd");
  EXPECT_EQ(gid_instance("someone else's"), std::nullopt);
  EXPECT_EQ(gid_instance("pgrange:7"), std::nullopt);
}

TEST(TransactionGid, ShardNamesThatCannotStandInAGidAreHashedStablyAndApart) {
  const std::string gid = transaction_gid("1-ff", 1);
  std::set<std::string> parts;
  for (const std::string& name : std::vector<std::string>{
           "it's", "shard one", "ä", std::string(64, 'x'), std::string(63, 'x'), "a@b", "x-y_Z9"}) {
    const std::string part = part_gid(gid, name);
    EXPECT_EQ(part, part_gid(gid, name));  // stable: recovery by another instance finds it
    EXPECT_EQ(transaction_of_part(part), gid) << name;
    EXPECT_LT(part.size(), 200U) << name;  // PostgreSQL's limit for a gid
    EXPECT_EQ(part.find('\''), std::string::npos);
    EXPECT_EQ(part.find(' '), std::string::npos);
    parts.insert(part);
  }
  EXPECT_EQ(parts.size(), 7U);
  EXPECT_EQ(part_gid(gid, "x-y_Z9"), gid + "@x-y_Z9");
  EXPECT_EQ(part_gid(gid, std::string(63, 'x')), gid + "@" + std::string(63, 'x'));
}

}  // namespace
}  // namespace pgrange::routing
