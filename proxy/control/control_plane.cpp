#include "proxy/control/control_plane.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <future>
#include <pqxx/pqxx>
#include <random>

#include "routing/keys/key_codec.hpp"
#include "routing/keys/key_space.hpp"
#include "routing/meta/colocation.hpp"
#include "routing/meta/prepared_recovery.hpp"
#include "routing/moves/shard_schema.hpp"
#include "sql/merge_query.hpp"
#include "sql/quoting.hpp"

namespace pgrange::proxy {
namespace {

constexpr int kRegisterAttempts = 5;

std::string shard_dsn_of(const config::Config& cfg, size_t i) {
  return cfg.shards.at(i).dsn;
}

using config::with_dsn_keyword;

class Receiver : public pqxx::notification_receiver {
 public:
  Receiver(pqxx::connection_base& c, std::atomic<bool>& flag)
      : pqxx::notification_receiver(c, routing::MetadataStore::kChannel), flag_(flag) {}
  void operator()(const std::string&, int) override { flag_ = true; }

 private:
  std::atomic<bool>& flag_;
};

}  // namespace

std::string metadata_dsn(const config::Config& config) {
  if (!config.metadata_dsn.empty()) return config.metadata_dsn;
  return with_dsn_keyword(config.shards.front().dsn, "dbname", "pgrange_meta");
}

ControlPlane::ControlPlane(const config::Config& config) : config_(config) {
  metadata_dsn_ = metadata_dsn(config);
  std::random_device rd;
  char id[64];
  std::snprintf(id, sizeof id, "%d-%08x%08x", static_cast<int>(getpid()), rd(), rd());
  instance_id_ = id;
  for (const auto& s : config.shards) shard_order_.push_back(s.name);
}

ControlPlane::~ControlPlane() {
  stop();
}

Result<void> ControlPlane::start() {
  admin_ = std::make_unique<routing::RangeAdmin>(*this);
  std::vector<routing::ShardRecord> shards;
  for (const auto& s : config_.shards) shards.push_back({s.name, s.dsn, false});
  routing::RangeManagerSettings ranges;
  ranges.auto_split = config_.ranges.auto_split;
  ranges.range_max_bytes = static_cast<int64_t>(config_.ranges.range_max_mb * 1024 * 1024);
  ranges.split_qps = config_.ranges.split_qps;
  ranges.merge_delay = config_.ranges.merge_delay;
  ranges.rebalance = config_.ranges.rebalance;
  ranges.check_interval = config_.ranges.check_interval;
  jobs_ = std::make_unique<JobRunner>(*this, metadata_dsn_, std::move(shards), ranges);
  jobs_->start();
  work_.emplace(io_.get_executor());
  thread_ = run_io_thread(io_, "control plane");
  // The first attempt is waited for, so a healthy cluster routes from its first client on; an
  // unreachable store is retried in the background (clients are refused meanwhile).
  std::promise<void> first;
  auto attempted = first.get_future();
  asio::post(io_, [this, &first] {
    open_store();
    first.set_value();
  });
  attempted.wait();
  return {};
}

void ControlPlane::bring_up_new_shards(const routing::ClusterView& view) {
  const std::vector<std::string>& order = view.shard_order();
  for (const std::string& name : order) {
    const routing::ShardRecord* shard = view.find_shard(name);
    if (shard == nullptr || shard->draining) continue;
    for (const std::string& from : order) {
      if (from == name) continue;
      auto done = routing::ShardSchema::bring_up_new_shard(view, name, from);
      if (!done) {
        spdlog::error("shard {}: {} (the range manager gives it no ranges)", name,
                      done.error().message);
      } else if (*done) {
        spdlog::info("shard {}: new; the schema and the reference tables' rows copied from {}",
                     name, from);
      }
      break;
    }
  }
}

std::vector<std::pair<std::string, std::string>> ControlPlane::shard_dsns() const {
  std::lock_guard lock(shards_mu_);
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 0; i < config_.shards.size(); ++i) {
    out.emplace_back(config_.shards[i].name, shard_dsn_of(config_, i));
  }
  return out;
}

Result<void> ControlPlane::bring_up_shards(const std::vector<config::ShardConfig>& added) {
  auto current = view();
  if (!store_ || !current) {
    return fail(sqlstate::kConnectionFailure, "the metadata store is not reachable");
  }
  // The view the new shards will be part of, for ShardSchema only: nothing routes with it.
  routing::MetadataSnapshot snap = current->snapshot();
  std::vector<std::string> order = shard_order_;
  for (const config::ShardConfig& s : added) {
    snap.shards.push_back({s.name, s.dsn, false});
    order.push_back(s.name);
  }
  auto next = routing::ClusterView::build(std::move(snap), order);
  if (!next) return fail(next.error());
  std::string from;
  for (const std::string& name : shard_order_) {
    const routing::ShardRecord* r = current->find_shard(name);
    if (r != nullptr && !r->draining) {
      from = name;
      break;
    }
  }
  if (from.empty()) from = shard_order_.front();
  for (const config::ShardConfig& s : added) {
    auto done = routing::ShardSchema::bring_up_new_shard(**next, s.name, from);
    if (!done) {
      return fail(done.error().sqlstate,
                  "shard \"" + s.name + "\" cannot be brought up: " + done.error().message);
    }
    if (*done) {
      spdlog::info("shard {}: new; the schema and the reference tables' rows copied from {}",
                   s.name, from);
    }
  }
  return {};
}

void ControlPlane::join_shards(const std::vector<config::ShardConfig>& added) {
  std::vector<routing::ShardRecord> records;
  {
    std::lock_guard lock(shards_mu_);
    for (const config::ShardConfig& s : added) {
      config_.shards.push_back(s);
      shard_order_.push_back(s.name);
      records.push_back({s.name, s.dsn, false});
    }
  }
  try {
    store_->register_shards(records);  // a new version: the next view routes with them
    reload();
  } catch (const std::exception& e) {
    spdlog::error(
        "recording the new shards in the metadata store: {} (the next change of the "
        "range map routes with them)",
        e.what());
  }
}

void ControlPlane::open_store() {
  if (stopping_) return;
  std::vector<routing::ShardRecord> shards;
  for (const auto& s : config_.shards) shards.push_back({s.name, s.dsn, false});
  try {
    auto store = routing::MetadataStore::open(metadata_dsn_, shards);
    auto snap = store->load();
    auto view = routing::ClusterView::build(std::move(snap), shard_order_);
    if (!view) throw std::runtime_error(view.error().message);
    store_ = std::move(store);
    publish(*view);
    bring_up_new_shards(**view);
    try {
      // Views and SQL functions made before this instance (or without pgrange) are known
      // from the start.
      refresh_readers();
    } catch (const std::exception& e) {
      spdlog::warn("cannot read the views and SQL functions of the first shard: {}", e.what());
    }
    listener_ = std::thread([this] { listen_loop(); });
    if (config_.table_sizes_interval.count() > 0) sizer_ = std::thread([this] { size_loop(); });
    schedule_housekeeping();
    spdlog::info("metadata store ready: version {}, {} tables, {} ranges", (*view)->version(),
                 (*view)->tables().size(), (*view)->ranges().size());
  } catch (const std::exception& e) {
    if (!open_failed_) spdlog::error("cannot open the metadata store (retrying): {}", e.what());
    open_failed_ = true;
    {
      std::lock_guard lock(error_mu_);
      last_open_error_ = e.what();
    }
    retry_.expires_after(std::chrono::seconds(1));
    retry_.async_wait([this](const error_code& ec) {
      if (!ec) open_store();
    });
  }
}

void ControlPlane::schedule_housekeeping() {
  housekeeping_.expires_after(std::chrono::seconds(2));
  housekeeping_.async_wait([this](const error_code& ec) {
    if (ec || stopping_) return;
    try {
      // This instance's requests per range, as rates.
      const auto now = std::chrono::steady_clock::now();
      if (config_.ranges.count_load) {
        store_->report_load(instance_id_, load_.tick(now - load_ticked_));
      }
      load_ticked_ = now;
      if (jobs_) jobs_->renew_lease(*store_);
      // The decisions of the two-phase commits that finished on every shard since.
      std::vector<std::string> forget;
      {
        std::lock_guard lock(in_flight_mu_);
        forget.swap(forgettable_);
      }
      if (!forget.empty()) store_->forget_decisions(forget);
      // Moves that stopped half-way: prepared transactions settled by the map first, so the
      // holds' clean-up below sees each range's rows where the map says.
      if (auto ok = admin_->recover_moves(); !ok) spdlog::warn("{}", ok.error().message);
      // An instance silent this long is gone (heartbeats come every second).
      for (uint64_t range_id : store_->orphaned_holds(std::chrono::seconds(10))) {
        spdlog::warn("range {}: the pgrange instance moving it is gone; cleaning up", range_id);
        reload();
        if (auto ok = admin_->clean_up_orphaned_hold(range_id); !ok) {
          spdlog::error("{}", ok.error().message);
        }
      }
      // Two-phase commits left prepared by instances that are gone, or by this one's failed
      // sessions.
      std::vector<std::pair<std::string, std::string>> shards;
      for (size_t i = 0; i < config_.shards.size(); ++i) {
        shards.emplace_back(config_.shards[i].name, shard_dsn_of(config_, i));
      }
      auto report = routing::recover_prepared(
          *store_, shards, instance_id_, [this](const std::string& gid) { return in_flight(gid); },
          std::chrono::seconds(10));
      recovered_.fetch_add(static_cast<uint64_t>(report.committed + report.rolled_back),
                           std::memory_order_relaxed);
    } catch (const std::exception& e) {
      spdlog::warn("metadata housekeeping: {}", e.what());
    }
    schedule_housekeeping();
  });
}

std::string ControlPlane::begin_distributed() {
  std::string gid = routing::transaction_gid(instance_id_, next_transaction_.fetch_add(1));
  std::lock_guard lock(in_flight_mu_);
  in_flight_.insert(gid);
  return gid;
}

void ControlPlane::propose_commit(const std::string& gid) {
  std::lock_guard lock(in_flight_mu_);
  proposed_.push_back(gid);
}

void ControlPlane::end_distributed(const std::string& gid, bool forget) {
  std::lock_guard lock(in_flight_mu_);
  in_flight_.erase(gid);
  if (forget) forgettable_.push_back(gid);
}

bool ControlPlane::in_flight(const std::string& gid) const {
  std::lock_guard lock(in_flight_mu_);
  return in_flight_.count(gid) > 0;
}

Result<std::string> ControlPlane::decide_commit(const std::string& gid,
                                                const routing::BlockCatalog* block) {
  try {
    if (store_ == nullptr) throw std::runtime_error("the metadata store is not open");
    if (block == nullptr || block->empty()) {
      // Decided already with an earlier one's group, or the group of every decision proposed
      // since (this one among them).
      if (auto it = decided_.find(gid); it != decided_.end()) {
        std::string standing = std::move(it->second);
        decided_.erase(it);
        return standing;
      }
      std::vector<std::string> group;
      {
        std::lock_guard lock(in_flight_mu_);
        group.swap(proposed_);
      }
      if (std::find(group.begin(), group.end(), gid) == group.end()) group.push_back(gid);
      std::map<std::string, std::string> standing = store_->decide_commits(group, instance_id_);
      for (auto& [other, decision] : standing) {
        if (other != gid) decided_[other] = decision;
      }
      // (A gid missing from the answer, which the store cannot give, would be decided alone
      // by its own call.)
      if (auto it = standing.find(gid); it != standing.end()) return it->second;
      return store_->decide(gid, "commit", instance_id_);
    }
    // The catalog side of the block's DDL commits with the decision: computed against the
    // map as it is now, again if another change came first.
    for (int attempt = 1;; ++attempt) {
      auto delta = routing::net_change(*reload(), *block);
      if (!delta) return tl::unexpected(delta.error());
      try {
        std::string standing = store_->decide(gid, "commit", instance_id_, &*delta);
        if (standing == "commit" && !delta->empty()) {
          reload();
          for (const auto& t : delta->created) {
            spdlog::info("table {}.{} registered as /Table/{} ({}) with its transaction block",
                         t.table.schema, t.table.name, t.table.table_id,
                         routing::key_source_name(t.table.key_source));
          }
        }
        if (standing == "commit" && block->readers) refresh_readers();
        return standing;
      } catch (const pqxx::serialization_failure&) {
        if (attempt == kRegisterAttempts) throw;
      }
    }
  } catch (const std::exception& e) {
    return fail("40003", std::string("cannot record the commit decision of a write across "
                                     "shards: ") +
                             e.what());
  }
}

Result<std::string> ControlPlane::hold_prepared(const std::string& gid,
                                                const std::string& client_gid) {
  try {
    if (store_ == nullptr) throw std::runtime_error("the metadata store is not open");
    return store_->hold_prepared(gid, client_gid, instance_id_);
  } catch (const std::exception& e) {
    return fail("40003", std::string("cannot record the prepared transaction: ") + e.what());
  }
}

Result<std::optional<std::pair<std::string, std::string>>> ControlPlane::settle_prepared(
    const std::string& client_gid, bool commit) {
  try {
    if (store_ == nullptr) throw std::runtime_error("the metadata store is not open");
    return store_->settle_prepared(client_gid, commit ? "commit" : "abort");
  } catch (const std::exception& e) {
    return fail("40003",
                std::string("cannot record the decision of a prepared transaction: ") + e.what());
  }
}

void ControlPlane::forget_decision(const std::string& gid) {
  try {
    store_->forget_decision(gid);
  } catch (const std::exception& e) {
    spdlog::warn("forgetting the decision of {}: {}", gid, e.what());
  }
}

std::string ControlPlane::unavailable_reason() const {
  std::lock_guard lock(error_mu_);
  return last_open_error_;
}

void ControlPlane::stop() {
  if (stopping_.exchange(true)) return;
  if (jobs_) jobs_->stop();  // a move in progress ends when its next reload finds us stopping
  asio::post(io_, [this] {
    retry_.cancel();
    housekeeping_.cancel();
    drain_timer_.cancel();
  });
  work_.reset();
  io_.stop();
  if (thread_.joinable()) thread_.join();
  if (listener_.joinable()) listener_.join();
  if (sizer_.joinable()) sizer_.join();
  if (store_) {
    try {
      store_->forget_instance(instance_id_);  // moves need not wait for a stopped instance
    } catch (const std::exception&) {
    }
  }
}

void ControlPlane::add_load(routing::RangeCounts counts) {
  if (!config_.ranges.count_load) return;
  asio::post(io_, [this, counts = std::move(counts)] { load_.add(counts); });
}

std::shared_ptr<const routing::ClusterView> ControlPlane::reload_from_elsewhere() {
  auto done = std::make_shared<std::promise<std::shared_ptr<const routing::ClusterView>>>();
  auto loaded = done->get_future();
  asio::post(io_, [this, done] { done->set_value(reload()); });
  while (loaded.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
    if (stopping_) return view();
  }
  return loaded.get();
}

std::shared_ptr<const routing::ClusterView> ControlPlane::reload() {
  try {
    auto snap = store_->load();
    auto current = view();
    if (current && snap.version == current->version()) return current;
    auto view = routing::ClusterView::build(std::move(snap), shard_order_);
    if (!view) {
      spdlog::error("metadata store: {}", view.error().message);
      return current;
    }
    publish(*view);
    spdlog::debug("metadata version {} loaded", (*view)->version());
    return *view;
  } catch (const std::exception& e) {
    spdlog::error("reloading the metadata store failed: {}", e.what());
    return view();
  }
}

void ControlPlane::publish(std::shared_ptr<const routing::ClusterView> next) {
  constexpr auto kDrainWait = std::chrono::seconds(10);
  auto prev = view();
  auto in = [](const std::vector<uint64_t>& ids, uint64_t id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  };
  // New holds first, so no write (or, in a cut-over, whole-table read) routed with the new view
  // slips past them. A hold ends in two steps: writes go on first (at the range's new shard),
  // whole-table reads once the old shard's rows are gone.
  auto held = [&](const routing::ClusterView* v, uint64_t id) {
    return std::pair{v != nullptr && in(v->held_ranges(), id),
                     v != nullptr && in(v->scan_held_ranges(), id)};
  };
  auto any_hold = [](const routing::ClusterView& v) {
    std::vector<uint64_t> ids = v.held_ranges();
    ids.insert(ids.end(), v.scan_held_ranges().begin(), v.scan_held_ranges().end());
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
  };
  struct Newly {
    uint64_t id;
    bool scans;
  };
  std::vector<Newly> newly_held;
  for (uint64_t id : any_hold(*next)) {
    const auto [writes, scans] = held(next.get(), id);
    const auto [writes_were, scans_were] = held(prev.get(), id);
    if (writes != writes_were || scans != scans_were) activity_.hold(id, writes, scans);
    if ((writes && !writes_were) || (scans && !scans_were)) newly_held.push_back({id, scans});
  }
  view_.store(next, std::memory_order_release);
  published_version_.store(next->version());
  if (prev) {
    const std::vector<uint64_t> now_held = any_hold(*next);
    for (uint64_t id : any_hold(*prev)) {
      if (!in(now_held, id)) activity_.release(id);
    }
  }
  // Only once this instance's sessions are done with what changed does it say it serves the
  // new version: writers (and in a cut-over whole-table scans) inside a range that is about to
  // move, readers still at a range's old shard. A move waits for that before it catches up for
  // the last time, switches, or lets the old shard's rows go. Waited for by a timer, not here:
  // a writer may need this thread to finish (the decision of its two-phase commit).
  for (const Newly& h : newly_held) {
    const routing::RangeDescriptor* r = next->find_range(h.id);
    if (r == nullptr) continue;
    drains_.push_back({r->start_key, r->end_key, next->shard_index(r->shard),
                       h.scans ? routing::RangeActivity::Waiting::kWritersAndScans
                               : routing::RangeActivity::Waiting::kWriters});
  }
  if (prev) {
    for (const routing::RangeDescriptor& r : next->ranges().ranges()) {
      const routing::RangeDescriptor* old = prev->find_range(r.range_id);
      if (old == nullptr || old->shard == r.shard) continue;
      drains_.push_back({old->start_key, old->end_key, prev->shard_index(old->shard),
                         routing::RangeActivity::Waiting::kEveryone});
    }
  }
  // A newer version is confirmed only once the older ones' sessions are done too.
  drain_version_ = next->version();
  drain_deadline_ = std::chrono::steady_clock::now() + kDrainWait;
  check_drains();
}

void ControlPlane::check_drains() {
  std::erase_if(drains_, [&](const Drain& d) {
    return activity_.wait_idle(d.start, d.end, d.shard, d.waiting, std::chrono::milliseconds(0));
  });
  if (drain_version_ < 0) return;
  if (drains_.empty()) {
    try {
      store_->report_instance(instance_id_, drain_version_);
    } catch (const std::exception& e) {
      spdlog::warn("reporting metadata version {}: {}", drain_version_, e.what());
    }
    drain_version_ = -1;
    return;
  }
  if (std::chrono::steady_clock::now() >= drain_deadline_) {
    spdlog::warn("metadata version {}: sessions still use a moving range; not confirming it",
                 drain_version_);
    drains_.clear();
    drain_version_ = -1;
    return;
  }
  drain_timer_.expires_after(std::chrono::milliseconds(2));
  drain_timer_.async_wait([this](const error_code& ec) {
    if (!ec && !stopping_) check_drains();
  });
}

void ControlPlane::listen_loop() {
  // NOTIFY tells us at once; the version poll covers notifications lost while reconnecting.
  while (!stopping_) {
    try {
      pqxx::connection conn(metadata_dsn_);
      std::atomic<bool> notified{true};
      Receiver receiver(conn, notified);
      auto last_poll = std::chrono::steady_clock::now();
      while (!stopping_) {
        conn.await_notification(0, 200000);
        // Once a second, however busy the channel: the version check and the heartbeat.
        bool poll = std::chrono::steady_clock::now() - last_poll >= std::chrono::seconds(1);
        if (poll) {
          last_poll = std::chrono::steady_clock::now();
          pqxx::nontransaction tx(conn);
          int64_t v = tx.exec1("SELECT version FROM pgrange_meta")[0].as<int64_t>();
          if (v != view()->version()) notified = true;
          // The heartbeat that keeps this instance among those range moves wait for.
          tx.exec_params0(
              "UPDATE pgrange_instances SET heartbeat_at = now() WHERE instance_id = $1",
              instance_id_);
        }
        if (notified.exchange(false) && !reload_queued_.exchange(true)) {
          asio::post(io_, [this] {
            reload_queued_ = false;
            reload();
          });
        }
      }
    } catch (const std::exception& e) {
      if (stopping_) break;
      spdlog::warn("metadata store listener: {}; reconnecting", e.what());
      for (int i = 0; i < 10 && !stopping_; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
  }
}

void ControlPlane::size_loop() {
  // One connection per shard, kept; a shard that does not answer is tried again next time,
  // and until every shard answers the sizes published before stand.
  std::vector<std::unique_ptr<pqxx::connection>> conns;
  while (!stopping_) {
    auto sizes = std::make_shared<routing::TableSizes>();
    bool all = true;
    std::vector<std::pair<std::string, std::string>> shards = shard_dsns();  // RELOAD adds some
    conns.resize(shards.size());
    for (size_t i = 0; i < conns.size() && !stopping_; ++i) {
      try {
        if (!conns[i]) {
          conns[i] = std::make_unique<pqxx::connection>(
              with_dsn_keyword(shards[i].second, "connect_timeout", "2"));
        }
        pqxx::nontransaction tx(*conns[i]);
        pqxx::result r = tx.exec(
            "SELECT n.nspname, c.relname, c.reltuples::float8, pg_relation_size(c.oid) "
            "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', "
            "'information_schema') AND n.nspname NOT LIKE 'pg_toast%' AND "
            "n.nspname NOT LIKE 'pg_temp%'");
        for (const auto& row : r) {
          sizes->add(row[0].as<std::string>(), row[1].as<std::string>(), row[2].as<double>(),
                     row[3].as<int64_t>());
        }
      } catch (const std::exception& e) {
        spdlog::debug("table sizes from shard {}: {}", shards[i].first, e.what());
        conns[i].reset();
        all = false;
      }
    }
    if (all) sizes_.store(std::move(sizes), std::memory_order_release);
    auto until = std::chrono::steady_clock::now() + config_.table_sizes_interval;
    while (!stopping_ && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
}

Result<routing::ResultSet> ControlPlane::execute_admin(const sql::AdminStatement& stmt) {
  if (!store_) return fail(sqlstate::kConnectionFailure, "the metadata store is not reachable");
  reload();  // answer with the newest map, even if a notification is still on its way
  if (stmt.kind == sql::AdminKind::kImportTable) {
    try {
      return import_table(stmt);
    } catch (const std::exception& e) {
      return fail(sqlstate::kConnectionFailure, std::string("IMPORT TABLE: ") + e.what());
    }
  }
  return admin_->execute(stmt);
}

Result<void> ControlPlane::check_ddl(const sql::StatementInfo& info) const {
  auto v = view();
  if (v == nullptr)
    return fail(sqlstate::kConnectionFailure, "the metadata store is not reachable");
  return check_ddl(info, *v);
}

Result<void> ControlPlane::check_ddl(const sql::StatementInfo& info,
                                     const routing::ClusterView& view) const {
  const routing::ClusterView* v = &view;
  if (info.kind == sql::StatementKind::kCreateTable && !info.temporary) {
    if (info.create_as && !info.create_as_empty) {
      // The session runs them as the table WITH NO DATA, then INSERT … SELECT
      // (client_create_as.cpp); what reaches this did not go that way.
      return fail(Error::make(sqlstate::kFeatureNotSupported,
                              "CREATE TABLE … AS and SELECT … INTO through the extended query "
                              "protocol, or in a session tied to one connection, are not "
                              "supported by pgrange yet")
                      .with_hint("send it as a simple query, or create the table WITH NO DATA, "
                                 "then INSERT … SELECT"));
    }
    for (const sql::TableRef& like : info.like_indexes) {
      const routing::TableDescriptor* t = v->find_table(like.schema, like.name);
      if (t != nullptr && !t->indexes.empty()) {
        // Its global indexes are not indexes of the table on the shards: LIKE would not copy them.
        return fail(Error::make(sqlstate::kFeatureNotSupported,
                                "CREATE TABLE (LIKE \"" + like.name +
                                    "\" INCLUDING INDEXES) of a table with global indexes is "
                                    "not supported yet")
                        .with_hint("add EXCLUDING INDEXES and create the indexes after"));
      }
    }
    if (info.of_type) {
      return fail(sqlstate::kFeatureNotSupported,
                  "CREATE TABLE … OF a composite type is not supported through pgrange yet");
    }
    if (!info.parents.empty()) {
      // A partition or an inheritance child lives where its root's ranges put its keys.
      if (info.parents.size() > 1) {
        return fail(sqlstate::kFeatureNotSupported,
                    "CREATE TABLE … INHERITS from several tables is not supported through "
                    "pgrange: the table's rows would have to follow the ranges of each");
      }
      const sql::TableRef& p = info.parents.front();
      const routing::TableDescriptor* parent = v->find_table(p.schema, p.name);
      if (parent == nullptr) {
        return fail(sqlstate::kFeatureNotSupported,
                    "CREATE TABLE … " +
                        std::string(info.partition_of ? "PARTITION OF" : "INHERITS") + " \"" +
                        p.name +
                        "\", a table pgrange does not place (a temporary table, or one it does "
                        "not know), is not supported");
      }
      const routing::TableDescriptor* root = v->find_table_id(parent->table_id);
      if (root != nullptr && !root->indexes.empty()) {
        return fail(Error::make(sqlstate::kFeatureNotSupported,
                                "a partition or inheritance child of table \"" + root->name +
                                    "\", which has global indexes, is not supported yet")
                        .with_hint("its writes would not reach the global indexes; drop them "
                                   "(DROP INDEX) or make them local (WITH (local = true))"));
      }
    }
  }
  if (info.kind == sql::StatementKind::kAlterTable && info.changes_parents) {
    return fail(sqlstate::kFeatureNotSupported,
                "ALTER TABLE … ATTACH PARTITION, DETACH PARTITION, INHERIT, NO INHERIT, OF or NOT "
                "OF is not supported through pgrange yet: the table's rows would have to move to "
                "the ranges of its new family");
  }
  if (info.kind == sql::StatementKind::kSchemaDdl && info.rename_to && !info.target.name.empty()) {
    for (const routing::TableDescriptor& t : v->tables()) {
      if (routing::find_index(t, info.target.name) != nullptr) {
        return fail(sqlstate::kFeatureNotSupported,
                    "renaming global index \"" + info.target.name +
                        "\" is not supported yet: drop it and create it under the new name");
      }
    }
  }
  if (info.kind == sql::StatementKind::kCreateView && info.materialized && !info.temporary &&
      v->shards().size() > 1) {
    // Each shard would materialize the query over its own rows only.
    for (const sql::TableRef& t : info.tables) {
      if (t == info.target) continue;
      bool managed =
          v->find_table(t.schema, t.name) != nullptr || v->find_view(t.schema, t.name) != nullptr;
      if (managed) {
        return fail(Error::make(sqlstate::kFeatureNotSupported,
                                "CREATE MATERIALIZED VIEW over \"" + t.name +
                                    "\" is not supported: every shard would materialize only "
                                    "its own rows of it")
                        .with_hint("use a view, or a table filled by INSERT … SELECT"));
      }
    }
    for (const sql::TableRef& f : info.functions) {
      if (!v->find_functions(f.schema, f.name).empty()) {
        return fail(Error::make(sqlstate::kFeatureNotSupported,
                                "CREATE MATERIALIZED VIEW calling function " + f.name +
                                    "() is not supported: every shard would materialize it over "
                                    "its own rows only")
                        .with_hint("use a view, or a table filled by INSERT … SELECT"));
      }
    }
  }
  for (const std::string& c : info.column_collations) {
    if (!sql::orders_bytewise(c) && !info.temporary) {
      return fail(sqlstate::kFeatureNotSupported,
                  "COLLATE \"" + c +
                      "\" on a column is not supported through pgrange: it merges text from "
                      "several shards in the C collation's order");
    }
  }
  if (auto ok = check_constraints(info, view); !ok) return ok;
  if (info.kind == sql::StatementKind::kAlterTable) {
    const routing::TableDescriptor* t = v->find_table(info.target.schema, info.target.name);
    if (t != nullptr) {
      for (const auto& i : t->indexes) {
        std::vector<std::string> used = i.storing;
        for (const auto& k : i.columns) used.push_back(k.name);
        for (const auto& c : used) {
          bool dropped = std::find(info.dropped_columns.begin(), info.dropped_columns.end(), c) !=
                         info.dropped_columns.end();
          bool retyped =
              std::find(info.altered_type_columns.begin(), info.altered_type_columns.end(), c) !=
              info.altered_type_columns.end();
          if (dropped || retyped) {
            return fail(
                Error::make(sqlstate::kFeatureNotSupported,
                            "cannot " + std::string(dropped ? "drop" : "change the type of") +
                                " column \"" + c + "\": global index \"" + i.name + "\" uses it")
                    .with_hint("DROP INDEX " + i.name + " first"));
          }
        }
      }
      for (const auto& k : t->key) {
        for (const auto& c : info.dropped_columns) {
          if (c == k.name) {
            return fail(sqlstate::kFeatureNotSupported,
                        "cannot drop column \"" + c + "\": it is part of the key of table \"" +
                            t->name + "\", by which pgrange places its rows");
          }
        }
        for (const auto& c : info.altered_type_columns) {
          if (c == k.name) {
            return fail(sqlstate::kFeatureNotSupported,
                        "cannot change the type of column \"" + c +
                            "\": it is part of the key of table \"" + t->name +
                            "\", by which pgrange places its rows");
          }
        }
      }
    }
  }
  return {};
}

Result<routing::TableDescription> ControlPlane::describe_table(const std::string& schema,
                                                               const std::string& name,
                                                               size_t shard) {
  pqxx::connection conn(shard_dsn_of(config_, shard));
  pqxx::read_transaction tx(conn);
  std::string rel = schema.empty() ? sql::quote_ident(name)
                                   : sql::quote_ident(schema) + "." + sql::quote_ident(name);
  std::vector<std::vector<std::optional<std::string>>> rows;
  for (const auto& r : tx.exec(routing::table_description_sql(rel))) {
    auto& row = rows.emplace_back();
    for (const auto& f : r) {
      row.push_back(f.is_null() ? std::nullopt : std::optional<std::string>(f.c_str()));
    }
  }
  return routing::describe_table_rows(rows, name, configured_key());
}

routing::ConfiguredKey ControlPlane::configured_key() const {
  return [this](const std::string& schema,
                const std::string& name) -> const std::vector<std::string>* {
    const std::vector<std::string>* key = nullptr;
    for (const auto& tc : config_.tables) {
      if ((tc.name == name || tc.name == schema + "." + name) && !tc.key.empty()) key = &tc.key;
    }
    return key;
  };
}

Result<std::string> ControlPlane::register_table(const sql::StatementInfo& info,
                                                 uint32_t hash_buckets) {
  auto described = describe_table(info.target.schema, info.target.name);
  if (!described) return tl::unexpected(described.error());
  if (hash_buckets > 0 && !described->table.key.empty()) {
    routing::make_hash_sharded(described->table, hash_buckets);
  } else if (hash_buckets > 0) {
    described->notice += " (so its USING HASH has no effect)";
  }
  std::string notice = described->notice;
  auto v = view();
  if (v->find_table(described->table.schema, described->table.name) != nullptr) {
    return notice;
  }
  if (!info.parents.empty()) {
    // A partition or inheritance child: placed by its root's ranges, none of its own.
    const sql::TableRef& p = info.parents.front();
    const routing::TableDescriptor* parent = v->find_table(p.schema, p.name);
    if (parent == nullptr) {
      return fail(sqlstate::kUndefinedTable, "relation \"" + p.name + "\" does not exist");
    }
    routing::TableDescriptor member = std::move(described->table);
    routing::join_family(member, *parent);
    member.member_id = store_->allocate_table_id();
    store_->register_table(member, {});
    reload();
    spdlog::info("table {}.{} registered as a member of the family of /Table/{}", member.schema,
                 member.name, member.table_id);
    return std::string();
  }
  auto registered = register_described(std::move(*described), -1);
  if (!registered) return tl::unexpected(registered.error());
  return notice;
}

Result<routing::NewTable> ControlPlane::place_new_table(routing::TableDescriptor table, int shard,
                                                        const routing::ClusterView& v) {
  routing::NewTable out;
  if (shard < 0 && configured_reference(table)) {
    if (table.hash_buckets > 0) {
      return fail(sqlstate::kFeatureNotSupported,
                  "table \"" + table.name +
                      "\" is a reference table in the configuration: its key cannot be "
                      "hash-sharded (every shard holds all of its rows)");
    }
    // Every shard holds all of its rows: one nominal range on the first shard, where writers
    // of the same rows queue before they reach the others.
    table.reference = true;
    out.shards.push_back(shard_order_.front());
    out.table = std::move(table);
    return out;
  }
  if (shard < 0) {
    if (auto root_name = configured_colocation(table)) {
      // Its ranges follow its group root's: split at the same key prefixes, each range on the
      // shard of the root's range there.
      std::string schema, name = *root_name;
      if (auto dot = name.find('.'); dot != std::string::npos) {
        schema = name.substr(0, dot);
        name = name.substr(dot + 1);
      }
      const routing::TableDescriptor* root = v.find_table(schema, name);
      if (root == nullptr) {
        return fail(sqlstate::kUndefinedTable,
                    "table \"" + table.name + "\" is configured to be co-located with table \"" +
                        *root_name + "\", which does not exist (create it first)");
      }
      if (auto why = routing::colocation_blocker(*root, table.key, table.hash_buckets)) {
        return fail(sqlstate::kFeatureNotSupported, "table \"" + table.name +
                                                        "\" cannot be co-located with table \"" +
                                                        root->name + "\": " + *why);
      }
      table.colocated_with = root->table_id;
      auto layout = routing::layout_for(v, root->table_id, table.table_id);
      out.split_keys = std::move(layout.split_keys);
      out.shards = std::move(layout.shards);
      out.table = std::move(table);
      return out;
    }
  }
  // Shards being drained (ALTER SHARD … DRAIN) get no new ranges.
  std::vector<size_t> open;
  for (size_t k = 0; k < shard_order_.size(); ++k) {
    bool draining = false;
    for (const routing::ShardRecord& r : v.shards()) {
      draining = draining || (r.name == shard_order_[k] && r.draining);
    }
    if (!draining) open.push_back(k);
  }
  if (open.empty()) {
    for (size_t k = 0; k < shard_order_.size(); ++k) open.push_back(k);
  }
  size_t best = open[next_shard_ % open.size()];
  if (shard >= 0) {
    best = static_cast<size_t>(shard);
  } else {
    // The table's first range goes to the shard holding the fewest table ranges.
    std::vector<int> load(shard_order_.size(), 0);
    for (const auto& t : v.tables()) {
      if (t.member_id != 0) continue;  // its root's ranges
      for (size_t i : v.table_ranges(t.table_id)) {
        int s = v.shard_index(v.ranges().at(i).shard);
        if (s >= 0) ++load[static_cast<size_t>(s)];
      }
    }
    for (size_t k = 0; k < open.size(); ++k) {
      size_t s = open[(next_shard_ + k) % open.size()];
      if (load[s] < load[best]) best = s;
    }
  }
  // An imported table's rows are all on `shard`: it starts as one range there.
  if (shard < 0) {
    auto split_keys = configured_splits(table);
    if (!split_keys) return tl::unexpected(split_keys.error());
    out.split_keys = std::move(*split_keys);
  }
  // The table is new and empty: its ranges can start anywhere. With configured split points
  // range i goes to shard i (in turn from the first open shard), so that tables split at the
  // same points (pgbench_accounts and pgbench_history by aid) hold the same keys on the same
  // shard.
  for (size_t i = 0; i <= out.split_keys.size(); ++i) {
    out.shards.push_back(out.split_keys.empty() ? shard_order_[best]
                                                : shard_order_[open[i % open.size()]]);
  }
  out.table = std::move(table);
  next_shard_ = best + 1;
  return out;
}

Result<routing::NewTable> ControlPlane::plan_block_table(routing::TableDescription described,
                                                         uint32_t hash_buckets,
                                                         const routing::TableDescriptor* parent) {
  if (store_ == nullptr) {
    return fail(sqlstate::kConnectionFailure, "the metadata store is not reachable");
  }
  try {
    if (parent != nullptr) {
      // A partition or inheritance child: placed by its root's ranges, none of its own.
      routing::NewTable member;
      member.table = std::move(described.table);
      routing::join_family(member.table, *parent);
      member.table.member_id = store_->allocate_table_id();
      return member;
    }
    if (hash_buckets > 0 && !described.table.key.empty()) {
      routing::make_hash_sharded(described.table, hash_buckets);
    }
    // Its sequences now: the block's own INSERTs take values of them. A block that rolls back
    // leaves their records unused, and the next table of that name makes them anew.
    register_sequences(described.table, described.sequences);
    described.table.table_id = store_->allocate_table_id();
    return place_new_table(std::move(described.table), -1, *reload());
  } catch (const std::exception& e) {
    return fail(sqlstate::kConnectionFailure,
                std::string("pgrange could not take an id for the new table in its metadata "
                            "store: ") +
                    e.what());
  }
}

std::optional<std::string> ControlPlane::configured_colocation(
    const routing::TableDescriptor& table) const {
  for (const auto& tc : config_.tables) {
    if ((tc.name == table.name || tc.name == table.schema + "." + table.name) &&
        !tc.colocate_with.empty()) {
      return tc.colocate_with;
    }
  }
  return std::nullopt;
}

bool ControlPlane::configured_reference(const routing::TableDescriptor& table) const {
  for (const auto& tc : config_.tables) {
    if (tc.name == table.name || tc.name == table.schema + "." + table.name) return tc.reference;
  }
  return false;
}

Result<std::vector<std::string>> ControlPlane::configured_splits(
    const routing::TableDescriptor& table) const {
  std::vector<std::string> keys;
  // A hash-sharded table starts with one range per bucket: [/1/b, /1/b+1).
  for (uint32_t b = 1; b < table.hash_buckets; ++b) {
    std::string key = routing::index_prefix(table.table_id, table.index_id);
    routing::append_key_value(key, table.key.front().column,
                              routing::KeyValue{static_cast<int64_t>(b)});
    keys.push_back(std::move(key));
  }
  if (table.key_source != routing::KeySource::kConfig) return keys;
  for (const auto& tc : config_.tables) {
    if (tc.name != table.name && tc.name != table.schema + "." + table.name) continue;
    for (const auto& values : tc.split_at) {
      std::vector<routing::KeyColumn> columns;
      std::vector<std::optional<std::string_view>> views;
      for (size_t i = 0; i < values.size() && i < table.key.size(); ++i) {
        columns.push_back(table.key[i].column);
        views.emplace_back(values[i]);
      }
      auto key = routing::encode_key_text(table.table_id, 1, columns, views);
      if (!key) {
        Error e = key.error();
        e.message = "split_at of table \"" + table.name + "\" in the configuration: " + e.message;
        return tl::unexpected(std::move(e));
      }
      keys.push_back(std::move(*key));
    }
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

Result<routing::TableDescriptor> ControlPlane::register_described(
    routing::TableDescription described, int shard) {
  // Its sequences first: a table the catalog knows finds them in the store.
  register_sequences(described.table, described.sequences);
  routing::TableDescriptor table = std::move(described.table);
  table.table_id = store_->allocate_table_id();
  for (int attempt = 1;; ++attempt) {
    auto v = reload();
    auto placed = place_new_table(table, shard, *v);
    if (!placed) return tl::unexpected(placed.error());
    table.reference = placed->table.reference;
    table.colocated_with = placed->table.colocated_with;
    auto ranges = v->ranges().ranges();
    auto changes = routing::new_table_ranges(
        std::vector<routing::RangeDescriptor>(ranges.begin(), ranges.end()), *placed);
    if (!changes) return tl::unexpected(changes.error());
    try {
      store_->register_table(table, *changes);
      reload();
      spdlog::info("table {}.{} registered as /Table/{} ({}) on shard {}", table.schema, table.name,
                   table.table_id, routing::key_source_name(table.key_source),
                   placed->shards.front());
      return table;
    } catch (const pqxx::serialization_failure&) {
    } catch (const pqxx::unique_violation& e) {
      // Another instance registered it meanwhile, or took the same new range id.
      if (const auto* t = reload()->find_table(table.schema, table.name)) return *t;
    }
    if (attempt == kRegisterAttempts) {
      return fail(sqlstate::kSerializationFailure, "the range map kept changing while table \"" +
                                                       table.name + "\" was being registered");
    }
  }
}

Result<routing::ResultSet> ControlPlane::import_table(const sql::AdminStatement& stmt) {
  std::string schema, name = stmt.table;
  if (auto dot = name.find('.'); dot != std::string::npos) {
    schema = name.substr(0, dot);
    name = name.substr(dot + 1);
  }
  int wanted = -1;
  if (!stmt.shard.empty()) {
    auto it = std::find(shard_order_.begin(), shard_order_.end(), stmt.shard);
    if (it == shard_order_.end()) {
      return fail(sqlstate::kInvalidParameterValue, "shard \"" + stmt.shard + "\" does not exist");
    }
    wanted = static_cast<int>(it - shard_order_.begin());
  }
  // The table must exist on every shard; its rows may be on one shard only.
  std::vector<std::string> missing, with_rows;
  int holder = -1;
  for (size_t i = 0; i < shard_order_.size(); ++i) {
    pqxx::connection conn(shard_dsn_of(config_, i));
    pqxx::read_transaction tx(conn);
    std::string rel = schema.empty() ? conn.quote_name(name)
                                     : conn.quote_name(schema) + "." + conn.quote_name(name);
    if (tx.exec_params1("SELECT to_regclass($1) IS NULL", rel)[0].as<bool>()) {
      missing.push_back(shard_order_[i]);
      continue;
    }
    if (tx.exec1("SELECT EXISTS (SELECT 1 FROM " + rel + ")")[0].as<bool>()) {
      with_rows.push_back(shard_order_[i]);
      holder = static_cast<int>(i);
    }
  }
  auto list = [](const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "\"" : ", \"") + s + "\"";
    return out;
  };
  if (!missing.empty()) {
    Error e = Error::make(sqlstate::kUndefinedTable,
                          "table \"" + stmt.table + "\" does not exist on shard" +
                              (missing.size() > 1 ? "s " : " ") + list(missing));
    e.hint =
        "create it there first with the same columns (for example from pg_dump --schema-only "
        "-t " +
        stmt.table + "), then import it again";
    return tl::unexpected(e);
  }
  if (with_rows.size() > 1 || (wanted >= 0 && holder >= 0 && holder != wanted)) {
    return fail(sqlstate::kFeatureNotSupported,
                "table \"" + stmt.table + "\" has rows on shard" +
                    (with_rows.size() > 1 ? "s " : " ") + list(with_rows) +
                    ": pgrange imports a table whose rows are all on one shard (the one it "
                    "names), so that no row is on a shard its range is not");
  }
  size_t describe_on = holder >= 0 ? static_cast<size_t>(holder) : 0;
  auto described = describe_table(schema, name, describe_on);
  if (!described) return tl::unexpected(described.error());
  std::string notice = described->notice;
  if (view()->find_table(described->table.schema, described->table.name) != nullptr) {
    return fail("42P07", "table \"" + described->table.name + "\" is already a pgrange table");
  }
  auto registered = register_described(std::move(*described), wanted >= 0 ? wanted : holder);
  if (!registered) return tl::unexpected(registered.error());
  auto v = view();
  const routing::RangeDescriptor* r =
      v->ranges().lookup(routing::table_prefix(registered->table_id));
  routing::ResultSet rs;
  rs.columns = {{"table_id", routing::type_oid::kInt8},
                {"table_name", routing::type_oid::kText},
                {"key", routing::type_oid::kText},
                {"shard", routing::type_oid::kText},
                {"notice", routing::type_oid::kText}};
  std::string key;
  for (const auto& k : registered->key) key += (key.empty() ? "" : ", ") + k.name;
  std::vector<std::optional<std::string>> row;
  row.emplace_back(std::to_string(registered->table_id));
  row.emplace_back(registered->schema + "." + registered->name);
  row.push_back(registered->key.empty() ? std::nullopt : std::optional<std::string>(key));
  row.push_back(r ? std::optional<std::string>(r->shard) : std::nullopt);
  row.push_back(notice.empty() ? std::nullopt : std::optional<std::string>(notice));
  rs.rows.push_back(std::move(row));
  rs.tag = "SELECT 1";
  return rs;
}

Result<std::string> ControlPlane::rekey_table(const routing::TableDescriptor& table) {
  auto described = describe_table(table.schema, table.name);
  if (!described) return tl::unexpected(described.error());
  const routing::TableDescriptor& fresh = described->table;
  const std::string& notice = described->notice;
  if (fresh.key_source == table.key_source && fresh.key == table.key) return notice;
  store_->update_table_key(table.table_id, fresh.key_source, fresh.key);
  if (fresh.columns != table.columns) store_->set_table_columns(table.table_id, fresh.columns);
  reload();
  spdlog::info("table {}.{} is now keyed by its {}", table.schema, table.name,
               routing::key_source_name(fresh.key_source));
  return notice;
}

Result<std::string> ControlPlane::after_ddl(const sql::StatementInfo& info, uint32_t hash_buckets) {
  if (!store_) return fail(sqlstate::kConnectionFailure, "the metadata store is not reachable");
  try {
    auto v = reload();
    // Views and SQL functions may have come, gone or changed (a table's DROP … CASCADE or
    // RENAME changes the views over it too).
    bool readers = info.kind == sql::StatementKind::kCreateView ||
                   info.kind == sql::StatementKind::kSchemaDdl ||
                   (!v->readers().empty() && (info.kind == sql::StatementKind::kDropTable ||
                                              info.kind == sql::StatementKind::kAlterTable));
    if (readers && !info.temporary) refresh_readers();
    follow_sequences(info, *v);
    if (info.changes_privileges) follow_privileges(info, *v);
    switch (info.kind) {
      case sql::StatementKind::kCreateTable: {
        if (info.temporary) return std::string();
        bool known = v->find_table(info.target.schema, info.target.name) != nullptr;
        auto notice = register_table(info, hash_buckets);
        // A member's constraints contain its family's key (check_constraints).
        if (!notice || known || !info.parents.empty()) return notice;
        if (auto made = make_unique_constraints_global(info.target); !made) {
          return tl::unexpected(made.error());
        }
        return notice;
      }
      case sql::StatementKind::kDropTable: {
        bool changed = false;
        for (const auto& ref : info.tables) {
          if (const auto* t = v->find_table(ref.schema, ref.name)) {
            drop_index_tables(*t);
            // A root's members go with it (and PostgreSQL drops them with it).
            store_->drop_table(routing::catalog_id(*t));
            changed = true;
          }
        }
        if (changed) reload();
        return std::string();
      }
      case sql::StatementKind::kAlterTable: {
        const routing::TableDescriptor* t = v->find_table(info.target.schema, info.target.name);
        if (t == nullptr) return std::string();
        routing::TableDescriptor table = *t;
        if (info.rename_to) {
          // The index backend tables follow: "<table>@<index>".
          std::string renames;
          for (const auto& i : table.indexes) {
            routing::TableDescriptor renamed = table;
            renamed.name = *info.rename_to;
            renames += "ALTER TABLE " + sql::quote_ident(table.schema) + "." +
                       sql::quote_ident(routing::index_table_name(table, i)) + " RENAME TO " +
                       sql::quote_ident(routing::index_table_name(renamed, i)) + ";\n";
          }
          if (!renames.empty()) run_on_every_shard(renames, false);
          store_->rename_table(routing::catalog_id(table), table.schema, *info.rename_to);
          reload();
          return std::string();
        }
        if (!info.primary_key.empty() && table.key_source == routing::KeySource::kUnsharded &&
            table.member_id == 0) {
          return rekey_table(table);
        }
        if (info.renamed_column && table.member_id == 0) {
          bool renamed_key = false;
          for (auto& k : table.key) {
            if (k.name == info.renamed_column->first) {
              k.name = info.renamed_column->second;
              renamed_key = true;
            }
          }
          if (renamed_key) store_->update_table_key(table.table_id, table.key_source, table.key);
        }
        if (!info.added_columns.empty() || !info.dropped_columns.empty() || info.alter_other) {
          // Columns came, went or were renamed: INSERTs without a column list follow.
          // A root's columns change in its members too (PostgreSQL's inheritance).
          bool changed = false;
          for (const routing::TableDescriptor& m : v->tables()) {
            if (m.table_id != table.table_id || (table.member_id != 0 && &m != t)) continue;
            auto described = describe_table(m.schema, m.name);
            if (described && described->table.columns != m.columns) {
              store_->set_table_columns(routing::catalog_id(m), described->table.columns);
              changed = true;
            }
          }
          if (changed) reload();
        }
        return std::string();
      }
      default:
        return std::string();
    }
  } catch (const std::exception& e) {
    return fail(sqlstate::kInternalError,
                std::string("the statement ran on every shard, but updating pgrange's catalog "
                            "failed: ") +
                    e.what());
  }
}

}  // namespace pgrange::proxy
