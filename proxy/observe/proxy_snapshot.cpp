#include "proxy/observe/proxy_snapshot.hpp"

#include <map>
#include <tuple>

#include "proxy/control/thread_call.hpp"
#include "proxy/worker.hpp"

namespace pgrange::proxy {

awaitable<ProxySnapshot> collect_snapshot(const std::vector<Worker*>& workers) {
  ProxySnapshot all;
  all.stats = collect_stats(workers);
  std::map<std::pair<std::string, std::string>, PoolRow> pools;
  for (Worker* w : workers) {
    std::function<WorkerSnapshot()> take = [w] { return w->snapshot(); };
    WorkerSnapshot part = co_await call_on<WorkerSnapshot>(w->io(), std::move(take));
    for (ClientRow& c : part.clients) all.clients.push_back(std::move(c));
    for (ServerRow& s : part.servers) all.servers.push_back(std::move(s));
    for (PoolRow& p : part.pools) {
      PoolRow& sum = pools[{p.shard, p.user}];
      if (sum.shard.empty()) {
        sum = p;
        continue;
      }
      sum.cl_waiting += p.cl_waiting;
      sum.sv_active += p.sv_active;
      sum.sv_idle += p.sv_idle;
      sum.pool_size = std::max(sum.pool_size, p.pool_size);
      sum.maxwait = std::max(sum.maxwait, p.maxwait);
    }
  }
  for (auto& [key, p] : pools) all.pools.push_back(std::move(p));
  co_return all;
}

StatsTotals collect_stats(const std::vector<Worker*>& workers) {
  StatsTotals totals;
  for (Worker* w : workers) w->stats().add_to(totals);
  return totals;
}

}  // namespace pgrange::proxy
