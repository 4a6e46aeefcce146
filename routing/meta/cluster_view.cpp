#include "routing/meta/cluster_view.hpp"

#include "routing/keys/key_space.hpp"

namespace pgrange::routing {

std::string qualified_table_name(std::string_view schema, std::string_view name) {
  std::string out(schema.empty() ? std::string_view("public") : schema);
  out += '.';
  out += name;
  return out;
}

Result<std::shared_ptr<const ClusterView>> ClusterView::build(
    MetadataSnapshot snapshot, const std::vector<std::string>& shard_order) {
  auto map = RangeMap::from_descriptors(std::move(snapshot.ranges));
  if (!map) return tl::unexpected(map.error());
  auto view = std::make_shared<ClusterView>();
  view->version_ = snapshot.version;
  view->shards_ = std::move(snapshot.shards);
  view->tables_ = std::move(snapshot.tables);
  view->held_ = std::move(snapshot.held_ranges);
  view->scan_held_ = std::move(snapshot.scan_held_ranges);
  view->relations_ = view->tables_;
  for (const TableDescriptor& t : view->tables_) {
    for (const IndexDescriptor& i : t.indexes) view->relations_.push_back(index_relation(t, i));
  }
  for (size_t i = 0; i < view->tables_.size(); ++i) {
    view->by_name_[qualified_table_name(view->tables_[i].schema, view->tables_[i].name)] = i;
  }
  view->readers_ = std::move(snapshot.readers);
  for (size_t i = 0; i < view->readers_.size(); ++i) {
    const ReaderDescriptor& r = view->readers_[i];
    std::string key = qualified_table_name(r.schema, r.name);
    if (r.kind == ReaderDescriptor::Kind::kView) {
      view->views_[key] = i;
    } else {
      view->functions_.emplace(key, i);
    }
  }
  for (size_t i = 0; i < shard_order.size(); ++i) {
    view->shard_index_[shard_order[i]] = static_cast<int>(i);
  }
  view->shard_order_ = shard_order;
  view->ranges_ = (*map)->snapshot();
  return std::shared_ptr<const ClusterView>(std::move(view));
}

MetadataSnapshot ClusterView::snapshot() const {
  MetadataSnapshot s;
  s.version = version_;
  s.shards = shards_;
  s.tables = tables_;
  s.ranges.assign(ranges_->ranges().begin(), ranges_->ranges().end());
  s.held_ranges = held_;
  s.scan_held_ranges = scan_held_;
  s.readers = readers_;
  return s;
}

const TableDescriptor* ClusterView::find_table(std::string_view schema,
                                               std::string_view name) const {
  if (tables_.empty()) return nullptr;
  auto it = by_name_.find(qualified_table_name(schema, name));
  return it == by_name_.end() ? nullptr : &tables_[it->second];
}

const ReaderDescriptor* ClusterView::find_view(std::string_view schema,
                                               std::string_view name) const {
  if (views_.empty()) return nullptr;
  auto it = views_.find(qualified_table_name(schema, name));
  return it == views_.end() ? nullptr : &readers_[it->second];
}

std::vector<const ReaderDescriptor*> ClusterView::find_functions(std::string_view schema,
                                                                 std::string_view name) const {
  std::vector<const ReaderDescriptor*> out;
  if (functions_.empty()) return out;
  auto [from, to] = functions_.equal_range(qualified_table_name(schema, name));
  for (auto it = from; it != to; ++it) out.push_back(&readers_[it->second]);
  return out;
}

const TableDescriptor* ClusterView::find_table_id(uint64_t table_id) const {
  for (const TableDescriptor& t : tables_) {
    if (t.table_id == table_id) return &t;
  }
  return nullptr;
}

bool ClusterView::in_family(const TableDescriptor& t) const {
  if (t.member_id != 0) return true;
  for (const TableDescriptor& m : tables_) {
    if (m.member_id != 0 && m.table_id == t.table_id) return true;
  }
  return false;
}

const RangeDescriptor* ClusterView::find_range(uint64_t range_id) const {
  for (const RangeDescriptor& r : ranges_->ranges()) {
    if (r.range_id == range_id) return &r;
  }
  return nullptr;
}

const ShardRecord* ClusterView::find_shard(std::string_view name) const {
  for (const ShardRecord& s : shards_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

int ClusterView::shard_index(std::string_view shard) const {
  auto it = shard_index_.find(std::string(shard));
  return it == shard_index_.end() ? -1 : it->second;
}

std::vector<size_t> ClusterView::index_ranges(uint64_t table_id, uint64_t index_id) const {
  std::string start = index_prefix(table_id, index_id);
  std::string end = index_prefix(table_id, index_id + 1);
  std::vector<size_t> out;
  for (size_t i = ranges_->find_index(start); i < ranges_->size(); ++i) {
    if (ranges_->at(i).start_key >= end) break;
    out.push_back(i);
  }
  return out;
}

}  // namespace pgrange::routing
