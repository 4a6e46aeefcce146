// exec::move_keys: an UPDATE that moves rows between shards (key_move.hpp says how and why).

#include "proxy/exec/key_move.hpp"

#include <algorithm>
#include <map>

#include "proxy/wire/message_writer.hpp"
#include "routing/plan/router.hpp"
#include "sql/parse_node.hpp"
#include "sql/quoting.hpp"

namespace pgrange::proxy::exec {
namespace {

/// The column that ends pgrange's part of the rewritten RETURNING list (the client's follows).
constexpr const char* kRowEnd = "?pgrange row end?";
/// Where the row's columns start in the rewritten RETURNING list (after ctid and tableoid).
constexpr size_t kFirstColumn = 2;
/// Rows per INSERT on the new shard.
constexpr size_t kInsertBatch = 500;

using sql::quote_ident;
using sql::quote_literal;

bool contains_sublink(const ProtobufCMessage* m) {
  if (m == nullptr) return false;
  if (m->descriptor == &pg_query__sub_link__descriptor) return true;
  bool found = false;
  sql::for_each_child(m, [&](const ProtobufCMessage* child) {
    if (!found) found = contains_sublink(child);
  });
  return found;
}

/// The UPDATE `text` returning, before the client's own RETURNING items (if any), the new
/// row's ctid and tableoid (a partition's, an inheritance child's), all its columns and the
/// kRowEnd marker.
Result<std::string> returning_rows_sql(std::string_view text) {
  auto tree = sql::parse_tree(text);
  if (!tree) return tl::unexpected(tree.error());
  PgQuery__ParseResult* pr = tree->get();
  if (pr->n_stmts != 1 || pr->stmts[0]->stmt == nullptr ||
      pr->stmts[0]->stmt->node_case != PG_QUERY__NODE__NODE_UPDATE_STMT) {
    return fail(sqlstate::kInternalError, "a key-moving statement that is not one UPDATE");
  }
  const PgQuery__UpdateStmt* u = pr->stmts[0]->stmt->update_stmt;
  const PgQuery__RangeVar* rel = u->relation;
  std::string ref =
      rel->alias != nullptr && rel->alias->aliasname != nullptr && rel->alias->aliasname[0] != '\0'
          ? rel->alias->aliasname
          : rel->relname;
  for (size_t i = 0; i < u->n_returning_list; ++i) {
    // A subquery would read the rows of the shard the UPDATE runs on only.
    if (contains_sublink(&u->returning_list[i]->base)) {
      return fail(Error::make(sqlstate::kFeatureNotSupported,
                              "a subquery in RETURNING of an UPDATE that moves rows between "
                              "shards is not supported")
                      .with_hint("read the rows with a SELECT after the UPDATE"));
    }
  }
  std::string ours = quote_ident(ref) + ".ctid, " + quote_ident(ref) + ".tableoid, " +
                     quote_ident(ref) + ".*, NULL AS " + quote_ident(kRowEnd);
  if (u->n_returning_list == 0) return std::string(text) + "\nRETURNING " + ours;
  const PgQuery__Node* first = u->returning_list[0];
  if (first->node_case != PG_QUERY__NODE__NODE_RES_TARGET || first->res_target->location < 0 ||
      static_cast<size_t>(first->res_target->location) > text.size()) {
    return fail(sqlstate::kFeatureNotSupported,
                "this RETURNING list of an UPDATE that moves rows between shards is not "
                "supported");
  }
  size_t at = static_cast<size_t>(first->res_target->location);
  return std::string(text.substr(0, at)) + ours + ", " + std::string(text.substr(at));
}

/// One column of a RowDescription, with its bytes for passing it on.
struct Field {
  std::string name;
  uint32_t table_oid = 0;
  int16_t attnum = 0;
  std::string raw;
};

bool parse_row_description(std::string_view body, std::vector<Field>& fields) {
  BodyReader r(body);
  int16_t n = 0;
  if (!r.i16(n) || n < 0) return false;
  for (int16_t i = 0; i < n; ++i) {
    size_t start = r.position();
    Field f;
    std::string_view name, rest;
    int32_t table = 0;
    if (!r.cstr(name) || !r.i32(table) || !r.i16(f.attnum) || !r.bytes(12, rest)) return false;
    f.name = std::string(name);
    f.table_oid = static_cast<uint32_t>(table);
    f.raw = std::string(body.substr(start, r.position() - start));
    fields.push_back(std::move(f));
  }
  return true;
}

using Values = std::vector<std::optional<std::string_view>>;

bool parse_data_row(std::string_view body, Values& values) {
  BodyReader r(body);
  int16_t n = 0;
  if (!r.i16(n) || n < 0) return false;
  for (int16_t i = 0; i < n; ++i) {
    int32_t len = 0;
    std::string_view v;
    if (!r.i32(len)) return false;
    if (len < 0) {
      values.emplace_back(std::nullopt);
    } else if (r.bytes(static_cast<size_t>(len), v)) {
      values.emplace_back(v);
    } else {
      return false;
    }
  }
  return true;
}

/// The rows one shard's UPDATE returned, and where they go.
struct Source {
  int shard = 0;
  BackendConnection* conn = nullptr;
  std::vector<Field> fields;
  size_t row_end = 0;                        ///< index of the kRowEnd column
  std::vector<std::string> rows;             ///< DataRow bodies
  std::map<int, std::vector<size_t>> moves;  ///< new shard → indexes into rows
};

}  // namespace

awaitable<KeyMoveAnswer> move_keys(const std::string& text, const sql::StatementInfo& info,
                                   const std::vector<int>& shards, const KeyMoveContext& ctx) {
  const BoundStatement* ext = ctx.bound;
  KeyMoveAnswer a;
  std::string notices;
  auto internal = [&](std::string message) {
    a.error = Error::make(sqlstate::kInternalError, "moving rows to their new shards: " + message);
  };
  // A shard's error; a lock wait that ran out may be half of a deadlock across shards.
  auto shard_failed = [&](std::string body, const BackendConnection& conn) {
    if (parse_error_fields(body).sqlstate == "55P03") {
      a.error = Error::make("40P01", "deadlock detected")
                    .with_detail("a lock wait on shard \"" + conn.shard().name +
                                 "\" of an UPDATE moving rows between shards lasted 2 s: it may "
                                 "be part of a deadlock across shards");
    } else {
      a.shard_error = std::move(body);
    }
  };
  const auto& view = ctx.view;
  const routing::TableDescriptor* table =
      view != nullptr ? view->find_table(info.target.schema, info.target.name) : nullptr;
  if (table == nullptr) {
    internal("the table is gone from the catalog");
    co_return a;
  }
  auto rewritten = returning_rows_sql(text);
  if (!rewritten) {
    a.error = rewritten.error();
    co_return a;
  }
  std::string_view bind_params;
  std::vector<int16_t> result_formats;
  if (ext != nullptr && !split_bind(ext->bind_rest, bind_params, result_formats)) {
    a.error = Error::make(sqlstate::kProtocolViolation, "malformed Bind message");
    co_return a;
  }
  bool binary =
      std::any_of(result_formats.begin(), result_formats.end(), [](int16_t f) { return f != 0; });

  // 1. The UPDATE on each shard its WHERE reaches, in shard order (as exec::ShardWrite).
  std::vector<Source> sources;
  std::optional<std::string> client_description;
  std::string client_rows;
  for (int shard : shards) {
    auto part = co_await ctx.part(shard);
    if (!part) {
      a.error = part.error();
      co_return a;
    }
    BackendConnection& conn = **part;
    std::string request;
    if (ext == nullptr) {
      write_query(request, *rewritten);
    } else {
      // pgrange's columns in text; the client's RETURNING items as the client bound them,
      // which needs their count first when a format is not text.
      std::vector<int16_t> formats;
      if (binary && info.returning) {
        std::string describe;
        MessageWriter(describe)
            .begin('P')
            .cstr("")
            .cstr(*rewritten)
            .bytes(ext->parameter_types)
            .end();
        MessageWriter(describe).begin('D').byte('S').cstr("").end();
        MessageWriter(describe).begin('S').end();
        if (auto e = co_await ctx.start(conn, std::move(describe))) {
          conn.mark_broken();
          a.error = *e;
          co_return a;
        }
        auto described = co_await read_replies(conn, 1);
        if (!described) {
          a.error = described.error();
          co_return a;
        }
        if (described->error) {
          shard_failed(std::move(*described->error), conn);
          co_return a;
        }
        std::vector<Field> fields;
        if (!described->description || !parse_row_description(*described->description, fields)) {
          internal("no row description");
          co_return a;
        }
        size_t end = 0;
        while (end < fields.size() && (end == 0 || fields[end].name != kRowEnd)) ++end;
        size_t client_columns = end < fields.size() ? fields.size() - end - 1 : 0;
        if (result_formats.size() != 1 && result_formats.size() != client_columns) {
          a.error = Error::make(sqlstate::kProtocolViolation,
                                "bind message has " + std::to_string(result_formats.size()) +
                                    " result formats but query has " +
                                    std::to_string(client_columns) + " columns");
          co_return a;
        }
        formats.assign(end + 1, 0);
        for (size_t i = 0; i < client_columns; ++i) {
          formats.push_back(result_formats[result_formats.size() == 1 ? 0 : i]);
        }
      }
      MessageWriter(request).begin('P').cstr("").cstr(*rewritten).bytes(ext->parameter_types).end();
      MessageWriter bind(request);
      bind.begin('B')
          .cstr("")
          .cstr("")
          .bytes(bind_params)
          .i16(static_cast<int16_t>(formats.size()));
      for (int16_t f : formats) bind.i16(f);
      bind.end();
      MessageWriter(request).begin('D').byte('P').cstr("").end();
      MessageWriter(request).begin('E').cstr("").i32(0).end();
      MessageWriter(request).begin('S').end();
    }
    if (auto e = co_await ctx.start(conn, std::move(request))) {
      conn.mark_broken();
      a.error = *e;
      co_return a;
    }
    auto reply = co_await read_replies(conn, 1);
    if (!reply) {
      a.error = reply.error();
      co_return a;
    }
    for (const std::string& n : reply->notices) MessageWriter(notices).begin('N').bytes(n).end();
    if (reply->error) {
      shard_failed(std::move(*reply->error), conn);
      co_return a;
    }
    Source& src = sources.emplace_back();
    src.shard = shard;
    src.conn = &conn;
    if (!reply->description || !parse_row_description(*reply->description, src.fields)) {
      internal("no row description");
      co_return a;
    }
    while (src.row_end < src.fields.size() &&
           (src.row_end == 0 || src.fields[src.row_end].name != kRowEnd)) {
      ++src.row_end;
    }
    if (src.row_end == src.fields.size()) {
      internal("the rewritten RETURNING list came back without its end");
      co_return a;
    }
    if (!client_description) {
      MessageWriter w(client_description.emplace());
      w.begin('T').i16(static_cast<int16_t>(src.fields.size() - src.row_end - 1));
      for (size_t i = src.row_end + 1; i < src.fields.size(); ++i) w.bytes(src.fields[i].raw);
      w.end();
    }
    // Where each key column is among the row's columns.
    std::vector<size_t> key_at;
    for (const routing::KeyColumnDef& k : routing::row_key_columns(*table)) {
      size_t i = kFirstColumn;
      while (i < src.row_end && src.fields[i].name != k.name) ++i;
      if (i == src.row_end) {
        internal("key column \"" + k.name + "\" is not among the table's columns");
        co_return a;
      }
      key_at.push_back(i);
    }
    src.rows = std::move(reply->rows);
    for (size_t r = 0; r < src.rows.size(); ++r) {
      Values values;
      if (!parse_data_row(src.rows[r], values) || values.size() != src.fields.size()) {
        internal("a malformed row");
        co_return a;
      }
      std::vector<std::optional<std::string>> key;
      for (size_t i : key_at) {
        key.push_back(values[i] ? std::optional<std::string>(*values[i]) : std::nullopt);
      }
      auto encoded = routing::point_key(*table, key);
      if (!encoded) {
        a.error = encoded.error();
        co_return a;
      }
      const routing::RangeDescriptor* range = view->ranges().lookup(*encoded);
      int owner = range != nullptr ? view->shard_index(range->shard) : -1;
      if (owner < 0) {
        internal("no configured shard holds the new key");
        co_return a;
      }
      if (owner != shard) src.moves[owner].push_back(r);
      if (info.returning) {
        MessageWriter d(client_rows);
        d.begin('D').i16(static_cast<int16_t>(values.size() - src.row_end - 1));
        for (size_t i = src.row_end + 1; i < values.size(); ++i) {
          if (values[i]) {
            d.i32(static_cast<int32_t>(values[i]->size())).bytes(*values[i]);
          } else {
            d.i32(-1);
          }
        }
        d.end();
      }
    }
    a.tag = add_tag_counts(a.tag, reply->tag);
  }

  // 2. The moving rows leave their old shards, all of them before any is inserted.
  std::string target = quote_ident(table->schema) + "." + quote_ident(table->name);
  for (Source& src : sources) {
    if (src.moves.empty()) continue;
    // The rows' ctids, by the table (the target, a partition, a child) each is in.
    std::map<std::string, std::string> ctids;
    size_t count = 0;
    const std::string target_oid = std::to_string(src.fields[kFirstColumn].table_oid);
    for (const auto& [owner, rows] : src.moves) {
      for (size_t r : rows) {
        Values values;
        parse_data_row(src.rows[r], values);
        if (!values[0] || !values[1]) {
          internal("a row without its ctid");
          co_return a;
        }
        std::string& list = ctids[std::string(*values[1])];
        list += (list.empty() ? "\"" : ",\"") + std::string(*values[0]) + "\"";
        ++count;
      }
    }
    // Generated columns are computed again on the new shard: they are not inserted. A row of a
    // partition arrives through its partitioned table, which routes it; an inheritance child's
    // has columns the UPDATE did not return.
    std::string request;
    write_query(request, "SELECT attnum FROM pg_catalog.pg_attribute WHERE attrelid = " +
                             target_oid + " AND attgenerated <> ''");
    write_query(request, "SELECT relkind FROM pg_catalog.pg_class WHERE oid = " + target_oid);
    if (auto e = co_await ctx.start(*src.conn, std::move(request))) {
      src.conn->mark_broken();
      a.error = *e;
      co_return a;
    }
    auto generated = co_await read_replies(*src.conn, 1);
    if (!generated) {
      a.error = generated.error();
      co_return a;
    }
    auto kind = co_await read_replies(*src.conn, 1);
    if (!kind) {
      a.error = kind.error();
      co_return a;
    }
    bool partitioned = !kind->rows.empty() && [&] {
      Values v;
      return parse_data_row(kind->rows.front(), v) && v.size() == 1 && v[0] && *v[0] == "p";
    }();
    if (!partitioned && (ctids.size() > 1 || ctids.begin()->first != target_oid)) {
      a.error = Error::make(sqlstate::kFeatureNotSupported,
                            "an UPDATE that moves rows of an inheritance child of table \"" +
                                table->name +
                                "\" to another shard is not supported: the child's own columns "
                                "would not move with them")
                    .with_hint("update the child table itself");
      co_return a;
    }
    std::string where;
    for (const auto& [oid, list] : ctids) {
      where += (where.empty() ? "" : " OR ") + std::string("(tableoid = ") + oid +
               " AND ctid = ANY('{" + list + "}'::pg_catalog.tid[]))";
    }
    request.clear();
    write_query(request, "DELETE FROM " + std::string(partitioned ? "" : "ONLY ") + target +
                             " WHERE " + where);
    if (auto e = co_await ctx.start(*src.conn, std::move(request))) {
      src.conn->mark_broken();
      a.error = *e;
      co_return a;
    }
    auto deleted = co_await read_replies(*src.conn, 1);
    if (!deleted) {
      a.error = deleted.error();
      co_return a;
    }
    if (generated->error || kind->error || deleted->error) {
      shard_failed(std::move(generated->error ? *generated->error
                             : kind->error    ? *kind->error
                                              : *deleted->error),
                   *src.conn);
      co_return a;
    }
    if (deleted->tag != "DELETE " + std::to_string(count)) {
      internal("deleting the moved rows on shard \"" + src.conn->shard().name + "\" answered " +
               deleted->tag + ", not DELETE " + std::to_string(count));
      co_return a;
    }
    std::vector<int16_t> skip;
    for (const std::string& row : generated->rows) {
      Values v;
      if (parse_data_row(row, v) && v.size() == 1 && v[0]) {
        skip.push_back(static_cast<int16_t>(std::stoi(std::string(*v[0]))));
      }
    }
    // Keep only the columns to insert (a row's ctid and the marker go too).
    std::vector<Field> kept;
    std::vector<size_t> kept_at;
    for (size_t i = kFirstColumn; i < src.row_end; ++i) {
      if (std::find(skip.begin(), skip.end(), src.fields[i].attnum) != skip.end()) continue;
      kept.push_back(src.fields[i]);
      kept_at.push_back(i);
    }
    src.fields = std::move(kept);
    // Each moving row becomes its VALUES item (its DataRow is not needed any more).
    for (const auto& [owner, rows] : src.moves) {
      for (size_t r : rows) {
        Values values;
        parse_data_row(src.rows[r], values);
        std::string item = "(";
        for (size_t j = 0; j < kept_at.size(); ++j) {
          if (j > 0) item += ", ";
          const auto& v = values[kept_at[j]];
          item += v ? quote_literal(*v) : std::string("NULL");
        }
        src.rows[r] = item + ")";
      }
    }
  }

  // 3. …and arrive on the shards owning their new keys (opening the transaction there).
  for (const Source& src : sources) {
    if (src.moves.empty()) continue;
    std::string columns;
    for (const Field& f : src.fields)
      columns += (columns.empty() ? "" : ", ") + quote_ident(f.name);
    for (const auto& [owner, indexes] : src.moves) {
      auto part = co_await ctx.part(owner);
      if (!part) {
        a.error = part.error();
        co_return a;
      }
      BackendConnection& conn = **part;
      for (size_t from = 0; from < indexes.size(); from += kInsertBatch) {
        std::string sql =
            "INSERT INTO " + target + " (" + columns + ") OVERRIDING SYSTEM VALUE VALUES ";
        size_t to = std::min(indexes.size(), from + kInsertBatch);
        for (size_t i = from; i < to; ++i) sql += (i > from ? ", " : "") + src.rows[indexes[i]];
        std::string request;
        write_query(request, sql);
        if (auto e = co_await ctx.start(conn, std::move(request))) {
          conn.mark_broken();
          a.error = *e;
          co_return a;
        }
        auto reply = co_await read_replies(conn, 1);
        if (!reply) {
          a.error = reply.error();
          co_return a;
        }
        if (reply->error) {
          shard_failed(std::move(*reply->error), conn);
          co_return a;
        }
      }
    }
  }

  if (a.tag.empty()) a.tag = "UPDATE 0";
  a.rows = std::move(notices);
  bool describe = ext == nullptr || ctx.describe;
  if (info.returning && describe && client_description) {
    a.rows += *client_description;
  } else if (ext != nullptr && ctx.describe) {
    MessageWriter(a.rows).begin('n').end();
  }
  a.rows += client_rows;
  co_return a;
}

}  // namespace pgrange::proxy::exec
