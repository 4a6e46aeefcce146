#include "tests/support/pg_server.hpp"

#include <errno.h>
#include <fcntl.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tests/support/ports.hpp"

namespace pgrange::testing {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

/// Bump when the template's layout changes, so stale caches in build dirs are not reused.
constexpr std::string_view kTemplateLayout = "v2";

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

/// Quotes a value for postgresql.conf.
std::string conf_quote(std::string_view v) {
  std::string out = "'";
  for (char c : v) {
    if (c == '\'') out += '\'';
    if (c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

std::string sql_literal(std::string_view v) {
  std::string out = "'";
  for (char c : v) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::string sql_ident(std::string_view v) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

/// Gives `path` to the postgres user when we run as root (no-op otherwise).
void chown_to_server_user(const std::string& path, bool recursive = false) {
  if (!running_as_root()) return;
  struct passwd* pw = ::getpwnam("postgres");
  if (pw == nullptr) {
    throw std::runtime_error(
        "running as root but there is no 'postgres' system user (run scripts/install-deps.sh)");
  }
  if (recursive) {
    run_command({"chown", "-R", "postgres:" + std::to_string(pw->pw_gid), path});
  } else if (::chown(path.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
    throw std::runtime_error("chown " + path + " failed");
  }
}

/// Where server folders go: $PGRANGE_TEST_TMPDIR, else /dev/shm when it is a roomy tmpfs (fast
/// copies, no disk writeback; test data need not survive a reboot), else /tmp. Never $TMPDIR:
/// it may be a folder the postgres user cannot enter, and Unix socket paths must stay short.
const std::string& scratch_root() {
  static const std::string root = [] {
    if (const char* env = std::getenv("PGRANGE_TEST_TMPDIR"); env && *env) return std::string(env);
    struct statvfs st {};
    if (::statvfs("/dev/shm", &st) == 0 &&
        static_cast<unsigned long long>(st.f_bavail) * st.f_frsize >= (4ULL << 30) &&
        ::access("/dev/shm", W_OK | X_OK) == 0) {
      return std::string("/dev/shm");
    }
    return std::string("/tmp");
  }();
  return root;
}

std::string make_temp_dir(std::string_view prefix) {
  std::string templ = scratch_root() + "/" + std::string(prefix) + "-XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed: " + templ);
  return templ;
}

void write_file(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::trunc);
  out << content;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string read_file_from(const std::string& path, std::uintmax_t offset) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(static_cast<std::streamoff>(offset));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string pg_version() {
  // "postgres (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)"
  std::string out = trim(run_command({pg_bin("postgres"), "--version"}));
  const std::string marker = "(PostgreSQL) ";
  auto pos = out.find(marker);
  if (pos == std::string::npos) throw std::runtime_error("unexpected postgres --version: " + out);
  std::string v = out.substr(pos + marker.size());
  return v.substr(0, v.find(' '));
}

/// Returns the initdb'd template data directory, creating it once per build dir and version.
/// Safe against concurrent test processes (flock) and threads (mutex).
const std::string& template_dir() {
  static std::mutex mu;
  static std::string cached;
  std::lock_guard lock(mu);
  if (!cached.empty()) return cached;

  const std::string base = std::string(PGRANGE_BINARY_DIR) + "/pg-template";
  std::error_code mkdir_error;  // may exist, owned by someone else
  fs::create_directories(base, mkdir_error);
  const std::string dir = base + "/" + pg_version() + "-" + std::string(kTemplateLayout);
  const std::string lock_path = base + "/.lock";
  int lock_fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd < 0) lock_fd = ::open(lock_path.c_str(), O_RDONLY | O_CLOEXEC);  // other owner
  if (lock_fd < 0) throw std::runtime_error("cannot open " + lock_path);
  ::flock(lock_fd, LOCK_EX);
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }
  } unlock{lock_fd};

  if (!fs::exists(dir + "/PG_VERSION")) {
    const std::string work = make_temp_dir("pgrange-initdb");
    chown_to_server_user(work);
    const std::string data = work + "/data";
    ProcessOptions opts;
    opts.argv = {pg_bin("initdb"), "-D", data,   "-U",         "postgres",  "-A",
                 "trust",          "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"};
    opts.as_postgres_when_root = true;
    int code = 0;
    std::string out = run_process(opts, "", &code, std::chrono::seconds(300));
    if (code != 0) {
      fs::remove_all(work);
      throw std::runtime_error("initdb failed (exit " + std::to_string(code) + "):\n" + out);
    }
    // Per-server settings live in pgrange_test.conf, written before each start.
    std::ofstream conf(data + "/postgresql.conf", std::ios::app);
    conf << "\ninclude_if_exists = 'pgrange_test.conf'\n";
    conf.close();
    const std::string staging = dir + ".tmp." + std::to_string(::getpid());
    fs::remove_all(staging);
    run_command({"cp", "-a", data, staging});
    fs::remove_all(work);
    fs::remove_all(dir);
    fs::rename(staging, dir);
  }
  cached = dir;
  return cached;
}

/// True if `pid` exists and is not a zombie (PID 1 may reap orphans late).
bool process_alive(pid_t pid) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;  // no procfs: trust kill()
  const auto paren = line.rfind(')');
  return paren == std::string::npos || paren + 2 >= line.size() || line[paren + 2] != 'Z';
}

/// Removes pgrange-pg-* folders (in scratch_root()) left by test processes that died (crash, ctest
/// timeout): their owner pid is gone and so is the postmaster (which got SIGINT when the owner
/// died).
void remove_stale_server_dirs() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(scratch_root(), ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("pgrange-pg-", 0) != 0) continue;
      std::ifstream owner_file(entry.path() / "owner.pid");
      pid_t owner = 0;
      if (!(owner_file >> owner) || owner <= 0) continue;  // being set up, or not ours
      if (process_alive(owner)) continue;
      std::ifstream pm_file(entry.path() / "data" / "postmaster.pid");
      pid_t postmaster = 0;
      if ((pm_file >> postmaster) && process_alive(postmaster)) {
        continue;  // still shutting down; a later run removes it
      }
      fs::remove_all(entry.path(), ec);
    }
  });
}

}  // namespace

std::string pg_bin_dir() {
  static const std::string dir = [] {
    if (const char* env = std::getenv("PGRANGE_PG_BINDIR"); env && *env) return std::string(env);
    const std::string debian = "/usr/lib/postgresql/15/bin";
    if (fs::exists(debian + "/postgres")) return debian;
    return trim(run_command({"pg_config", "--bindir"}));
  }();
  return dir;
}

std::string pg_bin(std::string_view name) {
  return pg_bin_dir() + "/" + std::string(name);
}

std::string conninfo_quote(std::string_view value) {
  bool plain = !value.empty();
  for (char c : value) {
    if (c == ' ' || c == '\'' || c == '\\' || c == '\t' || c == '\n') plain = false;
  }
  if (plain) return std::string(value);
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

std::unique_ptr<PgServer> PgServer::start(Options opts) {
  if (opts.host_auth != "trust" && opts.host_auth != "md5" && opts.host_auth != "scram-sha-256" &&
      opts.host_auth != "password") {
    throw std::invalid_argument("PgServer: unsupported host_auth '" + opts.host_auth + "'");
  }
  const std::string& templ = template_dir();
  std::unique_ptr<PgServer> server(new PgServer());
  server->opts_ = std::move(opts);
  remove_stale_server_dirs();
  server->root_dir_ = make_temp_dir("pgrange-pg");
  write_file(server->root_dir_ + "/owner.pid", std::to_string(::getpid()) + "\n");
  server->data_dir_ = server->root_dir_ + "/data";
  server->log_path_ = server->root_dir_ + "/server.log";
  chown_to_server_user(server->root_dir_);
  run_command({"cp", "-a", templ, server->data_dir_});

  bool up = false;
  for (int attempt = 0; attempt < 10 && !up; ++attempt) {
    server->port_ = free_port();
    server->write_config();
    up = server->launch();
  }
  if (!up) {
    throw std::runtime_error("PgServer: could not find a free port after 10 attempts; log:\n" +
                             server->log_tail());
  }
  server->setup();
  return server;
}

PgServer::~PgServer() {
  try {
    stop();
  } catch (...) {
  }
  const char* keep = std::getenv("PGRANGE_KEEP_TEST_DIRS");
  if (!root_dir_.empty() && !(keep && std::string(keep) == "1")) {
    std::error_code ec;
    fs::remove_all(root_dir_, ec);
  }
}

void PgServer::write_config() const {
  std::ostringstream conf;
  conf << "# written by pgrange::testing::PgServer\n"
       << "listen_addresses = '127.0.0.1'\n"
       << "port = " << port_ << "\n"
       << "unix_socket_directories = " << conf_quote(data_dir_) << "\n"
       << "fsync = off\n"
       << "full_page_writes = off\n"
       << "synchronous_commit = off\n"
       << "max_prepared_transactions = 100\n"
       << "wal_level = logical\n"
       << "max_connections = 200\n"
       << "shared_buffers = '32MB'\n"
       << "logging_collector = off\n"
       << "log_line_prefix = '%m [%p] %q%u@%d '\n";
  for (const auto& [name, value] : opts_.settings) {
    conf << name << " = " << conf_quote(value) << "\n";
  }
  const std::string conf_path = data_dir_ + "/pgrange_test.conf";
  write_file(conf_path, conf.str());
  chown_to_server_user(conf_path);

  const std::string& m = opts_.host_auth;
  write_file(data_dir_ + "/pg_hba.conf",
             "# written by pgrange::testing::PgServer\n"
             "local all all trust\n"
             "local replication all trust\n"
             "host all all 127.0.0.1/32 " +
                 m + "\nhost replication all 127.0.0.1/32 " + m + "\n");
}

bool PgServer::launch() {
  std::error_code ec;
  const auto log_offset = fs::exists(log_path_) ? fs::file_size(log_path_, ec) : 0;
  ProcessOptions po;
  po.argv = {pg_bin("postgres"), "-D", data_dir_};
  po.as_postgres_when_root = true;
  po.log_file = log_path_;
  po.parent_death_signal = SIGINT;  // fast shutdown if the test process dies
  child_ = std::make_unique<ChildProcess>(std::move(po));

  const auto deadline = Clock::now() + std::chrono::seconds(60);
  const std::string pid_file = data_dir_ + "/postmaster.pid";
  while (true) {
    if (!child_->running()) {
      const std::string log = read_file_from(log_path_, log_offset);
      if (log.find("Address already in use") != std::string::npos ||
          log.find("could not create any TCP/IP sockets") != std::string::npos) {
        return false;
      }
      throw std::runtime_error("PgServer: postgres exited with status " +
                               std::to_string(child_->exit_status().value_or(-1)) +
                               " during startup; log:\n" + log_tail());
    }
    std::ifstream in(pid_file);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(trim(line));
    // postmaster.pid: line 1 pid, ..., line 8 status ("starting", "ready", "stopping").
    if (lines.size() >= 8 && lines[0] == std::to_string(child_->pid()) && lines[7] == "ready") {
      return true;
    }
    if (Clock::now() > deadline) {
      child_->signal(SIGQUIT);
      child_->wait(std::chrono::seconds(10));
      child_.reset();
      throw std::runtime_error("PgServer: postgres not ready after 60 s; log:\n" + log_tail());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void PgServer::setup() {
  if (!opts_.superuser_password.empty()) {
    const std::string enc = opts_.host_auth == "md5" ? "md5" : "scram-sha-256";
    exec("SET password_encryption = '" + enc + "'; ALTER ROLE postgres PASSWORD " +
         sql_literal(opts_.superuser_password));
  }
  for (const auto& db : opts_.databases) exec("CREATE DATABASE " + sql_ident(db));
}

std::string PgServer::dsn(std::string_view dbname) const {
  std::string s = "host=127.0.0.1 port=" + std::to_string(port_) +
                  " dbname=" + conninfo_quote(dbname) + " user=postgres";
  if (!opts_.superuser_password.empty()) {
    s += " password=" + conninfo_quote(opts_.superuser_password);
  }
  return s;
}

std::string PgServer::socket_dsn(std::string_view dbname) const {
  return "host=" + conninfo_quote(data_dir_) + " port=" + std::to_string(port_) +
         " dbname=" + conninfo_quote(dbname) + " user=postgres";
}

void PgServer::stop() {
  if (!child_ || !child_->running()) return;
  child_->signal(SIGINT);  // fast shutdown
  if (child_->wait(std::chrono::seconds(60))) return;
  child_->signal(SIGQUIT);  // immediate shutdown
  if (child_->wait(std::chrono::seconds(10))) return;
  child_->signal(SIGKILL);
  child_->wait(std::chrono::seconds(60));
}

void PgServer::start_again() {
  if (running()) throw std::logic_error("PgServer::start_again: server is running");
  // The port was ours a moment ago; another process may grab it, so retry briefly.
  for (int attempt = 0; attempt < 10; ++attempt) {
    if (launch()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  throw std::runtime_error("PgServer::start_again: port " + std::to_string(port_) +
                           " stays in use; log:\n" + log_tail());
}

bool PgServer::running() const {
  return child_ && child_->running();
}

std::string PgServer::log_tail(std::size_t max_bytes) const {
  return file_tail(log_path_, max_bytes);
}

std::string PgServer::exec(std::string_view sql, std::string_view dbname) const {
  PGconn* conn = PQconnectdb(socket_dsn(dbname).c_str());
  struct Finish {
    PGconn* c;
    ~Finish() { PQfinish(c); }
  } finish{conn};
  if (PQstatus(conn) != CONNECTION_OK) {
    throw std::runtime_error("PgServer::exec: connect failed: " +
                             std::string(PQerrorMessage(conn)));
  }
  PGresult* res = PQexec(conn, std::string(sql).c_str());
  struct Clear {
    PGresult* r;
    ~Clear() { PQclear(r); }
  } clear{res};
  const auto status = PQresultStatus(res);
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
    throw std::runtime_error("PgServer::exec failed: " + std::string(PQerrorMessage(conn)) +
                             "SQL: " + std::string(sql));
  }
  std::string out;
  if (status == PGRES_TUPLES_OK && PQnfields(res) > 0) {
    for (int row = 0; row < PQntuples(res); ++row) {
      if (row > 0) out += '\n';
      if (!PQgetisnull(res, row, 0)) out += PQgetvalue(res, row, 0);
    }
  }
  return out;
}

}  // namespace pgrange::testing
