#include "sql/sql_tokens.hpp"

#include <pg_query.h>

#include <algorithm>
#include <charconv>
#include <memory>

namespace pgrange::sql {

Result<std::vector<SqlToken>> scan_tokens(const std::string& sql) {
  PgQueryScanResult r = pg_query_scan(sql.c_str());
  std::unique_ptr<PgQueryScanResult, void (*)(PgQueryScanResult*)> guard(
      new PgQueryScanResult(r), [](PgQueryScanResult* p) {
        pg_query_free_scan_result(*p);
        delete p;
      });
  if (r.error) return fail(sqlstate::kSyntaxError, std::string(r.error->message));
  PgQuery__ScanResult* sr = pg_query__scan_result__unpack(
      nullptr, r.pbuf.len, reinterpret_cast<const uint8_t*>(r.pbuf.data));
  if (sr == nullptr) return fail(sqlstate::kInternalError, "cannot decode the scanner's output");
  std::vector<SqlToken> out;
  for (size_t i = 0; i < sr->n_tokens; ++i) {
    const PgQuery__ScanToken* t = sr->tokens[i];
    if (t->token == PG_QUERY__TOKEN__SQL_COMMENT || t->token == PG_QUERY__TOKEN__C_COMMENT) {
      continue;
    }
    auto start = static_cast<size_t>(t->start);
    auto end = static_cast<size_t>(t->end);
    out.push_back({std::string_view(sql).substr(start, end - start), t->token, start, end});
  }
  pg_query__scan_result__free_unpacked(sr, nullptr);
  return out;
}

int highest_parameter(const std::string& sql) {
  auto tokens = scan_tokens(sql);
  if (!tokens) return 0;
  int highest = 0;
  for (const SqlToken& t : *tokens) {
    if (t.kind != PG_QUERY__TOKEN__PARAM || t.text.size() < 2) continue;
    int n = 0;
    auto [end, ec] = std::from_chars(t.text.data() + 1, t.text.data() + t.text.size(), n);
    if (ec == std::errc() && end == t.text.data() + t.text.size()) highest = std::max(highest, n);
  }
  return highest;
}

Result<std::string> replace_parameters(const std::string& sql,
                                       const std::vector<std::string>& values) {
  auto tokens = scan_tokens(sql);
  if (!tokens) return tl::unexpected(tokens.error());
  std::string out;
  size_t copied = 0;
  for (const SqlToken& t : *tokens) {
    if (t.kind != PG_QUERY__TOKEN__PARAM) continue;
    size_t n = 0;
    auto [end, ec] = std::from_chars(t.text.data() + 1, t.text.data() + t.text.size(), n);
    if (ec != std::errc() || end != t.text.data() + t.text.size() || n < 1 || n > values.size()) {
      return fail("42P02", "there is no parameter " + std::string(t.text));
    }
    out.append(sql, copied, t.start - copied);
    out += values[n - 1];
    copied = t.end;
  }
  out.append(sql, copied);
  return out;
}

}  // namespace pgrange::sql
