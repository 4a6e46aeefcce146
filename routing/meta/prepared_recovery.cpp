#include "routing/meta/prepared_recovery.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <pqxx/pqxx>

namespace pgrange::routing {
namespace {

constexpr std::string_view kPrefix = "pgrange:";

}  // namespace

std::string transaction_gid(const std::string& instance_id, uint64_t n) {
  return std::string(kPrefix) + instance_id + ":" + std::to_string(n);
}

std::optional<std::string> gid_instance(std::string_view gid) {
  if (gid.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  std::string_view rest = transaction_of_part(gid).substr(kPrefix.size());
  size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  return std::string(rest.substr(0, colon));
}

std::string part_gid(std::string_view gid, std::string_view shard) {
  bool plain = !shard.empty() && shard.size() <= 63;
  for (char c : shard) {
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-');
  }
  if (plain) return std::string(gid) + "@" + std::string(shard);
  uint64_t h = 14695981039346656037ull;  // FNV-1a
  for (char c : shard) {
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return std::string(gid) + "@" + hex;
}

std::string_view transaction_of_part(std::string_view part) {
  size_t at = part.rfind('@');
  return at == std::string_view::npos ? part : part.substr(0, at);
}

RecoveryReport recover_prepared(MetadataStore& store,
                                const std::vector<std::pair<std::string, std::string>>& shards,
                                const std::string& self,
                                const std::function<bool(const std::string&)>& in_flight,
                                std::chrono::seconds silence) {
  RecoveryReport report;
  std::vector<std::string> live = store.live_instances(silence);
  live.push_back(self);
  // The decisions are read before the shards are: a decision is recorded only once every part
  // of its transaction is prepared, so a part the scan below does not find was finished. Read
  // after the scan, a decision for a transaction prepared meanwhile would look finished, and be
  // forgotten while its parts wait for it.
  const std::vector<std::pair<std::string, std::string>> decisions = store.decisions();
  // Every pgrange gid still prepared somewhere: on how many shards.
  std::map<std::string, int> prepared;
  for (const auto& [name, dsn] : shards) {
    try {
      pqxx::connection conn(dsn);
      pqxx::nontransaction tx(conn);
      pqxx::result rows = tx.exec(
          "SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND "
          "gid LIKE 'pgrange:%' ORDER BY prepared");
      for (const auto& row : rows) {
        // The part gid (…@shard); the transaction's, before pgrange gave each part its own.
        const std::string part = row[0].as<std::string>();
        const std::string gid(transaction_of_part(part));
        ++prepared[gid];
        std::optional<std::string> owner = gid_instance(gid);
        if (!owner) continue;
        bool mine = *owner == self;
        if (mine ? in_flight(gid) : std::find(live.begin(), live.end(), *owner) != live.end()) {
          continue;  // its committer is still at work
        }
        try {
          std::string decision = store.decide(gid, "abort", self);
          if (decision == "prepared") continue;  // the client's to decide (COMMIT PREPARED)
          if (decision == "commit") {
            tx.exec0("COMMIT PREPARED " + tx.quote(part));
            ++report.committed;
            spdlog::info("recovery: committed {} on shard {}", gid, name);
          } else {
            tx.exec0("ROLLBACK PREPARED " + tx.quote(part));
            ++report.rolled_back;
            spdlog::info("recovery: rolled back {} on shard {}", gid, name);
          }
          --prepared[gid];  // finished here; it may still be prepared on another shard
        } catch (const pqxx::sql_error& e) {
          // Finished meanwhile by its committer (or another instance): the next pass sees.
          spdlog::info("recovery: {} on shard {}: {}", gid, name, e.what());
        }
      }
    } catch (const std::exception& e) {
      report.unreachable.push_back(name);
      spdlog::warn("recovery: shard {}: {}", name, e.what());
    }
  }
  if (!report.unreachable.empty()) return report;
  for (const auto& [gid, decision] : decisions) {
    if (auto p = prepared.find(gid); p != prepared.end() && p->second > 0) continue;
    std::optional<std::string> owner = gid_instance(gid);
    bool working =
        owner && (*owner == self ? in_flight(gid)
                                 : std::find(live.begin(), live.end(), *owner) != live.end());
    if (working) continue;
    store.forget_decision(gid);
    ++report.forgotten;
  }
  return report;
}

}  // namespace pgrange::routing
