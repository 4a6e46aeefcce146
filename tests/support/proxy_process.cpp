#include "tests/support/proxy_process.hpp"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tests/support/pg_server.hpp"
#include "tests/support/ports.hpp"

namespace pgrange::testing {
namespace {

/// A TOML basic string literal.
std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

/// Reads a whole file ("" when missing).
std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

ProxyConfig ProxyConfig::with_shard(std::string shard_dsn, int pool_size) {
  ProxyConfig c;
  Shard s;
  s.dsn = std::move(shard_dsn);
  s.pool_size = pool_size;
  c.shards.push_back(s);
  c.users.push_back(User{"app", "secret", "scram-sha-256", true});
  c.users.push_back(User{"md5user", "md5secret", "md5"});
  c.users.push_back(User{"trustuser", "", "trust"});
  return c;
}

ProxyConfig ProxyConfig::with_shards(const std::vector<std::string>& shard_dsns, int pool_size) {
  ProxyConfig c = with_shard("", pool_size);
  c.shards.clear();
  for (size_t i = 0; i < shard_dsns.size(); ++i) {
    Shard s;
    s.name = "s" + std::to_string(i + 1);
    s.dsn = shard_dsns[i];
    s.pool_size = pool_size;
    c.shards.push_back(s);
  }
  return c;
}

std::string ProxyConfig::to_toml() const {
  std::ostringstream t;
  t << "database = " << toml_string(database) << "\n";
  t << "pool_mode = " << toml_string(pool_mode) << "\n";
  t << "workers = " << workers << "\n";
  t << "log_level = " << toml_string(log_level) << "\n";
  t << "pool_wait_timeout_ms = " << pool_wait_timeout_ms << "\n";
  t << "connect_timeout_ms = " << connect_timeout_ms << "\n";
  t << "shutdown_timeout_ms = " << shutdown_timeout_ms << "\n";
  if (max_message_size) t << "max_message_size = " << *max_message_size << "\n";
  if (query_memory) t << "query_memory = " << *query_memory << "\n";
  if (temp_directory) t << "temp_directory = \"" << *temp_directory << "\"\n";
  if (table_sizes_interval_ms) {
    t << "table_sizes_interval_ms = " << *table_sizes_interval_ms << "\n";
  }
  if (!ranges.empty()) t << "\n[ranges]\n" << ranges;
  if (!tls_cert.empty() && !tls_key.empty()) {
    t << "\n[tls]\ncert = " << toml_string(tls_cert) << "\nkey = " << toml_string(tls_key) << "\n";
  }
  for (const auto& s : shards) {
    t << "\n[[shard]]\nname = " << toml_string(s.name) << "\ndsn = " << toml_string(s.dsn)
      << "\npool_size = " << s.pool_size << "\n";
  }
  for (const auto& u : users) {
    t << "\n[[user]]\nname = " << toml_string(u.name) << "\npassword = " << toml_string(u.password)
      << "\nauth = " << toml_string(u.auth) << "\n";
    if (u.admin) t << "admin = true\n";
    if (u.max_connections > 0) t << "max_connections = " << u.max_connections << "\n";
  }
  t << extra_toml;
  return t.str();
}

std::unique_ptr<ProxyProcess> ProxyProcess::start(const ProxyConfig& config,
                                                  std::chrono::milliseconds timeout) {
  auto p = start_toml(config.to_toml(), timeout);
  p->database_ = config.database;
  return p;
}

std::unique_ptr<ProxyProcess> ProxyProcess::start_toml(std::string toml_text,
                                                       std::chrono::milliseconds timeout) {
  std::unique_ptr<ProxyProcess> p(new ProxyProcess());
  std::string tmpl = std::filesystem::temp_directory_path().string() + "/pgrange-proxy-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  p->dir_ = tmpl;
  p->config_path_ = p->dir_ + "/pgrange.toml";
  p->log_path_ = p->dir_ + "/pgrange.log";
  std::smatch m;
  if (std::regex_search(toml_text, m, std::regex("(^|\n)database\\s*=\\s*\"([^\"]*)\""))) {
    p->database_ = m[2];
  }
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (p->launch(toml_text, timeout)) return p;
  }
  throw std::runtime_error("pgrange did not start listening:\n" + p->log_tail());
}

bool ProxyProcess::launch(const std::string& toml_text, std::chrono::milliseconds timeout) {
  port_ = free_port();
  {
    std::ofstream out(config_path_, std::ios::trunc);
    out << "listen = \"127.0.0.1:" << port_ << "\"\n" << toml_text;
  }
  ProcessOptions po;
  const char* binary = ::getenv("PGRANGE_PROXY_BINARY");  // to test another build
  po.argv = {
      binary && *binary ? std::string(binary) : std::string(PGRANGE_BINARY_DIR) + "/proxy/pgrange",
      "--config", config_path_};
  po.log_file = log_path_;
  // The binary may be relinked by a concurrent build at this very moment (exec then fails with
  // ETXTBSY or EACCES): try again for a while.
  for (int attempt = 0;; ++attempt) {
    try {
      child_ = std::make_unique<ChildProcess>(po);
      break;
    } catch (const std::runtime_error&) {
      if (attempt >= 30) throw;
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
  if (wait_until_listening(port_, timeout, [&] { return child_->running(); })) return true;
  const bool port_taken = log().find("in use") != std::string::npos;
  child_->terminate(std::chrono::seconds(5));
  if (!port_taken) {
    throw std::runtime_error("pgrange did not start listening (config " + config_path_ + "):\n" +
                             log_tail());
  }
  return false;
}

ProxyProcess::~ProxyProcess() {
  // A pgrange that died on its own (a crash, a sanitizer report) shows why in the test's
  // output, which is all a CI run keeps.
  if (child_ && !child_->running() && !stopped_) {
    std::fprintf(stderr, "pgrange exited on its own (status %d); the end of its log:\n%s\n",
                 child_->exit_status().value_or(-1), log_tail(16384).c_str());
  }
  if (child_) child_->terminate(std::chrono::seconds(2));
  const char* keep = ::getenv("PGRANGE_KEEP_TEST_DIRS");
  if (!dir_.empty() && !(keep && std::string(keep) == "1")) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

std::string ProxyProcess::dsn(std::string_view user, std::string_view password,
                              std::string_view extra) const {
  std::string s = "host=127.0.0.1 port=" + std::to_string(port_) +
                  " dbname=" + conninfo_quote(database_) + " user=" + conninfo_quote(user);
  if (!password.empty()) s += " password=" + conninfo_quote(password);
  if (!extra.empty()) s += " " + std::string(extra);
  return s;
}

std::string ProxyProcess::log_tail(std::size_t max_bytes) const {
  return file_tail(log_path_, max_bytes);
}

std::string ProxyProcess::log() const {
  return read_file(log_path_);
}

std::optional<int> ProxyProcess::stop(std::chrono::milliseconds timeout) {
  if (!child_) return std::nullopt;
  stopped_ = true;
  if (!child_->running()) return child_->exit_status();
  child_->signal(SIGTERM);
  return child_->wait(timeout);
}

}  // namespace pgrange::testing

namespace pgrange::testing {

PgConnPtr pq_connect(const std::string& conninfo) {
  return PgConnPtr(PQconnectdb(conninfo.c_str()), &PQfinish);
}

SqlResult take_result(PGresult* res, PGconn* conn) {
  SqlResult r;
  if (res == nullptr) {
    r.message = conn ? PQerrorMessage(conn) : "no result";
    return r;
  }
  r.status = PQresultStatus(res);
  auto field = [&](int code) {
    const char* v = PQresultErrorField(res, code);
    return std::string(v ? v : "");
  };
  r.sqlstate = field(PG_DIAG_SQLSTATE);
  r.message = field(PG_DIAG_MESSAGE_PRIMARY);
  r.severity = field(PG_DIAG_SEVERITY_NONLOCALIZED);
  r.detail = field(PG_DIAG_MESSAGE_DETAIL);
  r.hint = field(PG_DIAG_MESSAGE_HINT);
  r.tag = PQcmdStatus(res);
  if (r.message.empty() && !r.ok()) r.message = PQresultErrorMessage(res);
  for (int i = 0; i < PQntuples(res); ++i) {
    std::vector<std::string> row;
    for (int j = 0; j < PQnfields(res); ++j) {
      row.push_back(
          PQgetisnull(res, i, j)
              ? "<null>"
              : std::string(PQgetvalue(res, i, j), static_cast<size_t>(PQgetlength(res, i, j))));
    }
    r.rows.push_back(std::move(row));
  }
  PQclear(res);
  return r;
}

SqlResult pq_exec(PGconn* conn, const std::string& sql) {
  return take_result(PQexec(conn, sql.c_str()), conn);
}

std::string first_difference(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  std::string la, lb;
  for (int line = 1;; ++line) {
    bool ga = static_cast<bool>(std::getline(sa, la));
    bool gb = static_cast<bool>(std::getline(sb, lb));
    if (!ga && !gb) return "identical";
    if (!ga || !gb || la != lb) {
      return "line " + std::to_string(line) + ":\n  direct: " + (ga ? la : "<end>") +
             "\n  proxy:  " + (gb ? lb : "<end>");
    }
  }
}

std::map<char, std::string> RawMessage::fields() const {
  std::map<char, std::string> out;
  size_t i = 0;
  while (i < body.size() && body[i] != '\0') {
    char code = body[i++];
    size_t end = body.find('\0', i);
    if (end == std::string::npos) break;
    out[code] = body.substr(i, end - i);
    i = end + 1;
  }
  return out;
}

RawClient::RawClient(int port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw std::runtime_error("socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd_);
    throw std::runtime_error("connect to port " + std::to_string(port) + " failed");
  }
}

RawClient::~RawClient() {
  if (fd_ >= 0) ::close(fd_);
}

bool RawClient::send(std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

std::string RawClient::i32(int32_t v) {
  uint32_t u = static_cast<uint32_t>(v);
  std::string s(4, '\0');
  for (int i = 0; i < 4; ++i) s[static_cast<size_t>(i)] = static_cast<char>(u >> (24 - 8 * i));
  return s;
}

std::string RawClient::i16(int16_t v) {
  uint16_t u = static_cast<uint16_t>(v);
  return std::string{static_cast<char>(u >> 8), static_cast<char>(u & 0xff)};
}

std::string RawClient::message(char type, std::string_view body) {
  std::string s(1, type);
  s += i32(static_cast<int32_t>(body.size() + 4));
  s += body;
  return s;
}

bool RawClient::send_startup(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string body = i32(196608);
  for (const auto& [k, v] : params) {
    body += k;
    body.push_back('\0');
    body += v;
    body.push_back('\0');
  }
  body.push_back('\0');
  return send(i32(static_cast<int32_t>(body.size() + 4)) + body);
}

bool RawClient::fill(size_t want, std::chrono::steady_clock::time_point deadline) {
  while (buf_.size() < want) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (r < 0 && errno != EINTR) return false;
    if (r <= 0) continue;
    char tmp[65536];
    ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buf_.append(tmp, static_cast<size_t>(n));
  }
  return true;
}

RawMessage RawClient::read(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  RawMessage m;
  if (!fill(5, deadline)) return m;
  uint32_t len = 0;
  for (int i = 1; i <= 4; ++i)
    len = (len << 8) | static_cast<uint8_t>(buf_[static_cast<size_t>(i)]);
  if (len < 4 || len > (1u << 30) || !fill(1 + len, deadline)) return m;
  m.type = buf_[0];
  m.body = buf_.substr(5, len - 4);
  buf_.erase(0, 1 + len);
  return m;
}

std::string RawClient::read_byte(std::chrono::milliseconds timeout) {
  if (!fill(1, std::chrono::steady_clock::now() + timeout)) return "";
  std::string b = buf_.substr(0, 1);
  buf_.erase(0, 1);
  return b;
}

RawMessage RawClient::read_until(char type, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return RawMessage{};
    RawMessage m = read(left);
    if (m.type == 0 || m.type == type) return m;
  }
}

bool RawClient::wait_closed(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (r <= 0) continue;
    char tmp[4096];
    ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) return true;
  }
}

std::string RawClient::read_to_close(bool& closed, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  closed = false;
  std::string got = std::move(buf_);
  buf_.clear();
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) return got;
    pollfd p{fd_, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (r <= 0) continue;
    char tmp[4096];
    ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
    if (n > 0) {
      got.append(tmp, static_cast<size_t>(n));
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      closed = true;
      return got;
    }
  }
}

void RawClient::shutdown_write() {
  ::shutdown(fd_, SHUT_WR);
}

}  // namespace pgrange::testing
