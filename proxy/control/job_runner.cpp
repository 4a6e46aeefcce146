#include "proxy/control/job_runner.hpp"

#include <spdlog/spdlog.h>

#include <future>

#include "proxy/backend/fault_point.hpp"
#include "proxy/control/control_plane.hpp"

namespace pgrange::proxy {

JobRunner::JobRunner(ControlPlane& control, std::string metadata_dsn,
                     std::vector<routing::ShardRecord> shards, routing::RangeManagerSettings ranges)
    : control_(control),
      metadata_dsn_(std::move(metadata_dsn)),
      shards_(std::move(shards)),
      admin_(*this),
      manager_(*this, admin_, ranges),
      check_interval_(ranges.check_interval) {}

JobRunner::~JobRunner() {
  stop();
}

void JobRunner::start() {
  work_.emplace(io_.get_executor());
  schedule_check();
  thread_ = run_io_thread(io_, "range jobs");
}

void JobRunner::stop() {
  if (thread_.joinable()) {
    // The lease goes with this instance: another takes the ranges over at once.
    std::promise<void> released;
    auto done = released.get_future();
    asio::post(io_, [this, &released] {
      manager_timer_.cancel();
      if (store_) manager_.release();
      released.set_value();
    });
    done.wait_for(std::chrono::seconds(5));
  }
  work_.reset();
  io_.stop();
  if (thread_.joinable()) thread_.join();
}

void JobRunner::schedule_check() {
  manager_timer_.expires_after(check_interval_);
  manager_timer_.async_wait([this](const error_code& ec) {
    if (ec || stopping()) return;
    try {
      store();
      manager_.check();
    } catch (const std::exception& e) {
      store_.reset();
      spdlog::warn("range manager: cannot reach the metadata store: {}", e.what());
    }
    schedule_check();
  });
}

bool JobRunner::runs(sql::AdminKind kind) {
  return kind == sql::AdminKind::kRelocate || kind == sql::AdminKind::kScatter ||
         kind == sql::AdminKind::kColocate || kind == sql::AdminKind::kDrainShard;
}

Result<routing::ResultSet> JobRunner::execute(const sql::AdminStatement& stmt) {
  try {
    store();
  } catch (const std::exception& e) {
    store_.reset();
    return fail(sqlstate::kConnectionFailure,
                std::string("cannot reach the metadata store: ") + e.what());
  }
  reload();  // answer with the newest map, even if a notification is still on its way
  auto result = admin_.execute(stmt);
  // A broken metadata connection is opened anew for the next statement.
  if (store_ && !result && result.error().sqlstate == sqlstate::kConnectionFailure) store_.reset();
  return result;
}

std::shared_ptr<const routing::ClusterView> JobRunner::view() const {
  return control_.view();
}

std::shared_ptr<const routing::ClusterView> JobRunner::reload() {
  return control_.reload_from_elsewhere();
}

routing::MetadataStore& JobRunner::store() {
  if (!store_) store_ = routing::MetadataStore::open(metadata_dsn_, shards_);
  return *store_;
}

routing::RangeActivity& JobRunner::activity() {
  return control_.activity();
}

const std::string& JobRunner::database() const {
  return control_.database();
}

void JobRunner::fault_point(const char* name) {
  proxy::fault_point(name);
  proxy::delay_point(name);
}

bool JobRunner::stopping() const {
  return control_.stopping();
}

const std::string& JobRunner::instance_id() const {
  return control_.instance_id();
}

}  // namespace pgrange::proxy
