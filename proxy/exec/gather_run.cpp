// The executor of a gather plan: each input's Route runs on its shards (in the statement's
// snapshot there), its rows are materialized as a literal of the table's row type, and the
// statement runs on one shard with them in place of its tables.

#include "proxy/exec/gather_run.hpp"

#include <algorithm>
#include <chrono>
#include <map>

#include "proxy/wire/message_writer.hpp"

namespace pgrange::proxy::exec {
namespace {

constexpr size_t kFlushAt = 64 * 1024;
/// What a row pgrange holds costs beyond its text (its std::string and the allocation's own
/// bookkeeping), and a distinct value kept for a lookup (its node in a std::set).
constexpr size_t kRowOverhead = sizeof(std::string) + 16;
constexpr size_t kValueOverhead = sizeof(std::string) + 48;

/// The type OID of column `i` of a RowDescription body (0 when it has none).
uint32_t column_type(std::string_view description, size_t i) {
  BodyReader r(description);
  int16_t n = 0;
  if (!r.i16(n)) return 0;
  for (int16_t k = 0; k < n; ++k) {
    std::string_view name;
    int32_t table = 0, type = 0, typmod = 0;
    int16_t attnum = 0, len = 0, format = 0;
    if (!r.cstr(name) || !r.i32(table) || !r.i16(attnum) || !r.i32(type) || !r.i16(len) ||
        !r.i32(typmod) || !r.i16(format)) {
      return 0;
    }
    if (static_cast<size_t>(k) == i) return static_cast<uint32_t>(type);
  }
  return 0;
}

/// Reads up to ReadyForQuery, dropping what comes; the first error's body, if any.
awaitable<Result<std::optional<std::string>>> drain(BackendConnection& conn) {
  std::optional<std::string> error;
  for (;;) {
    char type = 0;
    std::string body;
    if (auto r = co_await conn.read_message(type, body); !r) {
      conn.mark_broken();
      co_return tl::unexpected(r.error());
    }
    if (type == 'E' && !error) error = std::move(body);
    if (type == 'Z') co_return error;
  }
}

}  // namespace

awaitable<GatherOutcome> run_gather(const routing::GatherPlan& plan, GatherContext& ctx,
                                    std::string& out) {
  GatherOutcome outcome;
  std::map<int, BackendConnection*> used;  // shard → connection, in the statement's snapshot
  std::map<int, size_t> reads;             // shard → how many reads ran there
  std::set<int> open_transactions;         // shards where a transaction of the statement's own is
  // A connection; a read (`read`) opens the statement's own transaction there first, so that
  // every read of the shard sees one snapshot (the statement itself reads no table).
  // The last input's reads are the last reads of every shard: a shard first read there needs
  // no transaction, and one read before ends its transaction with that read.
  auto open = [&](int shard, bool read, bool last,
                  std::string& prefix) -> awaitable<Result<BackendConnection*>> {
    auto it = used.find(shard);
    if (it == used.end()) {
      auto conn = co_await ctx.connection(shard);
      if (!conn) co_return conn;
      it = used.emplace(shard, *conn).first;
    }
    if (ctx.own_transaction && read && !last && open_transactions.insert(shard).second) {
      prefix = "BEGIN ISOLATION LEVEL REPEATABLE READ;\n";
    }
    co_return it->second;
  };
  // Floats are read exactly: at the session's extra_float_digits if that is PostgreSQL's
  // default (1, shortest exact), else at 3 for the reads and the session's value again after.
  const std::string exact_floats =
      ctx.float_digits_sql.empty() ? "" : "SET LOCAL extra_float_digits = 3;\n";

  // 1. The inputs, in the plan's order.
  std::vector<std::vector<std::string>> rows(plan.inputs.size());
  // Per input, per provided column: its distinct non-NULL values, and their type.
  std::vector<std::vector<std::set<std::string>>> provided(plan.inputs.size());
  std::vector<std::vector<uint32_t>> provided_types(plan.inputs.size());
  // What the rows cost pgrange, as query_memory counts it: each row's text and the string that
  // holds it (`held`), and the text again twice (`text`) for the statement written from the
  // rows and the message that carries it to its shard.
  size_t held = 0;
  size_t text = 0;
  outcome.steps.resize(plan.inputs.size());
  std::vector<std::chrono::steady_clock::time_point> started(plan.inputs.size());
  // Reads sent and not read yet, in the order they were sent (a connection answers in order).
  struct Pending {
    size_t input = 0;
    int shard = 0;
    BackendConnection* conn = nullptr;
    bool ends = false;  // its COMMIT ends the shard's transaction
  };
  std::vector<Pending> pending;
  std::vector<bool> read(plan.inputs.size(), false);
  // An input left in the statement as its table, read where the statement runs (`on_shard`).
  std::vector<bool> kept(plan.inputs.size(), false);
  int on_shard = -1;

  // Sends input i's read to every shard it reaches (its lookup's source read already).
  auto send = [&](size_t i) -> awaitable<void> {
    const routing::GatherInput& in = plan.inputs[i];
    provided[i].resize(in.provides.size());
    provided_types[i].assign(in.provides.size(), 0);
    started[i] = std::chrono::steady_clock::now();
    std::optional<std::string> sql;
    if (in.lookup) {
      const auto& values = provided[in.lookup->source][in.lookup->source_column];
      std::vector<std::string> list(values.begin(), values.end());
      uint32_t oid = provided_types[in.lookup->source][in.lookup->source_column];
      sql = plan.fetch_sql(i, &list, routing::builtin_type_name(oid));
    } else {
      sql = plan.fetch_sql(i);
    }
    if (!sql) co_return;  // the lookup leaves no row to read
    auto shards = ctx.route(*sql);
    if (!shards) {
      outcome.error = shards.error();
      co_return;
    }
    if (shards->size() == 1 && i + 1 == plan.inputs.size() && !ctx.inputs_only) {
      // The last input (no lookup reads it) on one shard: the statement runs there, on the
      // table itself, and its rows are not read. Every row of it the statement can use is
      // there: the conditions pushed down and the lookup are the statement's own.
      kept[i] = true;
      on_shard = shards->front();
      outcome.steps[i].shards = *shards;
      outcome.steps[i].in_place = true;
      co_return;
    }
    if (shards->empty()) {
      // Only reference tables (every shard holds their rows): a shard the statement uses
      // already, else the one it prefers, else the first.
      shards->push_back(!used.empty()              ? used.begin()->first
                        : ctx.preferred_shard >= 0 ? ctx.preferred_shard
                                                   : 0);
    }
    outcome.steps[i].shards = *shards;
    bool last = i + 1 == plan.inputs.size() && !ctx.inputs_only;
    for (int shard : *shards) {
      std::string prefix;
      auto conn = co_await open(shard, true, last, prefix);
      if (!conn) {
        outcome.error = conn.error();
        co_return;
      }
      ++reads[shard];
      Pending p{i, shard, *conn, false};
      std::string suffix;
      if (last && ctx.own_transaction && open_transactions.count(shard) != 0) {
        suffix = ";\nCOMMIT";
        p.ends = true;
      }
      std::string request;
      write_query(request, prefix + exact_floats + *sql + suffix);
      if (auto r = co_await (*conn)->send(request); !r) {
        (*conn)->mark_broken();
        outcome.error = r.error();
        co_return;
      }
      pending.push_back(p);
    }
  };
  // Reads every answer sent for, in order.
  auto read_pending = [&]() -> awaitable<void> {
    for (const Pending& p : pending) {
      const routing::GatherInput& in = plan.inputs[p.input];
      // Its rows as they come (never the whole answer at once): the row, and the values of
      // the columns a lookup after it reads.
      std::optional<std::string> description;
      std::optional<std::string> shard_error;
      uint64_t got = 0;
      for (;;) {
        char type = 0;
        std::string body;
        if (auto r = co_await p.conn->read_message(type, body); !r) {
          p.conn->mark_broken();
          if (outcome.ok()) outcome.error = r.error();
          break;
        }
        if (type == 'Z') break;
        if (type == 'T') {
          description = std::move(body);
          for (size_t c = 0; c < in.provides.size(); ++c) {
            provided_types[p.input][c] = column_type(*description, c + 1);
          }
        } else if (type == 'E' && !shard_error) {
          shard_error = std::move(body);
        } else if (type == 'D' && !shard_error && outcome.ok()) {
          ++got;
          auto values = data_row_values(body);
          if (values.empty() || !values[0]) continue;
          held += values[0]->size() + 3 + kRowOverhead;
          text += values[0]->size() + 3;
          rows[p.input].push_back(std::move(*values[0]));
          for (size_t c = 0; c < in.provides.size() && c + 1 < values.size(); ++c) {
            if (!values[c + 1]) continue;
            size_t size = values[c + 1]->size();
            if (provided[p.input][c].insert(std::move(*values[c + 1])).second) {
              held += size + kValueOverhead;
            }
          }
        }
      }
      if (shard_error) {
        // Its transaction (if any) is aborted, not ended: rolled back below.
        if (outcome.ok()) outcome.shard_error = std::move(shard_error);
        continue;
      }
      if (p.ends && !p.conn->broken()) open_transactions.erase(p.shard);
      if (!outcome.ok()) continue;
      auto& step = outcome.steps[p.input];
      step.rows += got;
      step.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                          started[p.input])
                    .count();
      if (held + 2 * text > ctx.memory_limit && outcome.ok()) {
        outcome.error =
            Error::make("53200", "the rows pgrange read for this query exceed query_memory (" +
                                     std::to_string(ctx.memory_limit) + " bytes)")
                .with_detail("Table \"" + in.table + "\" and the tables read before it hold " +
                             std::to_string(held + 2 * text) +
                             " bytes (the rows, and the statement that carries them to a shard).")
                .with_hint(
                    "narrow the query with conditions on the tables' keys, or raise "
                    "query_memory in pgrange's configuration");
      }
    }
    for (const Pending& p : pending) read[p.input] = true;
    pending.clear();
  };
  // Inputs that need nothing read before them go out together; a lookup waits for its source.
  for (size_t i = 0; i < plan.inputs.size() && outcome.ok(); ++i) {
    const auto& lookup = plan.inputs[i].lookup;
    if (lookup && !read[lookup->source]) co_await read_pending();
    for (size_t k = 0; k < i; ++k) read[k] = read[k] || pending.empty();
    if (outcome.ok()) co_await send(i);
  }
  co_await read_pending();

  // 2. The statement, on the shard that read the most (or the block's own); or, for the
  // caller to run, with the rows written in.
  int shard = on_shard >= 0 ? on_shard : ctx.preferred_shard;
  // The rows are in the statement from here on: what held them is given back.
  auto release_rows = [&] {
    std::vector<std::vector<std::string>>().swap(rows);
    std::vector<std::vector<std::set<std::string>>>().swap(provided);
  };
  if (ctx.inputs_only) {
    if (outcome.ok()) outcome.statement = plan.final_sql(rows);
    release_rows();
    shard = -1;
  }
  if (shard < 0) {
    // A shard whose transaction is still open first (its COMMIT goes with the statement).
    size_t most = 0;
    for (const auto& [s, n] : reads) {
      size_t weight = n + (open_transactions.count(s) != 0 ? 1000000 : 0);
      if (weight > most) {
        most = weight;
        shard = s;
      }
    }
  }
  if (shard < 0 && !ctx.inputs_only) shard = 0;
  auto final_started = std::chrono::steady_clock::now();
  if (outcome.ok() && !ctx.inputs_only) {
    std::string prefix;
    auto conn = co_await open(shard, false, false, prefix);
    if (!conn) {
      outcome.error = conn.error();
    } else {
      std::string final_sql = plan.final_sql(rows, kept);
      release_rows();
      std::string request;
      int settle = 0;  // answers to read before the statement's own
      if (reads.count(shard) != 0 && !ctx.float_digits_sql.empty()) {
        write_query(request, ctx.float_digits_sql);
        ++settle;
      }
      if (ctx.bind_rest == nullptr) {
        write_query(request, final_sql);
      } else {
        MessageWriter(request)
            .begin('P')
            .cstr("")
            .cstr(final_sql)
            .bytes(ctx.parameter_types != nullptr ? *ctx.parameter_types : std::string())
            .end();
        MessageWriter(request).begin('B').cstr("").cstr("").bytes(*ctx.bind_rest).end();
        if (ctx.describe) MessageWriter(request).begin('D').byte('P').cstr("").end();
        MessageWriter(request).begin('E').cstr("").i32(0).end();
        MessageWriter(request).begin('S').end();
      }
      std::string().swap(final_sql);  // the request holds it now
      // The statement's own transaction there ends with it (one round trip less).
      bool ends_here = open_transactions.erase(shard) != 0;
      if (ends_here) write_query(request, "COMMIT");
      if (auto s = co_await (*conn)->send(request); !s) {
        (*conn)->mark_broken();
        outcome.error = s.error();
      }
      for (; settle > 0 && outcome.ok(); --settle) {
        auto e = co_await drain(**conn);
        if (!e) {
          outcome.error = e.error();
        } else if (*e) {
          outcome.shard_error = std::move(**e);
        }
      }
      if (outcome.ok() || (*conn)->broken() == false) {
        // The statement's answer (read to its ReadyForQuery even after an error above).
        bool failed_before = !outcome.ok();
        for (;;) {
          char type = 0;
          std::string body;
          if (auto r = co_await (*conn)->read_message(type, body); !r) {
            (*conn)->mark_broken();
            if (outcome.ok()) outcome.error = r.error();
            break;
          }
          if (type == 'Z') break;
          if (failed_before) continue;
          switch (type) {
            case '1':
            case '2':
              break;
            case 'E':
              if (outcome.ok()) outcome.shard_error = std::move(body);
              break;
            case 'D':
              ++outcome.rows;
              [[fallthrough]];
            default:
              if (outcome.ok()) MessageWriter(out).begin(type).bytes(body).end();
              break;
          }
          if (out.size() >= kFlushAt && outcome.ok()) co_await ctx.flush(out);
        }
        if (ends_here && !(*conn)->broken()) {
          auto e = co_await drain(**conn);
          if (!e && outcome.ok()) outcome.error = e.error();
        }
      }
    }
  }

  if (!ctx.inputs_only) {
    auto& step = outcome.steps.emplace_back();
    step.shards = {shard};
    step.rows = outcome.rows;
    step.ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - final_started)
            .count();
  }

  // 3. The connections: the client's float digits back where the reads changed them (a block's
  // parts), the statement's own transactions ended.
  // Sent everywhere first, then read.
  std::vector<BackendConnection*> ending;
  for (const auto& [s, conn] : used) {
    if (conn->broken()) continue;
    std::string sql;
    if (ctx.own_transaction) {
      if (open_transactions.count(s) == 0) continue;
      sql = outcome.ok() ? "COMMIT" : "ROLLBACK";
    } else if (s != shard || !outcome.ok()) {
      if (reads.count(s) == 0 || ctx.float_digits_sql.empty()) continue;
      sql = ctx.float_digits_sql;
    } else {
      continue;
    }
    std::string request;
    write_query(request, sql);
    if (auto r = co_await conn->send(request); !r) {
      conn->mark_broken();
      continue;
    }
    ending.push_back(conn);
  }
  for (BackendConnection* conn : ending) {
    auto e = co_await drain(*conn);
    if (e && *e && outcome.ok()) outcome.shard_error = std::move(**e);
  }
  co_return outcome;
}

}  // namespace pgrange::proxy::exec
