// A range-partitioned table over three real PostgreSQL shards through pgrange, checked end to
// end against what the shards themselves hold:
//  - Scenario: 100,000 rows loaded while the table is one range, split into 16 ranges and
//    scattered; SHOW RANGES' row counts, and each shard's own rows (read directly with libpq),
//    must match the range map exactly; point and fan-out reads find the right rows.
//  - RelocateUnderLoad: a range moves between shards seven times while four clients insert,
//    update counters and read in it; no client sees an error, no acknowledged write is lost or
//    doubled, nothing unacknowledged appears, and the rows end up only where the map says.
//  - RestartAndTwoInstances: the range map survives a pgrange restart, and two pgrange processes
//    sharing one metadata store serve the same map and rows and see each other's SPLIT.
//  - TwoInstances{Read,Write}WhileTheOtherRelocates: reads and writes through one pgrange while
//    another pgrange on the same metadata store moves their range keep finding and keeping
//    every row.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/pg_server.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kShards = 3;

std::string shard_name(int i) {
  return "s" + std::to_string(i + 1);
}

int shard_index(const std::string& name) {
  for (int i = 0; i < kShards; ++i) {
    if (shard_name(i) == name) return i;
  }
  return -1;
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// One range of an int8-keyed table as SHOW RANGES FROM TABLE prints it: ids in [lo, hi).
struct RangeRow {
  std::optional<int64_t> lo;  ///< nullopt: …/<TableMin>
  std::optional<int64_t> hi;  ///< nullopt: …/<TableMax>
  std::string range_id;
  std::string shard;
  int64_t row_count = -1;  ///< WITH DETAILS only

  bool contains(int64_t id) const { return (!lo || id >= *lo) && (!hi || id < *hi); }
  /// The range as SQL over column `col`.
  std::string predicate(const std::string& col = "id") const {
    std::string p = "true";
    if (lo) p += " and " + col + " >= " + std::to_string(*lo);
    if (hi) p += " and " + col + " < " + std::to_string(*hi);
    return p;
  }
  std::string describe() const {
    return "range " + range_id + " [" + (lo ? std::to_string(*lo) : "min") + ", " +
           (hi ? std::to_string(*hi) : "max") + ") on " + shard;
  }
};

/// Decodes a pretty key of a one-column int8 primary key: …/<TableMin>, …/<TableMax>, …/1/N.
std::optional<int64_t> decode_bound(const std::string& pretty, bool* ok) {
  *ok = true;
  if (pretty == "…/<TableMin>" || pretty == "…/<TableMax>") return std::nullopt;
  std::smatch m;
  if (std::regex_match(pretty, m, std::regex("…/1/(-?\\d+)"))) return std::stoll(m[1]);
  *ok = false;
  return std::nullopt;
}

/// Three PostgreSQL servers for the whole suite; each test uses databases of its own on them
/// (and a metadata database of its own), so the tests do not see each other's tables.
class RangeClusterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (auto*& s : servers_) s = PgServer::start().release();
  }
  static void TearDownTestSuite() {
    for (auto*& s : servers_) {
      delete s;
      s = nullptr;
    }
  }

  /// A pgrange configuration over database `db` on each of the three servers (created here),
  /// with the metadata store in `<db>_meta` on the first server.
  ProxyConfig make_config(const std::string& db) {
    ProxyConfig cfg = ProxyConfig::with_shard("", 12);
    cfg.shards.clear();
    for (int i = 0; i < kShards; ++i) {
      servers_[i]->exec("CREATE DATABASE " + db);
      ProxyConfig::Shard s;
      s.name = shard_name(i);
      s.dsn = servers_[i]->dsn(db);
      s.pool_size = 12;
      cfg.shards.push_back(s);
    }
    cfg.workers = 2;
    cfg.extra_toml = "\n[metadata]\ndsn = \"" + servers_[0]->dsn(db + "_meta") + "\"\n";
    db_ = db;
    return cfg;
  }

  static PgConnPtr connect(const std::string& dsn) {
    auto c = pq_connect(dsn);
    EXPECT_EQ(PQstatus(c.get()), CONNECTION_OK) << dsn << ": " << PQerrorMessage(c.get());
    return c;
  }
  /// A connection straight to shard i (not through pgrange).
  PgConnPtr shard_conn(int i) { return connect(servers_[i]->dsn(db_)); }

  /// Runs a statement that must succeed.
  static SqlResult must(PGconn* c, const std::string& sql) {
    SqlResult r = pq_exec(c, sql);
    EXPECT_TRUE(r.ok()) << sql << "\n  -> " << r.sqlstate << " " << r.message << " " << r.detail;
    return r;
  }

  /// SHOW RANGES FROM TABLE `table` [WITH DETAILS], decoded.
  static std::vector<RangeRow> show_ranges(PGconn* c, const std::string& table,
                                           bool details = false) {
    SqlResult r =
        must(c, "SHOW RANGES FROM TABLE " + table + (details ? " WITH DETAILS" : std::string()));
    std::vector<RangeRow> out;
    for (const auto& row : r.rows) {
      RangeRow rr;
      bool ok1 = false, ok2 = false;
      rr.lo = decode_bound(row.at(0), &ok1);
      rr.hi = decode_bound(row.at(1), &ok2);
      EXPECT_TRUE(ok1 && ok2) << "undecodable bounds " << row.at(0) << " / " << row.at(1);
      rr.range_id = row.at(2);
      rr.shard = row.at(3);
      if (details && row.size() > 6) rr.row_count = std::stoll(row.at(6));
      out.push_back(rr);
    }
    return out;
  }

  /// Tables a (ids 1..3000, split at 1000, 2000 and 2500) and b (keys 1..1000, split at 500),
  /// made, loaded, split and scattered through the pgrange connection `c`.
  static void make_tables_a_b(PGconn* c) {
    must(c, "CREATE TABLE a (id int8 PRIMARY KEY, v text NOT NULL)");
    must(c, "CREATE TABLE b (k int8 PRIMARY KEY, w text NOT NULL)");
    must(c, "INSERT INTO a (id, v) SELECT g, 'a' || g FROM generate_series(1, 3000) g");
    must(c, "INSERT INTO b (k, w) SELECT g, 'b' || g FROM generate_series(1, 1000) g");
    must(c, "ALTER TABLE a SPLIT AT VALUES (1000), (2000), (2500)");
    must(c, "ALTER TABLE b SPLIT AT VALUES (500)");
    must(c, "ALTER TABLE a SCATTER");
    must(c, "ALTER TABLE b SCATTER");
  }

  /// The range holding `id`.
  static const RangeRow* range_of(const std::vector<RangeRow>& ranges, int64_t id) {
    for (const auto& r : ranges) {
      if (r.contains(id)) return &r;
    }
    return nullptr;
  }

  /// The ids (first column, as int64) of a result, sorted.
  static std::vector<int64_t> ids_of(const SqlResult& r) {
    std::vector<int64_t> ids;
    for (const auto& row : r.rows) ids.push_back(std::stoll(row.at(0)));
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  static PgServer* servers_[kShards];
  std::string db_;
};

PgServer* RangeClusterTest::servers_[kShards] = {};

// ---------------------------------------------------------------------------------------------
// 100,000 rows, 16 ranges scattered over three shards: the map, the statistics and the shards'
// own tables agree range by range.
TEST_F(RangeClusterTest, Scenario) {
  ProxyConfig cfg = make_config("scenario");
  auto proxy = ProxyProcess::start(cfg);
  auto c = connect(proxy->dsn());
  ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK);

  constexpr int64_t kRows = 100000;
  constexpr int64_t kStep = 6250;  // 15 split points: 6250, 12500, …, 93750
  must(c.get(), "CREATE TABLE t (id int8 PRIMARY KEY, payload text NOT NULL)");
  // One range still, so INSERT … SELECT runs on one shard. Every 997th row has payload 'x'.
  auto t0 = Clock::now();
  SqlResult load = must(c.get(),
                        "INSERT INTO t (id, payload) SELECT g, CASE WHEN g % 997 = 0 THEN 'x' "
                        "ELSE 'p' || g END FROM generate_series(1, " +
                            std::to_string(kRows) + ") g");
  ASSERT_TRUE(load.ok()) << proxy->log_tail();
  std::cout << "[scenario] loaded " << kRows << " rows in " << seconds_since(t0) << " s\n";

  std::string points;
  for (int k = 1; k <= 15; ++k) points += (k > 1 ? ", (" : "(") + std::to_string(k * kStep) + ")";
  t0 = Clock::now();
  SqlResult split = must(c.get(), "ALTER TABLE t SPLIT AT VALUES " + points);
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split.rows.size(), 15u);
  SqlResult scatter = must(c.get(), "ALTER TABLE t SCATTER");
  ASSERT_TRUE(scatter.ok()) << proxy->log_tail();
  std::cout << "[scenario] split into 16 ranges and scattered in " << seconds_since(t0) << " s\n";

  std::vector<RangeRow> ranges = show_ranges(c.get(), "t", true);
  ASSERT_EQ(ranges.size(), 16u);
  // The ranges tile the table in order, with exactly the split points chosen.
  for (size_t i = 0; i < ranges.size(); ++i) {
    std::optional<int64_t> lo = i == 0 ? std::nullopt : std::optional<int64_t>(i * kStep);
    std::optional<int64_t> hi =
        i + 1 == ranges.size() ? std::nullopt : std::optional<int64_t>((i + 1) * kStep);
    EXPECT_EQ(ranges[i].lo, lo) << ranges[i].describe();
    EXPECT_EQ(ranges[i].hi, hi) << ranges[i].describe();
  }
  int64_t sum = 0;
  std::map<std::string, int> ranges_per_shard;
  for (const auto& r : ranges) {
    sum += r.row_count;
    ranges_per_shard[r.shard]++;
  }
  EXPECT_EQ(sum, kRows);
  EXPECT_EQ(ranges_per_shard.size(), 3u) << "ranges are not spread over all three shards";
  for (int i = 0; i < kShards; ++i) {
    EXPECT_GT(ranges_per_shard[shard_name(i)], 0) << shard_name(i) << " holds no range";
  }

  // Each shard, read directly, holds exactly the rows of its ranges.
  for (int i = 0; i < kShards; ++i) {
    SCOPED_TRACE("shard " + shard_name(i));
    auto sc = shard_conn(i);
    int64_t expected_total = 0;
    for (const auto& r : ranges) {
      SqlResult got = must(sc.get(),
                           "SELECT count(*), coalesce(min(id), -1), coalesce(max(id), "
                           "-1) FROM t WHERE " +
                               r.predicate());
      int64_t lo = std::max<int64_t>(1, r.lo.value_or(1));
      int64_t hi = std::min<int64_t>(kRows + 1, r.hi.value_or(kRows + 1));  // exclusive
      if (r.shard == shard_name(i)) {
        expected_total += hi - lo;
        EXPECT_EQ(got.at(0, 0), std::to_string(hi - lo)) << r.describe();
        EXPECT_EQ(got.at(0, 1), std::to_string(lo)) << r.describe();
        EXPECT_EQ(got.at(0, 2), std::to_string(hi - 1)) << r.describe();
        EXPECT_EQ(r.row_count, hi - lo) << "SHOW RANGES WITH DETAILS row_count of " << r.describe();
      } else {
        EXPECT_EQ(got.at(0, 0), "0") << "rows of " << r.describe() << " left on " << shard_name(i);
      }
    }
    SqlResult total = must(sc.get(), "SELECT count(*) FROM t");
    EXPECT_EQ(total.at(0, 0), std::to_string(expected_total));
    // Payloads survived the moves unchanged.
    SqlResult bad = must(sc.get(),
                         "SELECT count(*) FROM t WHERE payload <> CASE WHEN id % 997 = 0 THEN 'x' "
                         "ELSE 'p' || id END");
    EXPECT_EQ(bad.at(0, 0), "0");
  }

  // Point reads through pgrange find random rows (and not missing ones).
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int64_t> any_id(1, kRows);
  int found = 0;
  for (int n = 0; n < 300; ++n) {
    int64_t id = any_id(rng);
    SqlResult r = must(c.get(), "SELECT id, payload FROM t WHERE id = " + std::to_string(id));
    ASSERT_EQ(r.rows.size(), 1u) << "id " << id << " (" << range_of(ranges, id)->describe()
                                 << ") not found through pgrange";
    EXPECT_EQ(r.at(0, 0), std::to_string(id));
    EXPECT_EQ(r.at(0, 1), id % 997 == 0 ? std::string("x") : "p" + std::to_string(id));
    ++found;
  }
  EXPECT_EQ(found, 300);
  for (int64_t id : {int64_t{0}, kRows + 1, int64_t{-5}}) {
    SqlResult r = must(c.get(), "SELECT id FROM t WHERE id = " + std::to_string(id));
    EXPECT_TRUE(r.rows.empty()) << id;
  }

  // A fan-out SELECT (concatenated from every shard) returns exactly the 'x' rows.
  SqlResult xs = must(c.get(), "SELECT id FROM t WHERE payload = 'x'");
  std::vector<int64_t> expected_x;
  for (int64_t id = 997; id <= kRows; id += 997) expected_x.push_back(id);
  EXPECT_EQ(ids_of(xs), expected_x);
  SqlResult all = must(c.get(), "SELECT id FROM t");
  EXPECT_EQ(all.rows.size(), static_cast<size_t>(kRows));
  std::vector<int64_t> all_ids = ids_of(all);
  EXPECT_TRUE(std::adjacent_find(all_ids.begin(), all_ids.end()) == all_ids.end())
      << "a row is returned twice by the fan-out SELECT";
  EXPECT_TRUE(proxy->running()) << proxy->log_tail();
}

// ---------------------------------------------------------------------------------------------
// A range moves three times while four clients write and read in it.

/// A statement's result and its affected-row count (PQcmdTuples: "1" for one inserted row).
struct Affected : SqlResult {
  std::string tuples;
};

Affected exec_counted(PGconn* conn, const std::string& sql) {
  PGresult* res = PQexec(conn, sql.c_str());
  Affected a;
  if (res != nullptr) a.tuples = PQcmdTuples(res);
  static_cast<SqlResult&>(a) = take_result(res, conn);
  return a;
}

/// What one client did: acknowledged inserts and increments, and every error it saw.
struct ClientLog {
  std::vector<int64_t> inserted;          ///< INSERT returned success
  std::vector<int64_t> failed_inserts;    ///< INSERT returned an error
  std::map<int64_t, int64_t> increments;  ///< counter id -> acknowledged UPDATEs
  std::vector<std::string> errors;        ///< every error or wrong answer
  int64_t reads = 0, updates = 0, inserts = 0;
};

TEST_F(RangeClusterTest, RelocateUnderLoad) {
  ProxyConfig cfg = make_config("relocate");
  auto proxy = ProxyProcess::start(cfg);
  auto c = connect(proxy->dsn());
  ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK);

  // Three ranges: [min, 10000), [10000, 100000) (the one that moves), [100000, max).
  must(c.get(),
       "CREATE TABLE m (id int8 PRIMARY KEY, counter int8 NOT NULL DEFAULT 0, payload text)");
  must(c.get(),
       "INSERT INTO m (id, payload) SELECT g, 'seed' FROM generate_series(1, 9999) g "
       "UNION ALL SELECT g, 'counter' FROM generate_series(10000, 10019) g "
       "UNION ALL SELECT g, 'seed' FROM generate_series(100000, 109999) g");
  ASSERT_TRUE(must(c.get(), "ALTER TABLE m SPLIT AT VALUES (10000), (100000)").ok());
  ASSERT_TRUE(must(c.get(), "ALTER TABLE m SCATTER").ok());
  std::vector<RangeRow> ranges = show_ranges(c.get(), "m");
  ASSERT_EQ(ranges.size(), 3u);
  const RangeRow moving = ranges[1];
  ASSERT_EQ(moving.lo, std::optional<int64_t>(10000));
  ASSERT_EQ(moving.hi, std::optional<int64_t>(100000));
  const std::string home = moving.shard;
  const std::string other = shard_name((shard_index(home) + 1) % kShards);
  const std::string third = shard_name((shard_index(home) + 2) % kShards);

  constexpr int kClients = 4;
  constexpr int64_t kCounterLo = 10000, kCounterN = 20;
  constexpr int64_t kInsertBase = 12000, kInsertPerClient = 20000;  // ids 12000..91999
  std::atomic<bool> stop{false};
  std::atomic<int64_t> acked_writes{0};
  std::vector<ClientLog> logs(kClients);
  std::vector<std::thread> clients;
  for (int t = 0; t < kClients; ++t) {
    clients.emplace_back([&, t] {
      ClientLog& log = logs[static_cast<size_t>(t)];
      auto conn = pq_connect(proxy->dsn());
      if (PQstatus(conn.get()) != CONNECTION_OK) {
        log.errors.push_back(std::string("connect: ") + PQerrorMessage(conn.get()));
        return;
      }
      std::mt19937_64 rng(static_cast<uint64_t>(t) + 7);
      int64_t next = kInsertBase + t * kInsertPerClient;
      const int64_t last = next + kInsertPerClient;
      std::map<int64_t, int64_t> seen;  // counter id -> highest value this client read
      auto fail = [&](const std::string& what, const SqlResult& r) {
        log.errors.push_back(what + ": " + (r.ok() ? "succeeded but changed no row" : r.sqlstate) +
                             " " + r.message + (r.detail.empty() ? "" : " (" + r.detail + ")"));
      };
      for (int64_t op = 0; !stop; ++op) {
        switch (op % 3) {
          case 0: {
            if (next >= last) break;
            int64_t id = next++;
            ++log.inserts;
            Affected r = exec_counted(conn.get(), "INSERT INTO m (id, payload) VALUES (" +
                                                      std::to_string(id) + ", 'client " +
                                                      std::to_string(t) + "')");
            if (r.ok() && r.tuples == "1") {
              log.inserted.push_back(id);
              ++acked_writes;
            } else {
              log.failed_inserts.push_back(id);
              fail("INSERT " + std::to_string(id), r);
            }
            break;
          }
          case 1: {
            int64_t id = kCounterLo + static_cast<int64_t>(rng() % kCounterN);
            ++log.updates;
            Affected r = exec_counted(
                conn.get(), "UPDATE m SET counter = counter + 1 WHERE id = " + std::to_string(id));
            if (!r.ok()) {
              fail("UPDATE " + std::to_string(id), r);
            } else if (r.tuples != "1") {
              log.errors.push_back("UPDATE " + std::to_string(id) + " changed " + r.tuples +
                                   " rows");
            } else {
              log.increments[id]++;
              ++acked_writes;
            }
            break;
          }
          case 2: {
            ++log.reads;
            // A counter row (never goes backwards for this client) or one of its own inserts.
            if (log.inserted.empty() || rng() % 2 == 0) {
              int64_t id = kCounterLo + static_cast<int64_t>(rng() % kCounterN);
              SqlResult r =
                  pq_exec(conn.get(), "SELECT counter FROM m WHERE id = " + std::to_string(id));
              if (!r.ok()) {
                fail("SELECT counter " + std::to_string(id), r);
              } else if (r.rows.size() != 1) {
                log.errors.push_back("SELECT counter " + std::to_string(id) + ": " +
                                     std::to_string(r.rows.size()) + " rows");
              } else {
                int64_t v = std::stoll(r.at(0, 0));
                if (v < seen[id]) {
                  log.errors.push_back("counter " + std::to_string(id) + " went back from " +
                                       std::to_string(seen[id]) + " to " + std::to_string(v));
                }
                seen[id] = std::max(seen[id], v);
              }
            } else {
              int64_t id = log.inserted[rng() % log.inserted.size()];
              SqlResult r =
                  pq_exec(conn.get(), "SELECT payload FROM m WHERE id = " + std::to_string(id));
              if (!r.ok()) {
                fail("SELECT " + std::to_string(id), r);
              } else if (r.rows.size() != 1 || r.at(0, 0) != "client " + std::to_string(t)) {
                log.errors.push_back("SELECT " + std::to_string(id) + " (acknowledged insert): " +
                                     std::to_string(r.rows.size()) + " rows");
              }
            }
            break;
          }
        }
      }
    });
  }

  auto relocate = [&](const std::string& to) {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    int64_t writes_before = acked_writes;
    auto t0 = Clock::now();
    SqlResult r = pq_exec(c.get(), "ALTER RANGE " + moving.range_id + " RELOCATE TO '" + to + "'");
    EXPECT_TRUE(r.ok()) << "RELOCATE to " << to << ": " << r.sqlstate << " " << r.message << "\n"
                        << proxy->log_tail();
    std::cout << "[relocate] range " << moving.range_id << " -> " << to << " in "
              << seconds_since(t0) << " s; " << acked_writes - writes_before
              << " writes acknowledged meanwhile\n";
  };
  // Away, back, and on to the third shard; twice.
  for (int round = 0; round < 2; ++round) {
    relocate(other);
    relocate(home);
    relocate(third);
    if (round == 0) relocate(home);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  stop = true;
  for (auto& th : clients) th.join();

  // No client saw an error: writes wait while the range moves, they are not refused.
  size_t errors = 0;
  std::set<int64_t> acknowledged, failed;
  std::map<int64_t, int64_t> increments;
  for (int t = 0; t < kClients; ++t) {
    const ClientLog& log = logs[static_cast<size_t>(t)];
    std::cout << "[relocate] client " << t << ": " << log.inserts << " inserts, " << log.updates
              << " updates, " << log.reads << " reads, " << log.errors.size() << " errors\n";
    for (const auto& e : log.errors) {
      std::cout << "  client " << t << ": " << e << "\n";
      ++errors;
    }
    acknowledged.insert(log.inserted.begin(), log.inserted.end());
    failed.insert(log.failed_inserts.begin(), log.failed_inserts.end());
    for (auto [id, n] : log.increments) increments[id] += n;
  }
  EXPECT_EQ(errors, 0u) << "clients saw errors (listed above)";
  EXPECT_FALSE(acknowledged.empty());
  ASSERT_TRUE(proxy->running()) << proxy->log_tail();

  // The map: the range is on the third shard now.
  std::vector<RangeRow> after = show_ranges(c.get(), "m");
  ASSERT_EQ(after.size(), 3u);
  EXPECT_EQ(after[1].range_id, moving.range_id);
  EXPECT_EQ(after[1].shard, third);

  // Expected content of the moving range: the counter rows and the acknowledged inserts.
  std::vector<int64_t> expected;
  for (int64_t id = kCounterLo; id < kCounterLo + kCounterN; ++id) expected.push_back(id);
  expected.insert(expected.end(), acknowledged.begin(), acknowledged.end());
  std::sort(expected.begin(), expected.end());

  // Through pgrange (a fan-out over every shard, so a row left behind would show up twice).
  SqlResult via = must(c.get(), "SELECT id FROM m WHERE id >= 10000 AND id < 100000");
  std::vector<int64_t> via_ids = ids_of(via);
  EXPECT_EQ(via_ids.size(), expected.size());
  EXPECT_TRUE(via_ids == expected) << "through pgrange, the moving range's rows differ";
  for (int64_t id = kCounterLo; id < kCounterLo + kCounterN; ++id) {
    SqlResult r = must(c.get(), "SELECT counter FROM m WHERE id = " + std::to_string(id));
    EXPECT_EQ(r.at(0, 0), std::to_string(increments[id])) << "counter " << id << " via pgrange";
  }

  // Directly on the shards: each row exactly once, only on the shard the map says.
  std::map<int64_t, int> copies;
  for (int i = 0; i < kShards; ++i) {
    auto sc = shard_conn(i);
    SqlResult rows = must(sc.get(), "SELECT id, counter FROM m WHERE " + moving.predicate());
    for (const auto& row : rows.rows) {
      int64_t id = std::stoll(row.at(0));
      copies[id]++;
      EXPECT_EQ(shard_name(i), third) << "row " << id << " of the moved range is on "
                                      << shard_name(i) << ", the map says " << third;
      if (id >= kCounterLo && id < kCounterLo + kCounterN) {
        EXPECT_EQ(row.at(1), std::to_string(increments[id]))
            << "counter " << id << " on " << shard_name(i) << " vs acknowledged increments";
      }
    }
    // The other two ranges did not move and kept their rows (9999 and 10000 of them).
    for (size_t k : {size_t{0}, size_t{2}}) {
      const RangeRow& r = after[k];
      SqlResult n = must(sc.get(), "SELECT count(*) FROM m WHERE " + r.predicate());
      std::string want = r.shard == shard_name(i) ? (k == 0 ? "9999" : "10000") : "0";
      EXPECT_EQ(n.at(0, 0), want) << r.describe() << " on " << shard_name(i);
    }
  }
  for (int64_t id : expected) {
    EXPECT_EQ(copies[id], 1) << "acknowledged row " << id << " is on " << copies[id] << " shards";
  }
  for (auto [id, n] : copies) {
    if (!std::binary_search(expected.begin(), expected.end(), id)) {
      ADD_FAILURE() << "row " << id << " is present but was never acknowledged"
                    << (failed.count(id) ? " (its INSERT returned an error)" : "");
    }
  }
  EXPECT_TRUE(failed.empty()) << failed.size() << " inserts failed";
  int64_t total_increments = 0;
  for (auto [id, n] : increments) total_increments += n;
  std::cout << "[relocate] " << acknowledged.size() << " acknowledged inserts, " << total_increments
            << " acknowledged increments\n";
}

// ---------------------------------------------------------------------------------------------
// The range map lives in the metadata store: a restarted pgrange serves the same ranges and
// rows, and two pgrange processes on one store serve the same map and see each other's SPLIT.

/// Every row of a result, one line each, columns joined by '|'.
std::string rows_text(const SqlResult& r) {
  std::string out;
  for (const auto& row : r.rows) {
    for (size_t i = 0; i < row.size(); ++i) out += (i ? "|" : "") + row[i];
    out += "\n";
  }
  return out;
}

/// The tables' rows as seen through a pgrange connection (fan-out SELECTs, sorted here).
std::string table_rows(PGconn* c) {
  std::string out;
  for (const char* q : {"SELECT id, v FROM a", "SELECT k, w FROM b"}) {
    SqlResult r = pq_exec(c, q);
    EXPECT_TRUE(r.ok()) << q << ": " << r.message;
    std::sort(r.rows.begin(), r.rows.end(), [](const auto& x, const auto& y) {
      return std::stoll(x.at(0)) < std::stoll(y.at(0));
    });
    out += std::string(q) + "\n" + rows_text(r);
  }
  return out;
}

/// Point-reads every row of a and b through a pgrange connection; returns how many were not
/// found (the first few are reported as failures).
int missing_point_reads(PGconn* c) {
  int missing = 0;
  for (int64_t id = 1; id <= 3000; ++id) {
    SqlResult got = pq_exec(c, "SELECT v FROM a WHERE id = " + std::to_string(id));
    if (!got.ok() || got.rows.size() != 1 || got.at(0, 0) != "a" + std::to_string(id)) {
      if (++missing <= 5) ADD_FAILURE() << "a: id " << id << " not found: " << got.message;
    }
  }
  for (int64_t k = 1; k <= 1000; ++k) {
    SqlResult got = pq_exec(c, "SELECT w FROM b WHERE k = " + std::to_string(k));
    if (!got.ok() || got.rows.size() != 1 || got.at(0, 0) != "b" + std::to_string(k)) {
      if (++missing <= 5) ADD_FAILURE() << "b: k " << k << " not found: " << got.message;
    }
  }
  return missing;
}

TEST_F(RangeClusterTest, RestartAndTwoInstances) {
  ProxyConfig cfg = make_config("restart");
  auto p1 = ProxyProcess::start(cfg);
  auto c = connect(p1->dsn());
  ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK);
  make_tables_a_b(c.get());
  ASSERT_FALSE(HasFailure()) << p1->log_tail();
  const std::string show = "SHOW RANGES FROM DATABASE app WITH KEYS";
  SqlResult ranges_before = must(c.get(), show);
  const std::string map_before = rows_text(ranges_before);
  const std::string rows_before = table_rows(c.get());
  ASSERT_GE(ranges_before.rows.size(), 5u) << map_before;
  ASSERT_NE(rows_before.find("3000|a3000\n"), std::string::npos);
  ASSERT_NE(rows_before.find("1000|b1000\n"), std::string::npos);

  // Restart: the same map and the same rows.
  c.reset();
  auto status = p1->stop();
  ASSERT_TRUE(status.has_value()) << "pgrange did not exit on SIGTERM\n" << p1->log_tail();
  EXPECT_EQ(*status, 0) << p1->log_tail();
  p1 = ProxyProcess::start(cfg);
  c = connect(p1->dsn());
  ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK);
  EXPECT_EQ(rows_text(must(c.get(), show)), map_before)
      << first_difference(map_before, rows_text(must(c.get(), show)));
  EXPECT_EQ(table_rows(c.get()), rows_before);
  EXPECT_EQ(missing_point_reads(c.get()), 0) << "point reads after the restart";

  // A second pgrange on the same store and shards.
  auto p2 = ProxyProcess::start(cfg);
  auto c2 = connect(p2->dsn());
  ASSERT_EQ(PQstatus(c2.get()), CONNECTION_OK);
  EXPECT_EQ(rows_text(must(c2.get(), show)), map_before);
  EXPECT_EQ(table_rows(c2.get()), rows_before);
  EXPECT_EQ(missing_point_reads(c2.get()), 0) << "point reads through the second pgrange";

  // A SPLIT through the first shows up through the second.
  ASSERT_TRUE(must(c.get(), "ALTER TABLE a SPLIT AT VALUES (1500)").ok());
  auto t0 = Clock::now();
  bool seen = false;
  double took = -1;
  while (seconds_since(t0) < 5) {
    for (const RangeRow& r : show_ranges(c2.get(), "a")) {
      if (r.lo == std::optional<int64_t>(1500)) seen = true;
    }
    if (seen) {
      took = seconds_since(t0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(seen) << "the split at 1500 made through one pgrange was not visible through the "
                       "other within 5 s";
  std::cout << "[two instances] split visible through the other pgrange after " << took << " s\n";

  EXPECT_EQ(table_rows(c.get()), rows_before);
  EXPECT_EQ(table_rows(c2.get()), rows_before);
  EXPECT_TRUE(p1->running()) << p1->log_tail();
  EXPECT_TRUE(p2->running()) << p2->log_tail();
}

// Point reads through one pgrange while another pgrange on the same metadata store relocates
// the range they read: every read finds its row, during and after each move.
TEST_F(RangeClusterTest, TwoInstancesReadWhileTheOtherRelocates) {
  ProxyConfig cfg = make_config("tworeads");
  auto p1 = ProxyProcess::start(cfg);
  auto p2 = ProxyProcess::start(cfg);
  auto c = connect(p1->dsn());
  auto c2 = connect(p2->dsn());
  ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK);
  ASSERT_EQ(PQstatus(c2.get()), CONNECTION_OK);
  make_tables_a_b(c.get());
  ASSERT_FALSE(HasFailure()) << p1->log_tail();
  const std::string rows_before = table_rows(c.get());

  // RELOCATE through one pgrange while the other reads every row of the moving range, then
  // all rows of both tables.
  auto relocate_and_read = [&](PGconn* mover, ProxyProcess& reader_proxy, int64_t lo, int64_t hi,
                               const std::string& label) {
    SCOPED_TRACE(label);
    std::vector<RangeRow> ranges = show_ranges(mover, "a");
    const RangeRow* r = range_of(ranges, lo);
    ASSERT_NE(r, nullptr);
    ASSERT_EQ(r->lo, std::optional<int64_t>(lo));
    ASSERT_EQ(r->hi, std::optional<int64_t>(hi));
    const std::string to = shard_name((shard_index(r->shard) + 1) % kShards);
    std::atomic<bool> stop{false};
    std::vector<std::string> misses;
    int64_t reads = 0;
    std::thread reader([&] {
      auto rc = pq_connect(reader_proxy.dsn());
      if (PQstatus(rc.get()) != CONNECTION_OK) {
        misses.push_back(std::string("connect: ") + PQerrorMessage(rc.get()));
        return;
      }
      auto start = Clock::now();
      for (int64_t id = lo; !stop || id != lo; id = id + 1 < hi ? id + 1 : lo) {
        SqlResult got = pq_exec(rc.get(), "SELECT v FROM a WHERE id = " + std::to_string(id));
        ++reads;
        if (!got.ok() || got.rows.size() != 1 || got.at(0, 0) != "a" + std::to_string(id)) {
          misses.push_back("id " + std::to_string(id) + " at " +
                           std::to_string(seconds_since(start)) + " s: " +
                           (got.ok() ? std::to_string(got.rows.size()) + " rows"
                                     : got.sqlstate + " " + got.message));
        }
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    auto m0 = Clock::now();
    SqlResult moved = pq_exec(mover, "ALTER RANGE " + r->range_id + " RELOCATE TO '" + to + "'");
    EXPECT_TRUE(moved.ok()) << moved.sqlstate << " " << moved.message;
    std::cout << "[two instances] " << label << ": range " << r->range_id << " moved to " << to
              << " in " << seconds_since(m0) << " s\n";
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop = true;
    reader.join();
    std::cout << "[two instances] " << label << ": " << reads << " point reads through the other "
              << "pgrange during the move, " << misses.size() << " missed\n";
    for (size_t i = 0; i < misses.size() && i < 20; ++i) std::cout << "  " << misses[i] << "\n";
    EXPECT_TRUE(misses.empty()) << misses.size()
                                << " point reads through the other pgrange "
                                   "did not find their row (listed above)";
    // Afterwards: every row of both tables by point reads through the reading pgrange.
    auto rc = connect(reader_proxy.dsn());
    EXPECT_EQ(missing_point_reads(rc.get()), 0) << "point reads after the move";
    // And the range's rows are only on the shard the map names.
    for (int i = 0; i < kShards; ++i) {
      auto sc = shard_conn(i);
      SqlResult n = must(sc.get(), "SELECT count(*) FROM a WHERE " + r->predicate());
      EXPECT_EQ(n.at(0, 0), shard_name(i) == to ? std::to_string(hi - lo) : "0")
          << "shard " << shard_name(i);
    }
  };
  for (int k = 0; k < 2; ++k) {
    relocate_and_read(c.get(), *p2, 1000, 2000, "relocate through the first, read through second");
    relocate_and_read(c2.get(), *p1, 2000, 2500, "relocate through the second, read through first");
  }
  EXPECT_EQ(table_rows(c.get()), rows_before);
  EXPECT_EQ(table_rows(c2.get()), rows_before);
}

// Writes through one pgrange while another pgrange on the same metadata store relocates the
// range they write to: every acknowledged INSERT and UPDATE must survive, on the shard the map
// names.
// A statement routed with the map before a move, whose ranges are registered only after the
// move published its map and deleted the rows at the old shard (the reading pgrange is made to
// pause there), routes again with the new map: it never reads the old shard's emptied range.
TEST_F(RangeClusterTest, AStatementRoutedBeforeAMoveRoutesAgain) {
  ProxyConfig cfg = make_config("routed_before");
  auto mover = ProxyProcess::start(cfg);
  // pgrange reads the delay at its first statement; the environment is copied at start.
  setenv("PGRANGE_TEST_DELAY", "before_hold:2000", 1);
  auto reading = ProxyProcess::start(cfg);
  unsetenv("PGRANGE_TEST_DELAY");
  auto c = connect(mover->dsn());
  make_tables_a_b(c.get());
  std::vector<RangeRow> ranges = show_ranges(c.get(), "a");
  const RangeRow* r = range_of(ranges, 1500);
  ASSERT_NE(r, nullptr);
  const std::string to = shard_name((shard_index(r->shard) + 1) % kShards);
  SqlResult got;
  auto started = Clock::now();
  std::thread reader([&] {
    auto rc = pq_connect(reading->dsn());
    got = pq_exec(rc.get(), "SELECT count(*), min(v) FROM a WHERE id BETWEEN 1000 AND 1999");
  });
  // The read is routed (to the range's shard) and paused; the move runs to its end meanwhile.
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  must(c.get(), "ALTER RANGE " + r->range_id + " RELOCATE TO '" + to + "'");
  double moved_at = seconds_since(started);
  reader.join();
  std::cout << "[routed before a move] moved after " << moved_at << " s, read answered after "
            << seconds_since(started) << " s\n";
  EXPECT_LT(moved_at, 2.0) << "the move did not end while the read was paused: the test "
                              "did not make the race it is about";
  ASSERT_TRUE(got.ok()) << got.sqlstate << " " << got.message;
  EXPECT_EQ(got.at(0, 0), "1000");
  EXPECT_EQ(got.at(0, 1), "a1000");
}

TEST_F(RangeClusterTest, TwoInstancesWriteWhileTheOtherRelocates) {
  ProxyConfig cfg = make_config("twowrites");
  auto mover = ProxyProcess::start(cfg);
  auto writer = ProxyProcess::start(cfg);
  auto c = connect(mover->dsn());
  ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK);
  must(c.get(), "CREATE TABLE w (id int8 PRIMARY KEY, n int8 NOT NULL DEFAULT 0)");
  must(c.get(), "INSERT INTO w (id) SELECT g FROM generate_series(1, 20) g");
  ASSERT_TRUE(must(c.get(), "ALTER TABLE w SPLIT AT VALUES (1), (1000000)").ok());
  std::vector<RangeRow> ranges = show_ranges(c.get(), "w");
  ASSERT_EQ(ranges.size(), 3u);
  const RangeRow moving = ranges[1];  // [1, 1000000): every row

  std::atomic<bool> stop{false};
  std::vector<int64_t> acknowledged;
  std::map<int64_t, int64_t> increments;
  std::vector<std::string> errors;
  std::thread client([&] {
    auto wc = pq_connect(writer->dsn());
    if (PQstatus(wc.get()) != CONNECTION_OK) {
      errors.push_back(std::string("connect: ") + PQerrorMessage(wc.get()));
      return;
    }
    int64_t next = 1000;
    for (int op = 0; !stop; ++op) {
      if (op % 2 == 0) {
        int64_t id = next++;
        Affected r =
            exec_counted(wc.get(), "INSERT INTO w (id) VALUES (" + std::to_string(id) + ")");
        if (r.ok() && r.tuples == "1") {
          acknowledged.push_back(id);
        } else {
          errors.push_back("INSERT " + std::to_string(id) + ": " + r.sqlstate + " " + r.message);
        }
      } else {
        int64_t id = 1 + op % 20;
        Affected r =
            exec_counted(wc.get(), "UPDATE w SET n = n + 1 WHERE id = " + std::to_string(id));
        if (r.ok() && r.tuples == "1") {
          increments[id]++;
        } else {
          errors.push_back("UPDATE " + std::to_string(id) + ": " +
                           (r.ok() ? "UPDATE " + r.tuples : r.sqlstate + " " + r.message));
        }
      }
    }
  });
  std::string shard = moving.shard;
  for (int k = 0; k < 6; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    shard = shard_name((shard_index(shard) + 1) % kShards);
    must(c.get(), "ALTER RANGE " + moving.range_id + " RELOCATE TO '" + shard + "'");
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  stop = true;
  client.join();
  std::cout << "[writes through the other pgrange] " << acknowledged.size()
            << " acknowledged inserts, " << errors.size() << " errors\n";
  for (size_t i = 0; i < errors.size() && i < 20; ++i) std::cout << "  " << errors[i] << "\n";
  EXPECT_TRUE(errors.empty()) << "the writing client saw errors or lost updates (listed above)";

  std::map<int64_t, int> copies;
  for (int i = 0; i < kShards; ++i) {
    auto sc = shard_conn(i);
    SqlResult rows = must(sc.get(), "SELECT id, n FROM w");
    for (const auto& row : rows.rows) {
      int64_t id = std::stoll(row.at(0));
      copies[id]++;
      EXPECT_EQ(shard_name(i), shard)
          << "row " << id << " is on " << shard_name(i) << ", the map says " << shard;
      if (id <= 20) {
        EXPECT_EQ(row.at(1), std::to_string(increments[id]))
            << "counter " << id << " vs acknowledged increments";
      }
    }
  }
  int missing = 0;
  for (int64_t id : acknowledged) {
    if (copies[id] != 1 && ++missing <= 10) {
      ADD_FAILURE() << "acknowledged insert " << id << " is on " << copies[id] << " shards";
    }
  }
  EXPECT_EQ(missing, 0) << "acknowledged inserts lost or duplicated";
}

}  // namespace
}  // namespace pgrange::testing

namespace pgrange::testing {
namespace {

// A whole-table SELECT (concatenated from every shard) while ranges move back and forth: a
// range's rows are on both shards for a moment, and no read may see them twice or not at all.
TEST_F(RangeClusterTest, WholeTableReadsWhileRangesMove) {
  ProxyConfig cfg = make_config("fanout_moves");
  auto proxy = ProxyProcess::start(cfg);
  auto c = connect(proxy->dsn());
  make_tables_a_b(c.get());
  std::atomic<bool> stop{false};
  std::atomic<int> reads{0}, wrong{0}, errors{0};
  std::string first_wrong;
  std::mutex mu;
  std::thread reader([&] {
    auto rc = connect(proxy->dsn());
    while (!stop) {
      SqlResult r = pq_exec(rc.get(), "SELECT id FROM a WHERE v LIKE 'a%'");
      if (!r.ok()) {
        ++errors;
        std::lock_guard lock(mu);
        if (first_wrong.empty()) first_wrong = r.sqlstate + " " + r.message;
        continue;
      }
      ++reads;
      std::vector<int64_t> ids = ids_of(r);
      bool ok = ids.size() == 3000;
      for (size_t i = 0; ok && i < ids.size(); ++i) ok = ids[i] == static_cast<int64_t>(i + 1);
      if (!ok) {
        ++wrong;
        std::lock_guard lock(mu);
        if (first_wrong.empty()) first_wrong = std::to_string(ids.size()) + " rows";
      }
    }
  });
  auto ranges = show_ranges(c.get(), "a");
  ASSERT_GE(ranges.size(), 4u);
  for (int round = 0; round < 8; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // reads between moves too
    const RangeRow& r = ranges[static_cast<size_t>(round) % ranges.size()];
    std::string to = shard_name((shard_index(r.shard) + 1 + round % 2) % kShards);
    must(c.get(), "ALTER RANGE " + r.range_id + " RELOCATE TO '" + to + "'");
    ranges = show_ranges(c.get(), "a");
    if (ranges.empty()) {
      ADD_FAILURE() << "SHOW RANGES FROM TABLE a returned no ranges";
      break;  // the reader still has to be stopped
    }
  }
  stop = true;
  reader.join();
  std::printf("[whole-table reads during moves] %d reads, %d wrong, %d errors\n", reads.load(),
              wrong.load(), errors.load());
  EXPECT_GT(reads.load(), 0);
  EXPECT_EQ(wrong.load(), 0) << first_wrong;
  EXPECT_EQ(errors.load(), 0) << first_wrong;
}

// Joins read each table from the shards its ranges are on, then run on one shard: while ranges
// of both tables split and move, every answer stays the one the rows give.
TEST_F(RangeClusterTest, JoinsWhileRangesSplitAndMove) {
  ProxyConfig cfg = make_config("join_moves");
  auto proxy = ProxyProcess::start(cfg);
  auto c = connect(proxy->dsn());
  make_tables_a_b(c.get());
  struct Query {
    const char* sql;
    const char* want;
  };
  const std::vector<Query> queries = {
      {"SELECT count(*), sum(a.id) FROM a JOIN b ON b.k = a.id", "1000|500500\n"},
      {"SELECT a.id, b.w FROM a JOIN b ON b.k = a.id WHERE a.id IN (5, 499, 501, 999, 2999) "
       "ORDER BY a.id",
       "5|b5\n499|b499\n501|b501\n999|b999\n"},
      {"SELECT count(*), count(b.k) FROM a LEFT JOIN b ON b.k = a.id", "3000|1000\n"},
      {"SELECT count(*) FROM a WHERE id IN (SELECT k FROM b WHERE k > 900)", "100\n"},
      {"SELECT b.w FROM b JOIN a ON a.v = b.w ORDER BY 1", ""},
  };
  std::atomic<bool> stop{false};
  std::atomic<int> reads{0}, wrong{0}, errors{0};
  std::string first_wrong;
  std::mutex mu;
  std::thread reader([&] {
    auto rc = connect(proxy->dsn());
    for (size_t n = 0; !stop; ++n) {
      const Query& q = queries[n % queries.size()];
      SqlResult r = pq_exec(rc.get(), q.sql);
      std::string got;
      for (const auto& row : r.rows) {
        for (size_t i = 0; i < row.size(); ++i) got += (i ? "|" : "") + row[i];
        got += "\n";
      }
      bool ok = r.ok() && got == q.want;
      if (r.ok()) ++reads;
      if (!r.ok()) ++errors;
      if (r.ok() && !ok) ++wrong;
      if (!ok) {
        std::lock_guard lock(mu);
        if (first_wrong.empty()) {
          first_wrong = std::string(q.sql) + ": " + (r.ok() ? got : r.sqlstate + " " + r.message);
        }
      }
    }
  });
  must(c.get(), "ALTER TABLE b SPLIT AT VALUES (250), (750)");
  must(c.get(), "ALTER TABLE a SPLIT AT VALUES (1500)");
  for (int round = 0; round < 8; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // joins between moves too
    const char* table = round % 2 == 0 ? "a" : "b";
    auto ranges = show_ranges(c.get(), table);
    if (ranges.empty()) {
      ADD_FAILURE() << "SHOW RANGES FROM TABLE " << table << " returned no ranges";
      break;
    }
    const RangeRow& r = ranges[static_cast<size_t>(round / 2) % ranges.size()];
    std::string to = shard_name((shard_index(r.shard) + 1) % kShards);
    must(c.get(), "ALTER RANGE " + r.range_id + " RELOCATE TO '" + to + "'");
  }
  stop = true;
  reader.join();
  std::printf("[joins during splits and moves] %d answers, %d wrong, %d errors\n", reads.load(),
              wrong.load(), errors.load());
  EXPECT_GT(reads.load(), static_cast<int>(queries.size()));
  EXPECT_EQ(wrong.load(), 0) << first_wrong;
  EXPECT_EQ(errors.load(), 0) << first_wrong;
}

// Joins pushed down to the shards while their ranges move: a co-located group (each move of a
// range takes the follower's range along, one after the other, so for a moment the two are on
// different shards) and a reference table. Every answer is the rows' own: a join whose group is
// not aligned at that moment is gathered instead.
TEST_F(RangeClusterTest, PushedDownJoinsWhileTheGroupMoves) {
  ProxyConfig cfg = make_config("group_moves");
  cfg.extra_toml += "\n[[table]]\nname = \"kinds\"\nreference = true\n";
  auto proxy = ProxyProcess::start(cfg);
  auto c = connect(proxy->dsn());
  make_tables_a_b(c.get());
  must(c.get(), "CREATE TABLE parts (a_id int8, n int4, qty int4 NOT NULL, PRIMARY KEY (a_id, n))");
  must(c.get(),
       "INSERT INTO parts SELECT g, n, n FROM generate_series(1, 3000) g, "
       "generate_series(1, 2) n WHERE g % 10 <> 0");
  must(c.get(), "ALTER TABLE parts COLOCATE WITH a");
  must(c.get(), "CREATE TABLE kinds (id int4 PRIMARY KEY, label text NOT NULL)");
  must(c.get(), "INSERT INTO kinds SELECT g, 'k' || g FROM generate_series(0, 4) g");
  struct Query {
    const char* sql;
    const char* want;
  };
  const std::vector<Query> queries = {
      {"SELECT count(*), sum(p.qty) FROM a JOIN parts p ON p.a_id = a.id", "5400|8100\n"},
      {"SELECT count(*), count(p.n) FROM a LEFT JOIN parts p ON p.a_id = a.id", "5700|5400\n"},
      {"SELECT k.label, count(*) FROM a JOIN parts p ON p.a_id = a.id JOIN kinds k ON k.id = "
       "a.id % 5 WHERE a.id BETWEEN 900 AND 1099 GROUP BY k.label ORDER BY 1",
       "k0|40\nk1|80\nk2|80\nk3|80\nk4|80\n"},
      {"SELECT a.id, p.n FROM a JOIN parts p ON p.a_id = a.id ORDER BY a.id DESC, p.n LIMIT 3",
       "2999|1\n2999|2\n2998|1\n"},
  };
  // The group's layout checked on the shards: every part on its a row's shard.
  auto parts_apart = [&] {
    long apart = 0;
    for (int i = 0; i < kShards; ++i) {
      auto d = connect(servers_[i]->dsn("group_moves"));
      SqlResult r = pq_exec(d.get(),
                            "SELECT count(*) FROM parts p WHERE NOT EXISTS (SELECT 1 "
                            "FROM a WHERE a.id = p.a_id)");
      apart += r.ok() ? std::stol(r.at()) : 1000000;
    }
    return apart;
  };
  EXPECT_EQ(parts_apart(), 0) << "COLOCATE WITH left parts away from their a rows";
  std::atomic<bool> stop{false};
  std::atomic<int> reads{0}, wrong{0}, errors{0};
  std::string first_wrong;
  std::mutex mu;
  std::thread reader([&] {
    auto rc = connect(proxy->dsn());
    for (size_t n = 0; !stop; ++n) {
      const Query& q = queries[n % queries.size()];
      SqlResult r = pq_exec(rc.get(), q.sql);
      std::string got;
      for (const auto& row : r.rows) {
        for (size_t i = 0; i < row.size(); ++i) got += (i ? "|" : "") + row[i];
        got += "\n";
      }
      bool ok = r.ok() && got == q.want;
      if (r.ok()) ++reads;
      if (!r.ok()) ++errors;
      if (r.ok() && !ok) ++wrong;
      if (!ok) {
        std::lock_guard lock(mu);
        if (first_wrong.empty()) {
          first_wrong = std::string(q.sql) + ": " + (r.ok() ? got : r.sqlstate + " " + r.message);
        }
      }
    }
  });
  must(c.get(), "ALTER TABLE parts SPLIT AT VALUES (1500)");
  for (int round = 0; round < 6; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const char* table = round % 2 == 0 ? "a" : "parts";
    auto ranges = show_ranges(c.get(), table);
    if (ranges.empty()) {
      ADD_FAILURE() << "SHOW RANGES FROM TABLE " << table << " returned no ranges";
      break;
    }
    const RangeRow& r = ranges[static_cast<size_t>(round) % ranges.size()];
    std::string to = shard_name((shard_index(r.shard) + 1) % kShards);
    must(c.get(), "ALTER RANGE " + r.range_id + " RELOCATE TO '" + to + "'");
  }
  stop = true;
  reader.join();
  std::printf("[pushed-down joins during group moves] %d answers, %d wrong, %d errors\n",
              reads.load(), wrong.load(), errors.load());
  EXPECT_GT(reads.load(), static_cast<int>(queries.size()));
  EXPECT_EQ(wrong.load(), 0) << first_wrong;
  EXPECT_EQ(errors.load(), 0) << first_wrong;
  EXPECT_EQ(parts_apart(), 0) << "a move left parts away from their a rows";
}

// The rows a join reads are held up to query_memory: past it they go through a temporary file
// into temporary tables where the statement runs. What must stay in memory (a cursor's DECLARE,
// written with the rows in it) fails with 53200 naming the setting, and the session and the
// proxy go on. The groups pgrange sorts go to sorted runs in temp_directory past it, removed as
// they are made.
TEST_F(RangeClusterTest, AJoinOverQueryMemoryGoesToDiskASortToo) {
  ProxyConfig cfg = make_config("join_memory");
  cfg.query_memory = 16 * 1024;
  std::string temp = std::filesystem::temp_directory_path().string() + "/pgrange-sort-XXXXXX";
  ASSERT_NE(::mkdtemp(temp.data()), nullptr);
  cfg.temp_directory = temp;
  auto proxy = ProxyProcess::start(cfg);
  auto c = connect(proxy->dsn());
  make_tables_a_b(c.get());
  SqlResult big = pq_exec(c.get(), "SELECT count(*) FROM a JOIN b ON b.k = a.id");
  ASSERT_TRUE(big.ok()) << big.sqlstate << " " << big.message;
  EXPECT_EQ(big.at(), "1000");
  SqlResult big_plan =
      pq_exec(c.get(), "EXPLAIN ANALYZE SELECT count(*) FROM a JOIN b ON b.k = a.id");
  ASSERT_TRUE(big_plan.ok()) << big_plan.message;
  std::string big_text;
  for (const auto& row : big_plan.rows) big_text += row[0] + "\n";
  EXPECT_NE(big_text.find("through a temporary file"), std::string::npos) << big_text;
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  SqlResult declared =
      pq_exec(c.get(), "DECLARE held CURSOR FOR SELECT a.v, b.w FROM a JOIN b ON b.k = a.id");
  EXPECT_EQ(declared.sqlstate, "53200") << declared.message;
  EXPECT_NE(declared.message.find("query_memory"), std::string::npos) << declared.message;
  EXPECT_TRUE(pq_exec(c.get(), "ROLLBACK").ok());
  // A join that reads little goes on, on the same connection and on another one.
  const char* small =
      "SELECT a.id, b.w FROM a JOIN b ON b.k = a.id WHERE a.id IN (7, 999) ORDER BY 1";
  auto other = connect(proxy->dsn());
  for (PGconn* conn : {c.get(), other.get()}) {
    SqlResult r = pq_exec(conn, small);
    ASSERT_TRUE(r.ok()) << r.sqlstate << " " << r.message;
    ASSERT_EQ(r.rows.size(), 2u);
    EXPECT_EQ(r.rows[1][1], "b999");
  }
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM a").at(0, 0), "3000");
  // 3,000 groups of a's rows over several shards, sorted by their counts in pgrange: past
  // query_memory, in runs on disk.
  SqlResult sorted =
      pq_exec(c.get(), "SELECT id % 1500, count(*), min(id) FROM a GROUP BY 1 ORDER BY 3 DESC");
  ASSERT_TRUE(sorted.ok()) << sorted.sqlstate << " " << sorted.message;
  ASSERT_EQ(sorted.rows.size(), 1500u);
  for (size_t i = 0; i < sorted.rows.size(); ++i) {
    ASSERT_EQ(sorted.rows[i][2], std::to_string(1500 - i)) << "row " << i;
    ASSERT_EQ(sorted.rows[i][1], "2");
  }
  SqlResult explained = pq_exec(
      c.get(), "EXPLAIN ANALYZE SELECT id % 1500, count(*), min(id) FROM a GROUP BY 1 ORDER BY 3");
  ASSERT_TRUE(explained.ok()) << explained.message;
  std::string plan;
  for (const auto& row : explained.rows) plan += row[0] + "\n";
  EXPECT_NE(plan.find("sorted runs on disk"), std::string::npos) << plan;
  EXPECT_TRUE(std::filesystem::is_empty(temp)) << "a sort left a file in " << temp;
  std::filesystem::remove_all(temp);
  // A few groups are sorted as PostgreSQL sorts them.
  SqlResult few = pq_exec(other.get(), "SELECT id % 3, count(*) FROM a GROUP BY 1 ORDER BY 2, 1");
  ASSERT_TRUE(few.ok()) << few.sqlstate << " " << few.message;
  ASSERT_EQ(few.rows.size(), 3u);
  EXPECT_EQ(few.at(0, 1), "1000");
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM a").at(0, 0), "3000");
  // An INSERT … SELECT whose rows go to other shards than its query reads holds them until it
  // writes them: past query_memory it fails alone, writing nothing.
  must(c.get(), "CREATE TABLE ins_dst (id int8 PRIMARY KEY, v text)");
  must(c.get(), "ALTER TABLE ins_dst SPLIT AT VALUES (1500)");
  must(c.get(), "ALTER TABLE ins_dst SCATTER");
  SqlResult held = pq_exec(c.get(), "INSERT INTO ins_dst SELECT id, v FROM a");
  EXPECT_EQ(held.sqlstate, "53200") << held.message;
  EXPECT_NE(held.message.find("query_memory"), std::string::npos) << held.message;
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM ins_dst").at(0, 0), "0");
  SqlResult fits = pq_exec(c.get(), "INSERT INTO ins_dst SELECT id, v FROM a WHERE id % 300 = 0");
  ASSERT_TRUE(fits.ok()) << fits.sqlstate << " " << fits.message;
  EXPECT_EQ(fits.tag, "INSERT 0 10");
  EXPECT_EQ(pq_exec(other.get(), "SELECT count(*), sum(id) FROM ins_dst").rows,
            (std::vector<std::vector<std::string>>{{"10", "16500"}}));
}

// A pgrange instance that dies in the middle of a move leaves a hold in the metadata store and
// the range's copied rows on the target. The others notice it is gone, remove the rows that are
// not where the map says, and let writes to the range go on.
TEST_F(RangeClusterTest, AMoveWhoseInstanceDiedIsCleanedUp) {
  ProxyConfig cfg = make_config("orphan_hold");
  auto proxy = ProxyProcess::start(cfg);
  auto c = connect(proxy->dsn());
  must(c.get(), "CREATE TABLE o (id int8 PRIMARY KEY, v text)");
  must(c.get(), "INSERT INTO o SELECT g, 'v' || g FROM generate_series(1, 100) g");
  SqlResult where = must(c.get(), "SHOW RANGE FROM TABLE o FOR ROW (1)");
  std::string range_id = where.at(0, 2);
  int owner = shard_index(where.at(0, 3));
  int target = (owner + 1) % kShards;
  // What the dead instance left: its copy on the target, committed, and its hold.
  {
    auto src = shard_conn(owner);
    auto dst = shard_conn(target);
    SqlResult rows = must(src.get(), "SELECT id, v FROM o");
    for (const auto& row : rows.rows) {
      must(dst.get(), "INSERT INTO o VALUES (" + row.at(0) + ", '" + row.at(1) + "')");
    }
    auto meta = connect(servers_[0]->dsn("orphan_hold_meta"));
    // It stopped sending heartbeats 7 s ago; after 10 s of silence it counts as gone.
    must(meta.get(),
         "INSERT INTO pgrange_instances (instance_id, loaded_version, heartbeat_at) "
         "VALUES ('dead-instance', 0, now() - interval '7 seconds')");
    must(meta.get(), "INSERT INTO pgrange_range_holds (range_id, target, instance_id) VALUES (" +
                         range_id + ", '" + shard_name(target) + "', 'dead-instance')");
    must(meta.get(), "UPDATE pgrange_meta SET version = version + 1");
    must(meta.get(), "NOTIFY pgrange_metadata");
  }
  // pgrange answers admin statements from a fresh read of the store: it holds the range now.
  must(c.get(), "SHOW RANGES FROM TABLE o");
  // A write to the held range waits (it is not refused) and lands once the hold is gone.
  auto start = Clock::now();
  ASSERT_EQ(PQsendQuery(c.get(), "UPDATE o SET v = 'after' WHERE id = 5"), 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_EQ(PQconsumeInput(c.get()), 1);
  EXPECT_EQ(PQisBusy(c.get()), 1) << "the write to the held range did not wait";
  SqlResult upd = take_result(PQgetResult(c.get()), c.get());
  while (PGresult* extra = PQgetResult(c.get())) PQclear(extra);
  ASSERT_TRUE(upd.ok()) << upd.message;
  std::printf("[orphaned hold] the held write went through after %.1f s\n", seconds_since(start));
  auto dst = shard_conn(target);
  EXPECT_EQ(must(dst.get(), "SELECT count(*) FROM o").at(), "0");
  auto src = shard_conn(owner);
  EXPECT_EQ(must(src.get(), "SELECT count(*) FROM o").at(), "100");
  EXPECT_EQ(must(src.get(), "SELECT v FROM o WHERE id = 5").at(), "after");
  EXPECT_EQ(must(c.get(), "SELECT v FROM o WHERE id = 5").at(), "after");
}

}  // namespace
}  // namespace pgrange::testing
