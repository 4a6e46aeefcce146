// ClientSession and privileges. pgrange's own objects on the shards (the tables of global
// indexes, "t@i", the triggers and functions that report a table's writes to them): only users
// with admin = true in their [[user]] entry may name them. And what pgrange does itself for a
// client, as its own role (a global index's DDL, a cluster-wide sequence's values), it does
// only when PostgreSQL would let the client's role do it.

#include <algorithm>
#include <cctype>
#include <cstring>

#include "common/text.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "routing/plan/index_maintenance.hpp"
#include "sql/quoting.hpp"

namespace pgrange::proxy {

namespace {

/// Whether a statement may name pgrange's objects: an '@' (an index table "t@i"), "pgrange_"
/// or "disable" in any case. It runs for every statement of a user without admin: three
/// memchr-driven searches.
bool may_name_internals(std::string_view sql) {
  return std::memchr(sql.data(), '@', sql.size()) != nullptr || icontains(sql, "pgrange_") ||
         icontains(sql, "disable");
}

/// A relation's or sequence's name as SQL: quoted, qualified when a schema is given.
std::string quoted_name(const std::string& schema, const std::string& name) {
  return (schema.empty() ? "" : sql::quote_ident(schema) + ".") + sql::quote_ident(name);
}

/// The text in lower case with each run of white space one blank.
std::string folded(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
    } else {
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  return out;
}

Error refusal(std::string what) {
  return Error::make(sqlstate::kInsufficientPrivilege,
                     "permission denied: " + std::move(what) + " belongs to pgrange")
      .with_hint(
          "only users with admin = true in their [[user]] entry may name pgrange's own "
          "objects");
}

}  // namespace

std::optional<Error> ClientSession::internal_object_refusal(std::string_view sql) {
  if (admin()) return std::nullopt;
  // Most statements name neither an index table ("t@i") nor pgrange's triggers and functions.
  if (!may_name_internals(sql)) return std::nullopt;
  auto view = routing_view();
  if (view == nullptr) return std::nullopt;
  auto analysis = worker_.analyze(sql);
  if (!*analysis) return std::nullopt;  // PostgreSQL reports the syntax error
  for (const sql::StatementInfo& info : **analysis) {
    for (const sql::TableRef& ref : info.tables) {
      size_t cut = ref.name.rfind('@');
      if (cut == std::string::npos) continue;
      const routing::TableDescriptor* t = view->find_table(ref.schema, ref.name.substr(0, cut));
      if (t == nullptr) continue;
      std::string index = ref.name.substr(cut + 1);
      if (std::any_of(t->indexes.begin(), t->indexes.end(),
                      [&](const routing::IndexDescriptor& i) { return i.name == index; })) {
        return refusal("table \"" + ref.name + "\" (global index " + index + " of " + t->name +
                       ")");
      }
    }
    for (const sql::TableRef& f : info.functions) {
      if (f.name.rfind("pgrange_index_", 0) == 0) {
        return refusal("function \"" + f.name + "\" (it reports writes to global indexes)");
      }
    }
    bool ddl = info.kind != sql::StatementKind::kSelect &&
               info.kind != sql::StatementKind::kInsert &&
               info.kind != sql::StatementKind::kUpdate && info.kind != sql::StatementKind::kDelete;
    std::string_view text = sql.substr(info.begin, info.end - info.begin);
    if (ddl && icontains(text, routing::kIndexTriggerName)) {
      return refusal("trigger \"" + std::string(routing::kIndexTriggerName) +
                     "\" (it reports writes to global indexes)");
    }
    if (info.kind == sql::StatementKind::kAlterTable && icontains(text, "disable")) {
      // DISABLE TRIGGER ALL or USER would silence the index trigger too.
      const routing::TableDescriptor* t = view->find_table(info.target.schema, info.target.name);
      std::string f = folded(text);
      if (t != nullptr && !t->indexes.empty() &&
          (f.find("disable trigger all") != std::string::npos ||
           f.find("disable trigger user") != std::string::npos)) {
        return refusal("trigger \"" + std::string(routing::kIndexTriggerName) + "\" of \"" +
                       t->name + "\" (it reports writes to global indexes)");
      }
    }
  }
  return std::nullopt;
}

awaitable<Result<std::vector<std::vector<std::optional<std::string>>>>> ClientSession::query_as(
    const BackendLogin& login, const std::string& sql) {
  BackendPool& pool = worker_.pool(0, login);
  auto conn = co_await pool.acquire(pool.held() && worker_.holds_connection(this));
  if (!conn) co_return tl::unexpected(conn.error());
  (*conn)->holder = this;
  std::shared_ptr<BackendConnection> c = std::move(*conn);
  std::string request;
  write_query(request, sql);
  Result<BackendReply> reply = tl::unexpected(Error());
  if (auto sent = co_await c->send(request); !sent) {
    reply = tl::unexpected(sent.error());
  } else {
    reply = co_await read_replies(*c);
  }
  pool.release(c, !c->broken());
  if (!reply) co_return tl::unexpected(reply.error());
  if (reply->error) co_return tl::unexpected(error_of_response(*reply->error));
  std::vector<std::vector<std::optional<std::string>>> rows;
  for (const std::string& row : reply->rows) rows.push_back(data_row_values(row));
  co_return rows;
}

awaitable<std::optional<Error>> ClientSession::check_owner(const std::string& schema,
                                                           const std::string& table) {
  // pgrange's own role makes a global index's table: PostgreSQL's rule for CREATE INDEX and
  // DROP INDEX (the table's owner, or a member of its role) is checked for the client's role.
  std::string rel = quoted_name(schema, table);
  auto rows =
      co_await query_as(internal_login(), "SELECT pg_has_role(" + sql::quote_literal(shard_role()) +
                                              ", relowner, 'USAGE') FROM pg_class WHERE oid = " +
                                              sql::quote_literal(rel) + "::regclass");
  if (!rows) co_return rows.error();
  if (rows->size() != 1 || !(*rows)[0][0] || *(*rows)[0][0] != "t") {
    co_return Error::make(sqlstate::kInsufficientPrivilege, "must be owner of table " + table);
  }
  co_return std::nullopt;
}

awaitable<std::optional<Error>> ClientSession::check_sequence_right(const std::string& schema,
                                                                    const std::string& name,
                                                                    std::string_view function) {
  // PostgreSQL's rights for the sequence functions pgrange answers from its metadata store.
  std::string_view rights = function == "setval"    ? "UPDATE"
                            : function == "currval" ? "SELECT, USAGE"
                                                    : "USAGE, UPDATE";  // nextval, a default
  std::string key = std::string(rights) + '\0' + schema + '\0' + name;
  uint64_t now = worker_.shared().privilege_changes.load(std::memory_order_acquire);
  if (auto it = sequence_rights_.find(key); it != sequence_rights_.end() && it->second == now) {
    co_return std::nullopt;
  }
  std::string seq = quoted_name(schema, name);
  auto rows = co_await query_as(
      internal_login(), "SELECT has_sequence_privilege(" + sql::quote_literal(shard_role()) + ", " +
                            sql::quote_literal(seq) + ", " +
                            sql::quote_literal(std::string(rights)) + ")");
  if (!rows &&
      (rows.error().sqlstate == sqlstate::kUndefinedTable || rows.error().sqlstate == "3F000")) {
    // Not there for other sessions: made in the client's own open transaction, so its own.
    co_return std::nullopt;
  }
  if (!rows) co_return rows.error();
  if (rows->size() != 1 || !(*rows)[0][0] || *(*rows)[0][0] != "t") {
    co_return Error::make(sqlstate::kInsufficientPrivilege,
                          "permission denied for sequence " + name);
  }
  sequence_rights_[key] = now;
  co_return std::nullopt;
}

BackendLogin ClientSession::internal_login() const {
  BackendLogin login;
  login.user = config().internal_user;
  login.password = config().internal_password;
  return login;
}

const std::string& ClientSession::shard_role() const {
  return pools_.at(0)->login().user;
}

}  // namespace pgrange::proxy
