#include "routing/moves/shard_schema.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

#include "routing/moves/shard_link.hpp"
#include "routing/plan/key_predicate.hpp"

extern char** environ;

namespace pgrange::routing {

namespace {

/// The new shard's lock while it is brought up (one instance at a time).
constexpr int64_t kBringUpLock = 7401002;

Error dump_error(const std::string& what) {
  return Error::make(sqlstate::kConnectionFailure, "copying the schema to a new shard: " + what);
}

/// The environment pg_dump runs with: this process's, without libpq's variables, plus the
/// DSN's settings as libpq's variables (so that no password shows on a command line).
Result<std::vector<std::string>> dump_environment(const std::string& dsn) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(dsn.c_str(), &err);
  if (opts == nullptr) {
    std::string msg = err != nullptr ? err : "cannot parse the shard's DSN";
    if (err != nullptr) PQfreemem(err);
    return tl::unexpected(dump_error(msg));
  }
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "PG", 2) != 0) env.emplace_back(*e);
  }
  for (PQconninfoOption* o = opts; o->keyword != nullptr; ++o) {
    if (o->val != nullptr && o->envvar != nullptr && *o->val != '\0') {
      env.push_back(std::string(o->envvar) + "=" + o->val);
    }
  }
  PQconninfoFree(opts);
  return env;
}

/// Tables, views and sequences outside the system schemas.
Result<int64_t> user_relations(PGconn* conn, std::string_view what) {
  auto r = shard_link::exec(
      conn,
      "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE "
      "c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f') AND n.nspname NOT IN ('pg_catalog', "
      "'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE "
      "'pg\\_temp%'",
      what);
  if (!r) return tl::unexpected(r.error());
  return std::atoll(PQgetvalue(r->get(), 0, 0));
}

}  // namespace

Result<std::string> ShardSchema::dump(const std::string& dsn) {
  auto env = dump_environment(dsn);
  if (!env) return tl::unexpected(env.error());
  std::vector<char*> envp;
  for (std::string& e : *env) envp.push_back(e.data());
  envp.push_back(nullptr);
  // Owners and privileges come along: clients that log in to the shards as their own roles
  // must find on the new shard what they may do on the others (the roles must exist there).
  std::vector<std::string> args = {"pg_dump",           "--schema-only",
                                   "--no-publications", "--no-subscriptions",
                                   "--no-tablespaces",  "--no-security-labels"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0)
    return tl::unexpected(dump_error("pipe: " + std::string(std::strerror(errno))));
  FILE* errors = std::tmpfile();
  if (errors == nullptr) {
    close(out[0]);
    close(out[1]);
    return tl::unexpected(dump_error("tmpfile: " + std::string(std::strerror(errno))));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fileno(errors), STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "pg_dump", &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (spawned != 0) {
    close(out[0]);
    std::fclose(errors);
    return tl::unexpected(dump_error("cannot run pg_dump (the PostgreSQL client tools): " +
                                     std::string(std::strerror(spawned))));
  }
  std::string text;
  char buf[65536];
  for (;;) {
    ssize_t n = read(out[0], buf, sizeof buf);
    if (n > 0) {
      text.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string message;
    std::rewind(errors);
    while (size_t n = std::fread(buf, 1, sizeof buf, errors)) message.append(buf, n);
    std::fclose(errors);
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return tl::unexpected(dump_error("pg_dump failed: " + message));
  }
  std::fclose(errors);
  // psql's meta-commands (\restrict and \unrestrict in newer dumps) are not SQL.
  std::string sql;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] == '\\') continue;
    sql += line;
    sql += '\n';
  }
  return sql;
}

Result<bool> ShardSchema::bring_up_new_shard(const ClusterView& view, const std::string& shard,
                                             const std::string& from) {
  const ShardRecord* target = view.find_shard(shard);
  const ShardRecord* source = view.find_shard(from);
  if (target == nullptr || source == nullptr || shard == from || view.tables().empty()) {
    return false;
  }
  auto dst = shard_link::connect(target->dsn, "new");
  if (!dst) return tl::unexpected(dst.error());
  PGconn* d = dst->get();
  if (auto r = shard_link::exec(
          d, "BEGIN; SELECT pg_advisory_xact_lock(" + std::to_string(kBringUpLock) + ")",
          "locking the new shard");
      !r) {
    return tl::unexpected(r.error());
  }
  auto found = user_relations(d, "looking at the new shard");
  if (!found) return tl::unexpected(found.error());
  if (*found != 0) return false;  // not new (the transaction rolls back with the connection)

  auto src = shard_link::connect(source->dsn, "source");
  if (!src) return tl::unexpected(src.error());
  auto there = user_relations(src->get(), "looking at the shard to copy the schema from");
  if (!there) return tl::unexpected(there.error());
  if (*there == 0) {
    return tl::unexpected(dump_error("shard \"" + from + "\" has no tables either"));
  }
  auto schema = dump(source->dsn);
  if (!schema) return tl::unexpected(schema.error());
  if (auto r = shard_link::exec(d, *schema, "restoring the schema on the new shard"); !r) {
    return tl::unexpected(r.error());
  }
  // Every shard holds all of a reference table's rows.
  if (auto r = shard_link::exec(src->get(), "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
                                "reading the reference tables");
      !r) {
    return tl::unexpected(r.error());
  }
  for (const TableDescriptor& t : view.tables()) {
    if (!t.reference) continue;
    const std::string name = qualified_table_name(t);
    auto columns = shard_link::copy_columns(src->get(), name);
    if (!columns) return tl::unexpected(columns.error());
    auto copied = shard_link::stream_rows(src->get(), d, name, *columns, "true");
    if (!copied) return tl::unexpected(copied.error());
  }
  if (auto ok = shard_link::commit(d, "committing the new shard's schema"); !ok) {
    return tl::unexpected(ok.error());
  }
  return true;
}

}  // namespace pgrange::routing
