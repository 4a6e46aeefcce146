// ClientSession's merged fan-out: one SELECT runs on several shards at once and their answers
// are merged into PostgreSQL's answer as they stream in (routing/result_merge does the merging).

#include <spdlog/spdlog.h>

#include "proxy/session/client_session.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "routing/merge/result_merge.hpp"
#include "sql/session_statement.hpp"

namespace pgrange::proxy {
namespace {

constexpr size_t kBatch = 64 * 1024;
constexpr size_t kBacklog = 256 * 1024;

/// One shard's part of the merge.
struct ShardRun {
  int shard = 0;
  std::shared_ptr<BackendConnection> conn;
  bool described = false;  // its RowDescription arrived
  bool ended = false;      // its CommandComplete (or error) arrived
  bool ready = false;      // its ReadyForQuery arrived: the connection is idle again
  bool failed = false;     // the connection cannot be reused
};

/// The collation of the connection's database (what orders its text by default).
awaitable<Result<std::string>> database_collation(BackendConnection& conn) {
  std::string q;
  write_query(q,
              "SELECT CASE WHEN datlocprovider = 'i' THEN 'ICU ' || daticulocale ELSE datcollate "
              "END FROM pg_database WHERE datname = current_database()");
  if (auto r = co_await conn.send(q); !r) co_return tl::unexpected(r.error());
  std::string collation;
  std::optional<Error> error;
  for (;;) {
    char type = 0;
    std::string body;
    if (auto r = co_await conn.read_message(type, body); !r) co_return tl::unexpected(r.error());
    if (type == 'Z') break;
    if (type == 'E' && !error) {
      error = Error::make(sqlstate::kInternalError, "cannot read the shard database's collation");
    }
    if (type != 'D') continue;
    BodyReader br(body);
    int16_t n = 0;
    int32_t len = 0;
    std::string_view v;
    if (br.i16(n) && n == 1 && br.i32(len) && len >= 0 && br.bytes(static_cast<size_t>(len), v)) {
      collation = std::string(v);
    }
  }
  if (error) co_return tl::unexpected(*error);
  co_return collation;
}

}  // namespace

ClientSession::ExtendedMerge ClientSession::answer_bind(std::string_view bind_body) {
  BodyReader b(bind_body);
  std::string_view portal, stmt;
  b.cstr(portal);
  b.cstr(stmt);
  ExtendedMerge m;
  m.portal = std::string(portal);
  m.parameter_types = std::string(parameter_types(stmt));
  m.bind_rest = std::string(b.rest());
  std::string_view tail = unnamed_tail_;
  if (!stmt.empty()) {
    if (auto it = statements_.find(std::string(stmt)); it != statements_.end()) {
      tail = it->second.parse_tail;
    }
  }
  m.statement_text = std::string(tail.substr(0, tail.find('\0')));
  // The unnamed statement runs where pgrange sends it, not where a deferred Parse would go.
  if (stmt.empty()) deferred_parse_.clear();
  return m;
}

std::string_view ClientSession::parameter_types(std::string_view statement) const {
  std::string_view tail = unnamed_tail_;
  if (!statement.empty()) {
    auto it = statements_.find(std::string(statement));
    if (it == statements_.end()) return {};
    tail = it->second.parse_tail;
  }
  size_t z = tail.find('\0');
  return z == std::string_view::npos ? std::string_view{} : tail.substr(z + 1);
}

awaitable<bool> ClientSession::continue_extended_merge(char type, std::string_view body,
                                                       std::string& out) {
  ExtendedMerge& m = *extended_merge_;
  auto answer_bind = [&](std::string& buf) {
    emit_ready_synthetics(buf);
    if (!m.bind_answered) MessageWriter(buf).begin('2').end();
    m.bind_answered = true;
  };
  auto give_up = [&](const Error& e) {
    std::string buf;
    answer_bind(buf);
    write_error(buf, e);
    channel_.send(std::move(buf));
    if (m.coordinated && coord_) {
      coord_->failed = true;  // an error aborts the transaction; its ranges stay in use
      txn_status_ = 'E';
    } else {
      leave_ranges();
    }
    extended_merge_.reset();
    skip_until_sync_ = true;
  };
  BodyReader br(body);
  switch (type) {
    case 'D': {
      char what = 0;
      std::string_view name;
      if (br.byte(what) && br.cstr(name) && what == 'P' && name == m.portal) {
        m.describe = true;
        co_return true;
      }
      break;
    }
    case 'H': {
      std::string buf;
      answer_bind(buf);
      channel_.send(std::move(buf));
      co_return true;
    }
    case 'E': {
      std::string_view portal;
      int32_t max_rows = 0;
      if (!br.cstr(portal) || !br.i32(max_rows) || portal != m.portal) break;
      if (m.transaction) {
        // BEGIN outside a block (pgrange opens the transaction with the first statement that
        // needs a shard), COMMIT or ROLLBACK of such a block that ran nothing yet.
        std::string buf;
        answer_bind(buf);
        if (m.describe) MessageWriter(buf).begin('n').end();
        const std::string& tk = (**m.transaction->analysis)[0].transaction_kind;
        if (m.transaction->kind == Plan::Kind::kBegin) {
          deferred_begin_ = m.statement_text;
          txn_begin_sql_ = deferred_begin_;
          txn_status_ = 'T';
          MessageWriter(buf).begin('C').cstr("BEGIN").end();
        } else {
          deferred_begin_.clear();
          txn_status_ = 'I';
          MessageWriter(buf)
              .begin('C')
              .cstr(tk == "commit" || tk == "end" ? "COMMIT" : "ROLLBACK")
              .end();
        }
        extended_merge_.reset();
        channel_.send(std::move(buf));
        co_return true;
      }
      if (m.as_query) {
        // CREATE TABLE … AS or INSERT … SELECT, run as for a Query (client_create_as.cpp).
        ExtendedMerge run = std::move(m);
        extended_merge_.reset();
        const std::string text = run.statement_text;
        const Analysis analysis = worker_.analyze(text);
        if (*analysis && (*analysis)->size() == 1 &&
            (*analysis)->front().kind == sql::StatementKind::kInsert) {
          co_return co_await run_insert_select(text, run);  // WITH … INSERT … SELECT too
        }
        if (!co_await run_create_as(text, &run)) {
          extended_merge_ = std::move(run);
          give_up(not_supported("CREATE TABLE … AS here is not supported by pgrange yet"));
        }
        co_return true;
      }
      if (m.utility) {
        // DDL: PostgreSQL ignores a row limit for it. What follows its Execute goes on as usual
        // (a pipeline), unless it fails.
        ExtendedMerge run = std::move(m);
        extended_merge_.reset();
        const Plan& plan = *run.utility;
        if (plan.kind == Plan::Kind::kPrepared) co_return co_await run_prepared(plan, &run);
        if (plan.kind == Plan::Kind::kBroadcast) {
          co_return co_await run_broadcast(run.statement_text, **plan.analysis, &run);
        }
        co_return co_await run_index_ddl(plan, &run);
      }
      if (m.write_gather) {
        ExtendedMerge run = std::move(m);
        extended_merge_.reset();
        co_return co_await run_gathered_write(run, max_rows);
      }
      // A row limit means nothing to a statement that returns no rows (pgjdbc sends its
      // COMMIT, and statements whose rows it does not want, with a limit of 1).
      bool rowless = false;
      if (m.coordinated && m.coordinated->analysis && *m.coordinated->analysis &&
          (*m.coordinated->analysis)->size() == 1) {
        const sql::StatementInfo& info = (*m.coordinated->analysis)->front();
        rowless = info.kind != sql::StatementKind::kSelect && !info.returning &&
                  info.kind != sql::StatementKind::kOtherUtility;
      }
      bool spread = m.route.shards.size() > 1 &&
                    ((m.coordinated && m.coordinated->merge && *m.coordinated->merge) ||
                     (m.merge && *m.merge && transaction_pooling_ && !backend_));
      if (max_rows != 0 && !rowless && spread) {
        // pgjdbc's fetch size: the rows come a batch per Execute, from cursors on the shards.
        ExtendedMerge run = std::move(m);
        extended_merge_.reset();
        Plan plan;
        if (run.coordinated) {
          plan = *run.coordinated;
        } else {
          plan.merge = run.merge;
          plan.route = run.route;
        }
        co_return co_await run_portal(run, plan, max_rows);
      }
      const routing::GatherPlan* gathered =
          m.gather
              ? m.gather.get()
              : (m.coordinated && m.coordinated->gather ? m.coordinated->gather.get() : nullptr);
      if (max_rows != 0 && !rowless && gathered != nullptr) {
        // The same for a SELECT of tables read from several shards: a cursor of one shard.
        ExtendedMerge run = std::move(m);
        extended_merge_.reset();
        auto keep = run.gather ? run.gather : run.coordinated->gather;
        co_return co_await run_gathered_portal(run, *keep, max_rows);
      }
      if (max_rows != 0 && !rowless) {
        give_up(Error::make(sqlstate::kFeatureNotSupported,
                            "fetching the rows of a SELECT over several shards in parts (Execute "
                            "with a row limit) is not supported"));
        co_return true;
      }
      ExtendedMerge run = std::move(m);
      extended_merge_.reset();
      // The Sync that follows is answered here: no backend holds this work.
      skip_until_sync_ = true;
      if (run.coordinated) {
        Plan plan = *run.coordinated;
        bool ok = co_await run_coordinated(run.statement_text, plan, &run);
        // What follows it up to the Sync goes on in the transaction (pgjdbc's batches send
        // every row's Bind and Execute before one Sync), unless the statement failed (then
        // PostgreSQL skips to the Sync) or ended the transaction.
        if (coord_ && !coord_->failed) skip_until_sync_ = false;
        co_return ok;
      }
      bool ok = false;
      if (run.gather) {
        ok = co_await run_gather(*run.gather, &run);
      } else {
        ok = co_await run_merge(**run.merge, run.route, &run);
      }
      // What follows it up to the Sync goes on, unless it failed (PostgreSQL skips to the Sync).
      if (!run.failed) skip_until_sync_ = false;
      co_return ok;
    }
    case 'S': {
      // A Bind without an Execute.
      std::string buf;
      answer_bind(buf);
      write_ready_for_query(buf, txn_status_);
      channel_.send(std::move(buf));
      if (!m.coordinated) leave_ranges();
      extended_merge_.reset();
      co_return true;
    }
    default:
      break;
  }
  (void)out;
  give_up(Error::make(sqlstate::kFeatureNotSupported,
                      std::string("after the Bind of ") +
                          (m.utility ? "DDL" : "a SELECT over several shards") +
                          " pgrange expects its Execute (and Sync) next; pipelining other "
                          "messages is not supported"));
  co_return true;
}

awaitable<bool> ClientSession::run_merge(const sql::MergeQuery& merge, const routing::Route& route,
                                         ExtendedMerge* ext) {
  std::string buf;
  std::vector<std::shared_ptr<BackendConnection>> conns;
  std::optional<Error> error;
  for (int shard : route.shards) {
    auto acquired = co_await acquire_for_client(static_cast<size_t>(shard));
    if (!acquired) {
      error = acquired.error();
      break;
    }
    conns.push_back(*acquired);
  }
  if (error) {
    if (ext != nullptr) {
      emit_ready_synthetics(buf);
      if (!ext->bind_answered) MessageWriter(buf).begin('2').end();
    }
    write_error(buf, *error);
  }
  bool failed = error.has_value();
  if (!failed) failed = !co_await stream_merge(merge, conns, ext, false, buf);
  if (ext != nullptr) ext->failed = failed;
  for (auto& conn : conns) {
    worker_.pool(static_cast<size_t>(conn->shard_index())).release(conn, !conn->broken());
  }
  if (ext == nullptr) write_ready_for_query(buf, txn_status_);
  channel_.send(std::move(buf));
  leave_ranges();
  co_return true;
}

awaitable<bool> ClientSession::stream_merge(
    const sql::MergeQuery& merge, const std::vector<std::shared_ptr<BackendConnection>>& conns,
    ExtendedMerge* ext, bool in_transaction, std::string& buf) {
  if (ext != nullptr) {
    emit_ready_synthetics(buf);
    if (!ext->bind_answered) MessageWriter(buf).begin('2').end();
  }
  std::string request;
  if (ext == nullptr) {
    write_query(request, merge.shard_sql);
  } else {
    MessageWriter(request)
        .begin('P')
        .cstr("")
        .cstr(merge.shard_sql)
        .bytes(ext->parameter_types)
        .end();
    MessageWriter(request).begin('B').cstr("").cstr("").bytes(ext->bind_rest).end();
    MessageWriter(request).begin('D').byte('P').cstr("").end();
    MessageWriter(request).begin('E').cstr("").i32(0).end();
    MessageWriter(request).begin('S').end();
  }
  std::optional<Error> error;              // pgrange's own error
  std::optional<std::string> shard_error;  // the first ErrorResponse body a shard sent
  std::vector<ShardRun> runs(conns.size());
  routing::ResultMerge merger(merge, runs.size());

  // Start the query everywhere first, so the shards work while pgrange reads.
  for (size_t i = 0; i < runs.size(); ++i) {
    runs[i].shard = conns[i]->shard_index();
    runs[i].conn = conns[i];
    runs[i].ready = true;  // nothing sent yet: nothing to read
  }
  for (size_t i = 0; i < runs.size() && !error; ++i) {
    BackendPool& pool = worker_.pool(static_cast<size_t>(runs[i].shard));
    if (!pool.collation() &&
        (merge.ordered() || merge.distinct || merge.mode == sql::MergeQuery::Mode::kAggregate)) {
      auto c = co_await database_collation(*runs[i].conn);
      if (!c) {
        error = c.error();
        runs[i].failed = true;
        break;
      }
      pool.collation() = *c;
    }
    if (auto e = co_await start_request(*runs[i].conn, request)) {
      error = *e;
      runs[i].failed = true;
      break;
    }
    runs[i].ready = false;
  }

  // Reads shard i's next message into the merge; false when the statement cannot go on.
  auto read_one = [&](size_t i) -> awaitable<bool> {
    ShardRun& run = runs[i];
    char type = 0;
    std::string body;
    auto r = co_await run.conn->read_message(type, body);
    if (!r) {
      run.failed = run.ready = run.ended = true;
      if (!error && !shard_error) error = r.error();
      co_return false;
    }
    switch (type) {
      case 'T':
        run.described = true;
        if (auto d = merger.describe(i, body); !d) {
          if (!error && !shard_error) error = d.error();
          co_return false;
        }
        co_return true;
      case 'D':
        if (auto a = merger.add_row(i, std::move(body)); !a) {
          if (!error && !shard_error) error = a.error();
          co_return false;
        }
        co_return true;
      case 'C':
        run.ended = true;
        merger.end_of_rows(i);
        co_return true;
      case 'E':
        run.ended = true;
        if (!error && !shard_error) shard_error = std::move(body);
        co_return false;
      case 'Z':
        run.ready = run.ended = true;
        if (!run.described && !error && !shard_error) {
          error = Error::make(sqlstate::kInternalError, "a shard answered the query without rows");
        }
        merger.end_of_rows(i);
        co_return !error && !shard_error;
      case 'I':  // EmptyQueryResponse cannot happen for a SELECT
      case '1':  // ParseComplete, BindComplete of the extended protocol
      case '2':
        co_return true;
      default:  // NoticeResponse, ParameterStatus: pass on
        MessageWriter(buf).begin(type).bytes(body).end();
        co_return true;
    }
  };

  // Every shard's RowDescription, then the merged one for the client.
  for (size_t i = 0; i < runs.size() && !error && !shard_error; ++i) {
    while (!runs[i].described && !runs[i].ready) {
      if (!co_await read_one(i)) break;
    }
  }
  if (!error && !shard_error && merger.compares_text()) {
    // pgrange compares text bytewise: right only where the shards order it so too.
    for (const ShardRun& run : runs) {
      const auto& c = worker_.pool(static_cast<size_t>(run.shard)).collation();
      if (c && !sql::orders_bytewise(*c)) {
        error = Error::make(sqlstate::kFeatureNotSupported,
                            "comparing text over a table spread across several shards is not "
                            "supported when the shards' databases use collation \"" +
                                *c + "\": pgrange merges text in the C collation's order")
                    .with_hint("create the shards' databases with LC_COLLATE 'C'");
        break;
      }
    }
  }
  if (!error && !shard_error && (ext == nullptr || ext->describe)) {
    MessageWriter(buf).begin('T').bytes(merger.row_description()).end();
  }

  // The merge: read what it wants, send what it decides.
  while (!error && !shard_error && !merger.finished()) {
    if (auto w = merger.wanted()) {
      if (runs[*w].ended) {
        merger.end_of_rows(*w);
        continue;
      }
      if (!co_await read_one(*w)) break;
      continue;
    }
    if (auto s = merger.step(buf); !s) {
      error = s.error();
      break;
    }
    if (buf.size() >= kBatch) {
      channel_.send(std::move(buf));
      buf.clear();
      if (channel_.queued() > kBacklog) co_await channel_.wait_below(kBacklog / 2);
    }
  }

  // The shards still sending: after an error, or when nothing bounds what is left, they are
  // cancelled; a shard whose pushed-down LIMIT bounds its rest is read to its end. In a
  // transaction a cancel would abort the shard's transaction (which a ROLLBACK TO SAVEPOINT
  // could not tell from the client's own error), so there every shard is read to its end.
  bool failed = error.has_value() || shard_error.has_value();
  for (ShardRun& run : runs) {
    if (!run.conn || run.ready) continue;
    bool cancelled = false;
    if (!in_transaction && !run.ended && (failed || !merge.limit_pushed)) {
      co_await send_cancel_request(run.conn->shard(), run.conn->pid(), run.conn->secret());
      cancelled = true;
    }
    bool saw_cancel = false;
    while (!run.ready) {
      char type = 0;
      std::string body;
      auto r = co_await run.conn->read_message(type, body);
      if (!r) {
        run.failed = run.ready = true;
        break;
      }
      if (type == 'E' && parse_error_fields(body).sqlstate == "57014") saw_cancel = true;
      if (type == 'Z') run.ready = true;
    }
    // A cancel that found the query already done may still strike the connection's next
    // statement: such a connection is closed, not reused.
    if (cancelled && !saw_cancel) run.failed = true;
  }
  for (ShardRun& run : runs) {
    if (run.failed) run.conn->mark_broken();
  }

  if (shard_error) {
    write_shard_error(buf, *shard_error);
  } else if (error) {
    write_error(buf, *error);
  } else {
    MessageWriter(buf).begin('C').cstr("SELECT " + std::to_string(merger.rows())).end();
  }
  co_return !failed;
}

}  // namespace pgrange::proxy
