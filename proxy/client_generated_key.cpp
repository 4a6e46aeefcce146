// ClientSession's generated keys: an INSERT that leaves a key column pgrange makes (serial,
// identity, DEFAULT nextval(), DEFAULT gen_random_uuid()) to its default gets the values from
// pgrange before it is routed, written into its rows, so each row goes to the shard its key
// belongs to and the values are unique over every shard and every pgrange instance.

#include <openssl/rand.h>

#include "proxy/client_session.hpp"
#include "proxy/control_plane.hpp"
#include "proxy/worker.hpp"
#include "sql/insert_defaults.hpp"
#include "sql/quoting.hpp"
#include "sql/session_statement.hpp"

namespace pgrange::proxy {
namespace {

/// A random version 4 uuid as an SQL literal, as gen_random_uuid() makes them (RFC 4122 4.4).
Result<std::string> random_uuid_literal() {
  unsigned char b[16];
  if (RAND_bytes(b, sizeof b) != 1) {
    return fail(sqlstate::kInternalError, "pgrange could not make random bytes for a uuid");
  }
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s = "'";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += kHex[b[i] >> 4];
    s += kHex[b[i] & 0x0f];
  }
  return s + "'";
}

}  // namespace

Result<std::optional<ClientSession::KeyFill>> ClientSession::generated_key_fill(
    std::string_view sql) {
  const auto& view = worker_.view();
  if (view == nullptr || sql::leading_keyword(sql) != "insert") return std::nullopt;
  bool any = std::any_of(view->tables().begin(), view->tables().end(),
                         [](const routing::TableDescriptor& t) { return !t.generated.empty(); });
  if (!any) return std::nullopt;
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
    if (!d->fillable || d->rows.empty()) continue;
    fill.columns.push_back({g, d->rows.size()});
  }
  if (fill.columns.empty()) return std::nullopt;
  return fill;
}

awaitable<Result<std::optional<std::string>>> ClientSession::fill_generated_keys(
    std::string_view sql) {
  auto fill = generated_key_fill(sql);
  if (!fill) co_return tl::unexpected(fill.error());
  if (!*fill) co_return std::nullopt;
  ControlPlane* cp = worker_.shared().control;
  std::string text(sql);
  for (const auto& [g, count] : (*fill)->columns) {
    std::vector<std::string> literals;
    if (g.kind == routing::GeneratedKey::Kind::kUuid) {
      for (size_t i = 0; i < count; ++i) {
        auto u = random_uuid_literal();
        if (!u) co_return tl::unexpected(u.error());
        literals.push_back(std::move(*u));
      }
    } else {
      std::function<Result<std::vector<int64_t>>()> task = [cp, &g, n = count]() {
        return cp->next_values(g.sequence_schema, g.sequence_name, static_cast<int64_t>(n));
      };
      auto values = co_await cp->call<Result<std::vector<int64_t>>>(std::move(task));
      if (!values) co_return tl::unexpected(values.error());
      for (int64_t v : *values) literals.push_back(std::to_string(v));
      // The defaults' nextval() calls are the session's, as on PostgreSQL (currval, lastval).
      std::string key = g.sequence_schema + "." + g.sequence_name;
      sequence_values_[key] = values->back();
      last_sequence_ = key;
    }
    bool overriding = g.kind == routing::GeneratedKey::Kind::kIdentityAlways;
    auto next = sql::insert_with_column_values(text, g.column, (*fill)->table.columns, literals,
                                               overriding);
    if (!next) co_return tl::unexpected(next.error());
    text = std::move(*next);
  }
  co_return text;
}

}  // namespace pgrange::proxy
