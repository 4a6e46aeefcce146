#include "tests/support/shard_cluster.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
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
  // pgrange reads the fault at start-up, so it need not outlive ProxyProcess::start.
  if (!fault.empty()) setenv("PGRANGE_TEST_FAULT", std::string(fault).c_str(), 1);
  auto proxy = ProxyProcess::start(config);
  unsetenv("PGRANGE_TEST_FAULT");
  return proxy;
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

}  // namespace pgrange::testing
