// Global secondary indexes under concurrent writers and crashes, over three real PostgreSQL 15
// shards. Client threads (each its own connection, each its own seeded random mix) insert,
// update indexed and stored columns (moving entries to the range of another shard), change row
// keys (moving rows), delete, and run transaction blocks that commit or roll back, with unique
// violations among them; then everything is checked on the shards themselves: every row has
// exactly its entry in each index with the right indexed and stored values, every entry its row,
// every entry and every row sits on the shard owning its key, and the UNIQUE index holds no
// duplicate. The same holds after pgrange is killed with SIGKILL in the middle of the writes and
// after pgrange instances die between PREPARE TRANSACTION and the commit decision (and right
// after it), once a new pgrange on the same shards and metadata store has finished what they
// left prepared; lookups through the indexes then answer as a full scan does.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/shard_cluster.hpp"

namespace pgrange::testing {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

/// Row ids the writers pick from; the table is split at 1001 and 2001.
constexpr int64_t kIds = 3000;
/// Emails are 'e<n>' with n below this: often enough equal to another row's.
constexpr int64_t kEmails = 6000;

/// Statements answered so far, all writers together: "@n" in the logs orders them.
std::atomic<long> completed{0};

/// One statement a writer ran, and what came of it (for telling what touched a row).
struct OpRecord {
  /// "@812 w2#17 [block 3]": the 812th statement answered (all writers), writer 2's 17th, in
  /// its third transaction block.
  std::string who;
  std::string sql;
  std::string outcome;            ///< "ok", or SQLSTATE and message
  int64_t lo = 0, hi = -1;        ///< ids the statement touched
  int64_t to_lo = 0, to_hi = -1;  ///< ids it moved rows to
  bool touches(int64_t id) const { return (lo <= id && id <= hi) || (to_lo <= id && id <= to_hi); }
};

/// What the writers of one run did, added up.
struct Tally {
  std::atomic<long> statements{0};
  std::atomic<long> ok{0};
  std::atomic<long> blocks_committed{0};
  std::atomic<long> blocks_rolled_back{0};
  std::atomic<long> unique_violations{0};  ///< 23505 of the UNIQUE index (<table>_email)
  std::atomic<long> key_violations{0};     ///< 23505 of the table's primary key (<table>_pkey)
  std::atomic<long> retryable{0};          ///< 40001, 40P01, 55P03
  std::atomic<long> lost{0};               ///< connections lost (pgrange died)
  std::atomic<long> failures{0};
  std::string summary() const {
    std::ostringstream s;
    s << statements << " statements (" << ok << " ok), " << blocks_committed
      << " blocks committed, " << blocks_rolled_back << " rolled back, " << unique_violations
      << " unique violations (the UNIQUE index), " << key_violations
      << " key collisions (the primary key), " << retryable
      << " serialization/deadlock/lock-timeout, " << lost << " connections lost, " << failures
      << " unexpected errors";
    return s.str();
  }
};

/// `sql` for another table of the same shape: every "acct" (the table, its indexes, their
/// constraints) becomes `table`.
std::string for_table(std::string sql, const std::string& table) {
  for (size_t at = sql.find("acct"); at != std::string::npos; at = sql.find("acct", at)) {
    sql.replace(at, 4, table);
    at += table.size();
  }
  return sql;
}

/// How a statement ended, for the writers.
enum class Outcome { kOk, kUnique, kKeyDup, kRetry, kLost, kFail };

Outcome classify(PGconn* conn, const SqlResult& r, const std::string& table) {
  if (r.ok()) return Outcome::kOk;
  if (PQstatus(conn) != CONNECTION_OK || r.sqlstate.empty() || r.sqlstate.rfind("08", 0) == 0 ||
      r.sqlstate.rfind("57P", 0) == 0) {
    return Outcome::kLost;
  }
  if (r.sqlstate == "23505") {
    // Only the constraints a writer can hit on purpose: any other one (an index table's own
    // primary key, say) would mean the entries went wrong.
    if (r.message.find("\"" + table + "_email\"") != std::string::npos) return Outcome::kUnique;
    if (r.message.find("\"" + table + "_pkey\"") != std::string::npos) return Outcome::kKeyDup;
    return Outcome::kFail;
  }
  if (r.sqlstate == "40001" || r.sqlstate == "40P01" || r.sqlstate == "55P03") {
    return Outcome::kRetry;
  }
  return Outcome::kFail;
}

/// PQexecParams with text parameters.
SqlResult exec_params(PGconn* conn, const std::string& sql, const std::vector<std::string>& p) {
  std::vector<const char*> values;
  for (const auto& v : p) values.push_back(v.c_str());
  return take_result(PQexecParams(conn, sql.c_str(), static_cast<int>(values.size()), nullptr,
                                  values.data(), nullptr, nullptr, 0),
                     conn);
}

/// One client thread's random mix of writes to `table` through the pgrange at `dsn`, until
/// `stop` (or its connection is lost, which `may_lose` allows: pgrange is being killed).
class Writer {
 public:
  Writer(std::string table, std::string name, std::string dsn, unsigned seed, Tally& tally,
         bool may_lose)
      : table_(std::move(table)),
        name_(std::move(name)),
        dsn_(std::move(dsn)),
        rng_(seed),
        tally_(tally),
        may_lose_(may_lose) {}

  void run(const std::atomic<bool>& stop) {
    conn_ = pq_connect(dsn_).release();
    if (PQstatus(conn_) != CONNECTION_OK) {
      note_lost("connect: " + std::string(PQerrorMessage(conn_)));
      PQfinish(conn_);
      return;
    }
    while (!stop.load() && !lost_ && !failed_) {
      if (pick(100) < 12) {
        block();
      } else {
        Statement s = statement();
        exec(s);
      }
    }
    PQfinish(conn_);
  }

  const std::vector<OpRecord>& log() const { return log_; }

 private:
  struct Statement {
    std::string sql;
    std::vector<std::string> params;  ///< non-empty: extended protocol
    int64_t lo = 0, hi = -1, to_lo = 0, to_hi = -1;
  };

  uint64_t pick(uint64_t n) { return rng_() % n; }
  int64_t id() { return 1 + static_cast<int64_t>(pick(kIds)); }
  std::string grp() { return pick(20) == 0 ? "NULL" : std::to_string(pick(100)); }
  std::string email() {
    return pick(10) == 0 ? "NULL" : "'e" + std::to_string(pick(kEmails)) + "'";
  }
  std::string note() { return "'n" + std::to_string(pick(1000)) + "'"; }
  std::string bal() { return std::to_string(pick(10000)); }

  Statement one(std::string sql, int64_t lo, int64_t hi) {
    Statement s;
    s.sql = std::move(sql);
    s.lo = lo;
    s.hi = hi;
    return s;
  }

  /// A random write.
  Statement statement() {
    const uint64_t k = pick(100);
    const int64_t r = id();
    const std::string ids = std::to_string(r);
    if (k < 18) {
      return one("INSERT INTO acct VALUES (" + ids + ", " + grp() + ", " + email() + ", " + note() +
                     ", " + bal() + ")",
                 r, r);
    }
    if (k < 23) {
      return one("INSERT INTO acct VALUES (" + ids + ", " + grp() + ", " + email() + ", " + note() +
                     ", " + bal() +
                     ") ON CONFLICT (id) DO UPDATE SET grp = EXCLUDED.grp, note = EXCLUDED.note",
                 r, r);
    }
    if (k < 36) {
      return one("UPDATE acct SET grp = " + grp() + ", note = " + note() + " WHERE id = " + ids, r,
                 r);
    }
    if (k < 42) {
      // The same through the extended protocol.
      Statement s = one("UPDATE acct SET grp = $1, note = $2 WHERE id = $3", r, r);
      s.params = {std::to_string(pick(100)), "x" + std::to_string(pick(1000)), ids};
      return s;
    }
    if (k < 52) return one("UPDATE acct SET email = " + email() + " WHERE id = " + ids, r, r);
    if (k < 58) {
      return one(
          "UPDATE acct SET bal = bal + " + std::to_string(1 + pick(9)) + " WHERE id = " + ids, r,
          r);
    }
    if (k < 63) {
      return one("UPDATE acct SET note = " + note() + ", bal = " + bal() + " WHERE id BETWEEN " +
                     ids + " AND " + std::to_string(r + 8),
                 r, r + 8);
    }
    if (k < 68) {
      // Entries move to other index ranges (other shards), several rows at once.
      return one("UPDATE acct SET grp = (grp + 37) % 100 WHERE id BETWEEN " + ids + " AND " +
                     std::to_string(r + 8),
                 r, r + 8);
    }
    if (k < 77) {
      // A new key, often another shard's: the row moves.
      const int64_t to = id();
      Statement s = one("UPDATE acct SET id = " + std::to_string(to) + " WHERE id = " + ids, r, r);
      s.to_lo = s.to_hi = to;
      return s;
    }
    if (k < 80) {
      const int64_t shift = 1000 * static_cast<int64_t>(1 + pick(2));
      Statement s = one("UPDATE acct SET id = id + " + std::to_string(shift) + ", grp = " + grp() +
                            " WHERE id BETWEEN " + ids + " AND " + std::to_string(r + 2),
                        r, r + 2);
      s.to_lo = r + shift;
      s.to_hi = r + 2 + shift;
      return s;
    }
    if (k < 90) return one("DELETE FROM acct WHERE id = " + ids, r, r);
    if (k < 93) {
      return one("DELETE FROM acct WHERE id BETWEEN " + ids + " AND " + std::to_string(r + 3), r,
                 r + 3);
    }
    // Both indexes' columns at once.
    return one("UPDATE acct SET email = " + email() + ", grp = " + grp() + ", bal = " + bal() +
                   " WHERE id = " + ids,
               r, r);
  }

  /// Runs `s`; returns how it ended (counted, logged).
  Outcome exec(const Statement& s) {
    ++tally_.statements;
    const std::string sql = for_table(s.sql, table_);
    SqlResult r = s.params.empty() ? pq_exec(conn_, sql) : exec_params(conn_, sql, s.params);
    Outcome o = classify(conn_, r, table_);
    OpRecord rec;
    rec.who = "@" + std::to_string(++completed) + " " + name_ + "#" + std::to_string(++seq_);
    rec.sql = sql;
    for (const auto& p : s.params) rec.sql += " $" + p;
    rec.outcome = r.ok() ? "ok" : r.sqlstate + " " + r.message;
    rec.lo = s.lo;
    rec.hi = s.hi;
    rec.to_lo = s.to_lo;
    rec.to_hi = s.to_hi;
    log_.push_back(rec);
    switch (o) {
      case Outcome::kOk:
        ++tally_.ok;
        break;
      case Outcome::kUnique:
        ++tally_.unique_violations;
        break;
      case Outcome::kKeyDup:
        ++tally_.key_violations;
        break;
      case Outcome::kRetry:
        ++tally_.retryable;
        break;
      case Outcome::kLost:
        note_lost(s.sql + ": " + r.sqlstate + " " + r.message);
        break;
      case Outcome::kFail:
        ++tally_.failures;
        failed_ = true;
        ADD_FAILURE() << rec.who << ": " << sql << ": " << r.sqlstate << " " << r.message
                      << (r.detail.empty() ? "" : " (" + r.detail + ")");
        break;
    }
    return o;
  }

  /// BEGIN, two to four writes, COMMIT (or ROLLBACK); an error ends the block with ROLLBACK.
  /// Each of the block's statements is logged with how the block ended.
  void block() {
    const size_t first = log_.size();
    ++blocks_;
    const std::string end = run_block();
    for (size_t i = first; i < log_.size(); ++i) {
      log_[i].who += " [block " + std::to_string(blocks_) + "]";
      log_[i].outcome += "   {block: " + end + "}";
    }
  }

  std::string run_block() {
    if (exec(one("BEGIN", 0, -1)) != Outcome::kOk) return "BEGIN failed";
    const int n = 2 + static_cast<int>(pick(3));
    for (int i = 0; i < n; ++i) {
      Outcome o = exec(statement());
      if (o == Outcome::kLost) return "connection lost";
      if (o == Outcome::kFail) return "unexpected error";
      if (o != Outcome::kOk) {
        if (exec(one("ROLLBACK", 0, -1)) == Outcome::kOk) ++tally_.blocks_rolled_back;
        return "ROLLBACK after the error -> " + log_.back().outcome;
      }
    }
    const bool commit = pick(10) < 7;
    Outcome o = exec(one(commit ? "COMMIT" : "ROLLBACK", 0, -1));
    const std::string end = log_.back().who + " " + log_.back().sql + " -> " + log_.back().outcome;
    if (o != Outcome::kOk) return end;
    if (commit) {
      // A COMMIT of a block can still fail (40001 when pgrange's recovery aborted it): it then
      // answers with an error, which exec counted.
      ++tally_.blocks_committed;
    } else {
      ++tally_.blocks_rolled_back;
    }
    return end;
  }

  void note_lost(const std::string& what) {
    lost_ = true;
    ++tally_.lost;
    if (!may_lose_) {
      ++tally_.failures;
      ADD_FAILURE() << name_ << " lost its connection: " << what;
    }
  }

  std::string table_;
  std::string name_;
  std::string dsn_;
  std::mt19937_64 rng_;
  Tally& tally_;
  bool may_lose_;
  PGconn* conn_ = nullptr;
  int seq_ = 0;
  int blocks_ = 0;
  std::vector<OpRecord> log_;
  bool lost_ = false;
  bool failed_ = false;
};

/// Writer threads, started together; joined with a watchdog (a hung writer is a failure: the
/// shards' lock waits are shown, and pgrange is killed to free it).
class WriterGroup {
 public:
  void add(const std::string& table, std::string name, std::string dsn, unsigned seed, Tally& tally,
           bool may_lose) {
    writers_.push_back(
        std::make_unique<Writer>(table, std::move(name), std::move(dsn), seed, tally, may_lose));
  }
  void start() {
    for (auto& w : writers_) {
      Writer* writer = w.get();
      threads_.emplace_back([this, writer] {
        writer->run(stop_);
        ++finished_;
      });
    }
  }
  void stop() { stop_ = true; }
  /// Waits for the threads to end; after `limit`, reports what the shards wait for and calls
  /// `unblock` (kills pgrange), then joins.
  void join(const ShardCluster& cluster, seconds limit, const std::function<void()>& unblock) {
    stop_ = true;
    const auto deadline = Clock::now() + limit;
    while (finished_.load() < static_cast<int>(threads_.size()) && Clock::now() < deadline) {
      std::this_thread::sleep_for(milliseconds(50));
    }
    if (finished_.load() < static_cast<int>(threads_.size())) {
      std::string waits;
      for (int i = 0; i < cluster.size(); ++i) {
        auto d = cluster.direct(i);
        SqlResult r = pq_exec(d.get(),
                              "SELECT pid, state, wait_event_type, wait_event, left(query, 120) "
                              "FROM pg_stat_activity WHERE datname = 'app' AND pid <> "
                              "pg_backend_pid() AND state <> 'idle'");
        for (const auto& row : r.rows) {
          waits += "  s" + std::to_string(i + 1) + ":";
          for (const auto& v : row) waits += " | " + v;
          waits += "\n";
        }
      }
      ADD_FAILURE() << threads_.size() - finished_.load() << " writers still running "
                    << limit.count() << " s after they were told to stop; on the shards:\n"
                    << waits;
      unblock();
    }
    for (auto& t : threads_) t.join();
    threads_.clear();
  }
  /// Every statement of every writer.
  std::vector<OpRecord> log() const {
    std::vector<OpRecord> out;
    for (const auto& w : writers_) out.insert(out.end(), w->log().begin(), w->log().end());
    return out;
  }

 private:
  std::vector<std::unique_ptr<Writer>> writers_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
  std::atomic<int> finished_{0};
};

template <typename F>
bool eventually(F done, seconds limit) {
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(milliseconds(200));
  }
  return done();
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

class IndexConsistencyTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = ShardCluster::start(ShardCluster::Options{}).release();
    live_ = &cluster_->proxy();
    // A table of the same shape for each test.
    for (const char* table : {"moves", "acct", "crash"}) {
      setup_error_ = make_table(table);
      if (!setup_error_.empty()) return;
      expect_consistent(table, "after CREATE INDEX (the backfill)", {});
    }
  }

  /// Makes `table` (id, grp, email, note, bal) with 1,500 rows (odd ids) on three ranges, one
  /// on each shard, then its global indexes: `table`_grp on grp storing note and the UNIQUE
  /// `table`_email on email storing bal (CREATE INDEX backfills their entries), each with three
  /// ranges, one on each shard (s1, s2, s3 in key order). "" or what failed.
  static std::string make_table(const std::string& table) {
    std::vector<std::string> setup;
    for (const char* sql : {
             "CREATE TABLE acct (id int8 PRIMARY KEY, grp int4, email text, note text, bal int8)",
             "INSERT INTO acct SELECT g, g % 100, 'e' || (g * 2), 'n' || g, g FROM "
             "generate_series(1, 2999, 2) g",
             "ALTER TABLE acct SPLIT AT VALUES (1001), (2001)",
             "ALTER TABLE acct SCATTER",
             "CREATE INDEX acct_grp ON acct (grp) STORING (note)",
             "CREATE UNIQUE INDEX acct_email ON acct (email) STORING (bal)",
             "ALTER INDEX acct@acct_grp SPLIT AT VALUES (34), (67)",
             "ALTER INDEX acct@acct_email SPLIT AT VALUES ('e3'), ('e6')",
         }) {
      setup.push_back(for_table(sql, table));
    }
    std::string error = cluster_->run_setup(setup);
    if (!error.empty()) return error;
    auto c = cluster_->client();
    for (const char* name : {"acct@acct_grp", "acct@acct_email"}) {
      const std::string index = for_table(name, table);
      SqlResult ranges = pq_exec(c.get(), "SHOW RANGES FROM INDEX " + index);
      if (!ranges.ok() || ranges.rows.size() != 3) {
        return index + ": " + ranges.message + " (" + std::to_string(ranges.rows.size()) +
               " ranges)";
      }
      for (size_t k = 0; k < 3; ++k) {
        const std::string shard = "s" + std::to_string(k + 1);
        if (ranges.at(k, 3) == shard) continue;
        SqlResult moved =
            pq_exec(c.get(), "ALTER RANGE " + ranges.at(k, 2) + " RELOCATE TO '" + shard + "'");
        if (!moved.ok()) return index + " RELOCATE: " + moved.message;
      }
    }
    if (cluster_->on_each_shard("SELECT count(*) > 0 FROM " + table) !=
        std::vector<std::string>{"t", "t", "t"}) {
      return table + ": the rows are not on all three shards";
    }
    return "";
  }

  static void TearDownTestSuite() {
    restarted_.reset();
    delete cluster_;
    cluster_ = nullptr;
  }

  void SetUp() override {
    ASSERT_TRUE(setup_error_.empty()) << setup_error_;
    ASSERT_TRUE(live_ != nullptr && live_->running()) << "no pgrange running";
  }

  /// Where each index range is, for failure messages.
  static std::string ranges_text(const std::string& table) {
    auto c = pq_connect(live_->dsn());
    std::string out;
    for (const char* what : {"TABLE acct", "INDEX acct@acct_grp", "INDEX acct@acct_email"}) {
      SqlResult r =
          pq_exec(c.get(), std::string("SHOW RANGES FROM ") + what + " WITH INDEXES, DETAILS");
      out += for_table(what, table) + ":\n";
      for (const auto& row : r.rows) {
        out += " ";
        for (const auto& v : row) out += " | " + v;
        out += "\n";
      }
    }
    return out;
  }

  /// The statements of `log` that touched row `id`.
  static std::string history(const std::vector<OpRecord>& log, int64_t id) {
    std::string out;
    int shown = 0;
    for (const OpRecord& op : log) {
      if (!op.touches(id)) continue;
      if (++shown > 25) {
        out += "    …\n";
        break;
      }
      out += "    " + op.who + ": " + op.sql + " -> " + op.outcome + "\n";
    }
    return out.empty() ? "    (no statement of the writers named it)\n" : out;
  }

  /// The id in an "id|…" line.
  static int64_t id_of(const std::string& line) {
    return std::stoll(line.substr(0, line.find('|')));
  }

  /// Compares the entries an index should have (from the rows) with those it has.
  static void compare_entries(const std::string& index, const std::multimap<std::string, int>& want,
                              const std::multimap<std::string, int>& got,
                              const std::vector<OpRecord>& log, const std::string& label) {
    std::multiset<std::string> w, g;
    for (const auto& [e, s] : want) w.insert(e);
    for (const auto& [e, s] : got) g.insert(e);
    std::vector<std::string> missing, extra;
    std::set_difference(w.begin(), w.end(), g.begin(), g.end(), std::back_inserter(missing));
    std::set_difference(g.begin(), g.end(), w.begin(), w.end(), std::back_inserter(extra));
    EXPECT_EQ(w.size(), g.size()) << label << ": rows vs entries of " << index;
    auto describe = [&](const std::vector<std::string>& lines, const char* what) {
      std::string out;
      for (size_t i = 0; i < lines.size() && i < 10; ++i) {
        auto shard_of = [&](const std::multimap<std::string, int>& m) {
          std::string s;
          auto [b, e] = m.equal_range(lines[i]);
          for (auto it = b; it != e; ++it)
            s += (s.empty() ? "s" : ",s") + std::to_string(it->second + 1);
          return s.empty() ? std::string("-") : s;
        };
        const int64_t id = id_of(lines[i]);
        out += "  " + std::string(what) + " " + lines[i] + " (row on " + shard_of(want) +
               ", entry on " + shard_of(got) + ")\n";
        // What the index and the table hold for that id now.
        for (const auto& [e, s] : want) {
          if (id_of(e) == id) out += "    row now:   " + e + " on s" + std::to_string(s + 1) + "\n";
        }
        for (const auto& [e, s] : got) {
          if (id_of(e) == id) out += "    entry now: " + e + " on s" + std::to_string(s + 1) + "\n";
        }
        out += "    statements that touched id " + std::to_string(id) + ":\n" + history(log, id);
      }
      return out;
    };
    EXPECT_TRUE(missing.empty()) << label << ": " << missing.size() << " rows without their entry ("
                                 << "id|indexed|stored) in " << index << ":\n"
                                 << describe(missing, "missing");
    EXPECT_TRUE(extra.empty()) << label << ": " << extra.size()
                               << " entries without their row (id|indexed|stored) in " << index
                               << ":\n"
                               << describe(extra, "extra");
  }

  /// The sum of the row_count column of SHOW RANGES FROM <what> WITH INDEXES, DETAILS (each
  /// range measured on its shard) over the ranges of `index` (the table's own: "acct_pkey").
  static int64_t placed(PGconn* c, const std::string& what, const std::string& index) {
    SqlResult r = pq_exec(c, "SHOW RANGES FROM " + what + " WITH INDEXES, DETAILS");
    EXPECT_TRUE(r.ok()) << what << ": " << r.message;
    int64_t n = 0;
    for (const auto& row : r.rows) {
      if (row.at(6) == index) n += std::stoll(row.at(8));
    }
    return n;
  }

  /// Everything read on the shards directly: rows and entries agree, each on its own shard,
  /// and the UNIQUE index holds every non-NULL email once.
  static void expect_consistent(const std::string& table, const std::string& label,
                                const std::vector<OpRecord>& log) {
    SCOPED_TRACE(table + ": " + label);
    auto sql = [&](const char* text) { return for_table(text, table); };
    std::multimap<std::string, int> rows, grp_want, grp_got, email_want, email_got;
    std::map<std::string, std::vector<std::string>> by_email;
    std::map<std::string, std::vector<int>> row_shards;
    for (int i = 0; i < cluster_->size(); ++i) {
      auto d = cluster_->direct(i);
      SqlResult r = pq_exec(d.get(), sql("SELECT id, grp, email, note, bal FROM acct"));
      ASSERT_TRUE(r.ok()) << "s" << i + 1 << ": " << r.message;
      for (const auto& row : r.rows) {
        rows.emplace(row[0] + "|" + row[1] + "|" + row[2] + "|" + row[3] + "|" + row[4], i);
        row_shards[row[0]].push_back(i);
        grp_want.emplace(row[0] + "|" + row[1] + "|" + row[3], i);
        email_want.emplace(row[0] + "|" + row[2] + "|" + row[4], i);
        if (row[2] != "<null>") by_email[row[2]].push_back(row[0]);
      }
      SqlResult g = pq_exec(d.get(), sql("SELECT id, grp, note FROM \"acct@acct_grp\""));
      ASSERT_TRUE(g.ok()) << "s" << i + 1 << ": " << g.message;
      for (const auto& row : g.rows) grp_got.emplace(row[0] + "|" + row[1] + "|" + row[2], i);
      SqlResult e = pq_exec(d.get(), sql("SELECT id, email, bal FROM \"acct@acct_email\""));
      ASSERT_TRUE(e.ok()) << "s" << i + 1 << ": " << e.message;
      for (const auto& row : e.rows) email_got.emplace(row[0] + "|" + row[1] + "|" + row[2], i);
    }
    for (const auto& [id, shards] : row_shards) {
      EXPECT_EQ(shards.size(), 1u) << "row " << id << " is on " << shards.size()
                                   << " shards\n  statements that touched it:\n"
                                   << history(log, std::stoll(id));
    }
    for (const auto& [email, ids] : by_email) {
      std::string list;
      for (const auto& id : ids) list += " " + id;
      EXPECT_EQ(ids.size(), 1u) << "email " << email << " is on rows" << list
                                << " despite the UNIQUE index";
    }
    std::map<std::string, int> entry_emails;
    for (const auto& [e, s] : email_got) {
      std::string email = e.substr(e.find('|') + 1);
      email = email.substr(0, email.rfind('|'));
      if (email != "<null>") ++entry_emails[email];
    }
    for (const auto& [email, n] : entry_emails) {
      EXPECT_EQ(n, 1) << "email " << email << " has " << n << " entries in "
                      << sql("acct@acct_email");
    }
    compare_entries(sql("acct@acct_grp"), grp_want, grp_got, log, label);
    compare_entries(sql("acct@acct_email"), email_want, email_got, log, label);
    // Every row and every entry sits on the shard owning its key: each range, measured on its
    // own shard, counts them all.
    auto c = pq_connect(live_->dsn());
    ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
    EXPECT_EQ(placed(c.get(), sql("TABLE acct"), sql("acct_pkey")),
              static_cast<int64_t>(rows.size()))
        << "rows off their ranges' shards\n"
        << ranges_text(table);
    EXPECT_EQ(placed(c.get(), sql("INDEX acct@acct_grp"), sql("acct_grp")),
              static_cast<int64_t>(grp_got.size()))
        << "entries of " << sql("acct@acct_grp") << " off their ranges' shards\n"
        << ranges_text(table);
    EXPECT_EQ(placed(c.get(), sql("INDEX acct@acct_email"), sql("acct_email")),
              static_cast<int64_t>(email_got.size()))
        << "entries of " << sql("acct@acct_email") << " off their ranges' shards\n"
        << ranges_text(table);
    std::cout << "[ check    ] " << table << ", " << label << ": " << rows.size() << " rows, "
              << grp_got.size() << " + " << email_got.size() << " index entries" << std::endl;
  }

  /// Lookups by the indexed columns through pgrange (the index's entries, then the rows, or the
  /// entries alone when they store every column asked for) answer as the full scan does.
  static void expect_lookups_match_scan(const std::string& table, unsigned seed) {
    auto c = pq_connect(live_->dsn());
    ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
    SqlResult all =
        pq_exec(c.get(), for_table("SELECT id, grp, email, note, bal FROM acct", table));
    ASSERT_TRUE(all.ok()) << all.message;
    ASSERT_GT(all.rows.size(), 0u);
    EXPECT_EQ(static_cast<int64_t>(all.rows.size()),
              cluster_->sum_direct("SELECT count(*) FROM " + table));
    // The expected answer: the full scan's rows that match, as sorted lines of `columns`.
    auto expected = [&](const std::function<bool(const std::vector<std::string>&)>& match,
                        const std::vector<int>& columns) {
      std::vector<std::string> out;
      for (const auto& row : all.rows) {
        if (!match(row)) continue;
        std::string line;
        for (int col : columns) line += (line.empty() ? "" : "|") + row[col];
        out.push_back(line);
      }
      std::sort(out.begin(), out.end());
      return out;
    };
    auto answer = [&](const std::string& sql) {
      SqlResult r = pq_exec(c.get(), sql);
      EXPECT_TRUE(r.ok()) << sql << ": " << r.sqlstate << " " << r.message;
      std::vector<std::string> out;
      for (const auto& row : r.rows) {
        std::string line;
        for (const auto& v : row) line += (line.empty() ? "" : "|") + v;
        out.push_back(line);
      }
      std::sort(out.begin(), out.end());
      return out;
    };
    auto join = [](const std::vector<std::string>& lines) {
      std::string s;
      for (const auto& l : lines) s += l + "\n";
      return s;
    };
    auto check = [&](const std::string& text, const std::vector<std::string>& want) {
      const std::string sql = for_table(text, table);
      std::string got = join(answer(sql));
      std::string w = join(want);
      EXPECT_EQ(got, w) << sql << "\n" << first_difference(got, w);
    };
    std::mt19937 rng(seed);
    int lookups = 0;
    // grp: the range boundaries and random values; covering (id, note stored) and not.
    std::vector<int> groups = {0, 33, 34, 66, 67, 99};
    for (int i = 0; i < 8; ++i) groups.push_back(static_cast<int>(rng() % 100));
    for (int v : groups) {
      const std::string vs = std::to_string(v);
      auto is_v = [&](const std::vector<std::string>& row) { return row[1] == vs; };
      check("SELECT id, note FROM acct WHERE grp = " + vs, expected(is_v, {0, 3}));
      check("SELECT id, email, bal FROM acct WHERE grp = " + vs, expected(is_v, {0, 2, 4}));
      lookups += 2;
    }
    auto in_30_40 = [](const std::vector<std::string>& row) {
      return row[1] != "<null>" && std::stoi(row[1]) >= 30 && std::stoi(row[1]) <= 40;
    };
    check("SELECT id, grp FROM acct WHERE grp BETWEEN 30 AND 40", expected(in_30_40, {0, 1}));
    check("SELECT * FROM acct WHERE grp BETWEEN 30 AND 40", expected(in_30_40, {0, 1, 2, 3, 4}));
    lookups += 2;
    // email: values rows have (on every index range) and values none has.
    std::vector<std::string> emails;
    for (const auto& row : all.rows) {
      if (row[2] != "<null>" && rng() % 20 == 0 && emails.size() < 15) emails.push_back(row[2]);
    }
    for (int i = 0; i < 5; ++i) emails.push_back("e" + std::to_string(kEmails + rng() % 1000));
    for (const std::string& e : emails) {
      auto is_e = [&](const std::vector<std::string>& row) { return row[2] == e; };
      check("SELECT id, bal FROM acct WHERE email = '" + e + "'", expected(is_e, {0, 4}));
      check("SELECT * FROM acct WHERE email = '" + e + "'", expected(is_e, {0, 1, 2, 3, 4}));
      lookups += 2;
    }
    std::string in_list;
    std::set<std::string> in_set;
    for (size_t i = 0; i < emails.size(); i += 2) {
      in_list += (in_list.empty() ? "'" : ", '") + emails[i] + "'";
      in_set.insert(emails[i]);
    }
    check("SELECT id, grp, email FROM acct WHERE email IN (" + in_list + ")",
          expected([&](const std::vector<std::string>& row) { return in_set.count(row[2]) > 0; },
                   {0, 1, 2}));
    ++lookups;
    std::cout << "[ lookups  ] " << lookups << " lookups through the indexes agree with the full "
              << "scan of " << all.rows.size() << " rows" << std::endl;
  }

  static ShardCluster* cluster_;
  static std::string setup_error_;
  /// The pgrange the tests talk to (the cluster's, until it is killed).
  static ProxyProcess* live_;
  static std::unique_ptr<ProxyProcess> restarted_;
};

ShardCluster* IndexConsistencyTest::cluster_ = nullptr;
std::string IndexConsistencyTest::setup_error_;
ProxyProcess* IndexConsistencyTest::live_ = nullptr;
std::unique_ptr<ProxyProcess> IndexConsistencyTest::restarted_;

/// Runs each script through pgrange on table "moves", then checks the table and its indexes.
void run_key_move_scripts(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& scripts,
    ProxyProcess& proxy,
    const std::function<void(const std::string&, const std::vector<OpRecord>&)>& check) {
  auto c = pq_connect(proxy.dsn());
  for (const auto& [label, script] : scripts) {
    std::vector<OpRecord> log;
    for (const std::string& text : script) {
      const std::string sql = for_table(text, "moves");
      SqlResult r = pq_exec(c.get(), sql);
      EXPECT_TRUE(r.ok()) << label << ": " << sql << ": " << r.message;
      OpRecord op;
      op.who = label;
      op.sql = sql;
      op.outcome = r.ok() ? "ok" : r.sqlstate + " " + r.message;
      op.lo = -20;
      op.hi = 3000;
      log.push_back(op);
    }
    check(label, log);
  }
}

// Rows moving to another shard by a change of their key keep their entries: a single UPDATE,
// a block moving a row to a shard after its own in the shard order, a block rolled back.
// (Negative ids are in the first shard's range.)
TEST_F(IndexConsistencyTest, KeyMovesKeepTheirEntries) {
  run_key_move_scripts(
      {
          {"a single UPDATE moving a row from s2 to s1",
           {"UPDATE acct SET id = -11 WHERE id = 1101"}},
          {"a single UPDATE moving a row from s3 to s2",
           {"UPDATE acct SET id = 1998 WHERE id = 2111"}},
          {"a block moving a row from s1 to s3, committed",
           {"BEGIN", "UPDATE acct SET id = 2998 WHERE id = 103", "COMMIT"}},
          {"a block moving a row from s2 to s1, rolled back",
           {"BEGIN", "UPDATE acct SET id = -19 WHERE id = 1109", "ROLLBACK"}},
      },
      *live_, [](const std::string& label, const std::vector<OpRecord>& log) {
        expect_consistent("moves", label, log);
      });
}

// The notes of a block's statement come from several shards: they are applied in the order
// they were read, so a row moving to an earlier shard (its INSERT there read last) keeps its
// entries.
TEST_F(IndexConsistencyTest, KeyMovesInABlockToAnEarlierShardKeepTheirEntries) {
  run_key_move_scripts(
      {
          {"a block moving a row from s3 to s2, committed",
           {"BEGIN", "UPDATE acct SET id = 1996 WHERE id = 2103", "COMMIT"}},
          {"a block of one UPDATE moving a row from s2 to s1, committed",
           {"BEGIN", "UPDATE acct SET id = -13 WHERE id = 1103", "COMMIT"}},
          {"a block moving a row from s2 to s1 after another write, committed",
           {"BEGIN", "UPDATE acct SET grp = 5 WHERE id = 101",
            "UPDATE acct SET id = -15 WHERE id = 1105", "COMMIT"}},
          {"a block moving a row from s2 to s1 before another write, committed",
           {"BEGIN", "UPDATE acct SET id = -17 WHERE id = 1107",
            "UPDATE acct SET note = 'z' WHERE id = 2101", "COMMIT"}},
      },
      *live_, [](const std::string& label, const std::vector<OpRecord>& log) {
        expect_consistent("moves", label, log);
      });
}

// Four writers for a few seconds through one pgrange on table "acct"; then every row has its
// entries and every entry its row, on the right shards, without duplicates, and lookups answer
// as the full scan does.
//
// A DELETE right after a write committed across shards (COMMIT PREPARED shard by shard) may
// see the row committed while its entries are still prepared on their shards: the entry
// DELETE first inserts the row key (ON CONFLICT DO NOTHING), which waits for that transaction,
// so no entry outlives its row.
TEST_F(IndexConsistencyTest, ConcurrentWritersKeepEveryIndexConsistent) {
  Tally tally;
  WriterGroup group;
  for (int t = 0; t < 4; ++t) {
    group.add("acct", "w" + std::to_string(t), live_->dsn(), static_cast<unsigned>(100 + t), tally,
              false);
  }
  const auto started = Clock::now();
  group.start();
  std::this_thread::sleep_for(seconds(6));
  group.join(*cluster_, seconds(30), [] { live_->process().signal(SIGKILL); });
  std::cout << "[ writers  ] " << seconds_since(started) << " s: " << tally.summary() << std::endl;
  EXPECT_EQ(tally.failures.load(), 0);
  EXPECT_GT(tally.ok.load(), 0);
  ASSERT_TRUE(live_->running()) << live_->log_tail();
  EXPECT_TRUE(eventually([] { return cluster_->prepared_left() == 0; }, seconds(10)))
      << "prepared transactions left on the shards";
  expect_consistent("acct", "after the concurrent writers", group.log());
  expect_lookups_match_scan("acct", 7);
}

// Writers on table "crash" through three pgrange instances over the same shards and metadata
// store: one dies between PREPARE TRANSACTION and the commit decision (fault point
// after_prepare), one right after the decision (after_decision), and the first is killed with
// SIGKILL in the middle of its writes. A new pgrange finishes what they left prepared; then the
// indexes are consistent, lookups answer as the full scan does, and a short run of writers
// through the new pgrange keeps them so.

TEST_F(IndexConsistencyTest, CrashesInTheMiddleOfWritesLeaveIndexesConsistent) {
  Tally tally;
  WriterGroup group;
  for (int t = 0; t < 4; ++t) {
    group.add("crash", "k" + std::to_string(t), live_->dsn(), static_cast<unsigned>(200 + t), tally,
              true);
  }
  const auto started = Clock::now();
  group.start();
  std::this_thread::sleep_for(milliseconds(1500));
  // The dying instances: each ends at its first commit across shards.
  std::unique_ptr<ProxyProcess> after_prepare = cluster_->start_proxy("after_prepare");
  std::unique_ptr<ProxyProcess> after_decision = cluster_->start_proxy("after_decision");
  WriterGroup dying;
  for (int t = 0; t < 2; ++t) {
    dying.add("crash", "p" + std::to_string(t), after_prepare->dsn(),
              static_cast<unsigned>(300 + t), tally, true);
    dying.add("crash", "d" + std::to_string(t), after_decision->dsn(),
              static_cast<unsigned>(400 + t), tally, true);
  }
  dying.start();
  EXPECT_TRUE(eventually([&] { return !after_prepare->running(); }, seconds(15)))
      << "pgrange with after_prepare did not die\n"
      << after_prepare->log_tail();
  EXPECT_TRUE(eventually([&] { return !after_decision->running(); }, seconds(15)))
      << "pgrange with after_decision did not die\n"
      << after_decision->log_tail();
  dying.join(*cluster_, seconds(20), [&] {
    after_prepare->process().signal(SIGKILL);
    after_decision->process().signal(SIGKILL);
  });
  // The first pgrange killed in the middle of its writers' statements.
  const double left = std::max(0.0, 3.5 - seconds_since(started));
  std::this_thread::sleep_for(milliseconds(static_cast<int>(left * 1000)));
  EXPECT_TRUE(live_->process().signal(SIGKILL));
  EXPECT_EQ(live_->process().wait(seconds(10)), 128 + SIGKILL);
  const auto killed_at = Clock::now();
  group.join(*cluster_, seconds(20), [] {});
  std::cout << "[ crashes  ] writers ran " << seconds_since(started) << " s: " << tally.summary()
            << std::endl;
  std::cout << "[ crashes  ] after_prepare exit "
            << after_prepare->process().exit_status().value_or(-1) << ", after_decision exit "
            << after_decision->process().exit_status().value_or(-1) << "; "
            << cluster_->prepared_left() << " prepared transactions on the shards after the deaths"
            << std::endl;
  EXPECT_EQ(tally.failures.load(), 0);

  restarted_ = cluster_->start_proxy();
  live_ = restarted_.get();
  const bool finished = eventually([] { return cluster_->prepared_left() == 0; }, seconds(40));
  std::cout << "[ recovery ] nothing prepared " << seconds_since(killed_at)
            << " s after the kill: " << (finished ? "yes" : "NO") << std::endl;
  ASSERT_TRUE(finished) << "prepared transactions left on the shards\n" << live_->log_tail();
  std::vector<OpRecord> log = group.log();
  std::vector<OpRecord> more = dying.log();
  log.insert(log.end(), more.begin(), more.end());
  expect_consistent("crash", "after the crashes and recovery", log);
  expect_lookups_match_scan("crash", 11);

  // Writes through the new pgrange keep the indexes in step.
  Tally after;
  WriterGroup again;
  for (int t = 0; t < 4; ++t) {
    again.add("crash", "a" + std::to_string(t), live_->dsn(), static_cast<unsigned>(500 + t), after,
              false);
  }
  again.start();
  std::this_thread::sleep_for(seconds(3));
  again.join(*cluster_, seconds(30), [] { live_->process().signal(SIGKILL); });
  std::cout << "[ after    ] " << after.summary() << std::endl;
  EXPECT_EQ(after.failures.load(), 0);
  EXPECT_TRUE(eventually([] { return cluster_->prepared_left() == 0; }, seconds(10)));
  std::vector<OpRecord> later = again.log();
  log.insert(log.end(), later.begin(), later.end());
  expect_consistent("crash", "after writers through the new pgrange", log);
}

}  // namespace
}  // namespace pgrange::testing
