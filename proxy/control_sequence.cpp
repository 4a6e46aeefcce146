// The control plane's cluster-wide sequences: registered from a shard's catalog when their
// table is made, their values handed out in blocks reserved in the metadata store, so that
// every pgrange instance gives unique values.

#include <spdlog/spdlog.h>

#include <pqxx/pqxx>

#include "proxy/control_plane.hpp"
#include "routing/metadata_store.hpp"

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
