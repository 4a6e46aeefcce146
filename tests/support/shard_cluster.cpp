#include "tests/support/shard_cluster.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <map>
#include <sstream>

namespace pgrange::testing {

std::unique_ptr<ShardCluster> ShardCluster::start(const Options& options) {
  std::unique_ptr<ShardCluster> cluster(new ShardCluster());
  cluster->options_ = options;
  PgServer::Options o;
  o.databases = options.databases;
  for (int i = 0; i < options.shards; ++i) cluster->shards_.push_back(PgServer::start(o));
  cluster->proxy_ = cluster->start_proxy();
  return cluster;
}

void ShardCluster::add_shard() {
  PgServer::Options o;
  o.databases = options_.databases;
  shards_.push_back(PgServer::start(o));
  proxy_.reset();
  proxy_ = start_proxy();
}

PgServer& ShardCluster::start_shard_server() {
  PgServer::Options o;
  o.databases = options_.databases;
  shards_.push_back(PgServer::start(o));
  return *shards_.back();
}

ShardCluster::~ShardCluster() {
  // pgrange before the shards it holds connections to.
  proxy_.reset();
  shards_.clear();
}

std::vector<std::string> ShardCluster::dsns(std::string_view dbname) const {
  std::vector<std::string> out;
  for (const auto& s : shards_) out.push_back(s->dsn(dbname));
  return out;
}

std::unique_ptr<ProxyProcess> ShardCluster::start_proxy(std::string_view fault) const {
  ProxyConfig config = ProxyConfig::with_shards(dsns(), options_.pool_size);
  config.extra_toml += options_.extra_toml;
  config.pool_mode = options_.pool_mode;
  config.workers = options_.workers;
  if (options_.ranges) config.ranges = *options_.ranges;
  // pgrange reads the fault at start-up, so it need not outlive ProxyProcess::start.
  if (!fault.empty()) setenv("PGRANGE_TEST_FAULT", std::string(fault).c_str(), 1);
  auto proxy = ProxyProcess::start(config);
  unsetenv("PGRANGE_TEST_FAULT");
  return proxy;
}

std::unique_ptr<ProxyProcess> ShardCluster::start_managing_proxy(const std::string& ranges) const {
  ProxyConfig config = ProxyConfig::with_shards(dsns(), options_.pool_size);
  config.extra_toml += options_.extra_toml;
  config.pool_mode = options_.pool_mode;
  config.workers = options_.workers;
  config.ranges = ranges;
  return ProxyProcess::start(config);
}

PgConnPtr ShardCluster::client() const {
  return pq_connect(proxy_->dsn());
}

PgConnPtr ShardCluster::direct(int i) const {
  return pq_connect(shards_[i]->dsn("app"));
}

PgConnPtr ShardCluster::reference() const {
  return pq_connect(shards_[0]->dsn("ref"));
}

int64_t ShardCluster::sum_direct(const std::string& sql) const {
  int64_t total = 0;
  for (int i = 0; i < size(); ++i) {
    auto d = direct(i);
    SqlResult r = pq_exec(d.get(), sql);
    EXPECT_TRUE(r.ok()) << "s" << i + 1 << ": " << sql << ": " << r.message;
    if (r.ok() && r.at() != "<null>") total += std::stoll(r.at());
  }
  return total;
}

int64_t ShardCluster::prepared_left() const {
  return sum_direct("SELECT count(*) FROM pg_prepared_xacts");
}

std::vector<std::string> ShardCluster::on_each_shard(const std::string& sql) const {
  std::vector<std::string> out;
  for (int i = 0; i < size(); ++i) {
    auto d = direct(i);
    SqlResult r = pq_exec(d.get(), sql);
    out.push_back(r.ok() ? r.at() : r.message);
  }
  return out;
}

std::string ShardCluster::run_setup(const std::vector<std::string>& statements,
                                    Target target) const {
  auto c = client();
  if (PQstatus(c.get()) != CONNECTION_OK) return std::string("pgrange: ") + PQerrorMessage(c.get());
  PgConnPtr ref(nullptr, &PQfinish);
  if (target == Target::kPgrangeAndReference) {
    ref = reference();
    if (PQstatus(ref.get()) != CONNECTION_OK) {
      return std::string("reference: ") + PQerrorMessage(ref.get());
    }
  }
  for (const std::string& sql : statements) {
    SqlResult r = pq_exec(c.get(), sql);
    if (!r.ok()) return "through pgrange: " + sql + ": " + r.message;
    if (ref == nullptr) continue;
    r = pq_exec(ref.get(), sql);
    if (!r.ok()) return "on the reference: " + sql + ": " + r.message;
  }
  return "";
}

ScriptStep ext(std::string sql, std::vector<std::string> params) {
  return ScriptStep(std::move(sql), std::move(params));
}

std::string answer_text(PGconn* conn, const ScriptStep& step) {
  PGresult* res = nullptr;
  std::vector<const char*> values;
  for (const auto& p : step.params) values.push_back(p.c_str());
  if (!step.prepare.empty()) {
    res = PQprepare(conn, step.prepare.c_str(), step.sql.c_str(), 0, nullptr);
  } else if (!step.execute.empty()) {
    res = PQexecPrepared(conn, step.execute.c_str(), static_cast<int>(values.size()), values.data(),
                         nullptr, nullptr, 0);
  } else if (step.extended) {
    res = PQexecParams(conn, step.sql.c_str(), static_cast<int>(values.size()), nullptr,
                       values.data(), nullptr, nullptr, 0);
  } else {
    res = PQexec(conn, step.sql.c_str());
  }
  if (res == nullptr) return std::string("no result: ") + PQerrorMessage(conn);
  std::ostringstream out;
  ExecStatusType st = PQresultStatus(res);
  out << PQresStatus(st) << " " << PQcmdStatus(res);
  if (const char* s = PQresultErrorField(res, PG_DIAG_SQLSTATE)) out << " " << s;
  if (const char* m = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY)) out << " " << m;
  if (st == PGRES_TUPLES_OK) {
    out << "\n";
    for (int c = 0; c < PQnfields(res); ++c) out << (c ? "|" : "") << PQfname(res, c);
    std::vector<std::string> rows;
    for (int r = 0; r < PQntuples(res); ++r) {
      std::string row;
      for (int c = 0; c < PQnfields(res); ++c) {
        row += (c ? "|" : "");
        row += PQgetisnull(res, r, c) ? "<null>" : PQgetvalue(res, r, c);
      }
      rows.push_back(std::move(row));
    }
    bool insert_values = step.sql.find("INSERT") < step.sql.find(" VALUES");
    if (step.sql.find("RETURNING") != std::string::npos && !insert_values) {
      std::sort(rows.begin(), rows.end());
    }
    for (const auto& row : rows) out << "\n" << row;
  }
  PQclear(res);
  return out.str();
}

int ShardCluster::misplaced_rows(PGconn* c, const std::string& table, int64_t* rows) const {
  SqlResult ranges = pq_exec(c, "SHOW RANGES FROM TABLE " + table);
  EXPECT_TRUE(ranges.ok()) << ranges.message;
  // Range bounds as ids (…/1/100000), in order; the first starts at <TableMin>.
  std::vector<std::pair<int64_t, std::string>> starts;
  for (const auto& row : ranges.rows) {
    const std::string& start = row[0];
    // The table's rows' ranges (…/<TableMin>, …/1/<id>) come first; then its global indexes'.
    if (start.find("TableMin") == std::string::npos && start.rfind("…/1/", 0) != 0) break;
    int64_t at = start.find("TableMin") != std::string::npos
                     ? INT64_MIN
                     : std::stoll(start.substr(start.rfind('/') + 1));
    starts.emplace_back(at, row[3]);
  }
  int bad = 0;
  std::map<int64_t, int> seen;
  for (int i = 0; i < size(); ++i) {
    SqlResult found = pq_exec(direct(i).get(), "SELECT id FROM " + table);
    EXPECT_TRUE(found.ok()) << found.message;
    for (const auto& row : found.rows) {
      int64_t id = std::stoll(row[0]);
      ++seen[id];
      std::string owner;
      for (const auto& [at, shard] : starts) {
        if (id >= at) owner = shard;
      }
      if (owner != "s" + std::to_string(i + 1) && ++bad <= 5) {
        ADD_FAILURE() << "row " << id << " of " << table << " is on s" << i + 1 << ", the map says "
                      << owner;
      }
    }
  }
  for (const auto& [id, copies] : seen) {
    if (copies != 1 && ++bad <= 10) ADD_FAILURE() << "row " << id << " on " << copies << " shards";
  }
  if (rows != nullptr) *rows = static_cast<int64_t>(seen.size());
  return bad;
}

void ShardCluster::expect_no_move_leftovers() const {
  for (int i = 0; i < size(); ++i) {
    EXPECT_EQ(shard(i).exec("SELECT count(*) FROM pg_replication_slots"), "0")
        << "shard s" << i + 1;
    EXPECT_EQ(shard(i).exec("SELECT count(*) FROM pg_publication", "app"), "0")
        << "shard s" << i + 1;
  }
  EXPECT_EQ(prepared_left(), 0);
}

}  // namespace pgrange::testing
