// ClientSession's generated keys: an INSERT that leaves a key column pgrange makes (serial,
// identity, DEFAULT nextval(), DEFAULT gen_random_uuid()) to its default gets the values from
// pgrange before it is routed, so each row goes to the shard its key belongs to and the values
// are unique over every shard and every pgrange instance. A simple query gets the values
// written into its rows; a statement prepared through the extended protocol gets a parameter
// for each value, after the client's, and each Bind of it the values made then.

#include <openssl/rand.h>
#include <strings.h>

#include "proxy/control/control_plane.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "sql/copy_statement.hpp"
#include "sql/insert_defaults.hpp"
#include "sql/quoting.hpp"
#include "sql/session_statement.hpp"
#include "sql/sql_tokens.hpp"

namespace pgrange::proxy {
namespace {

/// A random version 4 uuid, as gen_random_uuid() makes them (RFC 4122 4.4).
Result<std::string> random_uuid() {
  unsigned char b[16];
  if (RAND_bytes(b, sizeof b) != 1) {
    return fail(sqlstate::kInternalError, "pgrange could not make random bytes for a uuid");
  }
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += kHex[b[i] >> 4];
    s += kHex[b[i] & 0x0f];
  }
  return s;
}

bool any_generated(const routing::ClusterView& view) {
  return std::any_of(view.tables().begin(), view.tables().end(),
                     [](const routing::TableDescriptor& t) { return !t.generated.empty(); });
}

/// `sql` with the values of the key `columns` of `table` written in as the SQL texts `values`
/// (literals or parameters), column by column.
Result<std::string> with_key_values(
    std::string sql, const routing::TableDescriptor& table,
    const std::vector<std::pair<routing::GeneratedKey, size_t>>& columns,
    const std::vector<std::vector<std::string>>& values) {
  for (size_t c = 0; c < columns.size(); ++c) {
    const routing::GeneratedKey& g = columns[c].first;
    bool overriding = g.kind == routing::GeneratedKey::Kind::kIdentityAlways;
    auto next = sql::insert_with_column_values(sql, g.column, table.columns, values[c], overriding);
    if (!next) return tl::unexpected(next.error());
    sql = std::move(*next);
  }
  return sql;
}

}  // namespace

Result<std::optional<ClientSession::KeyFill>> ClientSession::generated_key_fill(
    std::string_view sql) {
  auto view = routing_view();
  if (view == nullptr || sql::leading_keyword(sql) != "insert" || !any_generated(*view)) {
    return std::nullopt;
  }
  auto analysis = worker_.analyze(sql);
  if (!*analysis || (*analysis)->size() != 1 ||
      (**analysis)[0].kind != sql::StatementKind::kInsert) {
    return std::nullopt;
  }
  const sql::TableRef& target = (**analysis)[0].target;
  const routing::TableDescriptor* t = view->find_table(target.schema, target.name);
  if (t == nullptr || t->generated.empty()) return std::nullopt;
  KeyFill fill;
  fill.table = *t;
  for (const routing::GeneratedKey& g : t->generated) {
    auto d = sql::insert_column_defaults(sql, g.column, t->columns);
    if (!d) return tl::unexpected(d.error());
    bool identity = g.kind == routing::GeneratedKey::Kind::kIdentityAlways ||
                    g.kind == routing::GeneratedKey::Kind::kIdentityByDefault;
    if (identity && d->overriding_user) {
      return tl::unexpected(
          not_supported("INSERT … OVERRIDING USER VALUE into a table whose key \"" + g.column +
                            "\" pgrange makes is not supported",
                        "leave the key out, or write DEFAULT for it"));
    }
    if (g.kind == routing::GeneratedKey::Kind::kIdentityAlways && d->given &&
        !d->overriding_system) {
      // PostgreSQL's own refusal, before any value is made.
      return tl::unexpected(
          Error::make("428C9", "cannot insert a non-DEFAULT value into column \"" + g.column + "\"")
              .with_detail("Column \"" + g.column +
                           "\" is an identity column defined as GENERATED ALWAYS.")
              .with_hint("Use OVERRIDING SYSTEM VALUE to override."));
    }
    if (d->left_out) {
      // The shards' own defaults would make keys pgrange also hands out.
      return tl::unexpected(
          not_supported("INSERT … SELECT into table \"" + t->name + "\" leaving its key \"" +
                            g.column + "\" to the default pgrange makes is not supported yet",
                        "insert the rows with VALUES, or select the key's values too"));
    }
    if (!d->fillable || d->rows.empty()) continue;
    fill.columns.push_back({g, d->rows.size()});
  }
  if (fill.columns.empty()) return std::nullopt;
  return fill;
}

awaitable<Result<std::vector<std::vector<std::string>>>> ClientSession::make_keys(
    const KeyFill& fill) {
  ControlPlane* cp = worker_.shared().control;
  std::vector<std::vector<std::string>> made;
  for (const auto& [g, count] : fill.columns) {
    std::vector<std::string>& values = made.emplace_back();
    if (g.kind == routing::GeneratedKey::Kind::kUuid) {
      for (size_t i = 0; i < count; ++i) {
        auto u = random_uuid();
        if (!u) co_return tl::unexpected(u.error());
        values.push_back(std::move(*u));
      }
      continue;
    }
    // The default's nextval() needs the rights PostgreSQL's would.
    if (auto refused =
            co_await check_sequence_right(g.sequence_schema, g.sequence_name, "nextval")) {
      co_return tl::unexpected(*refused);
    }
    std::function<Result<std::vector<int64_t>>()> task = [cp, &g, n = count]() {
      return cp->next_values(g.sequence_schema, g.sequence_name, static_cast<int64_t>(n));
    };
    auto numbers = co_await cp->call<Result<std::vector<int64_t>>>(std::move(task));
    if (!numbers) co_return tl::unexpected(numbers.error());
    for (int64_t v : *numbers) values.push_back(std::to_string(v));
    // The defaults' nextval() calls are the session's, as on PostgreSQL (currval, lastval).
    std::string key = g.sequence_schema + "." + g.sequence_name;
    sequence_values_[key] = numbers->back();
    last_sequence_ = key;
  }
  co_return made;
}

awaitable<Result<std::optional<std::string>>> ClientSession::fill_generated_keys(
    std::string_view sql) {
  auto view = routing_view();
  if (view == nullptr || !any_generated(*view)) co_return std::nullopt;
  auto analysis = worker_.analyze(sql);
  if (!*analysis) co_return std::nullopt;  // the shard reports what cannot be parsed
  const auto& infos = **analysis;
  // Each INSERT of the string on its own (a script, psycopg2's execute_batch), the text
  // between them kept.
  std::string text;
  size_t copied = 0;
  bool changed = false;
  for (const sql::StatementInfo& info : infos) {
    if (info.kind != sql::StatementKind::kInsert) continue;
    std::string_view one = sql.substr(info.begin, info.end - info.begin);
    auto fill = generated_key_fill(one);
    if (!fill) co_return tl::unexpected(fill.error());
    if (!*fill) continue;
    auto made = co_await make_keys(**fill);
    if (!made) co_return tl::unexpected(made.error());
    for (size_t c = 0; c < made->size(); ++c) {
      if ((*fill)->columns[c].first.kind == routing::GeneratedKey::Kind::kUuid) {
        for (std::string& v : (*made)[c]) v = "'" + v + "'";
      }
    }
    auto filled = with_key_values(std::string(one), (*fill)->table, (*fill)->columns, *made);
    if (!filled) co_return tl::unexpected(filled.error());
    text.append(sql.substr(copied, info.begin - copied));
    text += *filled;
    copied = info.end;
    changed = true;
  }
  if (!changed) co_return std::nullopt;
  text.append(sql.substr(copied));
  co_return text;
}

std::optional<Error> ClientSession::copy_leaves_key(std::string_view kw, std::string_view sql) {
  if (kw != "copy") return std::nullopt;
  auto view = routing_view();
  if (view == nullptr || !any_generated(*view)) return std::nullopt;
  auto copy = sql::read_copy_statement(sql);
  if (!copy || !copy->from) return std::nullopt;
  const routing::TableDescriptor* t = view->find_table(copy->table.schema, copy->table.name);
  if (t == nullptr || copy->columns.empty()) return std::nullopt;
  for (const routing::GeneratedKey& g : t->generated) {
    if (std::find(copy->columns.begin(), copy->columns.end(), g.column) != copy->columns.end()) {
      continue;
    }
    return not_supported("COPY into table \"" + t->name + "\" without its key \"" + g.column +
                             "\", which pgrange makes, is not supported yet",
                         "give the key column in the COPY, or insert the rows with INSERT");
  }
  return std::nullopt;
}

awaitable<bool> ClientSession::add_made_params(char type, std::string_view body, std::string& out,
                                               bool& ok) {
  ok = true;
  BodyReader br(body);
  if (type == 'C') {
    char what = 0;
    std::string_view name;
    if (br.byte(what) && br.cstr(name) && what == 'S') made_params_.erase(std::string(name));
    co_return true;
  }
  if (type == 'P') {
    std::string_view name, text;
    int16_t ntypes = 0;
    if (!br.cstr(name) || !br.cstr(text) || !br.i16(ntypes) || ntypes < 0) co_return true;
    std::string key(name);
    if (!key.empty() && made_params_.count(key) && statements_.count(key)) {
      co_return true;  // a second Parse of the name: refused (42P05), the first one stays
    }
    made_params_.erase(key);
    auto view = routing_view();
    if (view == nullptr || !any_generated(*view)) co_return true;
    MadeParams made;
    std::string statement(text);
    int first = std::max<int>(sql::highest_parameter(statement), ntypes) + 1;
    made.client_params = static_cast<int16_t>(first - 1);
    std::string rewritten;
    auto sequence = sequence_answer(text);
    if (!sequence) {
      ok = refuse(type, sequence.error(), out);
      co_return false;
    }
    if (*sequence) {
      // SELECT nextval('s'): the value pgrange gives, as a bigint of the call's column name.
      made.made = 1;
      made.sequence = **sequence;
      rewritten = "SELECT $" + std::to_string(first) + "::bigint AS " +
                  sql::quote_ident((*sequence)->call.column);
    } else {
      auto fill = generated_key_fill(text);
      if (!fill && (!backend_ || defer_to_bind()) && runs_statements_itself() &&
          leaves_made_key_to_select(text)) {
        // pgrange runs it at its Execute (client_create_as.cpp; parameters written in as
        // literals): its Parse waits for its Bind, which never passes it to a shard.
        as_query_parse_ = true;
        co_return true;
      }
      if (!fill) {
        ok = refuse(type, fill.error(), out);
        co_return false;
      }
      if (!*fill) co_return true;
      std::vector<std::vector<std::string>> params;
      int next = first;
      for (const auto& [g, count] : (*fill)->columns) {
        auto& column = params.emplace_back();
        for (size_t i = 0; i < count; ++i) column.push_back("$" + std::to_string(next++));
      }
      if (next - 1 > 32767) {
        ok = refuse(type,
                    not_supported("an INSERT with more keys for pgrange to make than a "
                                  "statement can have parameters is not supported",
                                  "insert fewer rows per statement"),
                    out);
        co_return false;
      }
      auto filled = with_key_values(statement, (*fill)->table, (*fill)->columns, params);
      if (!filled) {
        ok = refuse(type, filled.error(), out);
        co_return false;
      }
      made.made = static_cast<int16_t>(next - first);
      made.keys = std::move(*fill);
      rewritten = std::move(*filled);
    }
    MessageWriter(rewritten_message_)
        .begin('P')
        .cstr(name)
        .cstr(rewritten)
        .i16(ntypes)
        .bytes(br.rest())
        .end();
    made_params_[key] = std::move(made);
    co_return true;
  }
  // Bind: the client's values, then the ones made now.
  std::string_view portal, stmt;
  if (made_params_.empty() || !br.cstr(portal) || !br.cstr(stmt)) co_return true;
  auto it = made_params_.find(std::string(stmt));
  if (it == made_params_.end()) co_return true;
  const MadeParams& made = it->second;
  int16_t nformats = 0;
  if (!br.i16(nformats) || nformats < 0) co_return true;  // malformed: dispatch reports it
  std::vector<int16_t> formats(static_cast<size_t>(nformats));
  for (int16_t& f : formats) {
    if (!br.i16(f)) co_return true;
  }
  int16_t nparams = 0;
  size_t values_start = br.position();
  if (!br.i16(nparams)) co_return true;
  for (int16_t i = 0; i < nparams; ++i) {
    int32_t len = 0;
    std::string_view v;
    if (!br.i32(len) || (len > 0 && !br.bytes(static_cast<size_t>(len), v))) co_return true;
  }
  std::string_view values = body.substr(values_start + 2, br.position() - values_start - 2);
  if (nparams != made.client_params || (nformats != 0 && nformats != 1 && nformats != nparams)) {
    ok = refuse(type,
                Error::make(sqlstate::kProtocolViolation,
                            "bind message supplies " + std::to_string(nparams) +
                                " parameters, but prepared statement \"" + std::string(stmt) +
                                "\" requires " + std::to_string(made.client_params)),
                out);
    co_return false;
  }
  std::vector<std::string> texts;
  if (made.sequence) {
    auto value = co_await sequence_value(*made.sequence);
    if (!value) {
      ok = refuse(type, value.error(), out);
      co_return false;
    }
    texts.push_back(std::to_string(*value));
  } else {
    auto keys = co_await make_keys(*made.keys);
    if (!keys) {
      ok = refuse(type, keys.error(), out);
      co_return false;
    }
    for (auto& column : *keys) {
      for (auto& v : column) texts.push_back(std::move(v));
    }
  }
  // Format codes: none or one text code cover the added values too; otherwise each added
  // value gets a text code of its own.
  MessageWriter w(rewritten_message_);
  w.begin('B').cstr(portal).cstr(stmt);
  bool all_text = nformats == 0 || (nformats == 1 && formats[0] == 0);
  if (all_text) {
    w.i16(nformats);
    for (int16_t f : formats) w.i16(f);
  } else {
    w.i16(static_cast<int16_t>(nparams + made.made));
    for (int16_t i = 0; i < nparams; ++i) w.i16(nformats == 1 ? formats[0] : formats[i]);
    for (int16_t i = 0; i < made.made; ++i) w.i16(0);
  }
  w.i16(static_cast<int16_t>(nparams + made.made)).bytes(values);
  for (const std::string& t : texts) w.i32(static_cast<int32_t>(t.size())).bytes(t);
  w.bytes(br.rest()).end();
  co_return true;
}

}  // namespace pgrange::proxy
