#include "routing/moves/range_manager.hpp"

#include <libpq-fe.h>
#include <spdlog/spdlog.h>

#include <charconv>

#include "routing/keys/key_space.hpp"
#include "routing/moves/range_data.hpp"
#include "routing/moves/shard_link.hpp"

namespace pgrange::routing {
namespace {

constexpr const char* kLease = "range_manager";
/// A range measured exactly is measured again after this, or when its table's size on the
/// shard changed by a tenth.
constexpr std::chrono::seconds kMeasureAgain{20};

/// The relation whose rows a managed range holds: the table (index 1) or one of its global
/// indexes as index_relation() describes it; nullopt when it is gone.
std::optional<TableDescriptor> relation_of(const ClusterView& view, uint64_t table_id,
                                           uint32_t index_id) {
  const TableDescriptor* t = view.find_table_id(table_id);
  if (t == nullptr) return std::nullopt;
  if (index_id == 1) return *t;
  for (const IndexDescriptor& i : t->indexes) {
    if (i.index_id == index_id) return index_relation(*t, i);
  }
  return std::nullopt;
}

int64_t now_micros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

RangeManager::RangeManager(ClusterControl& control, RangeAdmin& admin,
                           RangeManagerSettings settings)
    : control_(control), admin_(admin), planner_(settings) {}

std::chrono::milliseconds RangeManager::lease_duration() const {
  return std::max(std::chrono::milliseconds(15000), 3 * planner_.settings().check_interval);
}

void RangeManager::renew(MetadataStore& store) {
  if (!leading_) return;
  try {
    if (!store.take_lease(kLease, control_.instance_id(), lease_duration())) {
      spdlog::warn("range manager: the lease was taken over; this instance stops managing");
      leading_ = false;
    }
  } catch (const std::exception& e) {
    spdlog::warn("range manager: renewing its lease: {}", e.what());
  }
}

void RangeManager::release() {
  if (!leading_) return;
  leading_ = false;
  try {
    control_.store().release_lease(kLease, control_.instance_id());
  } catch (const std::exception& e) {
    spdlog::warn("range manager: giving up its lease: {}", e.what());
  }
}

std::optional<RangeManager::Measured> RangeManager::measure(const ClusterView& view,
                                                            const ManagedRange& r,
                                                            int64_t table_bytes) {
  auto t = relation_of(view, r.table_id, r.index_id);
  const ShardRecord* shard = view.find_shard(r.range.shard);
  if (!t || shard == nullptr) return std::nullopt;
  std::pair<uint64_t, uint64_t> id{r.range.range_id, r.range.generation};
  auto now = std::chrono::steady_clock::now();
  auto it = measured_.find(id);
  if (it != measured_.end() && now - it->second.at < kMeasureAgain &&
      std::abs(table_bytes - it->second.table_bytes) * 10 <= it->second.table_bytes) {
    return it->second;
  }
  auto stats = range_stats(shard->dsn, *t, r.range.start_key, r.range.end_key);
  if (!stats) {
    spdlog::warn("range manager: measuring range {}: {}", r.range.range_id, stats.error().message);
    return std::nullopt;
  }
  Measured m{stats->bytes, stats->row_count, table_bytes, now};
  measured_[id] = m;
  return m;
}

std::vector<ManagedRange> RangeManager::look(const ClusterView& view,
                                             std::vector<std::string>& shards) {
  // Every instance's requests per range.
  std::map<uint64_t, RangeRate> load;
  for (RangeRate& r : control_.store().range_load(std::chrono::seconds(10))) {
    load[r.range_id] = std::move(r);
  }
  // The tables' sizes on each shard that answers.
  std::map<std::pair<std::string, std::string>, int64_t> table_bytes;  // (shard, schema.name)
  for (const std::string& name : view.shard_order()) {
    const ShardRecord* shard = view.find_shard(name);
    // A shard being drained is ALTER SHARD … DRAIN's: none of its ranges are the manager's, and
    // none go there.
    if (shard == nullptr || shard->draining) continue;
    auto conn = shard_link::connect(shard->dsn, name);
    auto r =
        conn ? shard_link::exec(conn->get(),
                                "SELECT n.nspname || '.' || c.relname, pg_table_size(c.oid) "
                                "FROM pg_class c JOIN pg_namespace n ON n.oid = "
                                "c.relnamespace WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN "
                                "('pg_catalog', 'information_schema')",
                                "reading the sizes of the tables")
             : Result<shard_link::PgResult>(tl::unexpected(conn.error()));
    if (!r) {
      spdlog::warn("range manager: shard {} left out of this look: {}", name, r.error().message);
      continue;
    }
    for (int i = 0; i < PQntuples(r->get()); ++i) {
      int64_t bytes = 0;
      std::string_view v(PQgetvalue(r->get(), i, 1));
      std::from_chars(v.data(), v.data() + v.size(), bytes);
      table_bytes[{name, PQgetvalue(r->get(), i, 0)}] = bytes;
    }
    // A shard without any of the cluster's tables (one just added whose schema could not be
    // copied) could take no range: it is left out until it has them.
    const bool none =
        !view.tables().empty() &&
        std::none_of(view.tables().begin(), view.tables().end(), [&](const TableDescriptor& t) {
          return table_bytes.count({name, t.schema + "." + t.name});
        });
    if (none) {
      if (incomplete_.insert(name).second) {
        spdlog::warn(
            "range manager: shard {} has none of the cluster's tables; it gets no "
            "ranges until it has the cluster's schema",
            name);
      }
      continue;
    }
    incomplete_.erase(name);
    shards.push_back(name);
  }
  std::vector<ManagedRange> out;
  const int64_t now = now_micros();
  for (const TableDescriptor& table : view.tables()) {
    // A co-location group's members follow its root, a family's members share its root's
    // ranges; reference tables are on every shard.
    if (table.reference || table.colocated_with != 0 || table.member_id != 0) continue;
    // The table's rows, then each global index's entries: each range once, under the relation
    // where it starts.
    std::vector<TableDescriptor> relations{table};
    for (const IndexDescriptor& i : table.indexes) relations.push_back(index_relation(table, i));
    for (const TableDescriptor& t : relations) {
      const std::string relation_start = index_prefix(t.table_id, t.index_id);
      std::vector<size_t> indexes = view.index_ranges(t.table_id, t.index_id);
      if (t.index_id != 1) {
        std::erase_if(indexes,
                      [&](size_t i) { return view.ranges().at(i).start_key < relation_start; });
      }
      std::map<std::string, int> on_shard;
      for (size_t i : indexes) ++on_shard[view.ranges().at(i).shard];
      for (size_t i : indexes) {
        const RangeDescriptor& d = view.ranges().at(i);
        if (std::find(shards.begin(), shards.end(), d.shard) == shards.end()) continue;
        ManagedRange m;
        m.range = d;
        m.table_id = t.table_id;
        m.index_id = t.index_id;
        m.table = t.name;  // an index's backing table is "table@index"
        m.table_start = d.start_key <= relation_start;
        m.kept_split = d.split_enforced_until && *d.split_enforced_until > now;
        auto tb = table_bytes.find({d.shard, t.schema + "." + t.name});
        const int64_t bytes_there = tb == table_bytes.end() ? 0 : tb->second;
        m.table_bytes_there = bytes_there;
        m.estimated_bytes = bytes_there / std::max(1, on_shard[d.shard]);
        // Only a relation bigger than a range may be on this shard can have a range too big.
        if (bytes_there > planner_.settings().range_max_bytes) {
          if (auto measured = measure(view, m, bytes_there)) {
            m.measured_bytes = measured->bytes;
            m.rows = measured->rows;
          }
        }
        if (auto l = load.find(d.range_id); l != load.end()) {
          m.qps = l->second.read_qps + l->second.write_qps;
          m.samples = l->second.samples;
        }
        out.push_back(std::move(m));
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const ManagedRange& a, const ManagedRange& b) {
    return a.range.start_key < b.range.start_key;
  });
  return out;
}

void RangeManager::carry_out(const RangeDecision& d, const std::vector<ManagedRange>& ranges) {
  const ManagedRange* r = nullptr;
  const ManagedRange* right = nullptr;
  for (const ManagedRange& m : ranges) {
    if (m.range.range_id == d.range_id) r = &m;
    if (m.range.range_id == d.other_range_id) right = &m;
  }
  if (r == nullptr) return;
  auto view = control_.view();
  Result<void> done;
  switch (d.kind) {
    case RangeDecision::Kind::kKeep:
      if (kept_.insert({r->range.range_id, r->range.generation}).second) {
        spdlog::info("range manager: range {} of {}: {}", r->range.range_id, r->table, d.reason);
      }
      return;
    case RangeDecision::Kind::kSplitBySize: {
      auto t = relation_of(*view, r->table_id, r->index_id);
      const ShardRecord* shard = view->find_shard(r->range.shard);
      if (!t || shard == nullptr) return;
      auto key = middle_key(shard->dsn, *t, r->range.start_key, r->range.end_key, r->rows);
      if (!key) {
        spdlog::warn("range manager: range {} of {} is {}, but: {}", r->range.range_id, r->table,
                     d.reason, key.error().message);
        return;
      }
      done = admin_.split_range(r->table_id, *key, d.reason);
      break;
    }
    case RangeDecision::Kind::kSplitByLoad:
      done = admin_.split_range(r->table_id, d.split_key, d.reason);
      break;
    case RangeDecision::Kind::kMerge:
    case RangeDecision::Kind::kMoveToMerge: {
      if (right == nullptr) return;
      // Sizes were estimates unless the table is big: a merge goes by exact ones.
      int64_t bytes = 0;
      for (const ManagedRange* m : {r, right}) {
        auto measured = measure(*view, *m, m->table_bytes_there);
        if (!measured) return;
        bytes += measured->bytes;
      }
      if (bytes >= planner_.settings().range_max_bytes / 2) return;
      if (d.kind == RangeDecision::Kind::kMerge) {
        done = admin_.merge_range(r->table_id, r->range.range_id, d.reason);
        break;
      }
      [[fallthrough]];
    }
    case RangeDecision::Kind::kMove:
      done = admin_.relocate_group(r->range.range_id, d.target, d.reason);
      // A range whose table cannot be spread (a unique index each shard enforces alone) stays.
      if (!done && done.error().sqlstate == sqlstate::kFeatureNotSupported) {
        planner_.forget_moves_of(r->range);
      }
      break;
  }
  if (!done) {
    spdlog::warn("range manager: range {} of {}: {}", r->range.range_id, r->table,
                 done.error().message);
  }
}

void RangeManager::check() {
  const RangeManagerSettings& settings = planner_.settings();
  if (control_.stopping() || (!settings.auto_split && !settings.rebalance)) return;
  try {
    auto view = control_.view();
    if (!view) return;
    bool leading = control_.store().take_lease(kLease, control_.instance_id(), lease_duration());
    if (leading != leading_) {
      spdlog::info(leading ? "range manager: this instance manages the ranges"
                           : "range manager: another instance manages the ranges");
      leading_ = leading;
    }
    if (!leading) return;
    control_.reload();
    view = control_.view();
    std::vector<std::string> shards;
    std::vector<ManagedRange> ranges = look(*view, shards);
    for (const RangeDecision& d : planner_.plan(ranges, shards, std::chrono::steady_clock::now())) {
      if (control_.stopping() || !leading_) return;
      carry_out(d, ranges);
    }
  } catch (const std::exception& e) {
    spdlog::warn("range manager: {}", e.what());
  }
}

}  // namespace pgrange::routing
