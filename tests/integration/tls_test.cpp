// TLS on both sides of pgrange, with certificates of a test CA. To the shards: a PostgreSQL 15
// shard with ssl = on and a certificate for the name "localhost"; the shard DSN's sslmode and
// sslrootcert (libpq's meaning) decide whether pgrange's pooled connections encrypt and what
// they verify; a wrong host name or CA fails as libpq fails, with its words. From the clients:
// [tls] required turns away clients without TLS, client_ca lets auth = "cert" users log in
// with a certificate naming them.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "tests/support/pg_server.hpp"
#include "tests/support/process.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

/// Runs openssl in `dir` (throws with its output when it fails).
std::string openssl(const std::vector<std::string>& args, const std::string& dir) {
  ProcessOptions o;
  o.argv = {"openssl"};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.working_dir = dir;
  return run_process(o);
}

class TlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/pgrange-tls-XXXXXX";
    dir_ = mkdtemp(tmpl);
    chmod(dir_.c_str(), 0755);  // the server (user postgres) reads its certificate here
    // A CA, a server certificate it signs for "localhost", and another CA.
    openssl({"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
             "-days", "2", "-subj", "/CN=pgrange test CA"},
            dir_);
    openssl({"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other.key", "-out",
             "other.crt", "-days", "2", "-subj", "/CN=another CA"},
            dir_);
    openssl({"req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
             "-subj", "/CN=localhost"},
            dir_);
    std::ofstream(dir_ + "/ext.cnf") << "subjectAltName = DNS:localhost\n";
    openssl({"x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
             "-CAcreateserial", "-out", "server.crt", "-days", "2", "-extfile", "ext.cnf"},
            dir_);
    // Client certificates: two of the test CA (for certuser, for someoneelse), one of another.
    for (auto [name, cn, ca] :
         {std::tuple{"client", "certuser", "ca"}, std::tuple{"stranger", "someoneelse", "ca"},
          std::tuple{"forged", "certuser", "other"}}) {
      std::string n = name;
      openssl({"req", "-newkey", "rsa:2048", "-nodes", "-keyout", n + ".key", "-out", n + ".csr",
               "-subj", std::string("/CN=") + cn},
              dir_);
      openssl({"x509", "-req", "-in", n + ".csr", "-CA", std::string(ca) + ".crt", "-CAkey",
               std::string(ca) + ".key", "-CAcreateserial", "-out", n + ".crt", "-days", "2"},
              dir_);
      chmod((dir_ + "/" + n + ".key").c_str(), 0600);
    }
    std::string key = dir_ + "/server.key";
    chmod(key.c_str(), 0600);
    if (running_as_root()) {
      struct passwd* pg = getpwnam("postgres");
      if (pg == nullptr || chown(key.c_str(), pg->pw_uid, pg->pw_gid) != 0) {
        throw std::runtime_error("cannot give the key to user postgres");
      }
    }
    PgServer::Options o;
    o.databases = {"app"};
    o.settings = {{"ssl", "on"}, {"ssl_cert_file", dir_ + "/server.crt"}, {"ssl_key_file", key}};
    server_ = PgServer::start(o).release();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { proxy_.reset(); }

  /// The shard's DSN for host `host` with these TLS settings.
  static std::string shard_dsn(const std::string& host, const std::string& tls) {
    return "host=" + host + " port=" + std::to_string(server_->port()) +
           " dbname=app user=postgres " + tls;
  }
  /// Starts pgrange over the shard with that DSN (its metadata store reached without TLS, so
  /// that only the pooled connections are under test).
  void start(const std::string& dsn) {
    ProxyConfig cfg = ProxyConfig::with_shard(dsn);
    cfg.extra_toml =
        "\n[metadata]\ndsn = \"host=127.0.0.1 port=" + std::to_string(server_->port()) +
        " dbname=pgrange_meta user=postgres sslmode=disable\"\n";
    proxy_ = ProxyProcess::start(cfg);
  }
  /// Whether pgrange's connection to the shard serving `c` is encrypted (pg_stat_ssl).
  static std::string encrypted(PGconn* c) {
    return pq_exec(c, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").at();
  }

  static std::string dir_;
  static PgServer* server_;
  std::unique_ptr<ProxyProcess> proxy_;
};

std::string TlsTest::dir_;
PgServer* TlsTest::server_ = nullptr;

TEST_F(TlsTest, VerifyFullWithTheCertificatesNameEncrypts) {
  start(shard_dsn("localhost", "sslmode=verify-full sslrootcert=" + dir_ + "/ca.crt"));
  auto c = pq_connect(proxy_->dsn());
  ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
  EXPECT_EQ(encrypted(c.get()), "t");
  ASSERT_TRUE(pq_exec(c.get(), "CREATE TABLE kv (k int8 PRIMARY KEY, v text)").ok());
  SqlResult w = pq_exec(c.get(),
                        "INSERT INTO kv SELECT g, repeat('x', g % 500) FROM "
                        "generate_series(1, 2000) g");
  ASSERT_TRUE(w.ok()) << w.message;
  SqlResult r = pq_exec(c.get(), "SELECT count(*), sum(length(v)) FROM kv");
  EXPECT_EQ(r.at(0, 0), "2000");
  EXPECT_EQ(r.at(0, 1), server_->exec("SELECT sum(length(v)) FROM kv", "app"));
  // Many round trips over one pooled TLS connection, and a big answer.
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(pq_exec(c.get(), "SELECT v FROM kv WHERE k = " + std::to_string(i + 1)).rows.size(),
              1u);
  }
  EXPECT_EQ(pq_exec(c.get(), "SELECT * FROM kv ORDER BY k").rows.size(), 2000u);
  ASSERT_TRUE(pq_exec(c.get(), "DROP TABLE kv").ok());
}

TEST_F(TlsTest, AWrongHostNameFailsAsLibpqFails) {
  std::string dsn = shard_dsn("127.0.0.1", "sslmode=verify-full sslrootcert=" + dir_ + "/ca.crt");
  // libpq's own words for it.
  auto direct = pq_connect(dsn);
  ASSERT_NE(PQstatus(direct.get()), CONNECTION_OK);
  std::string libpq = PQerrorMessage(direct.get());
  // (The name of its subjectAltName, and its common name: libpq examines both for an address.)
  const std::string words =
      "server certificate for \"localhost\" (and 1 other name) does not match host name "
      "\"127.0.0.1\"";
  ASSERT_NE(libpq.find(words), std::string::npos) << libpq;

  start(dsn);
  auto c = pq_connect(proxy_->dsn());
  EXPECT_NE(PQstatus(c.get()), CONNECTION_OK);
  std::string ours = PQerrorMessage(c.get());
  EXPECT_NE(ours.find(words), std::string::npos) << ours;
  EXPECT_NE(ours.find("shard \"s1\""), std::string::npos) << ours;
}

TEST_F(TlsTest, AnotherCaFailsVerification) {
  start(shard_dsn("localhost", "sslmode=verify-ca sslrootcert=" + dir_ + "/other.crt"));
  auto c = pq_connect(proxy_->dsn());
  EXPECT_NE(PQstatus(c.get()), CONNECTION_OK);
  std::string ours = PQerrorMessage(c.get());
  EXPECT_NE(ours.find("certificate verify failed"), std::string::npos) << ours;
}

TEST_F(TlsTest, RequireEncryptsWithoutVerifyingAndDisableDoesNot) {
  start(shard_dsn("127.0.0.1", "sslmode=require"));
  {
    auto c = pq_connect(proxy_->dsn());
    ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
    EXPECT_EQ(encrypted(c.get()), "t");
  }
  proxy_.reset();
  start(shard_dsn("127.0.0.1", "sslmode=disable"));
  {
    auto c = pq_connect(proxy_->dsn());
    ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
    EXPECT_EQ(encrypted(c.get()), "f");
  }
  proxy_.reset();
  // No sslmode: libpq's default, prefer (this server has TLS).
  start(shard_dsn("127.0.0.1", ""));
  auto c = pq_connect(proxy_->dsn());
  ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
  EXPECT_EQ(encrypted(c.get()), "t");
}

TEST_F(TlsTest, ClientsLogInWithCertificatesAndOnlyOverTls) {
  ProxyConfig cfg = ProxyConfig::with_shard(shard_dsn("127.0.0.1", "sslmode=disable"));
  cfg.tls_cert = dir_ + "/server.crt";
  cfg.tls_key = dir_ + "/server.key";
  cfg.users.push_back(ProxyConfig::User{"certuser", "", "cert"});
  cfg.extra_toml = "\n[metadata]\ndsn = \"host=127.0.0.1 port=" + std::to_string(server_->port()) +
                   " dbname=pgrange_meta user=postgres sslmode=disable\"\n";
  // [tls] gets client_ca and required (to_toml writes cert and key).
  std::string toml = cfg.to_toml();
  std::string key_line = "key = \"" + cfg.tls_key + "\"\n";
  size_t at = toml.find(key_line);
  ASSERT_NE(at, std::string::npos) << toml;
  toml.insert(at + key_line.size(), "client_ca = \"" + dir_ + "/ca.crt\"\nrequired = true\n");
  proxy_ = ProxyProcess::start_toml(toml);
  auto dsn = [&](const std::string& user, const std::string& extra) {
    return "host=127.0.0.1 port=" + std::to_string(proxy_->port()) + " dbname=app user=" + user +
           " " + extra;
  };
  auto cert = [&](const std::string& name) {
    return "sslmode=require sslcert=" + dir_ + "/" + name + ".crt sslkey=" + dir_ + "/" + name +
           ".key";
  };
  {
    auto c = pq_connect(dsn("certuser", cert("client")));
    ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
    EXPECT_EQ(pq_exec(c.get(), "SELECT 6 * 7").at(), "42");
  }
  struct Refused {
    std::string extra;
    std::string words;
  };
  for (const Refused& r : std::vector<Refused>{
           {"sslmode=require", "connection requires a valid client certificate"},
           {cert("stranger"), "certificate authentication failed for user \"certuser\""},
           {cert("forged"), "SSL"},  // the handshake fails: an unknown CA
           {"sslmode=disable", "TLS connections only"},
       }) {
    auto c = pq_connect(dsn("certuser", r.extra));
    EXPECT_NE(PQstatus(c.get()), CONNECTION_OK) << r.extra;
    EXPECT_NE(std::string(PQerrorMessage(c.get())).find(r.words), std::string::npos)
        << r.extra << ": " << PQerrorMessage(c.get());
  }
  // A password user over TLS, and without TLS not at all.
  auto app = pq_connect(dsn("app", "password=secret sslmode=require"));
  ASSERT_EQ(PQstatus(app.get()), CONNECTION_OK) << PQerrorMessage(app.get());
  EXPECT_EQ(pq_exec(app.get(), "SELECT 1").at(), "1");
  auto plain = pq_connect(dsn("app", "password=secret sslmode=disable"));
  EXPECT_NE(PQstatus(plain.get()), CONNECTION_OK);
}

}  // namespace
}  // namespace pgrange::testing
