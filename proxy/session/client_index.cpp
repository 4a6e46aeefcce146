// ClientSession and global secondary indexes: the index entries of the rows a write reported
// (written in the write's transaction, on the shards owning them), and SELECTs read through an
// index (its entries first, then the rows they name: the index join; or the index alone when it
// stores every column the query needs).

#include <spdlog/spdlog.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "proxy/control/control_plane.hpp"
#include "proxy/exec/index_join.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "routing/plan/index_maintenance.hpp"
#include "routing/plan/index_read.hpp"
#include "routing/plan/shard_unique_index.hpp"
#include "sql/quoting.hpp"

namespace pgrange::proxy {

namespace {

/// Runs `sql` on a connection (in whatever transaction it holds) and reads its answer.
awaitable<Result<BackendReply>> run_on(BackendConnection& conn, const std::string& sql) {
  std::string request;
  write_query(request, sql);
  if (auto r = co_await conn.send(request); !r) {
    conn.mark_broken();
    co_return tl::unexpected(r.error());
  }
  co_return co_await read_replies(conn);
}

}  // namespace

awaitable<std::optional<Error>> ClientSession::write_index_entries(
    const std::vector<BackendConnection*>& sources, const PartOpener& part_on) {
  // The notes of every part, in the order they were read: a row written on one shard and
  // then on another (a key moving in a transaction block) nets out right.
  std::vector<std::pair<uint64_t, std::string>> read;
  for (BackendConnection* c : sources) {
    for (auto& n : c->index_notes()) read.push_back(std::move(n));
    c->index_notes().clear();
  }
  std::sort(read.begin(), read.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::map<uint64_t, std::vector<routing::IndexNote>> by_table;
  std::optional<Error> bad;
  for (const auto& [order, body] : read) {
    auto note = routing::read_index_note(body);
    if (!note) {
      if (!bad) bad = note.error();
    } else if (*note) {
      by_table[(*note)->table_id].push_back(std::move(**note));
    }
  }
  if (bad) co_return bad;
  if (by_table.empty()) co_return std::nullopt;
  auto view = routing_view();
  for (const auto& [table_id, notes] : by_table) {
    const routing::TableDescriptor* t = view->find_table_id(table_id);
    if (t == nullptr || t->indexes.empty()) continue;  // dropped meanwhile
    auto writes = routing::index_entry_writes(*view, *t, notes);
    if (!writes) co_return writes.error();
    for (const auto& [shard, sql] : *writes) {
      auto part = co_await part_on(shard);
      if (!part) co_return part.error();
      auto reply = co_await run_on(**part, sql);
      if (!reply) co_return reply.error();
      if (reply->error) co_return error_of_response(*reply->error);
    }
  }
  co_return std::nullopt;
}

awaitable<std::optional<Error>> ClientSession::write_index_entries(std::vector<TxnPart>& parts) {
  std::vector<BackendConnection*> sources;
  bool any = false;
  for (TxnPart& part : parts) {
    sources.push_back(part.conn.get());
    any = any || !part.conn->index_notes().empty();
  }
  if (!any) co_return std::nullopt;
  // A shard the transaction has not touched yet: its part opens with a plain BEGIN (the entry
  // writes name their tables with their schema and need none of the session's settings).
  PartOpener part_on = [this, &parts](int shard) -> awaitable<Result<BackendConnection*>> {
    for (TxnPart& part : parts) {
      if (part.shard == shard) co_return part.conn.get();
    }
    auto acquired = co_await acquire_for_client(static_cast<size_t>(shard));
    if (!acquired) co_return tl::unexpected(acquired.error());
    TxnPart& part = parts.emplace_back();
    part.shard = shard;
    part.conn = *acquired;
    std::string request;
    write_query(request, "BEGIN");
    if (auto e = co_await start_request(*part.conn, std::move(request))) {
      part.broken = true;
      co_return tl::unexpected(*e);
    }
    auto reply = co_await read_replies(*part.conn);
    if (!reply) {
      part.broken = true;
      co_return tl::unexpected(reply.error());
    }
    part.in_transaction = true;
    if (reply->error) co_return tl::unexpected(error_of_response(*reply->error));
    co_return part.conn.get();
  };
  co_return co_await write_index_entries(sources, part_on);
}

awaitable<std::optional<Error>> ClientSession::write_coordinated_index_entries() {
  std::vector<BackendConnection*> sources;
  for (const auto& [shard, conn] : coord_->parts) sources.push_back(conn.get());
  PartOpener part_on = [this](int shard) { return coordinated_part(shard); };
  co_return co_await write_index_entries(sources, part_on);
}

ClientSession::Plan ClientSession::plan_create_index(char type, sql::IndexSpec spec) {
  Plan p;
  auto view = routing_view();
  const routing::TableDescriptor* t = view->find_table(spec.table.schema, spec.table.name);
  // Every shard holds all of a reference table's rows: its ordinary indexes (UNIQUE ones too)
  // hold across the shards as they are.
  bool several = worker_.pool_count() > 1 && (t == nullptr || !t->reference);
  bool global = t != nullptr && !t->key.empty() && !spec.local && several;
  auto refuse_with = [&](Error e) {
    p.kind = Plan::Kind::kRefuse;
    p.error = std::move(e);
    return p;
  };
  // A UNIQUE index without the whole key: two rows with equal values may be on two shards, so
  // only a global index enforces it (a cluster of one shard enforces anything).
  std::vector<std::string> key =
      t != nullptr ? routing::row_key_names(*t) : std::vector<std::string>{};
  bool spread_unique =
      spec.unique && several && !key.empty() &&
      !std::all_of(key.begin(), key.end(), [&](const std::string& k) {
        return std::find(spec.columns.begin(), spec.columns.end(), k) != spec.columns.end();
      });
  std::string key_names = sql::column_list(key);
  if (spread_unique && spec.local) {
    return refuse_with(not_supported(
        "a local UNIQUE index (WITH (local = true)) that does not contain the key of table \"" +
            t->name + "\" (" + key_names +
            ") is not supported: each shard would enforce it on "
            "its own rows only",
        "drop WITH (local = true): pgrange then makes it a global index, enforced across "
        "shards"));
  }
  if (spec.hashed && !global) {
    return refuse_with(not_supported(
        "a hash-sharded index (USING HASH) is a global index: it needs a table pgrange "
        "partitions by a key, over several shards"));
  }
  // Inside a transaction block a global index cannot be built (pgrange builds it outside any
  // transaction): an index that need not be global for its answers to hold is an ordinary one
  // on every shard there, which the block commits with the rest.
  bool in_block = txn_status_ != 'I' || !deferred_begin_.empty() || backend_;
  std::string local_notice;
  if (global && in_block && !spread_unique && !spec.hashed && spec.global_blocker.empty()) {
    global = false;
    local_notice = (spec.name.empty() ? std::string("the index") : "index \"" + spec.name + "\"") +
                   " is made inside a transaction block, so it is an ordinary index on every "
                   "shard, not a global index";
  } else if (global && view->in_family(*t) && !spread_unique && !spec.hashed) {
    // A partitioned table's or an inheritance parent's (or child's): the writes to the rest of
    // its family would not reach a global index; an ordinary one gives the same answers.
    global = false;
    local_notice = (spec.name.empty() ? std::string("the index") : "index \"" + spec.name + "\"") +
                   " is on a table with partitions or inheritance children (or one of them), so "
                   "it is an ordinary index on every shard, not a global index";
  }
  if (!global) {
    // An ordinary index on every shard: the statement as PostgreSQL takes it.
    std::string text = spec.shard_sql;
    p = plan_analysis(type, worker_.analyze(text), nullptr, text);
    if (p.block_ddl) p.block_notice = std::move(local_notice);
    if ((p.kind == Plan::Kind::kBroadcast || p.block_ddl) && p.analysis && *p.analysis &&
        (*p.analysis)->size() == 1) {
      auto infos = **p.analysis;
      infos[0].rewritten_sql = std::move(text);
      p.analysis =
          std::make_shared<const Result<std::vector<sql::StatementInfo>>>(std::move(infos));
    }
    return p;
  }
  if (!spec.global_blocker.empty() && spread_unique) {
    return refuse_with(not_supported(
        "a UNIQUE index with " + spec.global_blocker +
            " that does not contain the key of table \"" + t->name + "\" (" + key_names +
            ") is not supported by pgrange over several shards",
        "a global index cannot take it yet, and an index on every shard would enforce it on "
        "each shard's own rows only"));
  }
  if (!spec.global_blocker.empty()) {
    return refuse_with(not_supported(
        "a global index with " + spec.global_blocker + " is not supported by pgrange yet",
        "an ordinary index on every shard takes it: CREATE INDEX … WITH (local = true)"));
  }
  if (txn_status_ != 'I' || !deferred_begin_.empty() || backend_) {
    return refuse_with(not_supported(
        std::string(spec.constraint ? "ALTER TABLE … ADD CONSTRAINT … UNIQUE (a global index "
                                      "over several shards)"
                                    : "CREATE INDEX of a global index") +
            " inside a transaction block is not supported by pgrange",
        "it builds the index on every shard, outside any transaction"));
  }
  p.kind = Plan::Kind::kCreateIndex;
  p.index = std::move(spec);
  return p;
}

std::optional<ClientSession::Plan> ClientSession::plan_drop_index(char type,
                                                                  const Analysis& analysis) {
  if (!analysis || !*analysis || (*analysis)->size() != 1) return std::nullopt;
  const sql::StatementInfo& info = (**analysis)[0];
  if (info.kind != sql::StatementKind::kDropIndex) return std::nullopt;
  auto view = routing_view();
  Plan p;
  p.analysis = analysis;
  size_t local = 0;
  for (const sql::TableRef& ref : info.dropped_objects) {
    bool found = false;
    for (const routing::TableDescriptor& t : view->tables()) {
      if (!ref.schema.empty() && ref.schema != t.schema) continue;
      if (ref.schema.empty() && t.schema != "public") continue;
      if (const routing::IndexDescriptor* i = routing::find_index(t, ref.name)) {
        p.dropped.emplace_back(t.table_id, i->index_id);
        found = true;
      }
    }
    if (!found) ++local;
  }
  if (p.dropped.empty()) return std::nullopt;
  auto refuse_with = [&](Error e) {
    p.kind = Plan::Kind::kRefuse;
    p.error = std::move(e);
    return p;
  };
  for (const auto& [table_id, index_id] : p.dropped) {
    // PostgreSQL's refusal: the index of a constraint goes with the constraint.
    const routing::TableDescriptor* t = view->find_table_id(table_id);
    for (const routing::IndexDescriptor& i : t->indexes) {
      if (i.index_id != index_id || !i.constraint) continue;
      return refuse_with(Error::make("2BP01", "cannot drop index " + i.name +
                                                  " because constraint " + i.name + " on table " +
                                                  t->name + " requires it")
                             .with_hint("You can drop constraint " + i.name + " on table " +
                                        t->name + " instead."));
    }
  }
  if (local > 0) {
    return refuse_with(
        not_supported("DROP INDEX of global indexes together with other indexes is not supported",
                      "drop the global indexes in a statement of their own"));
  }
  if (info.cascade) {
    return refuse_with(not_supported("DROP INDEX … CASCADE of a global index"));
  }
  if (type == 'P' || txn_status_ != 'I' || !deferred_begin_.empty() || backend_) {
    return refuse_with(not_supported(
        "DROP INDEX of a global index runs only outside transaction blocks, in a session tied "
        "to no connection"));
  }
  p.kind = Plan::Kind::kDropIndex;
  return p;
}

std::optional<ClientSession::Plan> ClientSession::plan_alter_constraint(char type,
                                                                        const Analysis& analysis) {
  if (!analysis || !*analysis || (*analysis)->size() != 1) return std::nullopt;
  const sql::StatementInfo& info = (**analysis)[0];
  if (info.kind != sql::StatementKind::kAlterTable || info.alter_commands != 1) return std::nullopt;
  auto view = routing_view();
  const routing::TableDescriptor* t = view->find_table(info.target.schema, info.target.name);
  if (t == nullptr || t->key.empty() || t->reference || worker_.pool_count() < 2) {
    return std::nullopt;
  }
  if (info.dropped_constraints.size() == 1) {
    // The constraint is a global index of pgrange's: the shards do not have it.
    const routing::IndexDescriptor* i = routing::find_index(*t, info.dropped_constraints[0]);
    if (i == nullptr || !i->constraint) return std::nullopt;
    Plan p;
    p.analysis = analysis;
    if (type == 'P' || txn_status_ != 'I' || !deferred_begin_.empty() || backend_) {
      p.kind = Plan::Kind::kRefuse;
      p.error = not_supported(
          "ALTER TABLE … DROP CONSTRAINT of a UNIQUE constraint pgrange enforces across shards "
          "runs only outside transaction blocks, in a session tied to no connection");
      return p;
    }
    p.kind = Plan::Kind::kDropIndex;
    p.dropped.emplace_back(t->table_id, i->index_id);
    return p;
  }
  // ADD [CONSTRAINT name] UNIQUE (…) without the whole key: a global index. What one cannot
  // carry is refused when the statement is checked (ControlPlane::check_ddl).
  if (info.constraints.size() != 1) return std::nullopt;
  const sql::TableConstraint& c = info.constraints[0];
  if (c.kind != sql::TableConstraint::Kind::kUnique || c.added_column || c.deferrable ||
      !c.using_index.empty() || !c.global_blocker.empty() ||
      sql::contains_key(c, routing::row_key_names(*t))) {
    return std::nullopt;
  }
  sql::IndexSpec spec;
  spec.unique = true;
  spec.constraint = true;
  spec.name = c.name;
  spec.table = info.target;
  spec.columns = c.columns;
  spec.storing = c.include;
  spec.nulls_not_distinct = c.nulls_not_distinct;
  Plan p = plan_create_index(type, std::move(spec));
  p.analysis = analysis;
  return p;
}

awaitable<bool> ClientSession::run_index_ddl(const Plan& plan, ExtendedMerge* ext) {
  ControlPlane* cp = worker_.shared().control;
  std::string out;
  begin_answer(ext, out);
  bool failed = false;
  std::optional<Error> refused;
  if (plan.kind == Plan::Kind::kCreateIndex) {
    refused = co_await check_owner(plan.index->table.schema, plan.index->table.name);
  } else if (auto view = routing_view()) {
    for (const auto& [table_id, index_id] : plan.dropped) {
      const routing::TableDescriptor* t = view->find_table_id(table_id);
      if (t != nullptr && !refused) refused = co_await check_owner(t->schema, t->name);
    }
  }
  if (refused) {
    write_error(out, *refused);
    end_answer(ext, true, out);
    co_return true;
  }
  if (plan.kind == Plan::Kind::kCreateIndex) {
    sql::IndexSpec spec = *plan.index;
    // Named, not a temporary inside co_await: g++ 12 destroys such temporaries twice.
    std::function<Result<std::string>()> task = [cp, spec]() {
      return cp->create_global_index(spec);
    };
    auto r = co_await cp->call<Result<std::string>>(std::move(task));
    if (!r) {
      write_error(out, r.error());
      failed = true;
    } else {
      if (!r->empty()) {
        write_notice(out, *r, "42P07");
      }
      MessageWriter(out).begin('C').cstr(spec.constraint ? "ALTER TABLE" : "CREATE INDEX").end();
    }
  } else {
    auto dropped = plan.dropped;
    std::function<Result<void>()> task = [cp, dropped]() -> Result<void> {
      try {
        for (const auto& [table_id, index_id] : dropped) cp->drop_global_index(table_id, index_id);
      } catch (const std::exception& e) {
        return fail(sqlstate::kInternalError, std::string("DROP INDEX failed: ") + e.what());
      }
      return {};
    };
    auto r = co_await cp->call<Result<void>>(std::move(task));
    if (!r) {
      write_error(out, r.error());
      failed = true;
    } else {
      // ALTER TABLE … DROP CONSTRAINT of a constraint's global index, or DROP INDEX.
      bool alter = plan.analysis && *plan.analysis && !(*plan.analysis)->empty() &&
                   (**plan.analysis)[0].kind == sql::StatementKind::kAlterTable;
      MessageWriter(out).begin('C').cstr(alter ? "ALTER TABLE" : "DROP INDEX").end();
    }
  }
  end_answer(ext, failed, out);
  co_return true;
}

}  // namespace pgrange::proxy
