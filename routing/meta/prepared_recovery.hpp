#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "routing/meta/metadata_store.hpp"

namespace pgrange::routing {

/// The global transaction id of a write pgrange commits on several shards with two-phase
/// commit: "pgrange:<instance id>:<n>".
std::string transaction_gid(const std::string& instance_id, uint64_t n);
/// The instance id in such a gid (or in one of its part gids); nullopt for a gid pgrange did
/// not make.
std::optional<std::string> gid_instance(std::string_view gid);
/// The gid under which the part of transaction `gid` on shard `shard` is prepared there:
/// "<gid>@<shard>". Gids are global to a PostgreSQL server, and several shards may be databases
/// of one server: each part needs its own. A shard name of other characters than letters,
/// digits, '_' and '-', or longer than 63 bytes, is replaced by a hash of it.
std::string part_gid(std::string_view gid, std::string_view shard);
/// The transaction gid of a part gid (the gid itself when it has no part suffix).
std::string_view transaction_of_part(std::string_view part);

struct RecoveryReport {
  int committed = 0;
  int rolled_back = 0;
  int forgotten = 0;                     ///< decisions no shard needs any more
  std::vector<std::string> unreachable;  ///< shards that could not be asked
};

/// Finishes the two-phase commits left prepared on the shards by pgrange instances that are
/// gone (no heartbeat for `silence`), and this instance's own that no session is working on
/// (`in_flight(gid)` says whether one is; asked after the gid was seen prepared, since a
/// session registers its gid before it prepares): a transaction whose decision is "commit" is
/// committed (COMMIT PREPARED); any other is decided "abort" (so that a late committer cannot
/// decide otherwise) and rolled back. A transaction held for the client that prepared it
/// (decision "prepared") waits for the client's COMMIT PREPARED or ROLLBACK PREPARED. Decisions no
/// shard needs are forgotten, when every shard could be asked. Blocking (libpqxx); `shards` are
/// (name, dsn).
RecoveryReport recover_prepared(MetadataStore& store,
                                const std::vector<std::pair<std::string, std::string>>& shards,
                                const std::string& self,
                                const std::function<bool(const std::string&)>& in_flight,
                                std::chrono::seconds silence);

}  // namespace pgrange::routing
