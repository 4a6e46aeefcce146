#include "routing/meta/colocation.hpp"

#include <algorithm>

#include "routing/keys/key_space.hpp"

namespace pgrange::routing {

std::optional<std::string> colocation_blocker(const TableDescriptor& root,
                                              const std::vector<KeyColumnDef>& key,
                                              uint32_t hash_buckets) {
  if (root.key.empty()) return "table \"" + root.name + "\" has no key";
  if (root.reference) return "table \"" + root.name + "\" is a reference table";
  if (root.colocated_with != 0) {
    return "table \"" + root.name + "\" follows another table's ranges itself";
  }
  if (root.hash_buckets > 0 || hash_buckets > 0) return "a hash-sharded key cannot follow one";
  if (key.size() < root.key.size()) {
    return "its key has fewer columns than the key of table \"" + root.name + "\"";
  }
  for (size_t i = 0; i < root.key.size(); ++i) {
    if (key[i].column != root.key[i].column) {
      return "its key column \"" + key[i].name +
             "\" is not of the type (and order) of key column \"" + root.key[i].name +
             "\" of table \"" + root.name + "\"";
    }
  }
  return std::nullopt;
}

std::vector<const TableDescriptor*> group_of(const ClusterView& view, const TableDescriptor& t) {
  std::vector<const TableDescriptor*> out;
  uint64_t root = group_root(t);
  if (const TableDescriptor* r = view.find_table_id(root)) out.push_back(r);
  for (const TableDescriptor& other : view.tables()) {
    if (other.member_id == 0 && other.colocated_with == root && other.table_id != root) {
      out.push_back(&other);
    }
  }
  if (out.empty()) out.push_back(&t);
  return out;
}

std::string follow_key(const std::string& key, uint64_t from, uint64_t to) {
  std::string prefix = index_prefix(from, 1);
  if (key.size() < prefix.size() || key.compare(0, prefix.size(), prefix) != 0) return key;
  return index_prefix(to, 1) + key.substr(prefix.size());
}

GroupLayout layout_for(const ClusterView& view, uint64_t table_id, uint64_t to) {
  GroupLayout out;
  const std::string inside = index_prefix(table_id, 1);
  for (size_t i : view.table_ranges(table_id)) {
    const RangeDescriptor& r = view.ranges().at(i);
    if (r.start_key > inside) out.split_keys.push_back(follow_key(r.start_key, table_id, to));
    out.shards.push_back(r.shard);
  }
  return out;
}

bool aligned(const ClusterView& view, const std::vector<const TableDescriptor*>& group) {
  if (group.size() < 2) return true;
  const TableDescriptor& root = *group.front();
  for (size_t k = 1; k < group.size(); ++k) {
    uint64_t id = group[k]->table_id;
    GroupLayout want = layout_for(view, root.table_id, id);
    GroupLayout have = layout_for(view, id, id);
    if (want.split_keys != have.split_keys || want.shards != have.shards) return false;
  }
  return true;
}

}  // namespace pgrange::routing
