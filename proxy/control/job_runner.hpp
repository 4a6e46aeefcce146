#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "common/error.hpp"
#include "proxy/asio.hpp"
#include "proxy/control/thread_call.hpp"
#include "routing/merge/result_set.hpp"
#include "routing/meta/metadata_store.hpp"
#include "routing/moves/range_admin.hpp"
#include "routing/moves/range_manager.hpp"
#include "sql/admin_statement.hpp"

namespace pgrange::proxy {

class ControlPlane;

/// Runs the admin statements that move rows (RELOCATE, SCATTER, COLOCATE WITH) on a thread and
/// metadata connection of their own, so that a move that takes minutes holds up neither the
/// control thread (DDL, sequences, two-phase commit decisions, map reloads) nor SHOW JOBS and
/// CANCEL JOB from other sessions. One statement at a time; the map and the range activity are
/// the control plane's. Between statements, every check_interval, the range manager looks at
/// the ranges (RangeManager): its splits, merges and moves run here too.
class JobRunner : public routing::ClusterControl {
 public:
  JobRunner(ControlPlane& control, std::string metadata_dsn,
            std::vector<routing::ShardRecord> shards, routing::RangeManagerSettings ranges);
  ~JobRunner() override;

  void start();
  void stop();

  /// Renews the range manager's lease while this instance leads, through `store` (the caller's
  /// thread and connection: this runner's thread may be busy with a long move).
  void renew_lease(routing::MetadataStore& store) { manager_.renew(store); }

  /// Whether a statement of this kind runs here rather than on the control thread.
  static bool runs(sql::AdminKind kind);

  /// Runs the statement (on the runner's thread: see call()).
  Result<routing::ResultSet> execute(const sql::AdminStatement& stmt);

  /// Runs fn on the runner's thread and resumes the caller on its own executor with the result.
  template <typename T>
  awaitable<T> call(std::function<T()> fn) {
    return call_on<T>(io_, std::move(fn));
  }

  std::shared_ptr<const routing::ClusterView> view() const override;
  /// The control plane reloads (on its thread, waited for).
  std::shared_ptr<const routing::ClusterView> reload() override;
  /// The runner's own connection to the metadata store (opened when first used).
  routing::MetadataStore& store() override;
  routing::RangeActivity& activity() override;
  const std::string& database() const override;
  const std::string& instance_id() const override;
  /// proxy::fault_point (PGRANGE_TEST_FAULT).
  void fault_point(const char* name) override;
  bool stopping() const override;

 private:
  ControlPlane& control_;
  std::string metadata_dsn_;
  std::vector<routing::ShardRecord> shards_;
  std::unique_ptr<routing::MetadataStore> store_;
  routing::RangeAdmin admin_;
  routing::RangeManager manager_;
  asio::io_context io_{1};
  asio::steady_timer manager_timer_{io_};
  std::chrono::milliseconds check_interval_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  std::thread thread_;

  /// The range manager's next look.
  void schedule_check();
};

}  // namespace pgrange::proxy
