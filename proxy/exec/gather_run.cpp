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

Gather::Gather(const routing::GatherPlan& plan, GatherContext& ctx)
    : plan_(plan),
      ctx_(ctx),
      rows_(plan.inputs.size()),
      provided_(plan.inputs.size()),
      provided_types_(plan.inputs.size()),
      started_(plan.inputs.size()),
      read_(plan.inputs.size(), false),
      kept_(plan.inputs.size(), false) {
  outcome_.steps.resize(plan.inputs.size());
}

awaitable<Result<BackendConnection*>> Gather::connection(int shard, bool read, bool last,
                                                         std::string& prefix) {
  // A read opens the statement's own transaction there first, so that every read of the shard
  // sees one snapshot (the statement itself reads no table). The last input's reads are the
  // last reads of every shard: a shard first read there needs no transaction.
  auto it = used_.find(shard);
  if (it == used_.end()) {
    auto conn = co_await ctx_.connection(shard);
    if (!conn) co_return conn;
    it = used_.emplace(shard, *conn).first;
  }
  if (ctx_.own_transaction && read && !last && open_transactions_.insert(shard).second) {
    prefix = "BEGIN ISOLATION LEVEL REPEATABLE READ;\n";
  }
  co_return it->second;
}

awaitable<void> Gather::send_input(size_t i) {
  const routing::GatherInput& in = plan_.inputs[i];
  provided_[i].resize(in.provides.size());
  provided_types_[i].assign(in.provides.size(), 0);
  started_[i] = std::chrono::steady_clock::now();
  // Its reads: one, or one per batch of a lookup's values.
  std::vector<std::string> sqls;
  if (in.lookup) {
    uint32_t oid = provided_types_[in.lookup->source][in.lookup->source_column];
    sqls = plan_.fetch_sqls(i, provided_[in.lookup->source][in.lookup->source_column],
                            routing::builtin_type_name(oid));
  } else if (auto sql = plan_.fetch_sql(i)) {
    sqls.push_back(std::move(*sql));
  }
  if (sqls.empty()) co_return;  // the lookup leaves no row to read
  outcome_.steps[i].reads = sqls.size();
  // Each read's shards, and all of them.
  std::vector<std::vector<int>> routed;
  std::vector<int> shards;
  for (const std::string& sql : sqls) {
    auto to = ctx_.route(sql);
    if (!to) {
      outcome_.error = to.error();
      co_return;
    }
    for (int s : *to) {
      if (std::find(shards.begin(), shards.end(), s) == shards.end()) shards.push_back(s);
    }
    routed.push_back(std::move(*to));
  }
  std::sort(shards.begin(), shards.end());
  if (shards.size() == 1 && i + 1 == plan_.inputs.size() && !ctx_.inputs_only) {
    // The last input (no lookup reads it) on one shard: the statement runs there, on the
    // table itself, and its rows are not read. Every row of it the statement can use is
    // there: the conditions pushed down and the lookup are the statement's own.
    kept_[i] = true;
    on_shard_ = shards.front();
    outcome_.steps[i].shards = shards;
    outcome_.steps[i].in_place = true;
    co_return;
  }
  bool broadcast = shards.size() > 1 && i + 1 == plan_.inputs.size() && !ctx_.inputs_only &&
                   plan_.broadcast && ctx_.merge;
  if (broadcast && plan_.broadcast_limit) {
    // Worth it while the rows sent to each of its shards weigh less than the table.
    co_await read_pending();
    if (!outcome_.ok()) co_return;
    broadcast = static_cast<int64_t>(text_) <= *plan_.broadcast_limit;
  }
  if (broadcast) {
    // On several shards, and the statement's answer is the sum of its answers over that
    // table's parts: it runs on each of them with the other tables' rows (a broadcast join).
    kept_[i] = true;
    broadcast_shards_ = shards;
    outcome_.steps[i].shards = shards;
    outcome_.steps[i].in_place = true;
    co_return;
  }
  if (shards.empty()) {
    // Only reference tables (every shard holds their rows): a shard the statement uses
    // already, else the one it prefers, else the first.
    shards.push_back(!used_.empty()              ? used_.begin()->first
                     : ctx_.preferred_shard >= 0 ? ctx_.preferred_shard
                                                 : 0);
    for (auto& to : routed) to = shards;
  }
  outcome_.steps[i].shards = shards;
  bool last = i + 1 == plan_.inputs.size() && !ctx_.inputs_only;
  // Floats are read exactly: at the session's extra_float_digits if that is PostgreSQL's
  // default (1, shortest exact), else at 3 for the reads and the session's value again after.
  const std::string exact_floats =
      ctx_.float_digits_sql.empty() ? "" : "SET LOCAL extra_float_digits = 3;\n";
  // A shard's last read of the last input ends the statement's transaction there.
  std::map<int, size_t> final_read;
  for (size_t k = 0; k < routed.size(); ++k) {
    for (int shard : routed[k]) final_read[shard] = k;
  }
  for (size_t k = 0; k < sqls.size(); ++k) {
    for (int shard : routed[k]) {
      std::string prefix;
      auto conn = co_await connection(shard, true, last, prefix);
      if (!conn) {
        outcome_.error = conn.error();
        co_return;
      }
      ++reads_[shard];
      Pending p{i, shard, *conn, false};
      std::string suffix;
      if (last && ctx_.own_transaction && open_transactions_.count(shard) != 0 &&
          final_read[shard] == k) {
        suffix = ";\nCOMMIT";
        p.ends = true;
      }
      std::string request;
      write_query(request, prefix + exact_floats + sqls[k] + suffix);
      if (auto r = co_await (*conn)->send(request); !r) {
        (*conn)->mark_broken();
        outcome_.error = r.error();
        co_return;
      }
      pending_.push_back(p);
    }
  }
}

awaitable<void> Gather::read_pending() {
  for (const Pending& p : pending_) {
    const routing::GatherInput& in = plan_.inputs[p.input];
    // Its rows as they come (never the whole answer at once): the row, and the values of the
    // columns a lookup after it reads.
    std::optional<std::string> shard_error;
    uint64_t got = 0;
    for (;;) {
      char type = 0;
      std::string body;
      if (auto r = co_await p.conn->read_message(type, body); !r) {
        p.conn->mark_broken();
        if (outcome_.ok()) outcome_.error = r.error();
        break;
      }
      if (type == 'Z') break;
      if (type == 'T') {
        for (size_t c = 0; c < in.provides.size(); ++c) {
          provided_types_[p.input][c] = column_type(body, c + 1);
        }
      } else if (type == 'E' && !shard_error) {
        shard_error = std::move(body);
      } else if (type == 'D' && !shard_error && outcome_.ok()) {
        ++got;
        auto values = data_row_values(body);
        if (values.empty() || !values[0]) continue;
        held_ += values[0]->size() + 3 + kRowOverhead;
        text_ += values[0]->size() + 3;
        rows_[p.input].push_back(std::move(*values[0]));
        for (size_t c = 0; c < in.provides.size() && c + 1 < values.size(); ++c) {
          if (!values[c + 1]) continue;
          size_t size = values[c + 1]->size();
          if (provided_[p.input][c].insert(std::move(*values[c + 1])).second) {
            held_ += size + kValueOverhead;
          }
        }
      }
    }
    if (shard_error) {
      // Its transaction (if any) is aborted, not ended: rolled back at close.
      if (outcome_.ok()) outcome_.shard_error = std::move(shard_error);
      continue;
    }
    if (p.ends && !p.conn->broken()) open_transactions_.erase(p.shard);
    if (!outcome_.ok()) continue;
    auto& step = outcome_.steps[p.input];
    step.rows += got;
    step.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                        started_[p.input])
                  .count();
    if (held_ + 2 * text_ > ctx_.memory_limit && outcome_.ok()) {
      outcome_.error =
          Error::make("53200", "the rows pgrange read for this query exceed query_memory (" +
                                   std::to_string(ctx_.memory_limit) + " bytes)")
              .with_detail("Table \"" + in.table + "\" and the tables read before it hold " +
                           std::to_string(held_ + 2 * text_) +
                           " bytes (the rows, and the statement that carries them to a shard).")
              .with_hint(
                  "narrow the query with conditions on the tables' keys, or raise "
                  "query_memory in pgrange's configuration");
    }
  }
  for (const Pending& p : pending_) read_[p.input] = true;
  pending_.clear();
}

void Gather::release_rows() {
  std::vector<std::vector<std::string>>().swap(rows_);
  std::vector<std::vector<std::set<std::string>>>().swap(provided_);
}

awaitable<ExecResult<void>> Gather::open() {
  // 1. The inputs, in the plan's order: those that need nothing read before them go out
  // together; a lookup waits for its source.
  for (size_t i = 0; i < plan_.inputs.size() && outcome_.ok(); ++i) {
    const auto& lookup = plan_.inputs[i].lookup;
    if (lookup && !read_[lookup->source]) co_await read_pending();
    for (size_t k = 0; k < i; ++k) read_[k] = read_[k] || pending_.empty();
    if (outcome_.ok()) co_await send_input(i);
  }
  co_await read_pending();
  if (!broadcast_shards_.empty() && outcome_.ok()) co_return co_await open_broadcast();

  // 2. The statement, on the shard that read the most (or the block's own, or that of a table
  // read in place); or, for the caller to run, with the rows written in.
  shard_ = on_shard_ >= 0 ? on_shard_ : ctx_.preferred_shard;
  if (ctx_.inputs_only) {
    if (outcome_.ok()) outcome_.statement = plan_.final_sql(rows_);
    release_rows();
    shard_ = -1;
  }
  if (shard_ < 0) {
    // A shard whose transaction is still open first (its COMMIT goes with the statement).
    size_t most = 0;
    for (const auto& [s, n] : reads_) {
      size_t weight = n + (open_transactions_.count(s) != 0 ? 1000000 : 0);
      if (weight > most) {
        most = weight;
        shard_ = s;
      }
    }
  }
  if (ctx_.inputs_only || !outcome_.ok()) co_return failure();
  if (shard_ < 0) shard_ = 0;
  final_started_ = std::chrono::steady_clock::now();
  std::string prefix;
  auto conn = co_await connection(shard_, false, false, prefix);
  if (!conn) {
    outcome_.error = conn.error();
    co_return failure();
  }
  final_ = *conn;
  std::string final_sql = plan_.final_sql(rows_, kept_);
  release_rows();
  std::string request;
  int settle = 0;  // answers to read before the statement's own
  if (reads_.count(shard_) != 0 && !ctx_.float_digits_sql.empty()) {
    write_query(request, ctx_.float_digits_sql);
    ++settle;
  }
  // Described always: its columns are the operator's (the client gets them if it asked).
  if (ctx_.bind_rest == nullptr) {
    MessageWriter(request).begin('P').cstr("").cstr(final_sql).i16(0).end();
    MessageWriter(request).begin('B').cstr("").cstr("").i16(0).i16(0).i16(0).end();
  } else {
    MessageWriter(request)
        .begin('P')
        .cstr("")
        .cstr(final_sql)
        .bytes(ctx_.parameter_types != nullptr ? *ctx_.parameter_types : std::string())
        .end();
    MessageWriter(request).begin('B').cstr("").cstr("").bytes(*ctx_.bind_rest).end();
  }
  MessageWriter(request).begin('D').byte('P').cstr("").end();
  MessageWriter(request).begin('E').cstr("").i32(0).end();
  MessageWriter(request).begin('S').end();
  std::string().swap(final_sql);  // the request holds it now
  // The statement's own transaction there ends with it (one round trip less).
  ends_here_ = open_transactions_.erase(shard_) != 0;
  if (ends_here_) write_query(request, "COMMIT");
  if (auto s = co_await final_->send(request); !s) {
    final_->mark_broken();
    outcome_.error = s.error();
    final_done_ = true;
    co_return failure();
  }
  final_done_ = false;
  // Every read is done: the other shards' transactions (reads only) end now, their answers
  // coming while the statement runs, not after it.
  for (int s : open_transactions_) {
    BackendConnection* conn = used_.at(s);
    if (conn->broken()) continue;
    std::string commit;
    write_query(commit, "COMMIT");
    if (auto r = co_await conn->send(commit); !r) {
      conn->mark_broken();
      continue;
    }
    ending_early_.push_back(conn);
  }
  open_transactions_.clear();
  for (; settle > 0 && outcome_.ok(); --settle) {
    auto e = co_await drain(*final_);
    if (!e) {
      outcome_.error = e.error();
      final_done_ = true;
    } else if (*e) {
      outcome_.shard_error = std::move(**e);
    }
  }
  // Up to its RowDescription (or its error).
  while (outcome_.ok() && !final_done_ && columns_.empty()) {
    char type = 0;
    std::string body;
    if (!co_await read_final(type, body) || !take_final(type, body)) break;
  }
  if (outcome_.ok() && columns_.empty()) {
    outcome_.error = Error::make(sqlstate::kInternalError, "the statement answered without rows");
  }
  co_return failure();
}

awaitable<ExecResult<void>> Gather::open_broadcast() {
  final_started_ = std::chrono::steady_clock::now();
  sql::MergeQuery query = *plan_.broadcast;
  query.shard_sql = plan_.broadcast_sql(rows_);
  release_rows();
  std::vector<BackendConnection*> conns;
  std::vector<BackendConnection*> settle;
  // Outside a block, a shard read before is in the statement's own transaction (read to its
  // end there, never cancelled); a block's parts always are.
  bool in_transaction = !ctx_.own_transaction;
  for (int shard : broadcast_shards_) {
    std::string prefix;
    auto conn = co_await connection(shard, false, false, prefix);
    if (!conn) {
      outcome_.error = conn.error();
      co_return failure();
    }
    conns.push_back(*conn);
    in_transaction = in_transaction || open_transactions_.count(shard) != 0;
    if (reads_.count(shard) != 0 && !ctx_.float_digits_sql.empty()) {
      // The client's float digits again where the reads changed them.
      std::string request;
      write_query(request, ctx_.float_digits_sql);
      if (auto r = co_await (*conn)->send(request); !r) {
        (*conn)->mark_broken();
        outcome_.error = r.error();
        co_return failure();
      }
      settle.push_back(*conn);
    }
  }
  for (BackendConnection* conn : settle) {
    auto e = co_await drain(*conn);
    if (!e && outcome_.ok()) outcome_.error = e.error();
    if (e && *e && outcome_.ok()) outcome_.shard_error = std::move(**e);
  }
  if (!outcome_.ok()) co_return failure();
  auto merge = co_await ctx_.merge(std::move(query), conns, in_transaction);
  if (!merge) {
    fail(merge.error());
    co_return failure();
  }
  merge_ = std::move(*merge);
  if (auto opened = co_await merge_->open(); !opened) {
    fail(opened.error());
    co_return failure();
  }
  columns_ = merge_->columns();
  co_return ExecResult<void>{};
}

void Gather::fail(const ExecFailure& f) {
  if (!outcome_.ok()) return;
  if (f.shard_error) {
    outcome_.shard_error = f.shard_error;
  } else {
    outcome_.error = f.error.value_or(Error::make(sqlstate::kInternalError, "the merge failed"));
  }
}

std::vector<const Operator*> Gather::inputs() const {
  if (merge_) return {merge_.get()};
  return {};
}

awaitable<bool> Gather::read_final(char& type, std::string& body) {
  if (auto r = co_await final_->read_message(type, body); !r) {
    final_->mark_broken();
    if (outcome_.ok()) outcome_.error = r.error();
    final_done_ = true;
    co_return false;
  }
  co_return true;
}

bool Gather::take_final(char type, std::string& body) {
  switch (type) {
    case 'Z':
      final_done_ = true;
      return false;
    case 'T':
      columns_ = std::move(body);
      return true;
    case 'E':
      if (outcome_.ok()) outcome_.shard_error = std::move(body);
      return true;
    case 'C':
      final_ended_ = true;
      return true;
    case '1':
    case '2':
    case 'n':
    case 'D':
      return true;
    default:  // NoticeResponse, ParameterStatus
      if (ctx_.other) ctx_.other(type, body);
      return true;
  }
}

ExecResult<void> Gather::failure() const {
  if (outcome_.shard_error) return tl::unexpected(ExecFailure::from_shard(*outcome_.shard_error));
  if (outcome_.error) return tl::unexpected(ExecFailure::of(*outcome_.error));
  return {};
}

awaitable<ExecResult<bool>> Gather::next(Batch& out) {
  if (merge_) {
    uint64_t before = out.rows;
    auto more = co_await merge_->next(out);
    rows_out_ += out.rows - before;
    outcome_.rows += out.rows - before;
    if (!more) {
      fail(more.error());
      co_return tl::unexpected(more.error());
    }
    co_return *more;
  }
  while (outcome_.ok() && !final_done_ && !final_ended_ && out.data.size() < kFlushAt &&
         out.rows < out.max_rows) {
    char type = 0;
    std::string body;
    if (!co_await read_final(type, body)) break;
    if (type == 'D') {
      MessageWriter(out.data).begin('D').bytes(body).end();
      ++out.rows;
      ++rows_out_;
      ++outcome_.rows;
      continue;
    }
    if (!take_final(type, body)) break;
  }
  if (auto f = failure(); !f) co_return tl::unexpected(f.error());
  co_return !final_done_ && !final_ended_;
}

awaitable<void> Gather::close(bool abandon) {
  if (closed_) co_return;
  closed_ = true;
  if (merge_) co_await merge_->close(abandon || !outcome_.ok());
  // The statement's answer, to its end (a statement that failed is read out too).
  while (final_ != nullptr && !final_done_) {
    char type = 0;
    std::string body;
    if (!co_await read_final(type, body)) break;
    if (type == 'E' && outcome_.ok()) outcome_.shard_error = std::move(body);
    final_done_ = type == 'Z';
  }
  if (final_ != nullptr && ends_here_ && !final_->broken()) {
    auto e = co_await drain(*final_);
    if (!e && outcome_.ok()) outcome_.error = e.error();
  }
  if (!ctx_.inputs_only) {
    auto& step = outcome_.steps.emplace_back();
    step.shards = broadcast_shards_.empty() ? std::vector<int>{shard_} : broadcast_shards_;
    step.rows = outcome_.rows;
    step.ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - final_started_)
            .count();
  }

  // 3. The connections: the client's float digits back where the reads changed them (a block's
  // parts), the statement's own transactions ended. Sent everywhere first, then read.
  std::vector<BackendConnection*> ending = std::move(ending_early_);
  for (const auto& [s, conn] : used_) {
    if (conn->broken()) continue;
    std::string sql;
    if (ctx_.own_transaction) {
      if (open_transactions_.count(s) == 0) continue;
      sql = outcome_.ok() ? "COMMIT" : "ROLLBACK";
    } else if (s != shard_ || !outcome_.ok() || final_ == nullptr) {
      if (reads_.count(s) == 0 || ctx_.float_digits_sql.empty()) continue;
      sql = ctx_.float_digits_sql;
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
    if (e && *e && outcome_.ok()) outcome_.shard_error = std::move(**e);
  }
}

std::string Gather::describe() const {
  return "Gather: the statement runs on one shard with the rows read for its tables";
}

}  // namespace pgrange::proxy::exec
