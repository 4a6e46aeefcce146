// The reads of a gather plan's inputs (Materialize): each input's Route runs on its shards (in
// the statement's snapshot there), its rows are held as literals of the table's row type for
// the statement that runs with them (proxy/exec/gather_run.cpp, or the caller).

#include "proxy/exec/gather_reads.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>

#include "proxy/exec/merge_build.hpp"
#include "proxy/wire/frame_reader.hpp"
#include "proxy/wire/message_writer.hpp"
#include "routing/merge/merge_rows.hpp"

namespace pgrange::proxy::exec {
namespace {

/// What a row pgrange holds costs beyond its text (its std::string and the allocation's own
/// bookkeeping), and a distinct value kept for a lookup (its node in a std::set).
constexpr size_t kRowOverhead = sizeof(std::string) + 16;
constexpr size_t kValueOverhead = sizeof(std::string) + 48;
/// What to do when the rows a gather must hold exceed query_memory.
constexpr const char* kNarrowOrRaise =
    "narrow the query with conditions on the tables' keys, or raise query_memory in pgrange's "
    "configuration";

/// PostgreSQL's record and record[] (pg_type.dat), whose values' text no cast reads back.
constexpr uint32_t kRecordOid = 2249;
constexpr uint32_t kRecordArrayOid = 2287;

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

}  // namespace

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

GatherReads::GatherReads(const routing::GatherPlan& plan, GatherContext& ctx, bool for_statement)
    : plan_(plan),
      ctx_(ctx),
      for_statement_(for_statement),
      rows_(plan.inputs.size()),
      provided_(plan.inputs.size()),
      provided_types_(plan.inputs.size()),
      values_held_(plan.inputs.size(), 0),
      values_dropped_(plan.inputs.size(), false),
      started_(plan.inputs.size()),
      read_(plan.inputs.size(), false),
      kept_(plan.inputs.size(), false),
      summarized_(plan.inputs.size(), false),
      spills_(plan.inputs.size()),
      spill_tables_(plan.inputs.size()) {
  outcome_.steps.resize(plan.inputs.size());
  spill_budget_.directory = ctx.temp_directory;
}

awaitable<ExecResult<void>> GatherReads::open() {
  mark_started();
  // Queries answered over the shards first (the plan puts them first), each on its own: a
  // merge reads its shards' answers to their end before anything else is sent there. Not
  // when the session prints floats inexactly: the rows read would not be the values.
  for (size_t i = 0; i < plan_.inputs.size() && outcome_.ok(); ++i) {
    if (plan_.inputs[i].summary && ctx_.summarize && ctx_.float_digits_sql.empty()) {
      summarized_[i] = co_await read_summary(i);
      read_[i] = summarized_[i];
    }
  }
  // The inputs, in the plan's order: those that need nothing read before them go out together;
  // a lookup waits for its source.
  for (size_t i = 0; i < plan_.inputs.size() && outcome_.ok(); ++i) {
    if (summarized_[i]) continue;
    const auto& lookup = plan_.inputs[i].lookup;
    if (lookup && !read_[lookup->source]) co_await read_pending();
    for (size_t k = 0; k < i; ++k) read_[k] = read_[k] || pending_.empty();
    if (outcome_.ok()) co_await send_input(i);
  }
  co_await read_pending();
  for (size_t i = 0; i < rows_.size(); ++i) rows_out_ += outcome_.steps[i].rows;
  mark_ended();
  co_return failure();
}

awaitable<Result<BackendConnection*>> GatherReads::connection(int shard, bool read, bool last,
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

awaitable<void> GatherReads::send_input(size_t i) {
  const routing::GatherInput& in = plan_.inputs[i];
  provided_[i].resize(in.provides.size());
  provided_types_[i].assign(in.provides.size(), 0);
  started_[i] = std::chrono::steady_clock::now();
  // Its reads: one, or one per batch of a lookup's values.
  std::vector<std::string> sqls;
  if (in.lookup && values_dropped_[in.lookup->source]) {
    // Its values went past query_memory: the rows its own conditions allow (the statement
    // joins them as it would have).
    outcome_.steps[i].lookup_dropped = true;
    if (auto sql = plan_.fetch_sql(i)) sqls.push_back(std::move(*sql));
  } else if (in.lookup) {
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
  if (shards.size() == 1 && i + 1 == plan_.inputs.size() && !!for_statement_) {
    // The last input (no lookup reads it) on one shard: the statement runs there, on the
    // table itself, and its rows are not read. Every row of it the statement can use is
    // there: the conditions pushed down and the lookup are the statement's own.
    kept_[i] = true;
    on_shard_ = shards.front();
    outcome_.steps[i].shards = shards;
    outcome_.steps[i].in_place = true;
    co_return;
  }
  bool broadcast = shards.size() > 1 && i + 1 == plan_.inputs.size() && !!for_statement_ &&
                   plan_.broadcast && ctx_.merge;
  if (broadcast) {
    // The rows it would carry are read first (the statement waits for them anyway): past
    // query_memory they go to disk, which a statement cannot carry, and this table is then
    // read as the others. Else worth it while the rows sent to each of its shards weigh less
    // than the table.
    co_await read_pending();
    if (!outcome_.ok()) co_return;
    broadcast = !spilled_ &&
                (!plan_.broadcast_limit || static_cast<int64_t>(text_) <= *plan_.broadcast_limit);
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
  bool last = i + 1 == plan_.inputs.size() && !!for_statement_;
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

awaitable<bool> GatherReads::read_summary(size_t i) {
  const routing::GatherInput& in = plan_.inputs[i];
  started_[i] = std::chrono::steady_clock::now();
  if (!ctx_.summary_route) co_return false;
  // With the statement's parameters only where the Gather runs the statement (and Parses it
  // with their inferred types), through the extended protocol.
  if (in.summary->parameters &&
      (!for_statement_ || ctx_.bind_rest == nullptr || !ctx_.infer_parameter_types)) {
    co_return false;
  }
  auto to = ctx_.summary_route(plan_.summary_sql(i));
  if (!to || to->empty()) co_return false;  // its table's rows are read, as the plan says
  std::vector<int> shards = std::move(*to);
  std::sort(shards.begin(), shards.end());
  // Each shard in the statement's snapshot there: its own transaction opened first.
  std::vector<BackendConnection*> conns;
  std::vector<BackendConnection*> opening;
  for (int shard : shards) {
    std::string prefix;
    auto conn = co_await connection(shard, true, false, prefix);
    if (!conn) {
      outcome_.error = conn.error();
      co_return true;
    }
    ++reads_[shard];
    conns.push_back(*conn);
    if (prefix.empty()) continue;
    std::string request;
    write_query(request, prefix);
    if (auto r = co_await (*conn)->send(request); !r) {
      (*conn)->mark_broken();
      outcome_.error = r.error();
      co_return true;
    }
    opening.push_back(*conn);
  }
  for (BackendConnection* conn : opening) {
    auto e = co_await drain(*conn);
    if (!e && outcome_.ok()) outcome_.error = e.error();
    if (e && *e && outcome_.ok()) outcome_.shard_error = std::move(**e);
  }
  if (!outcome_.ok()) co_return true;
  std::optional<BoundStatement> bound;
  if (in.summary->parameters) {
    // The query binds the statement's values: Parse'd with every parameter's type as a shard
    // infers it for the statement (the query may leave some out, and the statement written
    // with its rows may leave it out: that one is Parse'd with them too).
    if (inferred_types_.empty()) {
      auto types = co_await ctx_.infer_parameter_types(*conns.front(), plan_.text);
      if (!types) {
        outcome_.error = types.error();
        co_return true;
      }
      inferred_types_ = std::move(*types);
    }
    std::string_view values;
    std::vector<int16_t> formats;
    if (!split_bind(*ctx_.bind_rest, values, formats)) co_return false;
    summary_bind_ = std::string(values);
    summary_bind_.append(2, '\0');  // no result formats: every result in text
    bound = BoundStatement{inferred_types_, summary_bind_};
  }
  auto made = co_await ctx_.summarize(in.summary->merge, conns, bound ? &*bound : nullptr);
  if (!made) {
    fail(made.error());
    co_return true;
  }
  std::unique_ptr<Operator> merge = std::move(*made);
  std::optional<ExecFailure> failed;
  if (auto opened = co_await merge->open(); !opened) failed = opened.error();
  std::vector<routing::ResultField> fields;
  if (!failed) {
    auto f = routing::read_row_description(merge->columns());
    if (!f || f->empty()) {
      failed = ExecFailure::of(
          f ? Error::make(sqlstate::kFeatureNotSupported, "a query of no columns") : f.error());
    } else {
      fields = std::move(*f);
    }
  }
  // Its rows, column by column, as query_memory counts them.
  std::vector<std::vector<std::optional<std::string>>> columns(fields.size());
  size_t held = 0;
  uint64_t rows = 0;
  bool past_memory = false;
  while (!failed) {
    Batch batch;
    auto more = co_await merge->next(batch);
    for (std::string_view rest = batch.data;;) {
      FrameResult fr = read_typed_frame(rest, rest.size());
      if (fr.status != FrameStatus::kReady) break;
      if (fr.frame.type == 'D') {
        auto values = data_row_values(rest.substr(5, fr.frame.total_size - 5));
        ++rows;
        for (size_t c = 0; c < columns.size(); ++c) {
          std::optional<std::string> v = c < values.size() ? std::move(values[c]) : std::nullopt;
          // Its text twice more (the array literal, the statement's message), as for rows.
          held += (v ? 3 * v->size() : 4) + kRowOverhead;
          columns[c].push_back(std::move(v));
        }
      }
      rest.remove_prefix(fr.frame.total_size);
    }
    if (!more) {
      failed = more.error();
    } else if (held_ + 2 * text_ + held > ctx_.memory_limit) {
      past_memory = true;
      break;
    } else if (!*more) {
      break;
    }
  }
  co_await merge->close(failed.has_value() || past_memory);
  if (past_memory) {
    // Its answer is held in memory until the statement runs: past query_memory, the table's
    // rows are read instead (they can go to disk), and PostgreSQL computes the query.
    spdlog::debug("a query of {} is read as its table's rows: its answer is past query_memory",
                  in.table);
    outcome_.steps[i].summary_past_memory = true;
    co_return false;
  }
  if (failed) {
    // A merge that meets values it cannot compare refuses (0A000) before it answers anything:
    // the table's rows are read instead, and PostgreSQL computes the query.
    if (!failed->shard_error && failed->error &&
        failed->error->sqlstate == sqlstate::kFeatureNotSupported) {
      spdlog::debug("a query of {} is read as its table's rows: {}", in.table,
                    failed->error->message);
      co_return false;
    }
    fail(*failed);
    co_return true;
  }
  // A column of an anonymous row type (record, record[]) cannot be written back from its text:
  // the table's rows are read instead.
  if (std::any_of(fields.begin(), fields.end(), [](const routing::ResultField& f) {
        return f.type_oid == kRecordOid || f.type_oid == kRecordArrayOid;
      })) {
    co_return false;
  }
  // The columns' types as format_type writes them (their modifiers too), asked of a shard read.
  std::string request;
  write_query(request, routing::format_types_query(fields));
  std::vector<std::string> types;
  std::optional<std::string> shard_error;
  if (auto r = co_await conns.front()->send(request); !r) {
    conns.front()->mark_broken();
    outcome_.error = r.error();
    co_return true;
  }
  for (;;) {
    char type = 0;
    std::string body;
    if (auto r = co_await conns.front()->read_message(type, body); !r) {
      conns.front()->mark_broken();
      outcome_.error = r.error();
      co_return true;
    }
    if (type == 'Z') break;
    if (type == 'E' && !shard_error) shard_error = std::move(body);
    if (type == 'D') {
      auto values = data_row_values(body);
      if (!values.empty() && values[0]) types.push_back(std::move(*values[0]));
    }
  }
  if (shard_error) {
    outcome_.shard_error = std::move(shard_error);
    co_return true;
  }
  if (types.size() != fields.size()) {
    outcome_.error =
        Error::make(sqlstate::kInternalError, "cannot name the types of a query's rows");
    co_return true;
  }
  std::vector<std::string> names;
  for (const auto& f : fields) names.push_back(f.name);
  std::string query = routing::summary_rows_sql(names, types, columns, in.summary->merge.ordered());
  held_ += held;
  rows_[i] = {std::move(query)};
  auto& step = outcome_.steps[i];
  step.shards = shards;
  step.rows = rows;
  step.reads = 1;
  step.summarized = true;
  step.ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started_[i])
          .count();
  co_return true;
}

awaitable<void> GatherReads::read_pending() {
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
        for (size_t c = 0; c < in.provides.size() && c + 1 < values.size(); ++c) {
          if (!values[c + 1] || values_dropped_[p.input]) continue;
          size_t size = values[c + 1]->size();
          if (provided_[p.input][c].insert(std::move(*values[c + 1])).second) {
            held_ += size + kValueOverhead;
            values_held_[p.input] += size + kValueOverhead;
          }
        }
        if (spills_[p.input]) {
          if (auto a = spills_[p.input]->push(*values[0]); !a) outcome_.error = a.error();
        } else {
          held_ += values[0]->size() + 3 + kRowOverhead;
          text_ += values[0]->size() + 3;
          rows_[p.input].push_back(std::move(*values[0]));
        }
        if (held_ + 2 * text_ > ctx_.memory_limit) {
          // Past query_memory a Gather's rows go to disk, then to temporary tables where the
          // statement runs: this input's, then the others' held, while they are over it.
          auto s = spill(p.input);
          for (size_t k = 0; s && *s && k < rows_.size(); ++k) {
            if (held_ + 2 * text_ <= ctx_.memory_limit) break;
            if (k != p.input && !rows_[k].empty() && !summarized_[k]) s = spill(k);
          }
          if (!s) outcome_.error = s.error();
          // Still over it: the values held for lookups are given up, and the lookups read
          // every row instead (more rows, which go to disk as these did).
          for (size_t k = 0; s && *s && k < rows_.size(); ++k) {
            if (held_ + 2 * text_ <= ctx_.memory_limit) break;
            drop_values(k);
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
      outcome_.error = query_memory_exceeded(
          "the rows pgrange read for this query", ctx_.memory_limit,
          "Table \"" + in.table + "\" and the tables read before it hold " +
              std::to_string(held_ + 2 * text_) +
              " bytes (the rows, and the statement that carries them to a shard).",
          kNarrowOrRaise);
    }
  }
  for (const Pending& p : pending_) read_[p.input] = true;
  pending_.clear();
}

void GatherReads::drop_values(size_t i) {
  if (values_held_[i] == 0) return;
  held_ -= values_held_[i];
  values_held_[i] = 0;
  values_dropped_[i] = true;
  for (std::set<std::string>& values : provided_[i]) std::set<std::string>().swap(values);
}

Result<bool> GatherReads::spill(size_t i) {
  if (!for_statement_ || !broadcast_shards_.empty()) return false;
  if (!spills_[i]) {
    spills_[i] = std::make_unique<SpillRecords>(&spill_budget_);
    static std::atomic<uint64_t> next_table{0};
    const std::string n = std::to_string(++next_table);
    // Outside a block a temporary table, in the statement's own transaction. In a block, a
    // table of the block's transaction in the schema of the table it stands for, dropped when
    // the statement is done (Gather::close): PostgreSQL cannot PREPARE a transaction that
    // touched a temporary table, and the block may end by two-phase commit. Its name is this
    // process's (pid): concurrent creations of one name would wait for each other.
    spill_tables_[i] = ctx_.own_transaction ? "pg_temp.\"pgrange_rows_" + n + "\""
                                            : plan_.inputs[i].schema + ".\"pgrange_rows_" +
                                                  std::to_string(getpid()) + "_" + n + "\"";
    spilled_ = true;
  }
  for (std::string& row : rows_[i]) {
    if (auto a = spills_[i]->push(row); !a) return tl::unexpected(a.error());
    held_ -= row.size() + 3 + kRowOverhead;
    text_ -= row.size() + 3;
  }
  std::vector<std::string>().swap(rows_[i]);
  return true;
}

namespace {

/// A row's text as a line of COPY's text format (backslash, newline, carriage return and tab
/// escaped), appended to `out`.
void append_copy_line(std::string& out, std::string_view row) {
  for (char c : row) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out.push_back(c);
    }
  }
  out.push_back('\n');
}

}  // namespace

std::string GatherReads::drop_spilled_sql() const {
  if (ctx_.own_transaction) return "";
  std::string tables;
  for (const std::string& t : spill_tables_) {
    if (!t.empty()) tables += (tables.empty() ? "" : ", ") + t;
  }
  return tables.empty() ? "" : "DROP TABLE " + tables;
}

awaitable<void> GatherReads::load_spilled(int shard) {
  auto got = co_await statement_connection(shard);
  if (!got) {
    outcome_.error = got.error();
    co_return;
  }
  BackendConnection& conn = **got;
  std::string begin;
  if (ctx_.own_transaction && open_transactions_.insert(shard).second) {
    // The tables live as long as a transaction: one of the statement's own there, which the
    // statement ends (statement_runs_on).
    begin = "BEGIN;\n";
  }
  for (size_t i = 0; i < spills_.size() && outcome_.ok(); ++i) {
    if (!spills_[i]) continue;
    const routing::GatherInput& in = plan_.inputs[i];
    std::string request;
    write_query(request,
                begin +
                    (ctx_.own_transaction ? "CREATE TEMPORARY TABLE " : "CREATE UNLOGGED TABLE ") +
                    spill_tables_[i] + " (r " + in.relation + ")" +
                    (ctx_.own_transaction ? " ON COMMIT DROP" : ""));
    begin.clear();
    write_query(request, "COPY " + spill_tables_[i] + " FROM STDIN");
    if (auto r = co_await conn.send(request); !r) {
      conn.mark_broken();
      outcome_.error = r.error();
      co_return;
    }
    auto made = co_await drain(conn);
    if (!made) {
      outcome_.error = made.error();
      co_return;
    }
    if (*made) outcome_.shard_error = std::move(**made);
    // The COPY: its rows once it is ready for them, else its error (the table's, or the
    // transaction's after the CREATE's).
    bool copying = false;
    for (;;) {
      char type = 0;
      std::string body;
      if (auto r = co_await conn.read_message(type, body); !r) {
        conn.mark_broken();
        if (outcome_.ok()) outcome_.error = r.error();
        co_return;
      }
      if (type == 'G') {
        copying = true;
        break;
      }
      if (type == 'E' && outcome_.ok()) outcome_.shard_error = std::move(body);
      if (type == 'Z') break;
    }
    if (!copying) co_return;
    constexpr size_t kChunk = 64 * 1024;
    std::string lines;
    std::string row;
    uint64_t copied = 0;
    for (;;) {
      auto next = spills_[i]->pop(row);
      if (!next) {
        // The COPY must end: failed, so that nothing of it stays.
        std::string fail;
        MessageWriter(fail).begin('f').cstr("pgrange could not read its temporary file").end();
        if (auto r = co_await conn.send(fail); !r) conn.mark_broken();
        outcome_.error = next.error();
        break;
      }
      if (*next) {
        append_copy_line(lines, row);
        ++copied;
      }
      if (lines.size() >= kChunk || (!*next && !lines.empty())) {
        std::string message;
        MessageWriter(message).begin('d').bytes(lines).end();
        lines.clear();
        if (auto r = co_await conn.send(message); !r) {
          conn.mark_broken();
          outcome_.error = r.error();
          co_return;
        }
      }
      if (!*next) {
        std::string done;
        MessageWriter(done).begin('c').end();
        if (auto r = co_await conn.send(done); !r) {
          conn.mark_broken();
          outcome_.error = r.error();
          co_return;
        }
        break;
      }
    }
    auto copy_end = co_await drain(conn);
    if (!copy_end) {
      if (outcome_.ok()) outcome_.error = copy_end.error();
      co_return;
    }
    if (*copy_end && outcome_.ok()) outcome_.shard_error = std::move(**copy_end);
    spills_[i].reset();  // its file goes
    outcome_.steps[i].spilled_rows = copied;
  }
}

void GatherReads::release_rows() {
  std::vector<std::vector<std::string>>().swap(rows_);
  std::vector<std::vector<std::set<std::string>>>().swap(provided_);
}

void GatherReads::fail(const ExecFailure& f) {
  if (!outcome_.ok()) return;
  if (f.shard_error) {
    outcome_.shard_error = f.shard_error;
  } else {
    outcome_.error = f.error.value_or(Error::make(sqlstate::kInternalError, "the merge failed"));
  }
}

ExecResult<void> GatherReads::failure() const {
  if (outcome_.shard_error) return tl::unexpected(ExecFailure::from_shard(*outcome_.shard_error));
  if (outcome_.error) return tl::unexpected(ExecFailure::of(*outcome_.error));
  return {};
}

int GatherReads::busiest_shard() const {
  int shard = -1;
  size_t most = 0;
  for (const auto& [s, n] : reads_) {
    size_t weight = n + (open_transactions_.count(s) != 0 ? 1000000 : 0);
    if (weight > most) {
      most = weight;
      shard = s;
    }
  }
  return shard;
}

awaitable<Result<BackendConnection*>> GatherReads::statement_connection(int shard) {
  std::string prefix;  // not a read: no transaction opened for it
  co_return co_await connection(shard, false, false, prefix);
}

awaitable<bool> GatherReads::statement_runs_on(int shard) {
  statement_shard_ = shard;
  bool ends_there = open_transactions_.erase(shard) != 0;
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
  co_return ends_there;
}

awaitable<void> GatherReads::close(bool) {
  if (closed_) co_return;
  closed_ = true;
  // The connections: the client's float digits back where the reads changed them (a block's
  // parts), the statement's own transactions ended. Sent everywhere first, then read.
  std::vector<BackendConnection*> ending = std::move(ending_early_);
  for (const auto& [s, conn] : used_) {
    if (conn->broken()) continue;
    std::string sql;
    if (ctx_.own_transaction) {
      if (open_transactions_.count(s) == 0) continue;
      sql = outcome_.ok() ? "COMMIT" : "ROLLBACK";
    } else if (s != statement_shard_ || !outcome_.ok()) {
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

std::string GatherReads::describe() const {
  size_t tables = 0;
  for (bool kept : kept_) tables += kept ? 0 : 1;
  return "Materialize: the rows of " + std::to_string(tables) +
         (tables == 1 ? " table" : " tables") + " read into pgrange for the statement";
}

}  // namespace pgrange::proxy::exec
