// The routing half of ClientSession: which shard each client message goes to, and the
// statements pgrange runs itself (admin statements, DDL broadcast, fan-out SELECTs).

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <set>

#include "common/text.hpp"
#include "proxy/backend/fault_point.hpp"
#include "proxy/control/control_plane.hpp"
#include "proxy/exec/broadcast.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/frame_reader.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "routing/merge/binary_value.hpp"
#include "routing/plan/spread_plan.hpp"
#include "sql/copy_statement.hpp"
#include "sql/cursor_statement.hpp"
#include "sql/hash_sharded_key.hpp"
#include "sql/modifying_with.hpp"
#include "sql/quoting.hpp"
#include "sql/sequence_call.hpp"

namespace pgrange::proxy {
namespace {

/// Words that start a statement pgrange must look at even when it has no tables yet.
bool needs_analysis(std::string_view kw, bool several_shards) {
  // DDL, and the admin statements (IMPORT TABLE adopts the first table of an empty catalog).
  static constexpr std::array<std::string_view, 12> kDdl = {
      "alter",   "show",   "create", "drop",   "truncate", "vacuum",
      "analyze", "import", "cancel", "reload", "pause",    "resume"};
  for (auto w : kDdl) {
    if (kw == w) return true;
  }
  return several_shards && (kw == "begin" || kw == "start" || kw == "commit" || kw == "end" ||
                            kw == "rollback" || kw == "abort");
}

bool is_broadcast(const sql::StatementInfo& s) {
  using K = sql::StatementKind;
  switch (s.kind) {
    case K::kCreateTable:
    case K::kCreateView:
    case K::kSchemaDdl:
      return !s.temporary;
    case K::kRoleDdl:
    case K::kDropTable:
    case K::kAlterTable:
    case K::kTruncate:
    case K::kCreateIndex:
    case K::kDropIndex:
    case K::kVacuum:
    case K::kAnalyze:
      return true;
    default:
      return false;
  }
}

/// PostgreSQL's own refusal (25001) of the first statement it does not run inside a
/// transaction block.
std::optional<Error> block_refusal(const Result<std::vector<sql::StatementInfo>>& infos) {
  if (!infos) return std::nullopt;
  for (const sql::StatementInfo& s : *infos) {
    if (!s.block_refusal.empty()) {
      return Error::make("25001", s.block_refusal + " cannot run inside a transaction block");
    }
  }
  return std::nullopt;
}

using sql::quote_literal;

/// A statement that makes the backend raise `e`, so a transaction there fails exactly as it
/// would have if PostgreSQL itself had refused the statement.
std::string raise_sql(const Error& e) {
  auto clean = [](std::string s) {
    for (size_t p; (p = s.find("$pgrange$")) != std::string::npos;) s.erase(p, 1);
    return s;
  };
  std::string sql =
      "DO $pgrange$BEGIN RAISE EXCEPTION USING ERRCODE = " + quote_literal(e.sqlstate) +
      ", MESSAGE = " + quote_literal(clean(e.message));
  if (!e.detail.empty()) sql += ", DETAIL = " + quote_literal(clean(e.detail));
  if (!e.hint.empty()) sql += ", HINT = " + quote_literal(clean(e.hint));
  return sql + "; END$pgrange$";
}

using sql::quote_ident;

/// currval() and lastval() answer what this session's nextval() gave last. Between transactions
/// a pooled connection may have served another client since: outside a transaction block they
/// are right only after a nextval()/setval() in the same query string (its one connection).
std::optional<Error> session_sequence_refusal(const std::vector<sql::StatementInfo>& infos) {
  bool advanced = false;
  for (const sql::StatementInfo& s : infos) {
    bool session_value = false;
    for (const sql::TableRef& f : s.functions) {
      if (!f.schema.empty() && f.schema != "pg_catalog") continue;
      if (f.name == "nextval" || f.name == "setval") advanced = true;
      if (f.name == "currval" || f.name == "lastval") session_value = true;
    }
    if (session_value && !advanced) {
      return not_supported(
          "currval() and lastval() outside a transaction block are not supported with "
          "transaction pooling: the connection's last nextval() may have been another client's",
          "call nextval() and currval() in one transaction block, or use INSERT … RETURNING");
    }
  }
  return std::nullopt;
}

}  // namespace

ClientSession::Plan ClientSession::plan_text(char type, std::string_view sql) {
  ControlPlane* cp = worker_.shared().control;
  if (cp == nullptr) return {};
  auto view = routing_view();
  if (view == nullptr) {
    Plan p;
    p.kind = Plan::Kind::kRefuse;
    p.error = Error::make(sqlstate::kConnectionFailure,
                          "pgrange cannot route statements: its metadata store is not reachable")
                  .with_detail(cp->unavailable_reason());
    return p;
  }
  bool several = worker_.pool_count() > 1;
  // Compared as a view: its length first, not strcmp against each keyword.
  const std::string keyword = sql::leading_keyword(sql);
  const std::string_view kw = keyword;
  if (temp_objects_) {
    // Before what pgrange does with DDL, EXPLAIN or CREATE INDEX of its tables' names.
    auto analysis = worker_.analyze(sql);
    if (*analysis && touches_temp(**analysis)) return plan_temp(type, analysis, nullptr);
  }
  if (view->tables().empty() && !needs_analysis(kw, several)) return {};
  if (kw == "alter" || kw == "show" || kw == "import" || kw == "cancel" || kw == "reload" ||
      kw == "pause" || kw == "resume") {
    auto admin = sql::parse_admin_statement(sql);
    if (!admin) {
      Plan p;
      p.kind = Plan::Kind::kRefuse;
      p.error = admin.error();
      return p;
    }
    if (*admin) {
      Plan p;
      if (type == 'P' && !backend_) {
        // Parse only prepares (no shard could): the Bind plans it, its Execute runs it.
        defer_parse_ = true;
        return p;
      }
      if (type != 'Q' && type != 'B') {
        p.kind = Plan::Kind::kRefuse;
        p.error = not_supported(
            "pgrange's admin statements run through the extended query protocol only in a "
            "session that holds no shard connection (transaction pooling, outside a "
            "transaction block)",
            "send it as a simple query (as psql does)");
        return p;
      }
      // The console's SHOW statements read only pgrange's own state: inside a block too (as
      // drivers that open one before every statement send them), unless the block failed.
      bool console_show = sql::console_reads_only((*admin)->kind);
      if (console_show && txn_status_ == 'E') {
        p.kind = Plan::Kind::kRefuse;
        p.error = aborted_transaction_error();
        return p;
      }
      if (!console_show && (txn_status_ != 'I' || !deferred_begin_.empty())) {
        p.kind = Plan::Kind::kRefuse;
        p.error = Error::make("25001",
                              "pgrange's admin statements cannot run inside a transaction block");
        return p;
      }
      p.kind = Plan::Kind::kAdmin;
      p.admin = std::move(**admin);
      return p;
    }
  }
  if (kw == "explain" && type == 'Q' &&
      ((txn_status_ == 'I' && deferred_begin_.empty()) ||
       (txn_status_ == 'T' && block_catalog_.empty() && !temp_objects_))) {
    // Inside a block (psycopg2 opens one before every statement) a plan alone is explained as
    // outside: it reads nothing the block wrote.
    if (auto p = plan_explain(sql, txn_status_ != 'I' || !deferred_begin_.empty())) return *p;
  }
  if (type == 'P' && !backend_ && !coord_ && transaction_pooling_ && worker_.pool_count() > 1 &&
      (kw == "begin" || kw == "start" || kw == "commit" || kw == "end" || kw == "rollback" ||
       kw == "abort")) {
    // pgjdbc sends its BEGIN in the pipeline of the transaction's first statement: the Bind
    // decides (as for a BEGIN query) whether pgrange answers it without a connection.
    Plan p;
    p.analysis = worker_.analyze(sql);
    defer_parse_ = true;
    return p;
  }
  if (type == 'P' && runs_as_ddl(sql)) {
    // Parse only prepares: DDL is planned from its text at each Bind, with the map and the
    // transaction state of that moment, and runs at its Execute.
    Plan p;
    p.analysis = worker_.analyze(sql);
    defer_parse_ = !backend_;
    return p;
  }
  if (txn_status_ == 'T' && (kw == "create" || kw == "drop")) {
    // Before what pgrange itself refuses inside a block: PostgreSQL's own refusal.
    if (auto e = block_refusal(*worker_.analyze(sql))) {
      Plan p;
      p.kind = Plan::Kind::kRefuse;
      p.error = std::move(*e);
      return p;
    }
  }
  if (kw == "create") {
    // CREATE INDEX: a global index on a partitioned table, else an ordinary one on every shard.
    auto spec = sql::read_index_statement(sql);
    if (!spec) {
      Plan p;
      p.kind = Plan::Kind::kRefuse;
      p.error = spec.error();
      return p;
    }
    if (*spec) return plan_create_index(type, std::move(**spec));
  }
  if (kw == "drop") {
    auto analysis = worker_.analyze(sql);
    if (auto p = plan_drop_index(type, analysis)) return *p;
    return plan_analysis(type, analysis, nullptr, sql);
  }
  if (kw == "alter") {
    auto analysis = worker_.analyze(sql);
    if (auto p = plan_alter_constraint(type, analysis)) return *p;
  }
  if (kw == "create" || kw == "alter") {
    // PRIMARY KEY … USING HASH: the shards get the plain PRIMARY KEY, the catalog the buckets.
    auto hashed = sql::strip_hash_sharding(sql);
    if (!hashed || *hashed) {
      Plan p;
      p.kind = Plan::Kind::kRefuse;
      if (!hashed) {
        p.error = hashed.error();
        return p;
      }
      p = plan_analysis(type, worker_.analyze((*hashed)->sql), nullptr, (*hashed)->sql);
      if (p.kind == Plan::Kind::kRefuse) return p;
      bool one_create = p.analysis && *p.analysis && (*p.analysis)->size() == 1 &&
                        (**p.analysis)[0].kind == sql::StatementKind::kCreateTable &&
                        !(**p.analysis)[0].temporary;
      bool runs = p.kind == Plan::Kind::kBroadcast || p.block_ddl;
      if (!runs || !one_create) {
        p.kind = Plan::Kind::kRefuse;
        p.error = not_supported(
            "a hash-sharded primary key (USING HASH) is supported by pgrange in a CREATE TABLE "
            "of its own");
        return p;
      }
      auto infos = **p.analysis;
      infos[0].hash_buckets = (*hashed)->buckets;
      infos[0].rewritten_sql = std::move((*hashed)->sql);
      p.analysis =
          std::make_shared<const Result<std::vector<sql::StatementInfo>>>(std::move(infos));
      return p;
    }
  }
  return plan_analysis(type, worker_.analyze(sql), nullptr, sql);
}

std::optional<routing::BindParams> ClientSession::bind_params(std::string_view rest,
                                                              std::string_view parameter_types) {
  BodyReader b(rest);
  routing::BindParams params;
  BodyReader declared(parameter_types);
  int16_t ntypes = 0;
  if (declared.i16(ntypes)) {
    for (int16_t i = 0; i < ntypes; ++i) {
      int32_t oid = 0;
      if (!declared.i32(oid)) break;
      params.types.push_back(static_cast<uint32_t>(oid));
    }
  }
  int16_t nformats = 0, nparams = 0;
  if (!b.i16(nformats)) return params;
  for (int16_t i = 0; i < nformats; ++i) {
    int16_t f = 0;
    if (!b.i16(f)) return std::nullopt;
    params.formats.push_back(f);
  }
  if (!b.i16(nparams)) return params;
  for (int16_t i = 0; i < nparams; ++i) {
    int32_t len = 0;
    std::string_view v;
    if (!b.i32(len)) return std::nullopt;
    if (len < 0) {
      params.values.emplace_back(std::nullopt);
    } else if (b.bytes(static_cast<size_t>(len), v)) {
      params.values.emplace_back(v);
    } else {
      return std::nullopt;
    }
  }
  return params;
}

ClientSession::Plan ClientSession::plan_analysis(char type, const Analysis& analysis,
                                                 const routing::BindParams* params,
                                                 std::string_view text) {
  ControlPlane* cp = worker_.shared().control;
  Plan p;
  p.analysis = analysis;
  if (cp == nullptr || !analysis || !*analysis) return p;  // a syntax error: the shard says it
  const auto& infos = **analysis;
  auto refuse_with = [&](Error e) {
    p.kind = Plan::Kind::kRefuse;
    p.error = std::move(e);
    return p;
  };
  bool several = worker_.pool_count() > 1;
  bool in_block = txn_status_ != 'I' || !deferred_begin_.empty();
  bool broadcast = std::any_of(infos.begin(), infos.end(), is_broadcast);
  // A temporary relation is the session's connection's alone (client_temp.cpp); a statement
  // that makes one (or DDL naming pg_temp) may name it even outside such a session.
  if ((temp_objects_ || broadcast ||
       std::any_of(infos.begin(), infos.end(), [](const auto& s) { return s.temporary; })) &&
      touches_temp(infos)) {
    return plan_temp(type, analysis, params);
  }
  if (broadcast) {
    if (!several && (in_block || type != 'Q')) {
      return p;  // one shard: it can run the DDL as it comes (the catalog does not follow)
    }
    if (txn_status_ == 'T') {
      if (auto e = block_refusal(*analysis)) return refuse_with(std::move(*e));
    }
    if (type != 'Q' && !in_block && (backend_ || coord_)) {
      // The statements before it hold a transaction on a shard until the Sync: DDL run beside
      // it, outside that transaction, could wait for its locks forever.
      return refuse_with(not_supported(
          "DDL through the extended query protocol after statements before the same Sync (in "
          "their implicit transaction), or in a session tied to one connection, is not "
          "supported by pgrange yet",
          "send a Sync before the DDL (end the pipeline there)"));
    }
    if (in_block) {
      // The block's transaction on every shard runs it; what it changes in pgrange's catalog
      // commits with the block (client_block_ddl.cpp).
      if (infos.size() == 1 && (coord_ || can_coordinate())) {
        p.route.shards = ddl_shards(infos);
        p.kind = Plan::Kind::kCoordinate;
        p.block_ddl = true;
        return p;
      }
      return refuse_with(not_supported(
          infos.size() > 1 ? "a query string of several statements with DDL inside a "
                             "transaction block is not supported by pgrange yet"
                           : "DDL inside a transaction block tied to one connection (session "
                             "pooling, a temporary table, or a pipeline before the DDL) is not "
                             "supported by pgrange yet",
          infos.size() > 1 ? "send the statements one by one" : ""));
    }
    for (const auto& s : infos) {
      if (!is_broadcast(s) && !s.tables.empty()) {
        return refuse_with(not_supported(
            "a query string mixing DDL with other statements is not supported by pgrange yet",
            "send the DDL on its own"));
      }
    }
    p.kind = Plan::Kind::kBroadcast;
    return p;
  }
  if ((type == 'Q' || type == 'B') && infos.size() == 1 &&
      infos[0].kind == sql::StatementKind::kTransaction && several && transaction_pooling_ &&
      !backend_ && !coord_) {
    const std::string& tk = infos[0].transaction_kind;
    if ((tk == "begin" || tk == "start") && txn_status_ == 'I' && deferred_begin_.empty()) {
      p.kind = Plan::Kind::kBegin;
      return p;
    }
    if (!deferred_begin_.empty() && (tk == "commit" || tk == "rollback")) {
      p.kind = Plan::Kind::kEnd;
      return p;
    }
  }
  if (infos.size() == 1 && infos[0].kind == sql::StatementKind::kTransaction && several &&
      !in_block &&
      (infos[0].transaction_kind == "commit_prepared" ||
       infos[0].transaction_kind == "rollback_prepared")) {
    // Its parts may be on every shard (client_prepared.cpp); the Bind plans it again.
    if (type == 'P') {
      defer_parse_ = !backend_;
    } else {
      p.kind = Plan::Kind::kPrepared;
    }
    return p;
  }
  if (txn_status_ == 'E' && !backend_ && !deferred_begin_.empty()) {
    return refuse_with(aborted_transaction_error());
  }
  if (type == 'Q' && several && infos.size() == 1 && infos[0].kind == sql::StatementKind::kCopy &&
      infos[0].copy_query && !infos[0].copy_from) {
    if (auto copy = plan_copy_query(analysis, text)) return std::move(*copy);
  }
  auto view = routing_view();
  if (view == nullptr)
    return refuse_with(
        Error::make(sqlstate::kConnectionFailure, "pgrange's metadata store is not reachable"));
  if (transaction_pooling_ && !in_block && !pinned()) {
    if (auto e = session_sequence_refusal(infos)) return refuse_with(std::move(*e));
  }
  p.route = routing::route_statements(*view, infos, params);
  if (type == 'P') {
    // Parse only prepares: the Bind routes, with its parameter values. A statement that needs
    // them (or a transaction's shard) waits for its Bind without a backend.
    p.route.uses.clear();
    if (p.route.refusal || p.route.shards.size() > 1 || p.route.moves_keys) {
      p.route = {};
      defer_parse_ = !backend_;
    } else if (!p.route.shards.empty() && !backend_) {
      p.shard = p.route.shards.front();
    }
    return p;
  }
  // A merge of the shards' answers, or a gather of the tables' rows (proxy/exec), where the
  // route alone does not answer it.
  auto spread = routing::plan_spread(
      *view, infos, text, params, table_sizes().get(), several,
      [this](std::string_view sql, const routing::TableDescriptor& t) {
        return worker_.merge_plan(sql, t);
      },
      p.route);
  if (!spread) return refuse_with(spread.error());
  p.merge = std::move(spread->merge);
  p.gather = std::move(spread->gather);
  choose_kind(p, type, infos, text, params, *view, session_state());
  if (p.kind == Plan::Kind::kRefuse) return p;
  if (p.any_shard) p.shard = static_cast<int>(reference_turn_++ % worker_.pool_count());
  return hold_ranges(std::move(p));
}

std::optional<ClientSession::Plan> ClientSession::plan_copy_query(const Analysis& analysis,
                                                                  std::string_view text) {
  const sql::StatementInfo& info = (**analysis).front();
  auto stmt = sql::read_copy_statement(text.substr(info.begin, info.end - info.begin));
  if (!stmt || !stmt->stdio) return std::nullopt;  // as any COPY: refused over several shards
  auto query_analysis = worker_.analyze(stmt->query);
  if (!*query_analysis || (*query_analysis)->size() != 1 ||
      (*query_analysis)->front().kind != sql::StatementKind::kSelect ||
      (*query_analysis)->front().select_into) {
    return std::nullopt;
  }
  auto copy = std::make_shared<Plan::CopyQuery>();
  copy->options = std::move(stmt->options);
  copy->query = std::move(stmt->query);
  // The query is planned as the SELECT it is: its route prunes ranges, its merge or gather
  // combines what several shards answer.
  Plan p = plan_analysis('Q', query_analysis, nullptr, copy->query);
  if (p.kind == Plan::Kind::kPass) {
    // On one shard the COPY runs there whole.
    p.analysis = analysis;
    return p;
  }
  if (p.kind == Plan::Kind::kRead || p.kind == Plan::Kind::kCoordinate) {
    // Its rows from one shard in a block over several: relayed as the shard sends them.
    if (!p.merge && !p.gather) {
      p.merge = std::make_shared<const Result<sql::MergeQuery>>(sql::relayed(copy->query));
    }
    p.copy_query = std::move(copy);
  }
  return p;
}

routing::SessionState ClientSession::session_state() const {
  routing::SessionState s;
  s.shards = worker_.pool_count();
  s.in_block = txn_status_ != 'I' || !deferred_begin_.empty();
  s.coordinated = (coord_ != nullptr);
  s.tied_shard = backend_ ? backend_->shard_index() : -1;
  s.can_coordinate = can_coordinate();
  s.can_adopt_pipeline = can_adopt_pipeline();
  s.transaction_pooling = transaction_pooling_;
  s.pinned = pinned();
  s.runs_statements_itself = runs_statements_itself();
  s.failed = txn_status_ == 'E';
  return s;
}

ClientSession::Plan ClientSession::hold_ranges(Plan p) {
  if (p.route.uses.empty()) return p;
  ControlPlane* cp = worker_.shared().control;
  delay_point("before_hold");
  if (!cp->activity().enter(p.route.uses, uses_)) {
    p.kind = Plan::Kind::kWait;
    return p;
  }
  // A move drains the uses registered when it publishes its map. Uses routed with an older
  // map than the published one may have come after that drain (the map can change between
  // routing and here): route again with the new one.
  if (cp->published_version() != p.route.view_version) {
    cp->activity().leave(p.route.uses);
    p.kind = Plan::Kind::kWait;
    return p;
  }
  uses_.insert(uses_.end(), p.route.uses.begin(), p.route.uses.end());
  worker_.count_uses(p.route.uses, p.route.samples);
  return p;
}

void ClientSession::leave_ranges() {
  if (uses_.empty()) return;
  if (ControlPlane* cp = worker_.shared().control) cp->activity().leave(uses_);
  uses_.clear();
}

std::shared_ptr<const routing::TableSizes> ClientSession::table_sizes() const {
  ControlPlane* cp = worker_.shared().control;
  return cp != nullptr ? cp->table_sizes() : nullptr;
}

bool ClientSession::refuse(char type, const Error& e, std::string& out) {
  route_kind_ = RouteKind::kRefused;
  if (coord_) {
    // In a transaction over several shards an error aborts it, as PostgreSQL's would.
    coord_->failed = true;
    txn_status_ = 'E';
  }
  if (backend_ && type != 'Q') return fail_on_backend(e, out);
  if (!deferred_begin_.empty() && !coord_ && !backend_) txn_status_ = 'E';
  if (type == 'Q') {
    if (backend_) {
      // Fail the statement on the backend itself, so its transaction aborts as PostgreSQL's
      // would have.
      PendingEntry entry;
      entry.kind = Pending::kQuery;
      entry.raised = true;
      pending_.push_back(std::move(entry));
      write_query(out, raise_sql(e));
      return true;
    }
    PendingEntry entry;
    entry.kind = Pending::kSyntheticQuery;
    write_error(entry.payload, e);
    pending_.push_back(std::move(entry));
    return true;
  }
  PendingEntry entry;
  entry.kind = Pending::kSyntheticError;
  write_error(entry.payload, e);
  pending_.push_back(std::move(entry));
  unsynced_ = true;
  skip_until_sync_ = true;
  return true;
}

bool ClientSession::fail_on_backend(const Error& e, std::string& out) {
  // The backend's unnamed statement is pgrange's then: the client's goes there again before
  // the client uses it.
  MessageWriter(out).begin('P').cstr("").cstr(raise_sql(e)).i16(0).end();
  push(Pending::kSwallowParse);
  MessageWriter(out).begin('B').cstr("").cstr("").i16(0).i16(0).i16(0).end();
  push(Pending::kBind);
  pending_.back().hidden = true;
  MessageWriter(out).begin('E').cstr("").i32(0).end();
  push(Pending::kExecute);
  pending_.back().raised = true;
  if (!unnamed_tail_.empty()) {
    deferred_parse_.clear();
    MessageWriter(deferred_parse_).begin('P').cstr("").bytes(unnamed_tail_).end();
  }
  unsynced_ = true;
  skip_until_sync_ = true;
  return true;
}

std::optional<Error> ClientSession::bind_count_error(const ExtendedMerge& m,
                                                     std::string_view bind_body) const {
  BodyReader declared(m.parameter_types);
  int16_t wanted = 0;
  declared.i16(wanted);  // no parameter types: none
  BodyReader b(m.bind_rest);
  int16_t formats = 0, supplied = 0;
  bool readable = b.i16(formats) && formats >= 0;
  for (int16_t i = 0; readable && i < formats; ++i) {
    int16_t f = 0;
    readable = b.i16(f);
  }
  readable = readable && b.i16(supplied);
  if (readable && supplied == wanted) return std::nullopt;
  std::string_view portal, statement;
  BodyReader names(bind_body);
  names.cstr(portal);
  names.cstr(statement);
  if (!readable) return Error::make(sqlstate::kProtocolViolation, "invalid Bind message");
  return Error::make(sqlstate::kProtocolViolation,
                     "bind message supplies " + std::to_string(supplied) +
                         " parameters, but prepared statement \"" + std::string(statement) +
                         "\" requires " + std::to_string(wanted));
}

bool ClientSession::runs_as_ddl(std::string_view sql) {
  const Analysis analysis = worker_.analyze(sql);
  if (*analysis) return std::any_of((*analysis)->begin(), (*analysis)->end(), is_broadcast);
  // What libpg_query cannot parse: pgrange's own clauses.
  std::string kw = sql::leading_keyword(sql);
  if (kw != "create" && kw != "alter") return false;
  auto hashed = sql::strip_hash_sharding(sql);
  if (hashed && *hashed) return true;
  auto index = sql::read_index_statement(sql);
  return index && *index;
}

bool ClientSession::admin_text(std::string_view sql) {
  std::string kw = sql::leading_keyword(sql);
  if (kw != "alter" && kw != "show" && kw != "import" && kw != "cancel" && kw != "reload" &&
      kw != "pause" && kw != "resume") {
    return false;
  }
  auto admin = sql::parse_admin_statement(sql);
  return !admin || *admin;  // a malformed one is refused as the Query's is
}

std::string_view ClientSession::bound_text(std::string_view bind_body) const {
  std::string_view portal, stmt;
  BodyReader b(bind_body);
  if (!b.cstr(portal) || !b.cstr(stmt)) return {};
  std::string_view tail = unnamed_tail_;
  if (!stmt.empty()) {
    auto it = statements_.find(std::string(stmt));
    if (it == statements_.end()) return {};
    tail = it->second.parse_tail;
  }
  return tail.substr(0, tail.find('\0'));
}

bool ClientSession::leaves_made_key_to_select(std::string_view sql) {
  if (sql::leading_keyword(sql) != "insert") return false;
  auto analysis = worker_.analyze(sql);
  if (!*analysis || (*analysis)->size() != 1 || (*analysis)->front().insert_values) return false;
  auto fill = generated_key_fill(sql);
  return !fill && fill.error().sqlstate == sqlstate::kFeatureNotSupported;
}

ClientSession::Analysis ClientSession::bound_analysis(std::string_view bind_body) const {
  std::string_view portal, stmt;
  BodyReader b(bind_body);
  if (!b.cstr(portal) || !b.cstr(stmt)) return nullptr;
  if (stmt.empty()) return unnamed_analysis_;
  auto it = statements_.find(std::string(stmt));
  return it == statements_.end() ? nullptr : it->second.analysis;
}

awaitable<ClientSession::Plan> ClientSession::wait_out_moves(Plan p, std::function<Plan()> plan) {
  asio::steady_timer timer(worker_.io());
  auto deadline = std::chrono::steady_clock::now() + kMoveWaitLimit;
  while (p.kind == Plan::Kind::kWait) {
    if (std::chrono::steady_clock::now() > deadline) {
      p.kind = Plan::Kind::kRefuse;
      p.error = Error::make("55006", "a range this statement needs stayed busy moving for " +
                                         std::to_string(kMoveWaitLimit.count()) + " s");
      break;
    }
    timer.expires_after(std::chrono::milliseconds(5));
    error_code ec;
    co_await timer.async_wait(no_throw(ec));
    p = plan();
  }
  co_return p;
}

awaitable<bool> ClientSession::route_message(char type, std::string_view body, std::string_view raw,
                                             std::string& out, bool& ok) {
  (void)raw;
  ok = true;
  BodyReader br(body);
  std::string_view text;
  Plan p;
  auto plan = [&]() -> Plan {
    if (type == 'Q') {
      return plan_text('Q', text);
    }
    if (type == 'P') return plan_text('P', text);
    // Bind: route the statement it binds with the map of this moment and its values.
    std::string_view portal, stmt;
    BodyReader b(body);
    if (!b.cstr(portal) || !b.cstr(stmt)) return Plan{};
    const Analysis* analysis = &unnamed_analysis_;
    std::string_view tail = unnamed_tail_;
    if (!stmt.empty()) {
      auto it = statements_.find(std::string(stmt));
      if (it == statements_.end()) return Plan{};
      analysis = &it->second.analysis;
      tail = it->second.parse_tail;
    }
    // DDL is planned again from its text (what its Parse analysed says whether it is DDL; only
    // a text libpg_query could not parse is looked at again).
    std::string_view statement = tail.substr(0, tail.find('\0'));
    bool ddl_text = *analysis && **analysis
                        ? std::any_of((**analysis)->begin(), (**analysis)->end(), is_broadcast)
                        : *analysis && runs_as_ddl(statement);
    if (ddl_text) {
      Plan ddl = plan_text('B', statement);
      ddl.ddl = true;
      return ddl;
    }
    // pgrange's admin statements (SPLIT AT, SHOW RANGES, …): libpg_query cannot parse most of
    // them, the others are utility statements; a routed DML statement is never one.
    bool dml = *analysis && **analysis &&
               std::all_of((**analysis)->begin(), (**analysis)->end(), [](const auto& info) {
                 return info.kind == sql::StatementKind::kSelect ||
                        info.kind == sql::StatementKind::kInsert ||
                        info.kind == sql::StatementKind::kUpdate ||
                        info.kind == sql::StatementKind::kDelete;
               });
    if (!dml && admin_text(statement)) return plan_text('B', statement);
    // Statements pgrange does not route (no analysis) need no parameter decoding.
    if (!*analysis || !**analysis) return Plan{};
    auto params = bind_params(b.rest(), parameter_types(stmt));
    if (!params) return Plan{};  // malformed: dispatch reports it
    return plan_analysis('B', *analysis, &*params, tail.substr(0, tail.find('\0')));
  };
  if (type == 'Q') {
    if (!br.cstr(text)) co_return true;
    if (auto e = internal_object_refusal(text)) {
      ok = refuse(type, *e, out);
      co_return false;
    }
    // The cheap tests that leave most statements go first: a coroutine frame is made only for
    // what they let through.
    if (sql::mentions_sequence_function(text) && co_await answer_sequence_call(text, out, ok)) {
      co_return false;
    }
    const std::string keyword = sql::leading_keyword(text);
    const std::string_view kw = keyword;
    if (sql::is_cursor_keyword(kw) && co_await run_cursor_statement(text, ok)) co_return false;
    if (may_create_as(kw, text) && co_await run_create_as(text)) co_return false;
    if (auto e = copy_leaves_key(kw, text)) {
      ok = refuse(type, *e, out);
      co_return false;
    }
    // A data-modifying WITH over several shards: its parts run one after the other in one
    // transaction (client_modifying_with.cpp).
    if (kw == "with") {
      auto m = co_await run_modifying_with(text);
      if (!m) {
        ok = refuse(type, m.error(), out);
        co_return false;
      }
      if (*m) co_return false;
    }
    // INSERT … SELECT whose rows pgrange must route: its query runs here, its rows become an
    // INSERT … VALUES (client_insert_select.cpp), which goes on from here as if the client
    // had sent it.
    bool expanded = false;
    // (WITH … INSERT … query: an INSERT … SELECT whose query has the WITH.)
    std::optional<std::string> with_insert =
        kw == "with" ? sql::with_inside_insert(text) : std::nullopt;
    if (kw == "insert" || with_insert) {
      auto e = co_await expand_insert_select(with_insert ? *with_insert : text);
      if (!e) {
        ok = refuse(type, e.error(), out);
        co_return false;
      }
      expanded = *e;
      if (expanded && insert_rows_) {
        // More rows than one INSERT holds: written in parts, in one transaction.
        ok = co_await run_insert_parts();
        co_return false;
      }
    }
    if (!expanded && (kw == "update" || kw == "delete" || kw == "insert" || kw == "with")) {
      // A write reading tables spread over other shards: they are read here, and the write
      // with their rows goes on (client_gather.cpp).
      auto e = co_await expand_write_reads(text);
      if (!e) {
        ok = refuse(type, e.error(), out);
        co_return false;
      }
      expanded = *e;
    }
    if (expanded && !expanded_answer_.empty()) {
      std::string z;
      emit_ready_synthetics(z);
      z += expanded_answer_;
      write_ready_for_query(z, txn_status_);
      channel_.send(std::move(z));
      co_return false;
    }
    if (expanded) text = expanded_sql_;
    // Keys pgrange makes are written into the INSERT before it is routed; the shards get that
    // text.
    rewritten_message_.clear();
    Result<std::optional<std::string>> filled = std::nullopt;
    if (icontains(text, "insert")) filled = co_await fill_generated_keys(text);
    if (!filled) {
      ok = refuse(type, filled.error(), out);
      co_return false;
    }
    if (*filled) {
      write_query(rewritten_message_, **filled);
      text = std::string_view(rewritten_message_).substr(5, (*filled)->size());
    } else if (expanded) {
      write_query(rewritten_message_, expanded_sql_);
    }
  } else if (type == 'P') {
    std::string_view name;
    if (!br.cstr(name) || !br.cstr(text)) co_return true;
    if (auto e = internal_object_refusal(text)) {
      ok = refuse(type, *e, out);
      co_return false;
    }
    if (auto e = copy_leaves_key(sql::leading_keyword(text), text)) {
      ok = refuse(type, *e, out);
      co_return false;
    }
  }
  bool creates_temp = false;
  if (!transaction_pooling_ && !temp_objects_ && type != 'B') {
    // Session pooling pins nothing (the session keeps its connection), but a session with
    // temporary relations must have its statements on them resolved there (from the next
    // statement on, as pin_effects does in transaction pooling).
    for (const auto& e : sql::session_effects(text)) {
      creates_temp = creates_temp || e.kind == sql::SessionEffectKind::kCreateTemp;
    }
  }
  temp_names_.clear();
  if (temp_objects_ && backend_) {
    Analysis analysis = type == 'B' ? bound_analysis(body) : worker_.analyze(text);
    if (auto e = co_await resolve_temp_names(analysis)) {
      ok = refuse(type, *e, out);
      co_return false;
    }
    // What may remove temporary relations (DROP, DISCARD, the end of a transaction with ON
    // COMMIT DROP or a rolled back CREATE): the next message asks whether any are left.
    std::string kw = sql::leading_keyword(text);
    temp_check_due_ = temp_check_due_ || kw == "drop" || kw == "discard" || kw == "commit" ||
                      kw == "end" || kw == "rollback" || kw == "abort";
  }
  temp_objects_ = temp_objects_ || creates_temp;
  if (type == 'B' && coord_ && !coord_->portals.empty()) {
    std::string_view portal;
    if (BodyReader(body).cstr(portal)) coord_->portals.erase(std::string(portal));  // replaced
  }
  if (type == 'B' && cursor_parsed_ && worker_.pool_count() > 1 && transaction_pooling_) {
    // DECLARE, FETCH, MOVE or CLOSE of a cursor pgrange reads over several shards
    // (client_cursor.cpp): the Bind is answered here, the statement runs at its Execute.
    std::string_view text = bound_text(body);
    std::optional<Plan> query_plan;
    if (!text.empty() && sql::names_cursor(text) &&
        runs_cursor_through_pgrange(text, body, query_plan)) {
      ExtendedMerge& m = bound_merge(body);
      m.cursor = true;
      m.cursor_query = std::move(query_plan);
      co_return false;
    }
  }
  p = plan();
  if (p.kind == Plan::Kind::kWait) p = co_await wait_out_moves(std::move(p), plan);
  note_route(p, type == 'B' && config().slow_statement.count() > 0 ? bound_text(body) : text);
  if (type == 'P') parse_analysis_ = p.analysis;
  if (type == 'P' && as_query_parse_) {
    // An INSERT … SELECT pgrange runs at its Execute: no shard gets its Parse.
    as_query_parse_ = false;
    if (p.kind == Plan::Kind::kPass) {
      p.shard = -1;
      defer_parse_ = !backend_;  // with a backend, defer_to_bind() keeps it back
    }
  }
  // An INSERT … SELECT (or CREATE TABLE … AS) pgrange may run itself; a point read or a
  // VALUES insert, the common Binds, costs one look at its analysis.
  const sql::StatementInfo* one =
      p.analysis && *p.analysis && (*p.analysis)->size() == 1 ? &(*p.analysis)->front() : nullptr;
  if (type == 'B' && one != nullptr && p.kind == Plan::Kind::kRefuse && p.error &&
      p.error->sqlstate == sqlstate::kFeatureNotSupported && runs_statements_itself() &&
      txn_status_ != 'E' &&
      std::any_of(one->relations.begin(), one->relations.end(),
                  [](const sql::RelationUse& u) { return u.writes && !u.target; })) {
    // A data-modifying WITH over several shards: run in parts at its Execute
    // (client_modifying_with.cpp), which says what it refuses.
    ExtendedMerge& m = bound_merge(body);
    m.modifying_with = true;
    co_return false;
  }
  if (type == 'B' && one != nullptr &&
      ((one->kind == sql::StatementKind::kInsert && !one->insert_values) ||
       one->kind == sql::StatementKind::kCreateTable)) {
    bool made_key_select = leaves_made_key_to_select(bound_text(body));
    if ((made_key_select || p.kind == Plan::Kind::kRefuse || p.kind == Plan::Kind::kBroadcast ||
         p.kind == Plan::Kind::kCoordinate) &&
        as_query_bind(body, p, made_key_select)) {
      // CREATE TABLE … AS or INSERT … SELECT: run at its Execute as for a Query.
      ExtendedMerge& m = bound_merge(body);
      m.as_query = true;
      co_return false;
    }
    if (made_key_select) {
      // Never to a shard, whose own default would make keys pgrange also hands out.
      auto fill = generated_key_fill(bound_text(body));
      ok = refuse(
          type,
          fill ? not_supported("this INSERT … SELECT is not supported here yet") : fill.error(),
          out);
      co_return false;
    }
  }
  switch (p.kind) {
    case Plan::Kind::kPass:
      if (!backend_) route_shard_ = p.shard;
      co_return true;
    case Plan::Kind::kWait:
    case Plan::Kind::kRefuse:
      ok = refuse(type, *p.error, out);
      co_return false;
    case Plan::Kind::kAdmin:
    case Plan::Kind::kBroadcast:
    case Plan::Kind::kCreateIndex:
    case Plan::Kind::kDropIndex:
    case Plan::Kind::kPrepared:
      if (type == 'B') {
        // Extended protocol: the Bind is answered here, the DDL runs at its Execute.
        ExtendedMerge& m = bound_merge(body);
        if (auto e = bind_count_error(m, body)) {
          extended_merge_.reset();
          ok = refuse(type, *e, out);
          co_return false;
        }
        m.utility = std::move(p);
        co_return false;
      }
      if (p.kind == Plan::Kind::kAdmin) {
        ok = co_await run_admin(*p.admin);
      } else if (p.kind == Plan::Kind::kPrepared) {
        ok = co_await run_prepared(p);
      } else if (p.kind == Plan::Kind::kBroadcast) {
        ok = co_await run_broadcast(text, **p.analysis);
      } else {
        ok = co_await run_index_ddl(p);
      }
      co_return false;
    case Plan::Kind::kExplain:
      ok = co_await run_explain(p);
      co_return false;
    case Plan::Kind::kRead:
      if (type == 'B') {
        // Extended protocol: the Bind is answered here; its Describe and Execute follow.
        ExtendedMerge& m = bound_merge(body);
        if (p.gathered_write) {
          m.write_gather = p.gather;
        } else if (p.gather) {
          m.gather = p.gather;
        } else {
          m.merge = p.merge;
        }
        m.route = std::move(p.route);
        co_return false;
      }
      ok = co_await run_read(p, text);
      co_return false;
    case Plan::Kind::kCopyIn:
      ok = co_await start_copy_in(text, p);
      co_return false;
    case Plan::Kind::kScript:
      ok = co_await run_script(text, p);
      co_return false;
    case Plan::Kind::kCoordinate:
      if (type == 'B' && !can_coordinate() && can_adopt_pipeline() &&
          !co_await settle_pipeline(out)) {
        // A statement before it in the pipeline failed: the shard skips to the Sync, and so
        // does the client's pipeline (PostgreSQL answers nothing for these messages).
        skip_until_sync_ = true;
        co_return false;
      }
      if (type == 'B') {
        // Extended protocol: the Bind is answered here, the statement runs at its Execute.
        ExtendedMerge& m = bound_merge(body);
        m.route = p.route;
        m.coordinated = std::move(p);
        co_return false;
      }
      ok = co_await run_coordinated(text, p);
      co_return false;
    case Plan::Kind::kBegin:
    case Plan::Kind::kEnd:
      if (type == 'B') {
        // Extended protocol: answered at its Execute, without a connection.
        ExtendedMerge& m = bound_merge(body);
        m.transaction = std::move(p);
        co_return false;
      }
      break;
  }
  switch (p.kind) {
    case Plan::Kind::kBegin: {
      deferred_begin_ = std::string(text);
      txn_begin_sql_ = deferred_begin_;
      txn_status_ = 'T';
      PendingEntry e;
      e.kind = Pending::kSyntheticQuery;
      MessageWriter(e.payload).begin('C').cstr("BEGIN").end();
      pending_.push_back(std::move(e));
      co_return false;
    }
    case Plan::Kind::kEnd: {
      const std::string& tk = (**p.analysis)[0].transaction_kind;
      deferred_begin_.clear();
      txn_status_ = 'I';
      PendingEntry e;
      e.kind = Pending::kSyntheticQuery;
      MessageWriter(e.payload).begin('C').cstr(tk == "commit" ? "COMMIT" : "ROLLBACK").end();
      pending_.push_back(std::move(e));
      co_return false;
    }
    default:
      break;
  }
  co_return true;
}

std::optional<Error> ClientSession::send_result(const routing::ResultSet& rs, std::string& out,
                                                bool describe,
                                                const std::vector<int16_t>& formats) {
  const size_t n = rs.columns.size();
  if (formats.size() > 1 && formats.size() != n) {
    return Error::make(sqlstate::kProtocolViolation,
                       "bind message has " + std::to_string(formats.size()) +
                           " result formats but query has " + std::to_string(n) + " columns");
  }
  auto format = [&](size_t c) -> int16_t {
    return formats.empty() ? 0 : formats[formats.size() == 1 ? 0 : c];
  };
  const size_t start = out.size();
  if (describe && n == 0) {
    MessageWriter(out).begin('n').end();  // a command without rows (RELOAD, CANCEL JOB): NoData
  } else if (describe) {
    MessageWriter w(out);
    w.begin('T').i16(static_cast<int16_t>(n));
    for (size_t c = 0; c < n; ++c) {
      w.cstr(rs.columns[c].name)
          .i32(0)
          .i16(0)
          .i32(static_cast<int32_t>(rs.columns[c].type_oid))
          .i16(-1)
          .i32(-1)
          .i16(format(c));
    }
    w.end();
  }
  for (const auto& row : rs.rows) {
    MessageWriter d(out);
    d.begin('D').i16(static_cast<int16_t>(row.size()));
    for (size_t c = 0; c < row.size(); ++c) {
      const auto& v = row[c];
      if (!v) {
        d.i32(-1);
      } else if (c < n && format(c) != 0) {
        auto bytes = routing::binary_value(rs.columns[c].type_oid, *v);
        if (!bytes) {
          out.resize(start);
          return bytes.error();
        }
        d.i32(static_cast<int32_t>(bytes->size())).bytes(*bytes);
      } else {
        d.i32(static_cast<int32_t>(v->size())).bytes(*v);
      }
    }
    d.end();
  }
  MessageWriter(out).begin('C').cstr(rs.tag).end();
  return std::nullopt;
}

awaitable<bool> ClientSession::run_admin(const sql::AdminStatement& stmt, ExtendedMerge* ext) {
  std::string out;
  std::vector<int16_t> formats;  // the Bind's result formats
  if (ext != nullptr) {
    emit_ready_synthetics(out);  // a ParseComplete answered before comes first
    if (!ext->bind_answered) MessageWriter(out).begin('2').end();
    ext->bind_answered = true;
    std::string_view params;
    if (!split_bind(ext->bind_rest, params, formats)) {
      write_error(out, Error::make(sqlstate::kProtocolViolation, "invalid Bind message"));
      end_answer(ext, true, out);
      co_return true;
    }
  }
  if ((sql::changes_ranges(stmt.kind) || sql::console_statement(stmt.kind)) && !admin()) {
    write_error(
        out, Error::make(sqlstate::kInsufficientPrivilege,
                         "permission denied: " + std::string(sql::admin_statement_name(stmt.kind)) +
                             " needs admin = true in the [[user]] entry of \"" + user_ + "\""));
    end_answer(ext, true, out);
    co_return true;
  }
  // Inside a transaction block it was refused when planned (25001).
  ControlPlane* cp = worker_.shared().control;
  std::function<Result<routing::ResultSet>()> task = [cp, &stmt]() {
    return cp->execute_admin(stmt);
  };
  Result<routing::ResultSet> result;
  std::string notice;
  if (sql::console_statement(stmt.kind)) {
    result = co_await run_console(stmt, notice);
  } else if (JobRunner::runs(stmt.kind)) {
    // Moves run on the job runner's thread: a long one holds up no other session.
    std::function<Result<routing::ResultSet>()> job = [cp, &stmt]() {
      return cp->jobs().execute(stmt);
    };
    result = co_await cp->jobs().call<Result<routing::ResultSet>>(std::move(job));
  } else {
    result = co_await cp->call<Result<routing::ResultSet>>(std::move(task));
  }
  std::optional<Error> error;
  if (!notice.empty()) write_notice(out, notice);
  if (result) {
    // Through the extended protocol its columns come only when the portal was described.
    error = send_result(*result, out, ext == nullptr ? !result->columns.empty() : ext->describe,
                        formats);
  } else {
    error = result.error();
  }
  if (error) write_error(out, *error);
  end_answer(ext, error.has_value(), out);
  co_return true;
}

awaitable<std::optional<Error>> ClientSession::start_query(BackendConnection& conn,
                                                           const std::string& sql) {
  std::string q;
  write_query(q, sql);
  co_return co_await start_request(conn, std::move(q));
}

awaitable<std::optional<Error>> ClientSession::start_request(BackendConnection& conn,
                                                             std::string request) {
  if (auto e = co_await sync_settings(conn)) co_return e;
  if (auto r = co_await conn.send(request); !r) co_return r.error();
  co_return std::nullopt;
}

awaitable<Result<std::vector<std::vector<std::optional<std::string>>>>> ClientSession::query_rows(
    BackendConnection& conn, const std::string& sql) {
  if (auto e = co_await start_query(conn, sql)) {
    conn.mark_broken();
    co_return tl::unexpected(*e);
  }
  auto reply = co_await read_replies(conn);
  if (!reply) co_return tl::unexpected(reply.error());
  if (reply->error) {
    co_return tl::unexpected(error_of_response(*reply->error));
  }
  std::vector<std::vector<std::optional<std::string>>> rows;
  for (const std::string& row : reply->rows) rows.push_back(data_row_values(row));
  co_return rows;
}

std::string ClientSession::utility_request(std::string_view sql, const ExtendedMerge* ext) {
  std::string request;
  if (ext == nullptr) {
    write_query(request, sql);
  } else {
    MessageWriter(request).begin('P').cstr("").cstr(sql).bytes(ext->parameter_types).end();
    MessageWriter(request).begin('B').cstr("").cstr("").bytes(ext->bind_rest).end();
    MessageWriter(request).begin('E').cstr("").i32(0).end();
    MessageWriter(request).begin('S').end();
  }
  return request;
}

std::vector<int> ClientSession::ddl_shards(const std::vector<sql::StatementInfo>& infos) const {
  bool roles = std::any_of(infos.begin(), infos.end(), [](const sql::StatementInfo& s) {
    return s.kind == sql::StatementKind::kRoleDdl;
  });
  std::vector<int> shards;
  std::set<std::pair<std::string, std::string>> servers;
  for (size_t i = 0; i < worker_.pool_count(); ++i) {
    const config::ShardConfig& s = worker_.shard_config(i);
    // Roles are the server's: shards that are databases of one server share them.
    if (roles && !servers.emplace(s.host, s.port).second) continue;
    shards.push_back(static_cast<int>(i));
  }
  return shards;
}

awaitable<bool> ClientSession::run_broadcast(std::string_view sql_text,
                                             const std::vector<sql::StatementInfo>& infos,
                                             ExtendedMerge* ext) {
  ControlPlane* cp = worker_.shared().control;
  // A hash-sharded CREATE TABLE runs on the shards without its USING HASH, a local CREATE
  // INDEX without what only pgrange reads.
  std::string sql(infos.size() == 1 && !infos[0].rewritten_sql.empty() ? infos[0].rewritten_sql
                                                                       : sql_text);
  std::string out;
  begin_answer(ext, out);
  for (const auto& info : infos) {
    if (auto ok = cp->check_ddl(info); !ok) {
      write_error(out, ok.error());
      end_answer(ext, true, out);
      co_return true;
    }
  }
  // One shard after the other (exec::Broadcast). Through the extended protocol the shards get
  // it so too, with the client's parameters: PostgreSQL refuses them in DDL, and the client
  // sees a shard's own words for it.
  exec::Broadcast::Options o;
  o.shards = ddl_shards(infos);
  o.request = utility_request(sql, ext);
  o.acquire = [this](int shard) -> awaitable<Result<std::shared_ptr<BackendConnection>>> {
    auto conn = co_await acquire_synced(static_cast<size_t>(shard), nullptr);
    if (conn) cancel_target_->track(*conn);  // a cancel reaches the shard running it
    co_return conn;
  };
  o.release = [this](std::shared_ptr<BackendConnection> conn) {
    pool(static_cast<size_t>(conn->shard_index())).release(conn, !conn->broken());
  };
  o.shard_name = [this](int shard) { return pool(static_cast<size_t>(shard)).shard().name; };
  o.undo = exec::undo_of_broadcast(infos);
  exec::Broadcast broadcast(std::move(o));
  if (!co_await send_tree(&broadcast, std::nullopt, ext, out, false)) {
    end_answer(ext, true, out);
    co_return true;
  }
  if (std::any_of(infos.begin(), infos.end(), [](const sql::StatementInfo& s) {
        return s.changes_privileges || s.kind == sql::StatementKind::kRoleDdl;
      })) {
    worker_.shared().privilege_changes.fetch_add(1, std::memory_order_acq_rel);
  }
  bool failed = false;
  for (const auto& info : infos) {
    // Named, not a temporary inside co_await: g++ 12 destroys such temporaries twice.
    std::function<Result<std::string>()> task = [cp, &info]() {
      return cp->after_ddl(info, info.hash_buckets);
    };
    auto r = co_await cp->call<Result<std::string>>(std::move(task));
    if (!r) {
      write_error(out, r.error());
      failed = true;
      break;
    }
    if (!r->empty()) {
      write_notice(out, *r);
    }
  }
  end_answer(ext, failed, out);
  co_return true;
}

void ClientSession::begin_answer(ExtendedMerge* ext, std::string& out) {
  if (ext == nullptr) return;
  emit_ready_synthetics(out);  // a ParseComplete answered before comes first
  if (!ext->bind_answered) MessageWriter(out).begin('2').end();
  ext->bind_answered = true;
  if (ext->describe) MessageWriter(out).begin('n').end();  // NoData: DDL returns no rows
}

void ClientSession::end_answer(ExtendedMerge* ext, bool failed, std::string& out) {
  if (ext == nullptr) {
    write_ready_for_query(out, txn_status_);
  } else if (failed) {
    skip_until_sync_ = true;  // PostgreSQL's rule: after an error, everything up to Sync goes
  }
  channel_.send(std::move(out));
}

}  // namespace pgrange::proxy
