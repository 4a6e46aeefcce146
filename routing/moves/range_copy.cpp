#include "routing/moves/range_copy.hpp"

#include <poll.h>

#include <algorithm>
#include <map>
#include <optional>
#include <thread>

#include "routing/moves/pgoutput.hpp"
#include "routing/moves/shard_link.hpp"
#include "routing/plan/key_predicate.hpp"
#include "sql/quoting.hpp"

namespace pgrange::routing {
namespace {

using shard_link::Conn;
using shard_link::exec;
using shard_link::PgResult;
using sql::quote_ident;
using sql::quote_literal;

/// A relation of the stream, as its changes are applied on the target.
struct StreamRelation {
  std::string table;  ///< "schema"."name"
  pgoutput::Relation relation;
};

}  // namespace

struct RangeCopy::State {
  std::string source_dsn, target_dsn, name;
  std::vector<RangePart> parts;
  std::vector<std::string> tables;      ///< each part's qualified name
  std::vector<std::string> predicates;  ///< each part's key predicate
  bool follow = false;
  Conn source;  ///< snapshot copy, markers, the last count
  Conn target;  ///< the transaction that receives the copy
  Conn stream;  ///< the replication connection (its slot is temporary)
  bool publication = false;
  enum class Stage { kCopying, kPrepared, kTargetCommitted, kSwitched, kDone, kAborted };
  Stage stage = Stage::kCopying;
  int64_t rows_copied = 0;
  int64_t changes = 0;
  int64_t source_rows = 0;  ///< the range's rows at the source when prepared
  uint64_t marker = 0;
  uint64_t applied_lsn = 0;  ///< the end of the last commit applied (reported to the slot)
  std::map<uint32_t, StreamRelation> relations;
  /// Changes of rows with a unique identity, folded into each row's last state until flush():
  /// a row written many times in a round is written once on the target (each write would leave
  /// one more version of it in the target's one transaction, to be stepped over by every later
  /// one: with hot rows, quadratic).
  struct Pending {
    bool present = false;
    std::vector<pgoutput::Value> row;  ///< its last values (present)
    uint64_t seq = 0;                  ///< when it last changed: flush() keeps that order
  };
  std::map<std::pair<uint32_t, std::vector<std::string>>, Pending> pending;
  uint64_t seq = 0;
  static constexpr size_t kPendingRows = 10000;

  /// Takes one change: folded into `pending`, or applied at once when it cannot be (a relation
  /// without a unique identity, an update whose unchanged TOAST values are not known).
  Result<void> take(const pgoutput::Message& m);
  /// Writes the pending rows' last states on the target, in the order of their last changes.
  Result<void> flush();
  Result<void> apply(const pgoutput::Message& m);
  /// Reads the stream until the marker `wanted` comes back or `deadline` passes.
  Result<int64_t> consume_until(uint64_t wanted, std::chrono::steady_clock::time_point deadline);
  Result<void> send_status(bool reply);
};

namespace {

/// The condition "this row of `rel`" from a tuple's replica identity values, with $n from
/// `first`; `params` receives the values.
std::string identity_condition(const pgoutput::Relation& rel,
                               const std::vector<pgoutput::Value>& values,
                               std::vector<std::optional<std::string>>& params) {
  std::string cond;
  for (size_t i = 0; i < rel.columns.size() && i < values.size(); ++i) {
    if (!rel.columns[i].key) continue;
    if (!cond.empty()) cond += " AND ";
    if (values[i].kind == pgoutput::Value::Kind::kText) {
      params.emplace_back(values[i].text);
      cond += quote_ident(rel.columns[i].name) + " = $" + std::to_string(params.size());
    } else {
      cond += quote_ident(rel.columns[i].name) + " IS NULL";
    }
  }
  return cond.empty() ? "false" : cond;
}

}  // namespace

namespace {

/// The identity values of a tuple (NULL as a marker no text value has).
std::vector<std::string> identity_of(const pgoutput::Relation& rel,
                                     const std::vector<pgoutput::Value>& values) {
  std::vector<std::string> out;
  for (size_t i = 0; i < rel.columns.size() && i < values.size(); ++i) {
    if (!rel.columns[i].key) continue;
    out.push_back(values[i].kind == pgoutput::Value::Kind::kText ? "t" + values[i].text : "n");
  }
  return out;
}

}  // namespace

Result<void> RangeCopy::State::take(const pgoutput::Message& m) {
  using Kind = pgoutput::Message::Kind;
  if (m.kind != Kind::kInsert && m.kind != Kind::kUpdate && m.kind != Kind::kDelete) {
    return apply(m);
  }
  auto it = relations.find(m.relation_oid);
  // FULL identity: equal rows are possible, so each change is applied as it comes.
  if (it == relations.end() || it->second.relation.identity == 'f') {
    if (auto ok = flush(); !ok) return ok;
    return apply(m);
  }
  const pgoutput::Relation& rel = it->second.relation;
  ++changes;
  if (m.kind == Kind::kDelete) {
    pending[{m.relation_oid, identity_of(rel, m.old_values)}] = Pending{false, {}, ++seq};
  } else {
    auto key = std::make_pair(m.relation_oid, identity_of(rel, m.new_values));
    std::vector<pgoutput::Value> row = m.new_values;
    if (m.kind == Kind::kUpdate) {
      auto old_key = m.old_values.empty()
                         ? key
                         : std::make_pair(m.relation_oid, identity_of(rel, m.old_values));
      // Unchanged TOAST values ('u') come from the row's last state, when this round has it.
      const Pending* before = nullptr;
      if (auto p = pending.find(old_key); p != pending.end() && p->second.present) {
        before = &p->second;
      }
      for (size_t i = 0; i < row.size(); ++i) {
        if (row[i].kind != pgoutput::Value::Kind::kUnchanged) continue;
        if (before == nullptr || i >= before->row.size()) {
          // Unknown here: the target's row has it; update in place, after what came before.
          --changes;
          if (auto ok = flush(); !ok) return ok;
          return apply(m);
        }
        row[i] = before->row[i];
      }
      if (old_key != key) pending[old_key] = Pending{false, {}, ++seq};
    }
    pending[key] = Pending{true, std::move(row), ++seq};
  }
  if (pending.size() >= kPendingRows) return flush();
  return {};
}

Result<void> RangeCopy::State::flush() {
  if (pending.empty()) return {};
  std::vector<std::pair<const std::pair<uint32_t, std::vector<std::string>>*, const Pending*>>
      order;
  for (const auto& [k, p] : pending) order.emplace_back(&k, &p);
  std::sort(order.begin(), order.end(),
            [](const auto& a, const auto& b) { return a.second->seq < b.second->seq; });
  // Sent kBatch statements at a time in one pipeline (one round trip, not one each): few
  // enough that their answers fit the socket's buffer while the next are written.
  struct Statement {
    std::string sql;
    std::vector<std::optional<std::string>> params;
    std::string table;
  };
  constexpr size_t kBatch = 256;
  std::vector<Statement> batch;
  PGconn* conn = target.get();
  auto send = [&]() -> Result<void> {
    if (batch.empty()) return {};
    if (PQenterPipelineMode(conn) != 1) {
      return fail(shard_link::command_error(conn, nullptr, "applying changes on the target"));
    }
    Result<void> out;
    size_t sent = 0;
    for (const Statement& st : batch) {
      std::vector<const char*> values;
      for (const auto& v : st.params) values.push_back(v ? v->c_str() : nullptr);
      if (PQsendQueryParams(conn, st.sql.c_str(), static_cast<int>(values.size()), nullptr,
                            values.data(), nullptr, nullptr, 0) != 1) {
        out = fail(shard_link::command_error(conn, nullptr, "applying changes on the target"));
        break;
      }
      ++sent;
    }
    if (PQpipelineSync(conn) != 1 && out) {
      out = fail(shard_link::command_error(conn, nullptr, "applying changes on the target"));
    }
    // Each statement's result, then the NULL that ends it; after a failure the rest come back
    // PGRES_PIPELINE_ABORTED; then the Sync's.
    for (size_t i = 0; i < sent; ++i) {
      PGresult* res = PQgetResult(conn);
      if (res == nullptr) break;
      if (PQresultStatus(res) != PGRES_COMMAND_OK && out) {
        out = fail(shard_link::command_error(
            conn, res, "applying a change of " + batch[i].table + " on the target"));
      }
      PQclear(res);
      while ((res = PQgetResult(conn)) != nullptr) PQclear(res);
    }
    for (int guard = 0; guard < 4; ++guard) {
      PGresult* res = PQgetResult(conn);
      if (res == nullptr) continue;
      const bool sync = PQresultStatus(res) == PGRES_PIPELINE_SYNC;
      PQclear(res);
      if (sync) break;
    }
    PQexitPipelineMode(conn);
    batch.clear();
    return out;
  };
  for (const auto& [k, p] : order) {
    const StreamRelation& r = relations.at(k->first);
    const auto& cols = r.relation.columns;
    std::vector<std::optional<std::string>> params;
    std::string sql;
    if (!p->present) {
      // Its identity, from the key's text values ("t…"; "n" is NULL).
      std::vector<pgoutput::Value> ident(cols.size());
      size_t n = 0;
      for (size_t i = 0; i < cols.size(); ++i) {
        if (!cols[i].key) continue;
        const std::string& v = k->second[n++];
        if (v[0] == 't') {
          ident[i].kind = pgoutput::Value::Kind::kText;
          ident[i].text = v.substr(1);
        }
      }
      sql =
          "DELETE FROM ONLY " + r.table + " WHERE " + identity_condition(r.relation, ident, params);
    } else {
      std::string names, values, keys, set;
      for (size_t i = 0; i < cols.size() && i < p->row.size(); ++i) {
        const std::string col = quote_ident(cols[i].name);
        names += (names.empty() ? "" : ", ") + col;
        if (p->row[i].kind == pgoutput::Value::Kind::kText) {
          params.emplace_back(p->row[i].text);
          values += (values.empty() ? "$" : ", $") + std::to_string(params.size());
        } else {
          values += values.empty() ? "NULL" : ", NULL";
        }
        if (cols[i].key) {
          keys += (keys.empty() ? "" : ", ") + col;
        } else {
          set += (set.empty() ? "" : ", ") + col + " = EXCLUDED." + col;
        }
      }
      // The row as the source has it now, whether the target's copy has it yet or not.
      sql = "INSERT INTO " + r.table + " (" + names + ") VALUES (" + values + ") ON CONFLICT (" +
            keys + ") DO " + (set.empty() ? "NOTHING" : "UPDATE SET " + set);
    }
    batch.push_back({std::move(sql), std::move(params), r.table});
    if (batch.size() == kBatch) {
      if (auto ok = send(); !ok) return ok;
    }
  }
  if (auto ok = send(); !ok) return ok;
  pending.clear();
  return {};
}

Result<void> RangeCopy::State::apply(const pgoutput::Message& m) {
  using Kind = pgoutput::Message::Kind;
  if (m.kind == Kind::kRelation) {
    StreamRelation& r = relations[m.relation.oid];
    r.table = quote_ident(m.relation.schema.empty() ? "pg_catalog" : m.relation.schema) + "." +
              quote_ident(m.relation.name);
    r.relation = m.relation;
    return {};
  }
  if (m.kind == Kind::kTruncate) {
    return fail(sqlstate::kInternalError, "a table of the range was truncated during the move");
  }
  if (m.kind != Kind::kInsert && m.kind != Kind::kUpdate && m.kind != Kind::kDelete) return {};
  auto it = relations.find(m.relation_oid);
  if (it == relations.end()) {
    return fail(sqlstate::kProtocolViolation, "the replication stream changed a relation (" +
                                                  std::to_string(m.relation_oid) +
                                                  ") it did not describe");
  }
  const StreamRelation& r = it->second;
  const auto& cols = r.relation.columns;
  std::vector<std::optional<std::string>> params;
  std::string sql;
  if (m.kind == Kind::kInsert) {
    std::string names, values;
    for (size_t i = 0; i < cols.size() && i < m.new_values.size(); ++i) {
      if (m.new_values[i].kind == pgoutput::Value::Kind::kUnchanged) continue;
      if (!names.empty()) {
        names += ", ";
        values += ", ";
      }
      names += quote_ident(cols[i].name);
      if (m.new_values[i].kind == pgoutput::Value::Kind::kText) {
        params.emplace_back(m.new_values[i].text);
        values += "$" + std::to_string(params.size());
      } else {
        values += "NULL";
      }
    }
    sql = "INSERT INTO " + r.table + " (" + names + ") VALUES (" + values + ")";
  } else {
    std::string set;
    if (m.kind == Kind::kUpdate) {
      for (size_t i = 0; i < cols.size() && i < m.new_values.size(); ++i) {
        if (m.new_values[i].kind == pgoutput::Value::Kind::kUnchanged) continue;
        if (!set.empty()) set += ", ";
        set += quote_ident(cols[i].name) + " = ";
        if (m.new_values[i].kind == pgoutput::Value::Kind::kText) {
          params.emplace_back(m.new_values[i].text);
          set += "$" + std::to_string(params.size());
        } else {
          set += "NULL";
        }
      }
    }
    // The old identity, or the new row's when the update left the identity as it was.
    const auto& old = m.old_values.empty() ? m.new_values : m.old_values;
    const std::string cond = identity_condition(r.relation, old, params);
    // One row: with REPLICA IDENTITY FULL and no key, equal rows are interchangeable.
    const std::string row =
        "ctid = (SELECT ctid FROM ONLY " + r.table + " WHERE " + cond + " LIMIT 1)";
    sql = m.kind == Kind::kUpdate ? "UPDATE ONLY " + r.table + " SET " + set + " WHERE " + row
                                  : "DELETE FROM ONLY " + r.table + " WHERE " + row;
  }
  std::vector<const char*> values;
  for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  PgResult res(PQexecParams(target.get(), sql.c_str(), static_cast<int>(values.size()), nullptr,
                            values.data(), nullptr, nullptr, 0));
  if (PQresultStatus(res.get()) != PGRES_COMMAND_OK) {
    return fail(shard_link::command_error(target.get(), res.get(),
                                          "applying a change of " + r.table + " on the target"));
  }
  if (m.kind != Kind::kInsert && shard_link::affected_rows(res.get()) != 1) {
    // The target's copy and the source disagree: never switch to it.
    return fail(sqlstate::kInternalError, "the target shard's copy of " + r.table +
                                              " lacks a row the source " +
                                              (m.kind == Kind::kUpdate ? "updated" : "deleted"));
  }
  ++changes;
  return {};
}

Result<void> RangeCopy::State::send_status(bool reply) {
  const std::string msg = pgoutput::status_update(applied_lsn, reply);
  if (PQputCopyData(stream.get(), msg.data(), static_cast<int>(msg.size())) != 1 ||
      PQflush(stream.get()) != 0) {
    return fail(shard_link::command_error(stream.get(), nullptr, "answering the source's stream"));
  }
  return {};
}

Result<int64_t> RangeCopy::State::consume_until(uint64_t wanted,
                                                std::chrono::steady_clock::time_point deadline) {
  const int64_t before = changes;
  const std::string want = std::to_string(wanted);
  auto last_status = std::chrono::steady_clock::now();
  for (;;) {
    char* buf = nullptr;
    int n = PQgetCopyData(stream.get(), &buf, 1);
    if (n > 0) {
      std::string_view bytes(buf, static_cast<size_t>(n));
      auto frame = pgoutput::decode_frame(bytes);
      Result<void> done;
      bool found = false;
      if (!frame) {
        done = tl::unexpected(frame.error());
      } else if (frame->kind == pgoutput::StreamFrame::Kind::kKeepalive) {
        if (frame->reply_requested) done = send_status(false);
      } else {
        auto m = pgoutput::decode(frame->payload);
        if (!m) {
          done = tl::unexpected(m.error());
        } else if (m->kind == pgoutput::Message::Kind::kMessage) {
          found = m->prefix == name && m->content == want;
          if (found) done = flush();
        } else if (m->kind == pgoutput::Message::Kind::kCommit) {
          applied_lsn = m->end_lsn;
        } else {
          done = take(*m);
        }
      }
      PQfreemem(buf);
      if (!done) return tl::unexpected(done.error());
      if (found) return changes - before;
      continue;
    }
    if (n == -2 || n == -1) {
      // -1: the server ended the stream, which pgrange never asks for.
      return fail(shard_link::command_error(stream.get(), nullptr,
                                            "reading the source shard's replication stream"));
    }
    // Nothing buffered: tell the source how far the target is (so its WAL can go), then wait.
    auto now = std::chrono::steady_clock::now();
    if (now - last_status >= std::chrono::seconds(1)) {
      if (auto ok = send_status(false); !ok) return tl::unexpected(ok.error());
      last_status = now;
    }
    if (now >= deadline) {
      return fail(sqlstate::kQueryCanceled,
                  "the target shard did not catch up with the source in time");
    }
    pollfd pfd{PQsocket(stream.get()), POLLIN, 0};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left, 1000)) + 1);
    if (PQconsumeInput(stream.get()) == 0) {
      return fail(shard_link::command_error(stream.get(), nullptr,
                                            "reading the source shard's replication stream"));
    }
  }
}

namespace {

/// CREATE PUBLICATION `name` of the parts' rows, each table's key predicate its row filter
/// (inserts, updates and deletes; never TRUNCATE, which would empty the target's whole table). A
/// partitioned table holds no rows of its own (its partitions are parts of their own) and takes
/// no row filter: it is left out.
Result<std::string> publication_sql(PGconn* conn, const std::string& name,
                                    const std::vector<std::string>& tables,
                                    const std::vector<std::string>& predicates) {
  std::string list;
  for (size_t i = 0; i < tables.size(); ++i) {
    const char* params[] = {tables[i].c_str()};
    PgResult r(PQexecParams(conn, "SELECT relkind FROM pg_class WHERE oid = $1::regclass", 1,
                            nullptr, params, nullptr, nullptr, 0));
    if (PQresultStatus(r.get()) != PGRES_TUPLES_OK || PQntuples(r.get()) != 1) {
      return fail(shard_link::command_error(conn, r.get(), "reading the kind of " + tables[i]));
    }
    if (std::string_view(PQgetvalue(r.get(), 0, 0)) == "p") continue;
    list += (list.empty() ? "ONLY " : ", ONLY ") + tables[i] + " WHERE (" + predicates[i] + ")";
  }
  return "CREATE PUBLICATION " + quote_ident(name) + (list.empty() ? "" : " FOR TABLE " + list) +
         " WITH (publish = 'insert, update, delete')";
}

}  // namespace

namespace {

/// Takes every table out of the publication `name`; true if it had any. A publication is
/// emptied before it is dropped: DROP PUBLICATION locks none of its tables, and a write to one
/// of them that listed the table's publications just before the drop committed fails when it
/// then looks the publication up ("cache lookup failed for publication"); once emptied, no
/// write lists it.
Result<bool> empty_publication(PGconn* conn, const std::string& name) {
  auto listed = exec(conn,
                     "SELECT string_agg('ONLY ' || quote_ident(schemaname) || '.' || "
                     "quote_ident(tablename), ', ') FROM pg_publication_tables WHERE pubname = " +
                         quote_literal(name),
                     "listing the tables of a range move's publication");
  if (!listed) return tl::unexpected(listed.error());
  if (PQgetisnull(listed->get(), 0, 0)) return false;
  auto r = exec(conn,
                "ALTER PUBLICATION " + quote_ident(name) + " DROP TABLE " +
                    std::string(PQgetvalue(listed->get(), 0, 0)),
                "emptying a range move's publication");
  if (!r) return tl::unexpected(r.error());
  return true;
}

}  // namespace

Result<bool> RangeCopy::can_follow_writes(const std::string& source_dsn,
                                          const std::vector<RangePart>& parts) {
  auto conn = shard_link::connect(source_dsn, "source");
  if (!conn) return tl::unexpected(conn.error());
  for (const RangePart& p : parts) {
    const std::string table = qualified_table_name(p.table);
    // The replica identity's columns ('f': all of them), or none.
    const char* params[] = {table.c_str()};
    PgResult r(PQexecParams(
        conn->get(),
        "SELECT c.relreplident, coalesce((SELECT array_agg(a.attname::text ORDER BY a.attname) "
        "FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = "
        "ANY(i.indkey) WHERE i.indrelid = c.oid AND ((c.relreplident = 'd' AND i.indisprimary) OR "
        "(c.relreplident = 'i' AND i.indisreplident))), '{}') FROM pg_class c WHERE c.oid = "
        "$1::regclass",
        1, nullptr, params, nullptr, nullptr, 0));
    if (PQresultStatus(r.get()) != PGRES_TUPLES_OK || PQntuples(r.get()) != 1) {
      return fail(shard_link::command_error(conn->get(), r.get(),
                                            "reading the replica identity of " + table));
    }
    const std::string ident = PQgetvalue(r.get(), 0, 0);
    if (ident == "f") continue;
    const std::string cols = PQgetvalue(r.get(), 0, 1);  // {a,b}
    if (cols == "{}") return false;
    for (const KeyColumnDef& k : p.table.key) {
      // array_agg's text form quotes names that need it; compare both forms.
      const std::string plain = "," + cols.substr(1, cols.size() - 2) + ",";
      if (plain.find("," + k.name + ",") == std::string::npos &&
          plain.find("," + quote_ident(k.name) + ",") == std::string::npos) {
        return false;
      }
    }
  }
  // A row filter takes only built-in immutable functions, operators and types: a key of a
  // user-defined type (an enum, a domain) cannot be one. Tried in a transaction rolled back.
  std::vector<std::string> tables, predicates;
  for (const RangePart& p : parts) {
    auto pred = key_range_predicate(p.table, p.start_key, p.end_key);
    if (!pred) return tl::unexpected(pred.error());
    tables.push_back(qualified_table_name(p.table));
    predicates.push_back(std::move(*pred));
  }
  auto pub = publication_sql(conn->get(), "pgrange_move_probe", tables, predicates);
  if (!pub) return tl::unexpected(pub.error());
  if (auto r = exec(conn->get(), "BEGIN", "probing a publication"); !r) {
    return tl::unexpected(r.error());
  }
  PgResult probe(PQexec(conn->get(), pub->c_str()));
  const bool filtered = PQresultStatus(probe.get()) == PGRES_COMMAND_OK;
  if (auto r = exec(conn->get(), "ROLLBACK", "probing a publication"); !r) {
    return tl::unexpected(r.error());
  }
  return filtered;
}

Result<RangeCopy> RangeCopy::start(const std::string& source_dsn, const std::string& target_dsn,
                                   std::vector<RangePart> parts, const std::string& name,
                                   bool follow_writes, std::chrono::milliseconds slot_wait) {
  auto state = std::make_unique<State>();
  State& s = *state;
  s.source_dsn = source_dsn;
  s.target_dsn = target_dsn;
  s.name = name;
  s.follow = follow_writes;
  s.parts = std::move(parts);
  for (const RangePart& p : s.parts) {
    auto pred = key_range_predicate(p.table, p.start_key, p.end_key);
    if (!pred) return tl::unexpected(pred.error());
    s.tables.push_back(qualified_table_name(p.table));
    s.predicates.push_back(std::move(*pred));
  }
  RangeCopy copy(std::move(state));  // from here on, a failure aborts in the destructor

  auto source = shard_link::connect(source_dsn, "source");
  if (!source) return tl::unexpected(source.error());
  s.source = std::move(*source);
  PGconn* src = s.source.get();
  std::string snapshot;
  if (s.follow) {
    auto level = exec(src, "SHOW wal_level", "reading wal_level on the source shard");
    if (!level) return tl::unexpected(level.error());
    if (std::string_view(PQgetvalue(level->get(), 0, 0)) != "logical") {
      return fail(
          "55000",
          "the source shard has wal_level = " + std::string(PQgetvalue(level->get(), 0, 0)) +
              ": moving a range while it is written needs wal_level = logical on every "
              "shard (postgresql.conf, then restart the server)");
    }
    // The stream carries only WAL the source has flushed. The markers this connection commits
    // wait for their flush: on a shard with synchronous_commit = off each would otherwise
    // reach the stream only at the WAL writer's next round (wal_writer_delay, 200 ms by
    // default), once per catch-up round and again while the range's writes are held.
    if (auto r = exec(src, "SET synchronous_commit = local", "setting up the source connection");
        !r) {
      return tl::unexpected(r.error());
    }
    // The publication first: the slot decodes with the catalog as of its start.
    auto pub = publication_sql(src, name, s.tables, s.predicates);
    if (!pub) return tl::unexpected(pub.error());
    if (auto r = exec(src, *pub, "publishing the range on the source shard"); !r) {
      return tl::unexpected(r.error());
    }
    s.publication = true;
    auto stream = shard_link::connect(source_dsn, "source", true);
    if (!stream) return tl::unexpected(stream.error());
    s.stream = std::move(*stream);
    // Its snapshot waits for every transaction running on the source to end.
    auto slot = shard_link::exec_within(
        s.stream.get(),
        "CREATE_REPLICATION_SLOT " + quote_ident(name) +
            " TEMPORARY LOGICAL pgoutput (SNAPSHOT 'export')",
        "creating a replication slot on the source shard", slot_wait,
        "a transaction on the source shard stayed open all that time (the slot's snapshot "
        "waits for the transactions running when it is made); end it and try again");
    if (!slot) return tl::unexpected(slot.error());
    snapshot = PQgetvalue(slot->get(), 0, 2);
  }
  if (auto r = exec(src, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
                    "starting the source's snapshot");
      !r) {
    return tl::unexpected(r.error());
  }
  if (!snapshot.empty()) {
    if (auto r = exec(src, "SET TRANSACTION SNAPSHOT " + quote_literal(snapshot),
                      "taking the slot's snapshot on the source shard");
        !r) {
      return tl::unexpected(r.error());
    }
  }

  auto target = shard_link::connect(target_dsn, "target");
  if (!target) return tl::unexpected(target.error());
  s.target = std::move(*target);
  PGconn* dst = s.target.get();
  if (auto r = exec(dst, "BEGIN", "starting the target transaction"); !r) {
    return tl::unexpected(r.error());
  }
  for (size_t i = 0; i < s.parts.size(); ++i) {
    // Left over from an earlier move that failed after committing its copy.
    if (auto r = exec(dst, "DELETE FROM ONLY " + s.tables[i] + " WHERE " + s.predicates[i],
                      "clearing the range on the target shard");
        !r) {
      return tl::unexpected(r.error());
    }
    auto columns = shard_link::copy_columns(src, s.tables[i]);
    if (!columns) return tl::unexpected(columns.error());
    auto copied = shard_link::stream_rows(src, dst, s.tables[i], *columns, s.predicates[i]);
    if (!copied) return tl::unexpected(copied.error());
    s.rows_copied += *copied;
  }
  if (auto r = shard_link::commit(src, "ending the source's snapshot"); !r) {
    return tl::unexpected(r.error());
  }
  if (s.follow) {
    PgResult started(
        PQexec(s.stream.get(), ("START_REPLICATION SLOT " + quote_ident(name) +
                                " LOGICAL 0/0 (proto_version '1', "
                                "publication_names " +
                                quote_literal(quote_ident(name)) + ", messages 'true')")
                                   .c_str()));
    if (PQresultStatus(started.get()) != PGRES_COPY_BOTH) {
      return fail(shard_link::command_error(s.stream.get(), started.get(),
                                            "starting the source's replication stream"));
    }
  }
  return copy;
}

RangeCopy::RangeCopy(std::unique_ptr<State> state) : state_(std::move(state)) {}
RangeCopy::RangeCopy(RangeCopy&&) noexcept = default;

RangeCopy& RangeCopy::operator=(RangeCopy&& other) noexcept {
  if (this != &other) {
    if (state_) (void)abort();
    state_ = std::move(other.state_);
  }
  return *this;
}

RangeCopy::~RangeCopy() {
  if (state_) (void)abort();
}

int64_t RangeCopy::rows_copied() const {
  return state_ ? state_->rows_copied : 0;
}

int64_t RangeCopy::changes_applied() const {
  return state_ ? state_->changes : 0;
}

Result<int64_t> RangeCopy::catch_up(std::chrono::milliseconds timeout) {
  State& s = *state_;
  if (s.stage != State::Stage::kCopying) {
    return fail(sqlstate::kInternalError, "catch_up() of a range copy that is not copying");
  }
  if (!s.follow) return int64_t{0};
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  // A transactional message: decoding sends it after every transaction that committed
  // before it.
  const uint64_t marker = ++s.marker;
  auto emitted = exec(s.source.get(),
                      "SELECT pg_logical_emit_message(true, " + quote_literal(s.name) + ", " +
                          quote_literal(std::to_string(marker)) + ")",
                      "marking the source's stream");
  if (!emitted) return tl::unexpected(emitted.error());
  return s.consume_until(marker, deadline);
}

Result<void> RangeCopy::prepare(std::chrono::milliseconds timeout) {
  State& s = *state_;
  if (s.stage != State::Stage::kCopying) {
    return fail(sqlstate::kInternalError, "prepare() of a range copy that is not copying");
  }
  PGconn* src = s.source.get();
  uint64_t marker = 0;
  if (s.follow) {
    marker = ++s.marker;
    auto emitted = exec(src,
                        "SELECT pg_logical_emit_message(true, " + quote_literal(s.name) + ", " +
                            quote_literal(std::to_string(marker)) + ")",
                        "marking the source's stream");
    if (!emitted) return tl::unexpected(emitted.error());
  }
  // The source counts the range's rows while the target takes the last changes: the two
  // servers work at once. The source keeps its rows until the map has switched
  // (delete_source()), so that nothing but the target's commit is left to the cut-over.
  std::string counts;
  for (size_t i = 0; i < s.parts.size(); ++i) {
    counts += "SELECT count(*) FROM ONLY " + s.tables[i] + " WHERE " + s.predicates[i] + ";";
  }
  if (PQsendQuery(src, counts.c_str()) != 1) {
    return fail(shard_link::command_error(src, nullptr, "counting the range's rows at the source"));
  }
  if (s.follow) {
    auto applied = s.consume_until(marker, std::chrono::steady_clock::now() + timeout);
    if (!applied) {
      shard_link::drain(src);
      return tl::unexpected(applied.error());
    }
  }
  // The stream is over; the slot goes with its connection.
  s.stream.reset();
  std::vector<std::string> there;
  for (size_t i = 0; i < s.parts.size(); ++i) {
    auto counted = exec(s.target.get(),
                        "SELECT count(*) FROM ONLY " + s.tables[i] + " WHERE " + s.predicates[i],
                        "counting the copied rows on the target shard");
    if (!counted) {
      shard_link::drain(src);
      return tl::unexpected(counted.error());
    }
    there.emplace_back(PQgetvalue(counted->get(), 0, 0));
  }
  Result<void> out;
  s.source_rows = 0;
  for (size_t i = 0; i < s.parts.size(); ++i) {
    PgResult counted(PQgetResult(src));
    if (PQresultStatus(counted.get()) != PGRES_TUPLES_OK || PQntuples(counted.get()) != 1) {
      if (out) {
        out = fail(shard_link::command_error(src, counted.get(),
                                             "counting the range's rows on the source shard"));
      }
      continue;
    }
    const std::string here = PQgetvalue(counted.get(), 0, 0);
    s.source_rows += std::stoll(here);
    if (out && there[i] != here) {
      out = fail(sqlstate::kInternalError, "the target shard's copy of " + s.tables[i] + " has " +
                                               there[i] + " rows of the range but the source has " +
                                               here);
    }
  }
  shard_link::drain(src);
  if (!out) return out;
  if (auto r = exec(s.target.get(), "PREPARE TRANSACTION " + quote_literal(target_gid(s.name)),
                    "preparing the copy on the target shard");
      !r) {
    return tl::unexpected(r.error());
  }
  s.stage = State::Stage::kPrepared;  // from here abort() must roll back the prepared copy
  if (s.publication) {
    // Emptied now, dropped once the move has ended (see empty_publication).
    if (auto r = empty_publication(src, s.name); !r) return tl::unexpected(r.error());
  }
  return {};
}

Result<void> RangeCopy::commit_target() {
  State& s = *state_;
  // Whether it commits is unknown once it is sent: abort() then treats the copy as committed.
  s.stage = State::Stage::kTargetCommitted;
  auto done = settle(s.target_dsn, target_gid(s.name), true);
  if (!done) return tl::unexpected(done.error());
  return {};
}

void RangeCopy::switched() {
  if (state_ && state_->stage == State::Stage::kTargetCommitted) {
    state_->stage = State::Stage::kSwitched;
  }
}

Result<int64_t> RangeCopy::delete_source() {
  State& s = *state_;
  // A connection of its own: the copy's may have broken since (abort() comes here too).
  auto conn = shard_link::connect(s.source_dsn, "source");
  if (!conn) return tl::unexpected(conn.error());
  std::string deletes = "BEGIN;";
  for (size_t i = 0; i < s.parts.size(); ++i) {
    deletes += "DELETE FROM ONLY " + s.tables[i] + " WHERE " + s.predicates[i] + ";";
  }
  deletes += "COMMIT";
  if (PQsendQuery(conn->get(), deletes.c_str()) != 1) {
    return fail(
        shard_link::command_error(conn->get(), nullptr, "deleting the range's rows at the source"));
  }
  int64_t gone = 0;
  Result<int64_t> out;
  while (PGresult* raw = PQgetResult(conn->get())) {
    PgResult r(raw);
    if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
      if (out) {
        out = fail(shard_link::command_error(conn->get(), r.get(),
                                             "deleting the range's rows on the source shard"));
      }
      continue;
    }
    if (std::string_view(PQcmdStatus(r.get())).starts_with("DELETE")) {
      gone += shard_link::affected_rows(r.get());
    }
  }
  if (!out) return out;
  s.stage = State::Stage::kDone;
  if (s.publication) {
    // Emptied at prepare(): no write to the table can trip over its drop now. Left behind, it
    // is dropped by recovery.
    if (auto dropped = drop_publication(s.source_dsn, s.name); dropped) s.publication = false;
  }
  return gone;
}

int64_t RangeCopy::source_rows() const {
  return state_->source_rows;
}

Result<void> RangeCopy::abort() {
  if (!state_) return {};
  State& s = *state_;
  if (s.stage == State::Stage::kDone || s.stage == State::Stage::kAborted) return {};
  if (s.stage == State::Stage::kSwitched) {
    // The map gave the range to the target: only the source's rows are left to delete.
    auto deleted = delete_source();
    if (!deleted) return tl::unexpected(deleted.error());
    return {};
  }
  Result<void> out;
  if (s.stage == State::Stage::kTargetCommitted) {
    // The copy is committed but the range stayed at the source: the source keeps its rows,
    // the target's copy goes.
    if (auto r = settle(s.target_dsn, target_gid(s.name), false); !r) {
      return tl::unexpected(r.error());
    }
    auto conn = shard_link::connect(s.target_dsn, "target");
    if (!conn) return tl::unexpected(conn.error());
    for (size_t i = 0; i < s.parts.size(); ++i) {
      auto r = exec(conn->get(), "DELETE FROM ONLY " + s.tables[i] + " WHERE " + s.predicates[i],
                    "deleting the copied rows on the target shard");
      if (!r) return tl::unexpected(r.error());
    }
    s.stage = State::Stage::kAborted;
    return {};
  }
  s.stream.reset();
  s.target.reset();  // an open transaction rolls back with its connection
  s.source.reset();
  if (s.stage == State::Stage::kPrepared) {
    if (auto r = settle(s.target_dsn, target_gid(s.name), false); !r)
      out = tl::unexpected(r.error());
  }
  if (s.publication) {
    if (auto r = drop_publication(s.source_dsn, s.name); !r) {
      if (out) out = tl::unexpected(r.error());
    } else {
      s.publication = false;
    }
  }
  if (out) s.stage = State::Stage::kAborted;
  return out;
}

std::string RangeCopy::target_gid(const std::string& name) {
  return name + ":target";
}

Result<bool> RangeCopy::settle(const std::string& dsn, const std::string& gid, bool commit) {
  auto conn = shard_link::connect(dsn, "");
  if (!conn) return tl::unexpected(conn.error());
  auto found = exec(conn->get(),
                    "SELECT 1 FROM pg_prepared_xacts WHERE database = current_database() AND "
                    "gid = " +
                        quote_literal(gid),
                    "looking for a prepared range move");
  if (!found) return tl::unexpected(found.error());
  if (PQntuples(found->get()) == 0) return false;
  auto r = exec(conn->get(),
                std::string(commit ? "COMMIT" : "ROLLBACK") + " PREPARED " + quote_literal(gid),
                commit ? "committing a range move" : "rolling back a range move");
  if (!r) return tl::unexpected(r.error());
  return true;
}

Result<bool> RangeCopy::drop_publication(const std::string& dsn, const std::string& name) {
  auto conn = shard_link::connect(dsn, "");
  if (!conn) return tl::unexpected(conn.error());
  auto found =
      exec(conn->get(), "SELECT 1 FROM pg_publication WHERE pubname = " + quote_literal(name),
           "looking for a range move's publication");
  if (!found) return tl::unexpected(found.error());
  if (PQntuples(found->get()) == 0) return false;
  auto emptied = empty_publication(conn->get(), name);
  if (!emptied) return tl::unexpected(emptied.error());
  // A write that began looking up the table's publications before they were emptied is done
  // with it long before this.
  if (*emptied) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto r = exec(conn->get(), "DROP PUBLICATION IF EXISTS " + quote_ident(name),
                "dropping a range move's publication");
  if (!r) return tl::unexpected(r.error());
  return true;
}

}  // namespace pgrange::routing
