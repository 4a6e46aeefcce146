// The control plane's cluster-wide sequences: registered from a shard's catalog when their
// table is made, their values handed out in blocks reserved in the metadata store, so that
// every pgrange instance gives unique values.

#include <spdlog/spdlog.h>

#include <pqxx/pqxx>

#include "proxy/control/control_plane.hpp"
#include "routing/meta/metadata_store.hpp"
#include "sql/quoting.hpp"

namespace pgrange::proxy {

void ControlPlane::register_sequences(const routing::TableDescriptor& table,
                                      const std::vector<routing::SequenceState>& states) {
  for (size_t i = 0; i < table.generated.size() && i < states.size(); ++i) {
    const routing::GeneratedKey& g = table.generated[i];
    if (g.sequence_name.empty()) continue;
    store_->register_sequence(g.sequence_schema, g.sequence_name, states[i], g.owned);
    sequence_caches_.erase(g.sequence_schema + "." + g.sequence_name);
  }
}

Result<std::vector<int64_t>> ControlPlane::next_values(const std::string& schema,
                                                       const std::string& name, int64_t count) {
  std::vector<int64_t> out;
  if (store_ == nullptr) {
    return fail(sqlstate::kConnectionFailure, "pgrange's metadata store is not reachable");
  }
  routing::SequenceCache& cache = sequence_caches_[schema + "." + name];
  while (static_cast<int64_t>(out.size()) < count) {
    if (auto v = cache.next()) {
      out.push_back(*v);
      continue;
    }
    // A block big enough for the rest of this request, and at least the configured size.
    int64_t wanted =
        std::max<int64_t>(config_.sequence_block_size, count - static_cast<int64_t>(out.size()));
    Result<routing::SequenceBlock> block;
    try {
      block = store_->update_sequence(schema, name, [&](routing::SequenceState& s) {
        return routing::reserve_block(s, wanted, name);
      });
    } catch (const std::exception& e) {
      return fail(sqlstate::kConnectionFailure,
                  std::string("pgrange could not reserve values of sequence \"") + name +
                      "\" in its metadata store: " + e.what());
    }
    if (!block) return tl::unexpected(block.error());
    cache.refill(*block);
  }
  return out;
}

void ControlPlane::follow_sequences(const sql::StatementInfo& info, const routing::ClusterView& v) {
  // The sequences the statement changed (as relation names a shard resolves), and whether it
  // restarted each.
  std::vector<std::pair<std::string, bool>> changed;
  auto rel = [](const std::string& schema, const std::string& name) {
    return schema.empty() ? sql::quote_ident(name)
                          : sql::quote_ident(schema) + "." + sql::quote_ident(name);
  };
  if (info.alters_sequence)
    changed.emplace_back(rel(info.target.schema, info.target.name), info.restarts_sequence);
  auto table_sequences = [&](const sql::TableRef& ref, auto&& pick) {
    const routing::TableDescriptor* t = v.find_table(ref.schema, ref.name);
    if (t == nullptr) return;
    for (const routing::GeneratedKey& g : t->generated) {
      if (g.sequence_name.empty()) continue;
      if (auto restart = pick(g))
        changed.emplace_back(rel(g.sequence_schema, g.sequence_name), *restart);
    }
  };
  for (const auto& [column, restart] : info.identity_changes) {
    table_sequences(info.target, [&](const routing::GeneratedKey& g) -> std::optional<bool> {
      if (g.column != column) return std::nullopt;
      return restart;
    });
  }
  if (info.restart_identity) {
    for (const sql::TableRef& ref : info.tables) {
      table_sequences(ref, [](const routing::GeneratedKey& g) -> std::optional<bool> {
        if (!g.owned) return std::nullopt;
        return true;
      });
    }
  }
  if (changed.empty() || store_ == nullptr) return;
  pqxx::connection conn(config_.shards.at(0).dsn);
  pqxx::read_transaction tx(conn);
  for (const auto& [name, restart] : changed) {
    auto r = tx.exec(
        "SELECT n.nspname, c.relname, s.seqincrement, s.seqmin, s.seqmax, s.seqstart, "
        "s.seqcycle, q.last_value, q.is_called FROM pg_sequence s JOIN pg_class c ON c.oid = "
        "s.seqrelid JOIN pg_namespace n ON n.oid = c.relnamespace, " +
        name + " q WHERE s.seqrelid = " + tx.quote(name) + "::regclass");
    if (r.empty()) continue;
    const auto& row = r[0];
    std::string schema = row[0].c_str(), seq = row[1].c_str();
    auto done = store_->update_sequence(
        schema, seq, [&](routing::SequenceState& s) -> Result<routing::SequenceBlock> {
          s.increment = row[2].as<int64_t>();
          s.min_value = row[3].as<int64_t>();
          s.max_value = row[4].as<int64_t>();
          s.start_value = row[5].as<int64_t>();
          s.cycle = row[6].as<bool>();
          if (restart) {
            s.last_value = row[7].as<int64_t>();
            s.is_called = row[8].as<bool>();
          }
          return routing::SequenceBlock{};
        });
    if (!done && done.error().sqlstate != "42P01") throw std::runtime_error(done.error().message);
    sequence_caches_.erase(schema + "." + seq);
  }
}

Result<int64_t> ControlPlane::set_sequence(const std::string& schema, const std::string& name,
                                           int64_t value, bool is_called) {
  if (store_ == nullptr) {
    return fail(sqlstate::kConnectionFailure, "pgrange's metadata store is not reachable");
  }
  sequence_caches_.erase(schema + "." + name);
  Result<routing::SequenceBlock> done;
  try {
    done = store_->update_sequence(
        schema, name, [&](routing::SequenceState& s) -> Result<routing::SequenceBlock> {
          auto set = routing::set_value(s, value, is_called, name);
          if (!set) return tl::unexpected(set.error());
          return routing::SequenceBlock{};
        });
  } catch (const std::exception& e) {
    return fail(sqlstate::kConnectionFailure, std::string("pgrange could not set sequence \"") +
                                                  name + "\" in its metadata store: " + e.what());
  }
  if (!done) return tl::unexpected(done.error());
  return value;
}

}  // namespace pgrange::proxy
