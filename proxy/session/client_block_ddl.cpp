// ClientSession: DDL inside a transaction block. The statement runs on every shard in the
// block's transaction there (the block becomes a coordinated one over every shard); what it
// changes in pgrange's catalog is recorded as a step of the block (block_catalog_) and
// committed with the block's two-phase commit decision, in the same metadata store
// transaction. Until then the block's own statements route with a view holding its steps;
// other sessions and instances see nothing before the COMMIT.

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>  // before asio/awaitable.hpp (Boost 1.74)

#include "proxy/control/control_plane.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "routing/meta/table_description.hpp"
#include "sql/quoting.hpp"

namespace pgrange::proxy {

std::shared_ptr<const routing::ClusterView> ClientSession::routing_view() {
  auto base = worker_.view();
  if (block_catalog_.steps.empty() || base == nullptr) return base;
  if (block_view_ && block_view_base_ == base) return block_view_;
  auto made = routing::block_view(*base, block_catalog_);
  if (!made) {
    // Routing the block's own tables without their steps would send their rows astray.
    spdlog::error("the view of a transaction block could not be built: {}", made.error().message);
    return nullptr;
  }
  block_view_ = *made;
  block_view_base_ = std::move(base);
  return block_view_;
}

void ClientSession::cut_block_catalog(size_t steps) {
  if (block_catalog_.steps.size() <= steps) return;
  block_catalog_.steps.resize(steps);
  block_view_.reset();
}

void ClientSession::forget_block_catalog() {
  block_catalog_ = {};
  block_privileges_.clear();
  block_view_.reset();
  block_view_base_.reset();
}

awaitable<Result<routing::TableDescription>> ClientSession::describe_in_block(
    BackendConnection& conn, const std::string& schema, const std::string& name) {
  ControlPlane* cp = worker_.shared().control;
  std::string rel = (schema.empty() ? "" : sql::quote_ident(schema) + ".") + sql::quote_ident(name);
  std::string request;
  write_query(request, routing::table_description_sql(rel));
  if (auto r = co_await conn.send(request); !r) co_return tl::unexpected(r.error());
  auto reply = co_await read_replies(conn);
  if (!reply) co_return tl::unexpected(reply.error());
  if (reply->error) {
    ErrorFields ef = parse_error_fields(*reply->error);
    co_return tl::unexpected(Error::make(
        ef.sqlstate, "describing table \"" + name + "\" in the transaction: " + ef.message));
  }
  std::vector<std::vector<std::optional<std::string>>> rows;
  for (const std::string& body : reply->rows) rows.push_back(data_row_values(body));
  co_return routing::describe_table_rows(rows, name, cp->configured_key());
}

awaitable<Result<std::string>> ClientSession::record_block_ddl(const sql::StatementInfo& info,
                                                               const routing::ClusterView& v,
                                                               BackendConnection& conn) {
  ControlPlane* cp = worker_.shared().control;
  using Step = routing::CatalogStep;
  std::string notice;
  bool readers = info.kind == sql::StatementKind::kCreateView ||
                 info.kind == sql::StatementKind::kSchemaDdl ||
                 (!v.readers().empty() && (info.kind == sql::StatementKind::kDropTable ||
                                           info.kind == sql::StatementKind::kAlterTable));
  if (readers && !info.temporary) block_catalog_.readers = true;
  if (info.changes_privileges) block_privileges_.push_back(info);
  if (info.changes_privileges || info.kind == sql::StatementKind::kRoleDdl) {
    worker_.shared().privilege_changes.fetch_add(1, std::memory_order_acq_rel);
  }
  switch (info.kind) {
    case sql::StatementKind::kCreateTable: {
      // An existing table (IF NOT EXISTS) stays as it is.
      if (info.temporary || v.find_table(info.target.schema, info.target.name) != nullptr) break;
      auto described = co_await describe_in_block(conn, info.target.schema, info.target.name);
      if (!described) co_return tl::unexpected(described.error());
      notice = described->notice;
      if (info.hash_buckets > 0 && described->table.key.empty()) {
        notice += " (so its USING HASH has no effect)";
      }
      uint32_t buckets = info.hash_buckets;
      std::optional<routing::TableDescriptor> parent;
      if (!info.parents.empty()) {
        const sql::TableRef& p = info.parents.front();
        if (const routing::TableDescriptor* found = v.find_table(p.schema, p.name)) parent = *found;
      }
      std::function<Result<routing::NewTable>()> task = [cp, d = std::move(*described), buckets,
                                                         parent]() mutable {
        return cp->plan_block_table(std::move(d), buckets, parent ? &*parent : nullptr);
      };
      auto placed = co_await cp->call<Result<routing::NewTable>>(std::move(task));
      if (!placed) co_return tl::unexpected(placed.error());
      Step step;
      step.kind = Step::Kind::kCreate;
      step.created = std::move(*placed);
      block_catalog_.steps.push_back(std::move(step));
      break;
    }
    case sql::StatementKind::kDropTable:
      for (const sql::TableRef& ref : info.tables) {
        if (const routing::TableDescriptor* t = v.find_table(ref.schema, ref.name)) {
          Step step;
          step.kind = Step::Kind::kDrop;
          step.table = *t;
          block_catalog_.steps.push_back(std::move(step));
        }
      }
      break;
    case sql::StatementKind::kAlterTable: {
      const routing::TableDescriptor* t = v.find_table(info.target.schema, info.target.name);
      if (t == nullptr) break;
      routing::TableDescriptor updated = *t;
      if (info.rename_to) updated.name = *info.rename_to;
      if (info.renamed_column) {
        const auto& [from, to] = *info.renamed_column;
        for (auto& k : updated.key) {
          if (k.name == from) k.name = to;
        }
        for (auto& g : updated.generated) {
          if (g.column == from) g.column = to;
        }
      }
      auto described = co_await describe_in_block(conn, updated.schema, updated.name);
      if (!described) co_return tl::unexpected(described.error());
      // Columns came, went or were renamed: INSERTs without a column list follow.
      updated.columns = described->table.columns;
      if (t->key_source == routing::KeySource::kUnsharded && t->member_id == 0 &&
          described->table.key_source != routing::KeySource::kUnsharded) {
        // A primary key added to an unsharded table keys it (its one range stays where it is).
        updated.key_source = described->table.key_source;
        updated.key = described->table.key;
        updated.generated = described->table.generated;
        notice = described->notice;
      }
      if (updated != *t) {
        Step step;
        step.kind = Step::Kind::kUpdate;
        step.table = std::move(updated);
        block_catalog_.steps.push_back(std::move(step));
      }
      break;
    }
    default:
      break;
  }
  block_view_.reset();
  co_return notice;
}

awaitable<void> ClientSession::run_block_ddl(std::string_view sql_text, const Plan& plan,
                                             ExtendedMerge* ext, std::string& out) {
  Coordinated& c = *coord_;
  ControlPlane* cp = worker_.shared().control;
  const sql::StatementInfo& info = (**plan.analysis).front();
  auto fail_block = [&](const Error& e) {
    write_error(out, e);
    c.failed = true;
    txn_status_ = 'E';
  };
  auto v = routing_view();
  if (v == nullptr) {
    fail_block(
        Error::make(sqlstate::kConnectionFailure, "pgrange's metadata store is not reachable"));
    co_return;
  }
  if (auto ok = cp->check_ddl(info, *v); !ok) {
    fail_block(ok.error());
    co_return;
  }
  if (auto e = cp->block_ddl_refusal(info, *v)) {
    fail_block(*e);
    co_return;
  }
  // A hash-sharded CREATE TABLE runs on the shards without its USING HASH.
  std::string statement = !info.rewritten_sql.empty()
                              ? info.rewritten_sql
                              : std::string(sql_text.substr(info.begin, info.end - info.begin));
  for (size_t shard = 0; shard < worker_.pool_count(); ++shard) {
    auto part = co_await coordinated_part(static_cast<int>(shard));
    if (!part) {
      fail_block(part.error());
      co_return;
    }
  }
  // Shard by shard, in shard order, in the block's transaction on each; the first shard's
  // answer is the client's. Through the extended protocol the shards get it so too, with the
  // client's parameters: PostgreSQL refuses them in most DDL, and the client sees a shard's
  // own words for it.
  // (Named, not temporaries inside co_await: g++ 12 destroys such temporaries twice.)
  std::string request = utility_request(statement, ext);
  std::string relay_all;
  auto answer = co_await broadcast_to_parts(std::move(request), std::move(relay_all));
  if (!answer) {
    if (answer.error().shard_error) {
      write_shard_error(out, *answer.error().shard_error);
    } else {
      write_error(out, *answer.error().error);
    }
    c.failed = true;
    txn_status_ = 'E';
    co_return;
  }
  auto notice = co_await record_block_ddl(info, *v, *c.parts.begin()->second);
  if (!notice) {
    fail_block(notice.error());
    co_return;
  }
  if (ext != nullptr && ext->describe) MessageWriter(out).begin('n').end();  // DDL: no rows
  if (!plan.block_notice.empty())
    *notice = plan.block_notice + (notice->empty() ? "" : "; ") + *notice;
  if (!notice->empty()) {
    write_notice(out, *notice);
  }
  out += *answer;
  txn_status_ = 'T';
}

}  // namespace pgrange::proxy
