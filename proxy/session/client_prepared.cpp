// COMMIT PREPARED and ROLLBACK PREPARED of the client's two-phase commits.
//
// A transaction over several shards that the client prepares (PREPARE TRANSACTION 'x') is
// prepared on each of its shards under a gid of pgrange's own, and held in the metadata store
// under the client's name (end_transaction). Its COMMIT PREPARED 'x', from any session of any
// pgrange instance, records the decision there first, so that recovery finishes the shards
// this statement cannot reach, then commits each part (routing::part_gid). A transaction of one
// shard was prepared there under the client's own name: it is looked for on every shard.

#include <spdlog/spdlog.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>  // before asio/awaitable.hpp (Boost 1.74)

#include "proxy/control/control_plane.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "routing/meta/prepared_recovery.hpp"
#include "sql/quoting.hpp"

namespace pgrange::proxy {

using Held = std::optional<std::pair<std::string, std::string>>;

awaitable<bool> ClientSession::run_prepared(const Plan& plan, ExtendedMerge* ext) {
  ControlPlane* cp = worker_.shared().control;
  const sql::StatementInfo& info = (**plan.analysis)[0];
  const bool commit = info.transaction_kind == "commit_prepared";
  const std::string& name = info.transaction_name;
  std::string out;
  begin_answer(ext, out);
  auto answer = [&](const std::optional<Error>& error) {
    if (error) {
      write_error(out, *error);
    } else {
      MessageWriter(out).begin('C').cstr(commit ? "COMMIT PREPARED" : "ROLLBACK PREPARED").end();
    }
    end_answer(ext, error.has_value(), out);
  };

  std::function<Result<Held>()> settle = [cp, name, commit]() {
    return cp->settle_prepared(name, commit);
  };
  Result<Held> held = co_await cp->call<Result<Held>>(std::move(settle));
  if (!held) {
    answer(held.error());
    co_return true;
  }
  if (*held && (*held)->second != (commit ? "commit" : "abort")) {
    // The other decision came first (a COMMIT PREPARED racing a ROLLBACK PREPARED).
    answer(Error::make("55000", "prepared transaction \"" + name + "\" is already being " +
                                    ((*held)->second == "commit" ? "committed" : "rolled back")));
    co_return true;
  }
  const std::string gid = *held ? (*held)->first : name;
  const std::string statement = commit ? "COMMIT PREPARED " : "ROLLBACK PREPARED ";
  // Held: each part under its shard's part gid. Else the client's own name, on one shard.
  auto statement_on = [&](size_t shard) {
    return statement +
           sql::quote_literal(*held ? routing::part_gid(gid, pool(shard).shard().name) : gid);
  };
  int finished = 0;
  std::optional<Error> missing;  // 42704 where the shard holds no part
  std::optional<Error> failure;
  for (size_t i = 0; i < worker_.pool_count(); ++i) {
    auto acquired = co_await acquire_for_client(i);
    if (!acquired) {
      if (!failure) failure = acquired.error();
      continue;
    }
    auto conn = *acquired;
    auto r = co_await conn->run_simple(statement_on(i));
    pool(i).release(conn, !conn->broken());
    if (r) {
      ++finished;
    } else if (r.error().sqlstate == "42704") {
      if (!missing) missing = r.error();
    } else if (!failure) {
      failure = r.error();
      failure->message = "shard \"" + pool(i).shard().name + "\": " + failure->message;
    }
  }
  if (*held) {
    // The decision stands in the metadata store: a shard this could not finish is finished by
    // recovery, and the client's answer is the decision's.
    if (failure) {
      spdlog::warn("{} of {} ({}): {} (recovery will finish it)", statement, name, gid,
                   failure->message);
    } else {
      std::function<bool()> forget = [cp, gid]() {
        cp->forget_decision(gid);
        return true;
      };
      co_await cp->call<bool>(std::move(forget));
    }
    answer(std::nullopt);
    co_return true;
  }
  if (failure) {
    answer(failure);
  } else if (finished == 0) {
    answer(missing ? missing
                   : Error::make("42704", "prepared transaction with identifier \"" + name +
                                              "\" does not exist"));
  } else {
    answer(std::nullopt);
  }
  co_return true;
}

}  // namespace pgrange::proxy
