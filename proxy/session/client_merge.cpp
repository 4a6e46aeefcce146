// ClientSession's merged fan-out: one SELECT runs on several shards at once and their answers
// are merged into PostgreSQL's answer as they stream in (the operators of exec::make_merge_tree do
// the merging).

#include <spdlog/spdlog.h>

#include "proxy/exec/merge_build.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "routing/merge/merge_rows.hpp"
#include "sql/session_statement.hpp"

namespace pgrange::proxy {
namespace {

constexpr size_t kBatch = 64 * 1024;
constexpr size_t kBacklog = 256 * 1024;

/// Whether a tree failed to open as PostgreSQL fails a Bind: result formats that do not fit its
/// columns (pgrange's check, or a shard's refusal of the client's Bind it was given), never an
/// error of running the statement.
bool fails_the_bind(const exec::ExecFailure& f) {
  if (f.error) {
    return f.error->sqlstate == sqlstate::kProtocolViolation ||
           f.error->sqlstate == sqlstate::kInvalidParameterValue;
  }
  return f.shard_error &&
         parse_error_fields(*f.shard_error).sqlstate == sqlstate::kProtocolViolation;
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
  m.named = !stmt.empty();
  // The unnamed statement runs where pgrange sends it, not where a deferred Parse would go.
  if (stmt.empty()) deferred_parse_.clear();
  return m;
}

ClientSession::ExtendedMerge& ClientSession::bound_merge(std::string_view bind_body) {
  extended_merge_ = std::make_unique<ExtendedMerge>(answer_bind(bind_body));
  return *extended_merge_;
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
      if (m.cursor) {
        auto owned = std::move(extended_merge_);  // extended_merge_ is empty from here
        ExtendedMerge& run = *owned;
        bool ok = true;
        co_await run_cursor_statement(run.statement_text, ok, &run, max_rows);
        co_return ok;
      }
      if (m.as_query) {
        // CREATE TABLE … AS or INSERT … SELECT, run as for a Query (client_create_as.cpp).
        auto owned = std::move(extended_merge_);  // extended_merge_ is empty from here
        ExtendedMerge& run = *owned;
        const std::string text = run.statement_text;
        const Analysis analysis = worker_.analyze(text);
        if (*analysis && (*analysis)->size() == 1 &&
            (*analysis)->front().kind == sql::StatementKind::kInsert) {
          co_return co_await run_insert_select(text, run);  // WITH … INSERT … SELECT too
        }
        if (!co_await run_create_as(text, &run)) {
          extended_merge_ = std::move(owned);
          give_up(not_supported("CREATE TABLE … AS here is not supported by pgrange yet"));
        }
        co_return true;
      }
      if (m.utility) {
        // DDL: PostgreSQL ignores a row limit for it. What follows its Execute goes on as usual
        // (a pipeline), unless it fails.
        auto owned = std::move(extended_merge_);  // extended_merge_ is empty from here
        ExtendedMerge& run = *owned;
        const Plan& plan = *run.utility;
        if (plan.kind == Plan::Kind::kPrepared) co_return co_await run_prepared(plan, &run);
        if (plan.kind == Plan::Kind::kAdmin) co_return co_await run_admin(*plan.admin, &run);
        if (plan.kind == Plan::Kind::kBroadcast) {
          co_return co_await run_broadcast(run.statement_text, **plan.analysis, &run);
        }
        co_return co_await run_index_ddl(plan, &run);
      }
      if (m.modifying_with) {
        auto owned = std::move(extended_merge_);  // extended_merge_ is empty from here
        ExtendedMerge& run = *owned;
        co_return co_await run_bound_modifying_with(run);
      }
      if (m.write_gather) {
        auto owned = std::move(extended_merge_);  // extended_merge_ is empty from here
        ExtendedMerge& run = *owned;
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
        auto owned = std::move(extended_merge_);  // extended_merge_ is empty from here
        ExtendedMerge& run = *owned;
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
        auto owned = std::move(extended_merge_);  // extended_merge_ is empty from here
        ExtendedMerge& run = *owned;
        auto keep = run.gather ? run.gather : run.coordinated->gather;
        co_return co_await run_gathered_portal(run, *keep, max_rows);
      }
      if (max_rows != 0 && !rowless) {
        give_up(Error::make(sqlstate::kFeatureNotSupported,
                            "fetching the rows of a SELECT over several shards in parts (Execute "
                            "with a row limit) is not supported"));
        co_return true;
      }
      auto owned = std::move(extended_merge_);  // extended_merge_ is empty from here
      ExtendedMerge& run = *owned;
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
      Plan read;
      read.kind = Plan::Kind::kRead;
      read.merge = run.merge;
      read.gather = run.gather;
      read.route = run.route;
      bool ok = co_await run_read(read, {}, &run);
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

exec::ShardSession ClientSession::shard_session(std::string& buf) {
  exec::ShardSession s;
  s.sync = [this](BackendConnection& conn) { return sync_settings(conn); };
  s.pool = [this](int shard) -> BackendPool& { return pool(static_cast<size_t>(shard)); };
  s.other = [&buf](char type, const std::string& body) {
    MessageWriter(buf).begin(type).bytes(body).end();
  };
  s.exact_floats = floats_exact();
  s.query_memory = static_cast<size_t>(config().query_memory);
  s.temp_directory = config().temp_directory;
  return s;
}

std::optional<exec::BoundStatement> ClientSession::bound_statement(const ExtendedMerge* ext) {
  if (ext == nullptr) return std::nullopt;
  return exec::BoundStatement{ext->parameter_types, ext->bind_rest};
}

awaitable<bool> ClientSession::send_tree(exec::Operator* root,
                                         std::optional<exec::ExecFailure> failure,
                                         const ExtendedMerge* ext, std::string& buf, bool stream,
                                         bool bind_pending, const AnswerCap* cap,
                                         std::optional<exec::ExecFailure>* refused) {
  const size_t start = buf.size();
  bool sent = false;  // part of the answer went to the client
  if (!failure) {
    if (auto o = co_await root->open(); !o) failure = o.error();
  }
  if (bind_pending && !(failure && fails_the_bind(*failure))) MessageWriter(buf).begin('2').end();
  if (!failure && root->described_up_front() && (ext == nullptr || ext->describe)) {
    MessageWriter(buf).begin('T').bytes(root->columns()).end();
  }
  // The rows, sent as the tree hands them up.
  while (!failure) {
    exec::Batch batch;
    auto more = co_await root->next(batch);
    buf += batch.data;
    if (!more) {
      failure = more.error();
      break;
    }
    if (cap != nullptr && buf.size() > cap->bytes) {
      failure = exec::ExecFailure::of(cap->error);
      break;
    }
    if (stream && buf.size() >= kBatch) {
      channel_.send(std::move(buf));
      buf.clear();
      sent = true;
      if (channel_.queued() > kBacklog) co_await channel_.wait_below(kBacklog / 2);
    }
    if (!*more) break;
  }
  if (root != nullptr) co_await root->close(failure.has_value());
  if (refused != nullptr && failure && failure->error && !sent &&
      failure->error->sqlstate == sqlstate::kFeatureNotSupported) {
    buf.resize(start);
    *refused = std::move(failure);
    co_return false;
  }

  if (failure && failure->shard_error) {
    write_shard_error(buf, *failure->shard_error);
  } else if (failure) {
    write_error(buf, *failure->error);
  } else if (std::string tag = root->command_tag(); !tag.empty()) {
    MessageWriter(buf).begin('C').cstr(tag).end();
  }
  co_return !failure;
}

}  // namespace pgrange::proxy
