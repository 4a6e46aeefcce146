// ClientSession and the session's temporary relations. They exist on one backend connection
// only (the session is pinned to it), and PostgreSQL resolves an unqualified name to a
// temporary relation before any permanent one: `DROP TABLE t` drops the temporary t when there
// is one. So a statement that names one runs on that connection, DDL included, and never by
// the ranges of a pgrange table of the same name. Which names are temporary is asked of the
// connection itself, in the client's transaction, whenever a statement names something that
// could be either: pgrange keeps no list that could go stale.

#include <spdlog/spdlog.h>

#include "proxy/control/control_plane.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "sql/quoting.hpp"

namespace pgrange::proxy {
namespace {

bool temp_schema(const std::string& schema) {
  return schema.rfind("pg_temp", 0) == 0;
}

/// Whether the session has anything in its temporary schema (relations, types, functions).
constexpr const char* kAnyTempObject =
    "EXISTS (SELECT FROM pg_catalog.pg_class WHERE relnamespace = pg_catalog.pg_my_temp_schema()) "
    "OR EXISTS (SELECT FROM pg_catalog.pg_type WHERE typnamespace = "
    "pg_catalog.pg_my_temp_schema()) OR EXISTS (SELECT FROM pg_catalog.pg_proc WHERE "
    "pronamespace = pg_catalog.pg_my_temp_schema())";

/// DDL that pgrange would run on every shard (or on a table's shards) rather than on the
/// session's own connection.
bool leaves_connection(const sql::StatementInfo& s) {
  using K = sql::StatementKind;
  switch (s.kind) {
    case K::kCreateTable:
    case K::kDropTable:
    case K::kAlterTable:
    case K::kTruncate:
    case K::kCreateIndex:
    case K::kDropIndex:
    case K::kVacuum:
    case K::kAnalyze:
      return true;
    case K::kCreateView:
    case K::kSchemaDdl:
      return !s.temporary;
    default:
      return false;
  }
}

/// The relation a CREATE makes in the temporary schema (CREATE TEMP TABLE, … INTO TEMP, CREATE
/// TABLE pg_temp.x), if any.
const sql::TableRef* created_temp(const sql::StatementInfo& s) {
  using K = sql::StatementKind;
  bool creates = (s.kind == K::kCreateTable || s.kind == K::kCreateView ||
                  (s.kind == K::kSchemaDdl && s.temporary)) &&
                 (s.temporary || temp_schema(s.target.schema)) && !s.target.name.empty();
  return creates ? &s.target : nullptr;
}

/// Calls `f` on every relation a statement names.
template <typename F>
void for_each_relation(const sql::StatementInfo& s, F&& f) {
  if (!s.target.name.empty()) f(s.target);
  for (const sql::TableRef& r : s.tables) f(r);
  for (const sql::TableRef& r : s.dropped_objects) f(r);
  for (const sql::RelationUse& u : s.relations) f(u.table);
}

}  // namespace

bool ClientSession::names_temp(const sql::StatementInfo& s, const sql::TableRef& ref) const {
  if (temp_schema(ref.schema)) return true;
  if (const sql::TableRef* t = created_temp(s); t != nullptr && *t == ref) return true;
  return ref.schema.empty() && temp_names_.count(ref.name) != 0;
}

bool ClientSession::touches_temp(const std::vector<sql::StatementInfo>& infos) const {
  for (const sql::StatementInfo& s : infos) {
    if (created_temp(s) != nullptr) return true;
    bool temp = false;
    for_each_relation(s, [&](const sql::TableRef& r) { temp = temp || names_temp(s, r); });
    if (temp) return true;
  }
  return false;
}

awaitable<std::optional<Error>> ClientSession::resolve_temp_names(const Analysis& analysis) {
  temp_names_.clear();
  auto view = routing_view();
  // Where it matters what a name means: in a statement that names a pgrange table (else it
  // runs on this connection anyway), or in DDL pgrange would run elsewhere. There every
  // unqualified name is asked about, so that what is refused is refused for what it is.
  std::vector<std::string> names;
  static const std::vector<sql::StatementInfo> kNone;
  for (const sql::StatementInfo& s : analysis&&* analysis ? **analysis : kNone) {
    bool matters = leaves_connection(s);
    for_each_relation(s, [&](const sql::TableRef& r) {
      matters = matters || (view != nullptr && view->find_table(r.schema, r.name) != nullptr);
    });
    if (!matters) continue;
    const sql::TableRef* created = created_temp(s);
    for_each_relation(s, [&](const sql::TableRef& r) {
      if (!r.schema.empty() || (created != nullptr && *created == r)) return;
      if (std::find(names.begin(), names.end(), r.name) == names.end()) names.push_back(r.name);
    });
  }
  // With nothing to ask, only whether anything temporary is left, once something may have
  // removed it.
  bool check = temp_check_due_ && txn_status_ == 'I' && !unsynced_ && !in_copy_;
  if (names.empty() && !check) co_return std::nullopt;
  if (unsynced_ || in_copy_) {
    // In the middle of an extended-protocol batch the connection cannot be asked (its answers
    // come at the Sync): the answer for the batch's own statement, given at its Parse, holds.
    if (analysis == temp_analysis_) {
      temp_names_ = temp_answer_;
      co_return std::nullopt;
    }
    co_return not_supported(
        "a statement naming \"" + names.front() +
            "\" in a session with temporary tables cannot be routed in the middle of an "
            "extended-protocol batch",
        "send Sync before it: pgrange asks the session's connection whether the name is a "
        "temporary table");
  }
  // One row: each name's relpersistence as the connection resolves it now, in the client's
  // transaction ('t' temporary, NULL: no such relation), then whether the session still has
  // anything in its temporary schema.
  std::string sql = "SELECT ";
  for (const std::string& name : names) {
    sql += "(SELECT relpersistence FROM pg_catalog.pg_class WHERE oid = pg_catalog.to_regclass(" +
           sql::quote_literal(sql::quote_ident(name)) + ")), ";
  }
  sql += kAnyTempObject;
  temp_check_due_ = false;
  auto conn = co_await take_backend();
  if (!conn) co_return std::nullopt;  // the connection is gone, and its temporary tables with it
  std::string request;
  write_query(request, sql);
  Result<BackendReply> reply = tl::unexpected(Error{});
  if (auto sent = co_await conn->send(request); !sent) {
    reply = tl::unexpected(sent.error());
  } else {
    reply = co_await read_replies(*conn);
  }
  bool none_left = false;
  if (reply && !reply->error && reply->rows.size() == 1) {
    auto values = data_row_values(reply->rows.front());
    none_left =
        values.size() == names.size() + 1 && values.back() == std::optional<std::string>("f");
  }
  if (none_left && txn_status_ == 'I' && pending_.empty() && !unsynced_) {
    // The session dropped what it made there (DROP, DISCARD TEMP, ON COMMIT DROP, a rolled back
    // CREATE): nothing holds it to this connection any more, unless something else does.
    temp_objects_ = false;
    spdlog::info("client {}: no temporary relations left", user_);
  }
  if (can_release() && reply) {
    pool(static_cast<size_t>(conn->shard_index())).release(std::move(conn), true);
  } else {
    start_reader(std::move(conn));
  }
  if (!reply) co_return reply.error();
  if (reply->error) {
    if (parse_error_fields(*reply->error).sqlstate == sqlstate::kInFailedSqlTransaction) {
      // The transaction failed: the connection answers the statement itself (25P02).
      temp_names_.insert(names.begin(), names.end());
      co_return std::nullopt;
    }
    co_return error_of_response(*reply->error);
  }
  if (reply->rows.size() == 1) {
    auto values = data_row_values(reply->rows.front());
    for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
      if (values[i] && *values[i] == "t") temp_names_.insert(names[i]);
    }
  }
  temp_analysis_ = analysis;
  temp_answer_ = temp_names_;
  co_return std::nullopt;
}

ClientSession::Plan ClientSession::plan_temp(char type, const Analysis& analysis,
                                             const routing::BindParams* params) {
  Plan p;
  p.analysis = analysis;
  const auto& infos = **analysis;
  auto refuse_with = [&](Error e) {
    p.kind = Plan::Kind::kRefuse;
    p.error = std::move(e);
    return p;
  };
  auto view = routing_view();
  // The statements as routing sees them: without the temporary relations, which are this
  // connection's, so only pgrange tables (permanent ones) are left to place.
  std::vector<sql::StatementInfo> rest = infos;
  std::string temp_name;
  std::string pgrange_name;
  for (size_t i = 0; i < infos.size(); ++i) {
    const sql::StatementInfo& s = infos[i];
    sql::StatementInfo& r = rest[i];
    bool temp = false;
    auto is_temp = [&](const sql::TableRef& ref) {
      bool t = names_temp(s, ref);
      if (t && temp_name.empty()) temp_name = ref.name;
      temp = temp || t;
      return t;
    };
    std::erase_if(r.tables, is_temp);
    std::erase_if(r.dropped_objects, is_temp);
    std::erase_if(r.relations, [&](const sql::RelationUse& u) { return is_temp(u.table); });
    if (!s.target.name.empty() && is_temp(s.target)) r.target = {};
    std::string permanent;
    for_each_relation(r, [&](const sql::TableRef& ref) {
      if (permanent.empty() && view != nullptr && view->find_table(ref.schema, ref.name)) {
        permanent = ref.name;
      }
    });
    if (created_temp(s) != nullptr) {
      if (s.kind == sql::StatementKind::kCreateView && !permanent.empty() &&
          worker_.pool_count() > 1) {
        // Its query would read the pgrange table on this session's connection only, each time.
        return refuse_with(not_supported(
            "a temporary view over pgrange table \"" + permanent +
                "\" is not supported: it would read the rows on this session's connection only",
            "make it a view (not TEMPORARY): pgrange routes views as their query"));
      }
      // CREATE TEMP … (LIKE t) reads only t's definition, which every shard has; CREATE TEMP
      // … AS reads rows, which must be on this connection's shard (checked below).
      if (!s.create_as) {
        r.tables.clear();
        r.relations.clear();
      }
      if (pgrange_name.empty() && s.create_as) pgrange_name = permanent;
      continue;
    }
    if (pgrange_name.empty()) pgrange_name = permanent;
    if (!leaves_connection(s)) continue;
    if (temp && !permanent.empty()) {
      return refuse_with(
          not_supported("a statement naming temporary relation \"" + temp_name +
                            "\" and pgrange table \"" + permanent +
                            "\" is not supported: the one lives on this session's connection, the "
                            "other on every shard",
                        "use a statement for each"));
    }
    if (!temp) {
      return refuse_with(not_supported(
          "a query string mixing DDL on pgrange tables with statements on temporary relations "
          "is not supported",
          "send the DDL on its own"));
    }
  }
  routing::Route route;
  if (view != nullptr) route = routing::route_statements(*view, rest, params);
  int own = backend_ ? backend_->shard_index() : -1;
  bool elsewhere = route.shards.size() > 1 || route.distributed_write || route.moves_keys ||
                   route.maintains_index || route.index_lookup || route.fanout_select ||
                   (own >= 0 && !route.shards.empty() && route.shards.front() != own);
  if (elsewhere) {
    return refuse_with(not_supported(
        "a statement on temporary relation \"" + temp_name + "\" that reads or writes rows of " +
            "pgrange table \"" + pgrange_name +
            "\" on another shard than this session's connection is not supported",
        "temporary tables exist on one connection to one shard: read the rows in a statement "
        "of their own"));
  }
  if (route.refusal) return refuse_with(*route.refusal);
  p.route = std::move(route);
  p.shard = !p.route.shards.empty() ? p.route.shards.front() : own;
  if (type == 'P') {
    p.route.uses.clear();  // the Bind holds the ranges
    return p;
  }
  return hold_ranges(std::move(p));
}

}  // namespace pgrange::proxy
