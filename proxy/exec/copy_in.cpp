#include "proxy/exec/copy_in.hpp"

#include <charconv>

#include "proxy/wire/message_writer.hpp"
#include "routing/keys/key_codec.hpp"
#include "routing/keys/key_space.hpp"
#include "routing/plan/hash_sharding.hpp"

namespace pgrange::proxy::exec {
namespace {

/// Rows are sent to a shard in CopyData messages of about this size.
constexpr size_t kFlushBytes = 64 * 1024;

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

Result<std::unique_ptr<CopyRouter>> CopyRouter::make(
    std::shared_ptr<const routing::ClusterView> view, const sql::CopyStatement& stmt,
    std::string statement, const std::vector<int>& route_shards, Part part) {
  const routing::TableDescriptor* t = view->find_table(stmt.table.schema, stmt.table.name);
  if (t == nullptr) {
    return tl::unexpected(Error::make(sqlstate::kUndefinedTable,
                                      "relation \"" + stmt.table.name + "\" does not exist"));
  }
  if (!stmt.stdio) {
    return tl::unexpected(Error::make(sqlstate::kFeatureNotSupported,
                                      "COPY FROM a file or program into table \"" + t->name +
                                          "\", whose rows are on several shards, is not supported")
                              .with_hint("use COPY … FROM STDIN (psql's \\copy)"));
  }
  std::vector<std::string> columns = stmt.columns.empty() ? t->columns : stmt.columns;
  std::vector<size_t> wanted;
  // A reference table's rows go to every shard: its key places none of them.
  for (const routing::KeyColumnDef& k :
       t->reference ? std::span<const routing::KeyColumnDef>() : routing::row_key_columns(*t)) {
    auto it = std::find(columns.begin(), columns.end(), k.name);
    if (it == columns.end()) {
      return tl::unexpected(Error::make(sqlstate::kFeatureNotSupported,
                                        "COPY into table \"" + t->name +
                                            "\" without its key column \"" + k.name +
                                            "\" is not supported: pgrange places rows by it")
                                .with_hint("list the key column in the COPY's column list"));
    }
    wanted.push_back(static_cast<size_t>(it - columns.begin()));
  }
  if (columns.empty()) {
    return tl::unexpected(
        Error::make(sqlstate::kFeatureNotSupported,
                    "pgrange does not know the columns of table \"" + t->name + "\"")
            .with_hint("name the columns in the COPY"));
  }
  if (auto e = sql::CopyRowReader::check_columns(stmt.options, columns)) {
    return tl::unexpected(*e);
  }
  std::unique_ptr<CopyRouter> copy(new CopyRouter());
  copy->view_ = std::move(view);
  copy->table_ = *t;
  copy->reader_.emplace(stmt.options, columns, wanted);
  copy->binary_ = stmt.options.format == sql::CopyFormat::kBinary;
  copy->header_lines_ = stmt.options.header && !copy->binary_;
  copy->statement_ = std::move(statement);
  copy->part_ = std::move(part);
  if (t->key.empty()) {
    auto ranges = copy->view_->table_ranges(t->table_id);
    if (!ranges.empty()) {
      copy->first_shard_ = copy->view_->shard_index(copy->view_->ranges().at(ranges.front()).shard);
    }
  } else if (!route_shards.empty()) {
    copy->first_shard_ = route_shards.front();
  }
  if (copy->first_shard_ < 0) {
    return tl::unexpected(Error::make(sqlstate::kConnectionFailure,
                                      "no shard holds a range of table \"" + t->name + "\""));
  }
  return copy;
}

uint64_t CopyRouter::client_line(int shard, uint64_t line) const {
  auto it = targets_.find(shard);
  if (it == targets_.end() || line <= header_lines_) return line;
  for (const LineRun& run : it->second.lines) {
    if (line >= run.shard_line && line < run.shard_line + run.count) {
      return run.client_line + (line - run.shard_line);
    }
  }
  return line;
}

awaitable<CopyRouter::Started> CopyRouter::start() {
  Started s;
  // The first shard's CopyInResponse tells the client the format and column count.
  auto conn = co_await target(first_shard_);
  if (!conn) {
    s.error = conn.error();
    co_return s;
  }
  for (;;) {
    char type = 0;
    std::string body;
    if (auto r = co_await (*conn)->read_message(type, body); !r) {
      (*conn)->mark_broken();
      transport_ = r.error();
      break;
    }
    if (type == 'G') {
      s.response = std::move(body);
      break;
    }
    if (type == 'E' && !s.shard_error) s.shard_error = std::move(body);
    if (type == 'N') s.notices.push_back(std::move(body));
    if (type == 'Z') break;
  }
  if (!s.response && !s.shard_error) {
    s.error =
        transport_.value_or(Error::make(sqlstate::kConnectionFailure, "the shard ended the COPY"));
  }
  co_return s;
}

awaitable<Result<BackendConnection*>> CopyRouter::target(int shard) {
  Target& t = targets_[shard];
  if (t.conn != nullptr) co_return t.conn;
  auto conn = co_await part_(shard);
  if (!conn) co_return tl::unexpected(conn.error());
  std::string request;
  write_query(request, statement_);
  if (auto r = co_await (*conn)->send(request); !r) {
    (*conn)->mark_broken();
    co_return tl::unexpected(r.error());
  }
  t.conn = *conn;
  co_return t.conn;
}

awaitable<bool> CopyRouter::flush(int shard, bool all) {
  Target& t = targets_[shard];
  if (t.pending.empty() || (!all && t.pending.size() < kFlushBytes)) co_return true;
  bool opening = t.conn == nullptr;
  auto conn = co_await target(shard);
  if (!conn) {
    transport_ = conn.error();
    co_return false;
  }
  if (opening) {
    // A shard opened after the first: its CopyInResponse is not the client's business.
    for (;;) {
      char type = 0;
      std::string body;
      if (auto r = co_await (*conn)->read_message(type, body); !r) {
        (*conn)->mark_broken();
        transport_ = r.error();
        co_return false;
      }
      if (type == 'G') break;
      if (type == 'E') {
        ErrorFields f = parse_error_fields(body);
        transport_ = Error::make(
            f.sqlstate, "shard \"" + (*conn)->shard().name + "\" refused the COPY: " + f.message);
      }
      if (type == 'Z') {
        if (!transport_) transport_ = Error::make(sqlstate::kConnectionFailure, "no COPY");
        t.conn = nullptr;
        co_return false;
      }
    }
  }
  std::string message;
  std::string_view header = reader_->header();
  size_t size = t.pending.size() + (t.header_sent ? 0 : header.size());
  message.reserve(size + 5);
  MessageWriter w(message);
  w.begin('d');
  if (!t.header_sent) w.bytes(header);
  w.bytes(t.pending);
  w.end();
  t.header_sent = true;
  t.pending.clear();
  if (auto r = co_await (*conn)->send(message); !r) {
    (*conn)->mark_broken();
    transport_ = r.error();
    co_return false;
  }
  co_return true;
}

void CopyRouter::add_row(int shard, const sql::CopyRowReader::Row& row) {
  Target& target = targets_[shard];
  ++target.rows;
  uint64_t shard_line = header_lines_ + target.rows;
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
}

void CopyRouter::route_row(const sql::CopyRowReader::Row& row) {
  if (failure_) return;
  int shard = first_shard_;
  if (table_.reference) {
    // Every shard holds all of a reference table's rows.
    for (size_t s = 0; s < view_->shard_order().size(); ++s) add_row(static_cast<int>(s), row);
    return;
  }
  if (!table_.key.empty()) {
    key_ = routing::index_prefix(table_.table_id, table_.index_id);
    bool binary = binary_;
    const auto key_columns = routing::row_key_columns(table_);
    // A hash-sharded key starts with the bucket of the values: read them all first.
    std::vector<std::optional<routing::KeyValue>> hashed;
    for (size_t i = 0; i < key_columns.size(); ++i) {
      const auto& v = row.fields[i];
      std::optional<std::string_view> value;
      if (v) value = *v;
      Result<void> r;
      if (table_.hash_buckets > 0) {
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
        r = binary ? routing::append_binary_value(key_, key_columns[i].column, value)
                   : routing::append_text_value(key_, key_columns[i].column, value);
      }
      if (!r) {
        // As PostgreSQL's input function would have failed: the column, and in text and CSV
        // the value.
        failure_ = r.error();
        failure_->context = "COPY " + table_.name + ", line " + std::to_string(row.line) +
                            ", column " + key_columns[i].name;
        if (!binary) {
          failure_->context += ": \"" + sql::CopyRowReader::printout(value.value_or("")) + "\"";
        }
        failure_line_ = row.line;
        return;
      }
    }
    if (table_.hash_buckets > 0) key_ = routing::row_key(table_, hashed);
    const routing::RangeDescriptor* r = view_->ranges().lookup(key_);
    shard = r != nullptr ? view_->shard_index(r->shard) : -1;
    if (shard < 0) {
      failure_ = Error::make(sqlstate::kConnectionFailure,
                             "no shard pgrange knows holds the range of this row's key");
      failure_->context = "COPY " + table_.name + ", line " + std::to_string(row.line);
      failure_line_ = row.line;
      return;
    }
  }
  add_row(shard, row);
}

void CopyRouter::record(std::optional<sql::CopyRowReader::Failure> f) {
  if (!f || failure_) return;
  failure_ = f->error;
  failure_->context = f->context(table_.name);
  failure_line_ = f->line;
}

awaitable<void> CopyRouter::feed(std::string_view data) {
  if (failure_ || transport_) co_return;
  record(reader_->feed(data, [this](const sql::CopyRowReader::Row& row) { route_row(row); }));
  for (auto& [shard, t] : targets_) {
    if (t.pending.size() >= kFlushBytes && !co_await flush(shard, false)) break;
  }
}

awaitable<CopyRouter::Outcome> CopyRouter::finish(char type, std::string_view body) {
  Outcome o;
  bool fail = type != 'c';
  std::string fail_message;
  if (type == 'f') {
    std::string_view m;
    BodyReader br(body);
    if (br.cstr(m)) fail_message = std::string(m);
  } else if (type != 'c') {
    failure_ = Error::make(
        sqlstate::kProtocolViolation,
        "unexpected message type 0x" + std::string(1, "0123456789ABCDEF"[(type >> 4) & 15]) +
            std::string(1, "0123456789ABCDEF"[type & 15]) + " during COPY from stdin");
    failure_->context =
        "COPY " + table_.name + ", line " + std::to_string(reader_->rows() + header_lines_ + 1);
    failure_line_ = ~uint64_t{0};
  }
  if (!fail && !failure_ && !transport_)
    record(reader_->finish([this](const sql::CopyRowReader::Row& row) { route_row(row); }));
  if (type != 'f' && !transport_) {
    // Every row before a failure reaches its shard: a shard may fail an earlier one.
    for (auto& [shard, target] : targets_) {
      if (!co_await flush(shard, true)) break;
    }
  }
  // Every opened shard ends its COPY: with CopyDone when the rows were good so far (a shard
  // may still report an earlier row's error), with CopyFail when the client gave up.
  std::optional<ShardError> first_error;
  for (auto& [shard, target] : targets_) {
    if (target.conn == nullptr) continue;
    BackendConnection& conn = *target.conn;
    if (conn.broken()) continue;
    std::string end;
    if (type == 'f') {
      MessageWriter(end).begin('f').cstr(fail_message).end();
    } else {
      if (!target.header_sent && !transport_) {
        // A shard that got no row yet still needs the header (HEADER MATCH checks it).
        MessageWriter(end).begin('d').bytes(reader_->header()).end();
      }
      MessageWriter(end).begin('c').end();
    }
    if (auto r = co_await conn.send(end); !r) {
      conn.mark_broken();
      if (!transport_) transport_ = r.error();
      continue;
    }
    for (;;) {
      char t = 0;
      std::string b;
      if (auto r = co_await conn.read_message(t, b); !r) {
        conn.mark_broken();
        if (!transport_) transport_ = r.error();
        break;
      }
      if (t == 'Z') break;
      if (t == 'C') {
        // A reference table's rows went to every shard: each counts them all.
        if (!table_.reference || o.tag.empty())
          o.tag = add_tag_counts(o.tag, std::string(b.c_str()));
      }
      if (t == 'N') o.notices.push_back(std::move(b));
      if (t == 'E') {
        int s = shard;
        ShardError e = map_error_line(b, [&](uint64_t line) { return client_line(s, line); });
        if (e.line == 0) e.line = ~uint64_t{0} - 1;
        if (!first_error || e.line < first_error->line) first_error = std::move(e);
      }
    }
  }
  // The error PostgreSQL would have reported: the one of the earliest line.
  if (transport_) {
    o.error = transport_;
  } else if (first_error && (!failure_ || first_error->line < failure_line_)) {
    o.shard_error = std::move(first_error->body);
  } else if (failure_) {
    o.error = failure_;
  }
  if (o.ok() && o.tag.empty()) o.tag = "COPY 0";
  co_return o;
}

}  // namespace pgrange::proxy::exec
