#include "proxy/worker.hpp"

#include <malloc.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "proxy/control/control_plane.hpp"
#include "proxy/session/client_session.hpp"

namespace pgrange::proxy {

Worker::Worker(SharedState& shared, int index)
    : shared_(shared),
      index_(index),
      settings_(shared.settings.load()),
      stats_(settings_->config.shards.size()),
      pools_(settings_->config.shards.size()) {
  hand_over_load();
}

namespace {

/// A worker's share of a shard's pool_size (which is per shard and role for the process).
int pool_share(const config::Config& cfg, size_t shard) {
  int workers = cfg.effective_workers();
  return (cfg.shards[shard].pool_size + workers - 1) / workers;
}

}  // namespace

BackendPool& Worker::pool(size_t shard, const BackendLogin& login) {
  auto& by_login = pools_[shard];
  std::string key = login.pool_key();
  auto it = by_login.find(key);
  if (it != by_login.end()) return *it->second;
  // RELOAD changes no shard's address, only its pool_size; the ShardState lives as long as the
  // process (every later load shares it).
  const config::Config& cfg = config();
  ShardState& state = *settings_->shards[shard];
  auto made = std::make_unique<BackendPool>(io_, cfg.shards[shard], static_cast<int>(shard),
                                            state.tls.get(), login, pool_share(cfg, shard),
                                            cfg.pool_wait_timeout, cfg.connect_timeout,
                                            &stats_.shard(shard), &state.paused, &state.held);
  if (shared_.draining) made->close_idle();
  return *by_login.emplace(std::move(key), std::move(made)).first->second;
}

void Worker::count_uses(const std::vector<routing::RangeActivity::Use>& uses,
                        std::vector<routing::Route::KeySample>& samples) {
  for (const routing::RangeActivity::Use& u : uses) {
    routing::RangeCount& c = load_[u.range_id];
    ++(u.write ? c.writes : c.reads);
  }
  for (routing::Route::KeySample& s : samples) {
    std::vector<std::string>& kept = load_[s.range_id].samples;
    // Handed over every second: past kSamples a range's oldest keys make room.
    if (kept.size() >= routing::kSamples) kept.erase(kept.begin());
    kept.push_back(std::move(s.key));
  }
  samples.clear();
}

void Worker::hand_over_load() {
  if (!load_.empty() && shared_.control != nullptr) {
    shared_.control->add_load(std::move(load_));
    load_.clear();
  }
  load_timer_.expires_after(std::chrono::seconds(1));
  load_timer_.async_wait([this](const error_code& ec) {
    if (!ec) hand_over_load();
  });
}

const std::string& Worker::statement_name(const std::string& parse_tail) {
  auto it = statement_names_.find(parse_tail);
  if (it != statement_names_.end()) return it->second;
  std::string name =
      "pgrange_" + std::to_string(index_) + "_" + std::to_string(statement_names_.size() + 1);
  return statement_names_.emplace(parse_tail, std::move(name)).first->second;
}

std::shared_ptr<const Result<std::vector<sql::StatementInfo>>> Worker::analyze(
    std::string_view sql) {
  return analyses_.analyze(sql);
}

std::shared_ptr<const Result<sql::MergeQuery>> Worker::merge_plan(
    std::string_view sql, const routing::TableDescriptor& table) {
  constexpr size_t kMaxPlans = 1024;
  if (merges_version_ != view_version_ || merges_.size() >= kMaxPlans ||
      merge_shapes_.size() >= kMaxPlans) {
    merges_.clear();
    merge_shapes_.clear();
    merges_version_ = view_version_;
  }
  std::string text(sql);
  if (auto it = merges_.find(text); it != merges_.end()) return it->second;
  std::optional<sql::StatementShape> shape = sql::statement_shape(sql);
  auto values_of = [&](const std::vector<size_t>& used) {
    std::string key;
    for (size_t i : used) {
      key += shape->literals[i].value;
      key.push_back('\0');
    }
    return key;
  };
  if (shape) {
    if (auto it = merge_shapes_.find(shape->key); it != merge_shapes_.end()) {
      auto p = it->second.plans.find(values_of(it->second.used));
      if (p != it->second.plans.end()) {
        sql::MergeQuery q = **p->second;
        q.shard_sql = text;
        return std::make_shared<const Result<sql::MergeQuery>>(std::move(q));
      }
    }
  }
  std::vector<std::string> keys;
  // A hash-sharded key's bucket follows from its columns: they alone decide the shard.
  for (const auto& k : routing::row_key_columns(table)) keys.push_back(k.name);
  auto plan =
      std::make_shared<const Result<sql::MergeQuery>>(sql::plan_merge(sql, keys, table.columns));
  if (shape && *plan && (*plan)->shard_sql_is_text && !(*plan)->window_partition) {
    // Other texts of this shape share the plan when the literals it read are the same.
    std::vector<size_t> used;
    bool mapped = true;
    for (int loc : (*plan)->constants_read) {
      auto lit =
          std::find_if(shape->literals.begin(), shape->literals.end(),
                       [&](const sql::Literal& l) { return static_cast<int>(l.begin) == loc; });
      if (lit == shape->literals.end()) {
        mapped = false;
        break;
      }
      used.push_back(static_cast<size_t>(lit - shape->literals.begin()));
    }
    MergeShape& entry = merge_shapes_[shape->key];
    if (mapped && (entry.plans.empty() || entry.used == used)) {
      entry.used = used;
      entry.plans.emplace(values_of(used), plan);
    }
  }
  merges_.emplace(std::move(text), plan);
  return plan;
}

std::shared_ptr<const routing::ClusterView> Worker::view() {
  ControlPlane* cp = shared_.control;
  int64_t published = cp->published_version();
  if (published != view_version_ || !view_) {
    view_ = cp->view();
    view_version_ = published;
  }
  return view_;
}

void Worker::start_session(tcp::socket socket) {
  error_code ec;
  socket.set_option(tcp::no_delay(true), ec);
  auto session = std::make_shared<ClientSession>(*this, std::move(socket));
  sessions_.push_back(session);
  auto it = std::prev(sessions_.end());
  asio::co_spawn(
      io_, [session]() -> awaitable<void> { co_await session->run(); },
      [this, it](std::exception_ptr e) {
        sessions_.erase(it);
        if (++ended_since_trim_ >= kTrimAfterSessions) {
          // Many clients left (a burst of logins that ended, a pool that shrank): what they
          // held goes back to the system, not only to malloc's free lists. Rare enough that
          // its pause (a few milliseconds for a large heap) does not count.
          ended_since_trim_ = 0;
          malloc_trim(0);
        }
        if (!e) return;
        // run() turns what its statements throw into a FATAL for the client; this is what its
        // own clean-up threw.
        try {
          std::rethrow_exception(e);
        } catch (const std::exception& ex) {
          spdlog::error("session ended by an unexpected exception: {}", ex.what());
        } catch (...) {
          spdlog::error("session ended by an unexpected exception");
        }
      });
  if (shared_.draining) session->drain();
}

void Worker::apply_settings(std::shared_ptr<const Settings> settings) {
  settings_ = std::move(settings);
  const config::Config& cfg = config();
  if (pools_.size() < cfg.shards.size()) pools_.resize(cfg.shards.size());
  stats_.add_shards(cfg.shards.size());
  for (size_t shard = 0; shard < pools_.size(); ++shard) {
    for (auto& [key, p] : pools_[shard]) {
      p->set_limits(pool_share(cfg, shard), cfg.pool_wait_timeout, cfg.connect_timeout);
    }
  }
}

void Worker::drop_idle(size_t shard) {
  if (shard >= pools_.size()) return;
  for (auto& [key, p] : pools_[shard]) p->drop_idle();
}

size_t Worker::connections_in_use() {
  size_t n = 0;
  for (auto& by_login : pools_) {
    for (const auto& [key, p] : by_login) {
      for (const auto& conn : p->connections()) n += conn->idle ? 0 : 1;
    }
  }
  return n;
}

bool Worker::holds_connection(const void* holder) {
  for (auto& by_login : pools_) {
    for (const auto& [key, p] : by_login) {
      for (const auto& conn : p->connections()) {
        if (!conn->idle && conn->holder == holder) return true;
      }
    }
  }
  return false;
}

WorkerSnapshot Worker::snapshot() {
  WorkerSnapshot snap;
  for (auto& w : sessions_) {
    if (auto s = w.lock()) {
      snap.clients.push_back(s->describe());
      snap.clients.back().worker = index_;
    }
  }
  for (size_t shard = 0; shard < pools_.size(); ++shard) {
    for (auto& [key, p] : pools_[shard]) {
      PoolRow row;
      row.shard = p->shard().name;
      row.database = p->shard().dbname;
      row.user = p->login().user;
      row.cl_waiting = static_cast<int>(p->waiting_count());
      row.sv_idle = static_cast<int>(p->idle_count());
      row.pool_size = shard < config().shards.size()  // configured: per process
                          ? config().shards[shard].pool_size
                          : p->shard().pool_size;
      row.maxwait = p->longest_wait();
      row.paused = shard < settings_->shards.size() && settings_->shards[shard]->paused.load();
      for (const auto& conn : p->connections()) {
        ServerRow sv;
        sv.worker = index_;
        sv.shard = row.shard;
        sv.user = row.user;
        sv.database = row.database;
        sv.state = conn->idle ? "idle" : "active";
        if (!conn->idle) ++row.sv_active;
        error_code ec;
        auto remote = conn->socket().remote_endpoint(ec);
        if (!ec) {
          sv.addr = remote.address().to_string();
          sv.port = remote.port();
        }
        auto local = conn->socket().local_endpoint(ec);
        if (!ec) {
          sv.local_addr = local.address().to_string();
          sv.local_port = local.port();
        }
        sv.connect_time = conn->connected_at;
        sv.remote_pid = conn->pid();
        sv.tls = conn->tls();
        snap.servers.push_back(std::move(sv));
      }
      snap.pools.push_back(std::move(row));
    }
  }
  return snap;
}

void Worker::drain() {
  for (auto& w : sessions_) {
    if (auto s = w.lock()) s->drain();
  }
  for (auto& by_login : pools_) {
    for (auto& [key, p] : by_login) p->close_idle();
  }
}

}  // namespace pgrange::proxy
