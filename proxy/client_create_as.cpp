// ClientSession: CREATE TABLE … AS and SELECT … INTO. PostgreSQL makes the table and fills it
// in one statement; pgrange makes the same table on every shard (the query's columns, WITH NO
// DATA), registers it like any other, and fills it with INSERT … SELECT, which routes each
// row to the range that holds it. Both run in one transaction: the block's when there is one,
// else one of their own, committed (two-phase) with the new table's catalog entry, so a query
// that fails leaves no table behind. The client gets PostgreSQL's answer, `SELECT n`.

#include <algorithm>
#include <cctype>
#include <utility>  // before asio/awaitable.hpp (Boost 1.74)

#include "proxy/client_session.hpp"
#include "proxy/frame_reader.hpp"
#include "proxy/message_writer.hpp"
#include "proxy/worker.hpp"
#include "sql/create_as.hpp"

namespace pgrange::proxy {
namespace {

/// Whether `sql` has the word INTO anywhere (any case): a SELECT without it is no SELECT … INTO.
bool mentions_into(std::string_view sql) {
  constexpr std::string_view kInto = "into";
  auto it = std::search(sql.begin(), sql.end(), kInto.begin(), kInto.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == b;
  });
  return it != sql.end();
}

}  // namespace

bool ClientSession::may_create_as(std::string_view kw, std::string_view sql) {
  return kw == "create" || (kw == "select" && mentions_into(sql));
}

awaitable<bool> ClientSession::run_create_as(std::string_view sql) {
  if (worker_.pool_count() < 2 || !transaction_pooling_ || pinned() || temp_objects_) {
    co_return false;
  }
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

  std::string earlier;
  emit_ready_synthetics(earlier);  // answers owed before this statement's
  if (!earlier.empty()) channel_.send(std::move(earlier));
  if (!in_block) {
    // A transaction of its own, as a block would be: the table and its rows commit together.
    deferred_begin_ = "BEGIN";
    txn_begin_sql_ = deferred_begin_;
    txn_status_ = 'T';
  }
  // The steps' answers are collected here and made into the one PostgreSQL gives.
  std::string steps;
  channel_.divert(&steps);
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
  if (coord_ && !coord_->failed && !exists) {
    auto expanded = co_await expand_insert_select(parts->insert_sql);
    if (!expanded) {
      fail_step(expanded.error());
    } else if (*expanded && !expanded_answer_.empty()) {
      steps += expanded_answer_;  // the query found no rows
    } else {
      std::string insert = *expanded ? expanded_sql_ : parts->insert_sql;
      Plan p = plan_text('Q', insert);
      if (p.kind == Plan::Kind::kCoordinate) {
        co_await run_coordinated(insert, p, nullptr, true);
      } else {
        fail_step(p.kind == Plan::Kind::kRefuse && p.error
                      ? *p.error
                      : not_supported("this CREATE TABLE … AS is not supported by pgrange yet"));
      }
    }
  }
  if (!in_block) {
    if (coord_) {
      co_await finish_coordinated(!coord_->failed, steps);
    } else {
      txn_status_ = 'I';
      deferred_begin_.clear();
      txn_begin_sql_.clear();
    }
  }
  channel_.divert(nullptr);

  // PostgreSQL's answer: the notices, the first error, else SELECT and the rows inserted.
  std::string reply;
  std::string tag = "CREATE TABLE AS";
  bool failed = false;
  for (std::string_view rest = steps;;) {
    FrameResult fr = read_typed_frame(rest, rest.size());
    if (fr.status != FrameStatus::kReady) break;
    std::string_view frame = rest.substr(0, fr.frame.total_size);
    std::string_view body = fr.frame.body;
    rest.remove_prefix(fr.frame.total_size);
    if (fr.frame.type == 'N' || (fr.frame.type == 'E' && !failed)) reply += frame;
    failed = failed || fr.frame.type == 'E';
    std::string_view done = body.substr(0, body.find('\0'));
    if (fr.frame.type == 'C' && done.starts_with("INSERT ")) {
      tag = "SELECT " + std::string(done.substr(done.rfind(' ') + 1));
    }
  }
  if (!failed) MessageWriter(reply).begin('C').cstr(tag).end();
  write_ready_for_query(reply, txn_status_);
  channel_.send(std::move(reply));
  co_return true;
}

}  // namespace pgrange::proxy
