// ClientSession's COPY over several shards. COPY … FROM STDIN reads the client's rows, keys each
// one and streams it, unchanged, to the same COPY on the shard that owns it, all in one
// transaction over the shards (two-phase commit outside a transaction block). COPY … TO STDOUT
// reads a table range by range in key order, or a plain query's rows shard by shard.

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <map>

#include "proxy/control/control_plane.hpp"
#include "proxy/exec/concatenate.hpp"
#include "proxy/exec/copy_range.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "routing/keys/key_codec.hpp"
#include "routing/keys/key_space.hpp"
#include "routing/plan/copy_plan.hpp"
#include "routing/plan/hash_sharding.hpp"
#include "sql/copy_rows.hpp"
#include "sql/copy_statement.hpp"
#include "sql/quoting.hpp"

namespace pgrange::proxy {
namespace {

/// Rows are sent to a shard in CopyData messages of about this size.
constexpr size_t kFlushBytes = 64 * 1024;
constexpr size_t kBacklog = 256 * 1024;
/// The binary COPY file header PostgreSQL writes (signature, flags, no extension).

/// Consecutive rows one shard received: its lines [shard_line, shard_line + count) are the
/// client's lines [client_line, client_line + count).
struct LineRun {
  uint64_t shard_line = 0;
  uint64_t client_line = 0;
  uint64_t count = 0;
};

/// Where the line number sits in a COPY error's context ("COPY t, line 5, column a: …").
std::optional<std::pair<size_t, size_t>> line_digits(std::string_view context) {
  size_t at = context.find(", line ");
  if (at == std::string_view::npos || context.rfind("COPY ", 0) != 0) return std::nullopt;
  size_t begin = at + 7, end = begin;
  while (end < context.size() && context[end] >= '0' && context[end] <= '9') ++end;
  if (end == begin) return std::nullopt;
  return std::pair{begin, end};
}

/// An ErrorResponse body with its context's line number read (and rewritten by `map`).
struct ShardError {
  std::string body;
  uint64_t line = 0;  ///< the client's line, 0 when the error names none
};

ShardError map_error_line(std::string_view body,
                          const std::function<uint64_t(uint64_t)>& client_line) {
  ShardError out;
  size_t pos = 0;
  while (pos < body.size() && body[pos] != '\0') {
    char field = body[pos];
    size_t end = body.find('\0', pos + 1);
    if (end == std::string_view::npos) break;
    std::string value(body.substr(pos + 1, end - pos - 1));
    if (field == 'W') {
      if (auto digits = line_digits(value)) {
        uint64_t line = 0;
        std::from_chars(value.data() + digits->first, value.data() + digits->second, line);
        out.line = client_line(line);
        value = value.substr(0, digits->first) + std::to_string(out.line) +
                value.substr(digits->second);
      }
    }
    out.body += field;
    out.body += value;
    out.body += '\0';
    pos = end + 1;
  }
  out.body += '\0';
  return out;
}

}  // namespace

struct ClientSession::CopyIn {
  /// One shard's COPY.
  struct Target {
    BackendConnection* conn = nullptr;
    std::string pending;  ///< rows not sent yet
    bool header_sent = false;
    uint64_t rows = 0;
    std::vector<LineRun> lines;
  };
  std::string statement;  ///< what each shard runs: the client's COPY
  std::shared_ptr<const routing::ClusterView> view;
  routing::TableDescriptor table;
  std::optional<sql::CopyRowReader> reader;
  bool binary = false;
  uint64_t header_lines = 0;
  std::map<int, Target> targets;
  int first_shard = -1;
  std::optional<Error> failure;    ///< pgrange's own: a malformed row, a key it cannot read
  uint64_t failure_line = 0;       ///< …and its line
  std::optional<Error> transport;  ///< a shard connection failed
  std::string key;                 ///< scratch

  uint64_t client_line(int shard, uint64_t line) const {
    auto it = targets.find(shard);
    if (it == targets.end() || line <= header_lines) return line;
    for (const LineRun& run : it->second.lines) {
      if (line >= run.shard_line && line < run.shard_line + run.count) {
        return run.client_line + (line - run.shard_line);
      }
    }
    return line;
  }
};

awaitable<bool> ClientSession::start_copy_in(std::string_view sql_text, const Plan& plan) {
  std::string out;
  emit_ready_synthetics(out);
  const sql::StatementInfo& info = (**plan.analysis).front();
  auto refuse_now = [&](const Error& e) {
    write_error(out, e);
    if (coord_ && !copy_in_) {
      coord_->failed = true;
      txn_status_ = 'E';
    }
    write_ready_for_query(out, txn_status_);
    channel_.send(std::move(out));
    leave_ranges_if_idle();
  };
  std::string text(sql_text.substr(info.begin, info.end - info.begin));
  if (coord_ && coord_->failed) {
    refuse_now(aborted_transaction_error());
    co_return true;
  }
  auto stmt = sql::read_copy_statement(text);
  if (!stmt) {
    refuse_now(stmt.error());
    co_return true;
  }
  auto copy = std::make_shared<CopyIn>();
  copy->view = routing_view();
  const routing::TableDescriptor* t = copy->view->find_table(stmt->table.schema, stmt->table.name);
  if (t == nullptr) {
    refuse_now(Error::make(sqlstate::kUndefinedTable,
                           "relation \"" + stmt->table.name + "\" does not exist"));
    co_return true;
  }
  copy->table = *t;
  if (!stmt->stdio) {
    refuse_now(Error::make(sqlstate::kFeatureNotSupported,
                           "COPY FROM a file or program into table \"" + t->name +
                               "\", whose rows are on several shards, is not supported")
                   .with_hint("use COPY … FROM STDIN (psql's \\copy)"));
    co_return true;
  }
  std::vector<std::string> columns = stmt->columns.empty() ? t->columns : stmt->columns;
  std::vector<size_t> wanted;
  // A reference table's rows go to every shard: its key places none of them.
  for (const routing::KeyColumnDef& k :
       t->reference ? std::span<const routing::KeyColumnDef>() : routing::row_key_columns(*t)) {
    auto it = std::find(columns.begin(), columns.end(), k.name);
    if (it == columns.end()) {
      refuse_now(Error::make(sqlstate::kFeatureNotSupported,
                             "COPY into table \"" + t->name + "\" without its key column \"" +
                                 k.name + "\" is not supported: pgrange places rows by it")
                     .with_hint("list the key column in the COPY's column list"));
      co_return true;
    }
    wanted.push_back(static_cast<size_t>(it - columns.begin()));
  }
  if (columns.empty()) {
    refuse_now(Error::make(sqlstate::kFeatureNotSupported,
                           "pgrange does not know the columns of table \"" + t->name + "\"")
                   .with_hint("name the columns in the COPY"));
    co_return true;
  }
  if (auto e = sql::CopyRowReader::check_columns(stmt->options, columns)) {
    refuse_now(*e);
    co_return true;
  }
  copy->reader.emplace(stmt->options, columns, wanted);
  copy->binary = stmt->options.format == sql::CopyFormat::kBinary;
  copy->header_lines = stmt->options.header && !copy->binary;
  copy->statement = text;
  if (t->key.empty()) {
    auto ranges = copy->view->table_ranges(t->table_id);
    if (!ranges.empty()) {
      copy->first_shard = copy->view->shard_index(copy->view->ranges().at(ranges.front()).shard);
    }
  } else if (!plan.route.shards.empty()) {
    copy->first_shard = plan.route.shards.front();
  }
  if (copy->first_shard < 0) {
    refuse_now(Error::make(sqlstate::kConnectionFailure,
                           "no shard holds a range of table \"" + t->name + "\""));
    co_return true;
  }

  // The transaction the rows go into: the block's (over several shards from now on), or one
  // pgrange opens and commits.
  if (txn_status_ == 'I' && deferred_begin_.empty() && !coord_) {
    coord_.emplace();
    coord_->begin_sql = "BEGIN";
    coord_->implicit = true;
  } else if (!coord_) {
    co_await become_coordinated();
  }
  copy_in_ = copy;
  // The first shard's CopyInResponse tells the client the format and column count.
  auto conn = co_await copy_target(copy->first_shard);
  if (!conn) {
    copy_in_.reset();
    if (coord_->implicit) co_await end_implicit_transaction(false);
    refuse_now(conn.error());
    co_return true;
  }
  std::optional<std::string> response;
  std::optional<std::string> error;
  for (;;) {
    char type = 0;
    std::string body;
    if (auto r = co_await (*conn)->read_message(type, body); !r) {
      (*conn)->mark_broken();
      copy->transport = r.error();
      break;
    }
    if (type == 'G') {
      response = std::move(body);
      break;
    }
    if (type == 'E' && !error) error = std::move(body);
    if (type == 'N') MessageWriter(out).begin('N').bytes(body).end();
    if (type == 'Z') break;
  }
  if (!response) {
    copy_in_.reset();
    if (coord_->implicit) {
      co_await end_implicit_transaction(false);
    } else {
      coord_->failed = true;
      txn_status_ = 'E';
    }
    if (error) {
      write_shard_error(out, *error);
    } else {
      write_error(out, copy->transport.value_or(
                           Error::make(sqlstate::kConnectionFailure, "the shard ended the COPY")));
    }
    write_ready_for_query(out, txn_status_);
    channel_.send(std::move(out));
    co_return true;
  }
  MessageWriter(out).begin('G').bytes(*response).end();
  channel_.send(std::move(out));
  co_return true;
}

awaitable<Result<BackendConnection*>> ClientSession::copy_target(int shard) {
  CopyIn& copy = *copy_in_;
  CopyIn::Target& target = copy.targets[shard];
  if (target.conn != nullptr) co_return target.conn;
  auto conn = co_await coordinated_part(shard);
  if (!conn) co_return tl::unexpected(conn.error());
  std::string request;
  write_query(request, copy.statement);
  if (auto r = co_await (*conn)->send(request); !r) {
    (*conn)->mark_broken();
    co_return tl::unexpected(r.error());
  }
  target.conn = *conn;
  co_return target.conn;
}

awaitable<bool> ClientSession::flush_copy_target(int shard, bool all) {
  CopyIn& copy = *copy_in_;
  CopyIn::Target& target = copy.targets[shard];
  if (target.pending.empty() || (!all && target.pending.size() < kFlushBytes)) co_return true;
  bool opening = target.conn == nullptr;
  auto conn = co_await copy_target(shard);
  if (!conn) {
    copy.transport = conn.error();
    co_return false;
  }
  if (opening) {
    // A shard opened after the first: its CopyInResponse is not the client's business.
    for (;;) {
      char type = 0;
      std::string body;
      if (auto r = co_await (*conn)->read_message(type, body); !r) {
        (*conn)->mark_broken();
        copy.transport = r.error();
        co_return false;
      }
      if (type == 'G') break;
      if (type == 'E') {
        ErrorFields f = parse_error_fields(body);
        copy.transport = Error::make(
            f.sqlstate, "shard \"" + (*conn)->shard().name + "\" refused the COPY: " + f.message);
      }
      if (type == 'Z') {
        if (!copy.transport) copy.transport = Error::make(sqlstate::kConnectionFailure, "no COPY");
        target.conn = nullptr;
        co_return false;
      }
    }
  }
  std::string message;
  std::string_view header = copy.reader->header();
  size_t size = target.pending.size() + (target.header_sent ? 0 : header.size());
  message.reserve(size + 5);
  MessageWriter w(message);
  w.begin('d');
  if (!target.header_sent) w.bytes(header);
  w.bytes(target.pending);
  w.end();
  target.header_sent = true;
  target.pending.clear();
  if (auto r = co_await (*conn)->send(message); !r) {
    (*conn)->mark_broken();
    copy.transport = r.error();
    co_return false;
  }
  co_return true;
}

awaitable<bool> ClientSession::continue_copy_in(char type, std::string_view body) {
  auto copy_ptr = copy_in_;
  CopyIn& copy = *copy_ptr;
  const routing::RangeMapSnapshot& ranges = copy.view->ranges();
  auto add_row = [&](int shard, const sql::CopyRowReader::Row& row) {
    CopyIn::Target& target = copy.targets[shard];
    ++target.rows;
    uint64_t shard_line = copy.header_lines + target.rows;
    if (!target.lines.empty()) {
      LineRun& last = target.lines.back();
      if (last.client_line + last.count == row.line && last.shard_line + last.count == shard_line) {
        ++last.count;
      } else {
        target.lines.push_back({shard_line, row.line, 1});
      }
    } else {
      target.lines.push_back({shard_line, row.line, 1});
    }
    target.pending.append(row.raw);
  };
  auto on_row = [&](const sql::CopyRowReader::Row& row) {
    if (copy.failure) return;
    int shard = copy.first_shard;
    if (copy.table.reference) {
      // Every shard holds all of a reference table's rows.
      for (size_t s = 0; s < copy.view->shard_order().size(); ++s)
        add_row(static_cast<int>(s), row);
      return;
    }
    if (!copy.table.key.empty()) {
      copy.key = routing::index_prefix(copy.table.table_id, copy.table.index_id);
      bool binary = copy.binary;
      const auto key_columns = routing::row_key_columns(copy.table);
      // A hash-sharded key starts with the bucket of the values: read them all first.
      std::vector<std::optional<routing::KeyValue>> hashed;
      for (size_t i = 0; i < key_columns.size(); ++i) {
        const auto& v = row.fields[i];
        std::optional<std::string_view> value;
        if (v) value = *v;
        Result<void> r;
        if (copy.table.hash_buckets > 0) {
          if (!value) {
            hashed.emplace_back();
          } else {
            auto parsed = binary ? routing::parse_binary_value(key_columns[i].column.type, *value)
                                 : routing::parse_text_value(key_columns[i].column.type, *value);
            if (parsed) {
              hashed.emplace_back(std::move(*parsed));
            } else {
              r = tl::unexpected(parsed.error());
            }
          }
        } else {
          r = binary ? routing::append_binary_value(copy.key, key_columns[i].column, value)
                     : routing::append_text_value(copy.key, key_columns[i].column, value);
        }
        if (!r) {
          // As PostgreSQL's input function would have failed: the column, and in text and CSV
          // the value.
          copy.failure = r.error();
          copy.failure->context = "COPY " + copy.table.name + ", line " + std::to_string(row.line) +
                                  ", column " + key_columns[i].name;
          if (!binary) {
            copy.failure->context +=
                ": \"" + sql::CopyRowReader::printout(value.value_or("")) + "\"";
          }
          copy.failure_line = row.line;
          return;
        }
      }
      if (copy.table.hash_buckets > 0) copy.key = routing::row_key(copy.table, hashed);
      const routing::RangeDescriptor* r = ranges.lookup(copy.key);
      shard = r != nullptr ? copy.view->shard_index(r->shard) : -1;
      if (shard < 0) {
        copy.failure = Error::make(sqlstate::kConnectionFailure,
                                   "no shard pgrange knows holds the range of this row's key");
        copy.failure->context = "COPY " + copy.table.name + ", line " + std::to_string(row.line);
        copy.failure_line = row.line;
        return;
      }
    }
    add_row(shard, row);
  };
  auto record = [&](std::optional<sql::CopyRowReader::Failure> f) {
    if (!f || copy.failure) return;
    copy.failure = f->error;
    copy.failure->context = f->context(copy.table.name);
    copy.failure_line = f->line;
  };

  if (type == 'd') {
    if (!copy.failure && !copy.transport) {
      record(copy.reader->feed(body, on_row));
      for (auto& [shard, target] : copy.targets) {
        if (target.pending.size() >= kFlushBytes && !co_await flush_copy_target(shard, false)) {
          break;
        }
      }
    }
    // A failure waits for the client's CopyDone: PostgreSQL answers a COPY that failed only
    // after the client's data, too, when it reads the data as fast as it comes.
    co_return true;
  }
  if (type == 'H' || type == 'S') co_return true;  // ignored during COPY, as PostgreSQL does
  std::string out;
  bool fail = type != 'c';
  std::string fail_message;
  if (type == 'f') {
    std::string_view m;
    BodyReader br(body);
    if (br.cstr(m)) fail_message = std::string(m);
  } else if (type != 'c') {
    copy.failure = Error::make(
        sqlstate::kProtocolViolation,
        "unexpected message type 0x" + std::string(1, "0123456789ABCDEF"[(type >> 4) & 15]) +
            std::string(1, "0123456789ABCDEF"[type & 15]) + " during COPY from stdin");
    copy.failure->context = "COPY " + copy.table.name + ", line " +
                            std::to_string(copy.reader->rows() + copy.header_lines + 1);
    copy.failure_line = ~uint64_t{0};
  }
  if (!fail && !copy.failure && !copy.transport) record(copy.reader->finish(on_row));
  if (type != 'f' && !copy.transport) {
    // Every row before a failure reaches its shard: a shard may fail an earlier one.
    for (auto& [shard, target] : copy.targets) {
      if (!co_await flush_copy_target(shard, true)) break;
    }
  }
  // Every opened shard ends its COPY: with CopyDone when the rows were good so far (a shard
  // may still report an earlier row's error), with CopyFail when the client gave up.
  std::optional<ShardError> first_error;
  std::vector<std::string> notices;
  std::string tag;
  for (auto& [shard, target] : copy.targets) {
    if (target.conn == nullptr) continue;
    BackendConnection& conn = *target.conn;
    if (conn.broken()) continue;
    std::string end;
    if (type == 'f') {
      MessageWriter(end).begin('f').cstr(fail_message).end();
    } else {
      if (!target.header_sent && !copy.transport) {
        // A shard that got no row yet still needs the header (HEADER MATCH checks it).
        MessageWriter(end).begin('d').bytes(copy.reader->header()).end();
      }
      MessageWriter(end).begin('c').end();
    }
    if (auto r = co_await conn.send(end); !r) {
      conn.mark_broken();
      if (!copy.transport) copy.transport = r.error();
      continue;
    }
    for (;;) {
      char t = 0;
      std::string b;
      if (auto r = co_await conn.read_message(t, b); !r) {
        conn.mark_broken();
        if (!copy.transport) copy.transport = r.error();
        break;
      }
      if (t == 'Z') break;
      if (t == 'C') {
        // A reference table's rows went to every shard: each counts them all.
        if (!copy.table.reference || tag.empty()) tag = add_tag_counts(tag, std::string(b.c_str()));
      }
      if (t == 'N') notices.push_back(std::move(b));
      if (t == 'E') {
        int s = shard;
        ShardError e = map_error_line(b, [&](uint64_t line) { return copy.client_line(s, line); });
        if (e.line == 0) e.line = ~uint64_t{0} - 1;
        if (!first_error || e.line < first_error->line) first_error = std::move(e);
      }
    }
  }
  for (const std::string& n : notices) MessageWriter(out).begin('N').bytes(n).end();
  // The error PostgreSQL would have reported: the one of the earliest line.
  bool ok = !copy.transport && !copy.failure && !first_error;
  if (copy.transport) {
    write_error(out, *copy.transport);
  } else if (first_error && (!copy.failure || first_error->line < copy.failure_line)) {
    write_shard_error(out, first_error->body);
  } else if (copy.failure) {
    write_error(out, *copy.failure);
  }
  copy_in_.reset();
  if (ok && !coord_->implicit) {
    // In a transaction block the rows' index entries are written now, so that a UNIQUE
    // index's violation fails the COPY itself, as in PostgreSQL.
    if (auto e = co_await write_coordinated_index_entries()) {
      write_error(out, *e);
      ok = false;
    }
  }
  if (coord_->implicit) {
    auto error = co_await end_implicit_transaction(ok);
    if (ok && error) {
      write_error(out, *error);
      ok = false;
    }
  } else if (!ok) {
    coord_->failed = true;
    txn_status_ = 'E';
  }
  if (ok) MessageWriter(out).begin('C').cstr(tag.empty() ? "COPY 0" : tag).end();
  write_ready_for_query(out, txn_status_);
  channel_.send(std::move(out));
  co_return true;
}

awaitable<std::optional<Error>> ClientSession::end_implicit_transaction(bool commit) {
  std::vector<TxnPart> parts = take_coordinated_parts();
  auto error = co_await end_transaction(parts, commit);
  txn_status_ = 'I';
  leave_ranges();
  co_return error;
}

void ClientSession::leave_ranges_if_idle() {
  if (txn_status_ == 'I' && deferred_begin_.empty() && !coord_ && !backend_) leave_ranges();
}

awaitable<bool> ClientSession::run_copy_out(std::string_view sql_text, const Plan& plan) {
  std::string out;
  emit_ready_synthetics(out);
  const sql::StatementInfo& info = (**plan.analysis).front();
  std::string text(sql_text.substr(info.begin, info.end - info.begin));
  auto fail_now = [&](const Error& e) {
    write_error(out, e);
    if (coord_) {
      coord_->failed = true;
      txn_status_ = 'E';
    }
    write_ready_for_query(out, txn_status_);
    channel_.send(std::move(out));
    leave_ranges_if_idle();
  };
  if (coord_ && coord_->failed) {
    fail_now(aborted_transaction_error());
    co_return true;
  }
  auto stmt = sql::read_copy_statement(text);
  if (!stmt) {
    fail_now(stmt.error());
    co_return true;
  }
  // Inside a transaction block the rows come from the block's own connections (it sees its own
  // writes): the block becomes one over several shards.
  if (!coord_ && (txn_status_ != 'I' || !deferred_begin_.empty())) co_await become_coordinated();
  auto view = routing_view();
  auto copy = routing::plan_copy_out(*view, *stmt, plan.route.shards);
  if (!copy) {
    fail_now(copy.error());
    co_return true;
  }

  // The plan: each step a Route of its own, one after the other.
  const bool binary = copy->binary;
  std::vector<std::unique_ptr<exec::Operator>> parts;
  for (size_t step = 0; step < copy->steps.size(); ++step) {
    exec::CopyRange::Options o;
    o.shard = copy->steps[step].shard;
    o.shard_name = view->shard_name(o.shard);
    o.statement = std::move(copy->steps[step].sql);
    o.first = step == 0;
    o.binary = binary;
    o.header = copy->header;
    o.acquire = [this](int shard) -> awaitable<Result<std::shared_ptr<BackendConnection>>> {
      std::shared_ptr<BackendConnection> conn;
      if (coord_) {
        auto part = co_await coordinated_part(shard);
        if (!part) co_return tl::unexpected(part.error());
        conn = coord_->parts.at(shard);
      } else {
        auto acquired = co_await acquire_for_client(static_cast<size_t>(shard));
        if (!acquired) co_return tl::unexpected(acquired.error());
        conn = *acquired;
      }
      if (auto e = co_await sync_settings(*conn)) {
        conn->mark_broken();
        if (!coord_) worker_.pool(static_cast<size_t>(shard)).release(conn, false);
        co_return tl::unexpected(*e);
      }
      co_return conn;
    };
    if (!coord_) {
      o.release = [this](std::shared_ptr<BackendConnection> conn) {
        worker_.pool(static_cast<size_t>(conn->shard_index())).release(conn, !conn->broken());
      };
    }
    o.other = [&out](char type, const std::string& body) {
      MessageWriter(out).begin(type).bytes(body).end();
    };
    parts.push_back(std::make_unique<exec::CopyRange>(std::move(o)));
  }
  exec::Concatenate tree(std::move(parts));
  std::optional<Error> failure;
  std::optional<std::string> shard_error;
  auto failed = [&](const exec::ExecFailure& f) {
    failure = f.error;
    shard_error = f.shard_error;
  };
  if (auto o = co_await tree.open(); !o) {
    failed(o.error());
  } else {
    MessageWriter(out).begin('H').bytes(tree.columns()).end();
  }
  while (!failure && !shard_error) {
    exec::Batch batch;
    auto more = co_await tree.next(batch);
    out += batch.data;
    if (!more) {
      failed(more.error());
      break;
    }
    if (out.size() >= kFlushBytes) {
      channel_.send(std::move(out));
      out.clear();
      if (channel_.queued() > kBacklog) co_await channel_.wait_below(kBacklog / 2);
    }
    if (!*more) break;
  }
  co_await tree.close(failure || shard_error);
  std::string tag = "COPY " + std::to_string(tree.rows_out());
  if (failure || shard_error) {
    if (shard_error) {
      write_shard_error(out, *shard_error);
    } else {
      write_error(out, *failure);
    }
    if (coord_) {
      coord_->failed = true;
      txn_status_ = 'E';
    }
  } else {
    if (binary) MessageWriter(out).begin('d').bytes(exec::kCopyBinaryTrailer).end();
    MessageWriter(out).begin('c').end();
    MessageWriter(out).begin('C').cstr(tag).end();
  }
  write_ready_for_query(out, txn_status_);
  channel_.send(std::move(out));
  leave_ranges_if_idle();
  co_return true;
}

}  // namespace pgrange::proxy
