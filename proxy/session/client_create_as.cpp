// ClientSession: CREATE TABLE … AS and SELECT … INTO. PostgreSQL makes the table and fills it
// in one statement; pgrange makes the same table on every shard (the query's columns, WITH NO
// DATA), registers it like any other, and fills it with INSERT … SELECT, which routes each
// row to the range that holds it. Both run in one transaction: the block's when there is one,
// else one of their own, committed (two-phase) with the new table's catalog entry, so a query
// that fails leaves no table behind. The client gets PostgreSQL's answer, `SELECT n`.

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <utility>  // before asio/awaitable.hpp (Boost 1.74)

#include "common/text.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/frame_reader.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "sql/create_as.hpp"
#include "sql/modifying_with.hpp"

namespace pgrange::proxy {
namespace {

/// Whether `sql` has the word INTO anywhere (any case): a SELECT without it is no SELECT … INTO.
bool mentions_into(std::string_view sql) {
  return icontains(sql, "into");
}

/// The tag of the INSERT among the steps' answers ("INSERT 0 n"), or "" when none ran.
std::string insert_tag(std::string_view steps) {
  // An INSERT … SELECT written in parts: their counts added up.
  bool any = false;
  uint64_t rows = 0;
  for (std::string_view rest = steps;;) {
    FrameResult fr = read_typed_frame(rest, rest.size());
    if (fr.status != FrameStatus::kReady) break;
    std::string_view body = fr.frame.body;
    rest.remove_prefix(fr.frame.total_size);
    std::string_view done = body.substr(0, body.find('\0'));
    if (fr.frame.type != 'C' || !done.starts_with("INSERT ")) continue;
    any = true;
    rows += std::strtoull(std::string(done.substr(done.rfind(' ') + 1)).c_str(), nullptr, 10);
  }
  return any ? "INSERT 0 " + std::to_string(rows) : std::string();
}

}  // namespace

bool ClientSession::may_create_as(std::string_view kw, std::string_view sql) {
  return kw == "create" || (kw == "select" && mentions_into(sql));
}

bool ClientSession::runs_statements_itself() const {
  return worker_.pool_count() >= 2 && transaction_pooling_ && !pinned() && !temp_objects_;
}

bool ClientSession::as_query_bind(std::string_view bind_body, const Plan& plan,
                                  bool made_key_select) {
  if (!runs_statements_itself() || !plan.analysis || !*plan.analysis ||
      (*plan.analysis)->size() != 1 || txn_status_ == 'E') {
    return false;
  }
  const sql::StatementInfo& info = (*plan.analysis)->front();
  bool create_as = info.kind == sql::StatementKind::kCreateTable && info.create_as &&
                   !info.create_as_empty && !info.temporary;
  // What the Query path expands: an INSERT … SELECT the shards cannot run as it is.
  bool insert_select =
      info.kind == sql::StatementKind::kInsert && !info.insert_values &&
      (made_key_select || (plan.kind == Plan::Kind::kRefuse && plan.error &&
                           plan.error->sqlstate == sqlstate::kFeatureNotSupported));
  if (!create_as && !insert_select) return false;
  // With a connection the transaction is tied to, the refusals (expand_insert_select's,
  // run_create_as's) must fail that connection's transaction: the normal path gives them.
  if (backend_ &&
      (insert_select || !((txn_status_ != 'I' || !deferred_begin_.empty()) && can_coordinate()))) {
    return false;
  }
  // The statements pgrange makes of it carry no Bind: an INSERT … SELECT's parameters are
  // written into them as literals of their types (write_parameters_in: text, or binary values
  // of the types it decodes).
  BodyReader b(bind_body);
  std::string_view portal, stmt;
  int16_t nformats = 0, nparams = 0;
  if (!b.cstr(portal) || !b.cstr(stmt) || !b.i16(nformats)) return false;
  for (int16_t i = 0; i < nformats; ++i) {
    int16_t f = 0;
    if (!b.i16(f) || (f != 0 && f != 1)) return false;
  }
  return b.i16(nparams) && (nparams == 0 || insert_select);
}

bool ClientSession::begin_own_steps(std::string& steps) {
  std::string earlier;
  emit_ready_synthetics(earlier);  // answers owed before this statement's
  if (!earlier.empty()) channel_.send(std::move(earlier));
  bool own = txn_status_ == 'I' && deferred_begin_.empty();
  if (own) {
    // A transaction of its own, as a block would be: what the steps do commits together.
    deferred_begin_ = "BEGIN";
    txn_begin_sql_ = deferred_begin_;
    txn_status_ = 'T';
  }
  channel_.divert(&steps);
  return own;
}

awaitable<void> ClientSession::end_own_steps(bool own, std::string& steps) {
  if (own) {
    if (coord_) {
      co_await finish_coordinated(!coord_->failed, steps);
    } else {
      txn_status_ = 'I';
      deferred_begin_.clear();
      txn_begin_sql_.clear();
    }
  }
  channel_.divert(nullptr);
}

awaitable<void> ClientSession::insert_select_step(std::string_view insert_sql, std::string& steps) {
  auto fail_step = [&](const Error& e) {
    write_error(steps, e);
    if (coord_) coord_->failed = true;
    txn_status_ = 'E';
  };
  // (WITH … INSERT … query: an INSERT … SELECT whose query has the WITH.)
  std::optional<std::string> with_insert = sql::with_inside_insert(insert_sql);
  auto expanded = co_await expand_insert_select(with_insert ? *with_insert : insert_sql);
  if (!expanded) {
    fail_step(expanded.error());
    co_return;
  }
  if (*expanded && insert_rows_) {
    co_await write_insert_parts(steps);  // more rows than one INSERT holds
    co_return;
  }
  if (*expanded && !expanded_answer_.empty()) {
    steps += expanded_answer_;  // the query found no rows
    co_return;
  }
  std::string insert = *expanded ? expanded_sql_ : std::string(insert_sql);
  // Keys pgrange makes, written in as for a Query's INSERT.
  auto filled = co_await fill_generated_keys(insert);
  if (!filled) {
    fail_step(filled.error());
    co_return;
  }
  if (*filled) insert = std::move(**filled);
  Plan p = plan_text('Q', insert);
  if (p.kind == Plan::Kind::kCoordinate) {
    co_await run_coordinated(insert, p, nullptr, true);
  } else {
    fail_step(p.kind == Plan::Kind::kRefuse && p.error
                  ? *p.error
                  : not_supported("this INSERT … SELECT is not supported by pgrange here yet"));
  }
}

void ClientSession::answer_steps(const std::string& steps, const std::string& tag,
                                 ExtendedMerge* ext) {
  std::string reply;
  // The rows of an INSERT's RETURNING (its RowDescription and DataRows), else NoData; and
  // whether a step failed.
  bool rows = false;
  bool failed = false;
  for (std::string_view rest = steps;;) {
    FrameResult fr = read_typed_frame(rest, rest.size());
    if (fr.status != FrameStatus::kReady) break;
    rows = rows || fr.frame.type == 'T';
    failed = failed || fr.frame.type == 'E';
    rest.remove_prefix(fr.frame.total_size);
  }
  if (ext != nullptr) {
    emit_ready_synthetics(reply);
    if (!ext->bind_answered) MessageWriter(reply).begin('2').end();
    ext->bind_answered = true;
    if (ext->describe && !rows) MessageWriter(reply).begin('n').end();
  }
  // A statement that fails returns no rows (PostgreSQL runs an INSERT's RETURNING to its end
  // before it sends a row), even when parts of it written before gave some; one
  // RowDescription for all the parts (a Describe answered it before a failure).
  bool described = false;
  bool errored = false;
  for (std::string_view rest = steps;;) {
    FrameResult fr = read_typed_frame(rest, rest.size());
    if (fr.status != FrameStatus::kReady) break;
    std::string_view frame = rest.substr(0, fr.frame.total_size);
    rest.remove_prefix(fr.frame.total_size);
    char type = fr.frame.type;
    bool pass = type == 'N' || (type == 'E' && !errored) || (type == 'D' && !failed) ||
                (type == 'T' && !described && (ext == nullptr ? !failed : ext->describe));
    if (pass) reply += frame;
    described = described || (type == 'T' && pass);
    errored = errored || type == 'E';
  }
  if (!failed) MessageWriter(reply).begin('C').cstr(tag).end();
  if (ext == nullptr) {
    write_ready_for_query(reply, txn_status_);
  } else {
    // The Sync that follows is answered by pgrange, unless the block's transaction goes on.
    skip_until_sync_ = failed || !coord_ || coord_->failed;
  }
  channel_.send(std::move(reply));
}

awaitable<bool> ClientSession::run_create_as(std::string_view sql, ExtendedMerge* ext) {
  if (!runs_statements_itself()) co_return false;
  const Analysis analysis = worker_.analyze(sql);
  if (!*analysis || (*analysis)->size() != 1) co_return false;
  const sql::StatementInfo& info = (*analysis)->front();
  if (info.kind != sql::StatementKind::kCreateTable || !info.create_as || info.create_as_empty ||
      info.temporary || txn_status_ == 'E') {
    co_return false;  // the normal path runs it, or answers for the aborted block
  }
  bool in_block = txn_status_ != 'I' || !deferred_begin_.empty();
  if (backend_ && !(in_block && can_coordinate())) co_return false;  // refused there
  auto parts = sql::read_create_as(sql);
  if (!parts) co_return false;

  // The steps' answers are collected here and made into the one PostgreSQL gives.
  std::string steps;
  bool own = begin_own_steps(steps);
  auto fail_step = [&](const Error& e) {
    write_error(steps, e);
    if (coord_) coord_->failed = true;
    txn_status_ = 'E';
  };
  Plan create = plan_text('Q', parts->create_sql);
  if (create.kind == Plan::Kind::kCoordinate && create.block_ddl) {
    co_await run_coordinated(parts->create_sql, create, nullptr, true);
  } else {
    fail_step(create.kind == Plan::Kind::kRefuse && create.error
                  ? *create.error
                  : not_supported("CREATE TABLE … AS here is not supported by pgrange yet"));
  }
  // IF NOT EXISTS of a table that exists: PostgreSQL's notice, and nothing inserted.
  bool exists = false;
  for (std::string_view rest = steps;;) {
    FrameResult fr = read_typed_frame(rest, rest.size());
    if (fr.status != FrameStatus::kReady) break;
    if (fr.frame.type == 'N' && parse_error_fields(fr.frame.body).sqlstate == "42P07") {
      exists = true;
    }
    rest.remove_prefix(fr.frame.total_size);
  }
  if (coord_ && !coord_->failed && !exists) co_await insert_select_step(parts->insert_sql, steps);
  co_await end_own_steps(own, steps);

  // PostgreSQL's tag: SELECT and the rows inserted, or CREATE TABLE AS when none were.
  std::string inserted = insert_tag(steps);
  answer_steps(
      steps,
      inserted.empty() ? "CREATE TABLE AS" : "SELECT " + inserted.substr(inserted.rfind(' ') + 1),
      ext);
  co_return true;
}

awaitable<bool> ClientSession::run_insert_parts() {
  std::string steps;
  bool own = begin_own_steps(steps);
  co_await write_insert_parts(steps);
  co_await end_own_steps(own, steps);
  std::string inserted = insert_tag(steps);
  answer_steps(steps, inserted.empty() ? "INSERT 0 0" : inserted, nullptr);
  co_return true;
}

awaitable<bool> ClientSession::run_insert_select(std::string_view sql, ExtendedMerge& ext) {
  std::string steps;
  bool own = begin_own_steps(steps);
  std::string text(sql);
  auto params = bind_params(ext.bind_rest, ext.parameter_types);
  if (params && !params->values.empty()) {
    auto bound = co_await write_parameters_in(text, ext.parameter_types, *params);
    if (bound) {
      text = std::move(*bound);
    } else {
      write_error(steps, bound.error());
      if (coord_) coord_->failed = true;
      txn_status_ = 'E';
    }
  }
  if (txn_status_ != 'E') co_await insert_select_step(text, steps);
  co_await end_own_steps(own, steps);
  std::string inserted = insert_tag(steps);
  answer_steps(steps, inserted.empty() ? "INSERT 0 0" : inserted, &ext);
  co_return true;
}

}  // namespace pgrange::proxy
