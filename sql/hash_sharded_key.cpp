#include "sql/hash_sharded_key.hpp"

#include <cctype>
#include <charconv>
#include <memory>
#include <vector>

#include "sql/sql_tokens.hpp"

namespace pgrange::sql {
namespace {

constexpr uint32_t kDefaultBuckets = 16;  // CockroachDB's default bucket_count
constexpr int64_t kMinBuckets = 2;
constexpr int64_t kMaxBuckets = 2048;

using Token = SqlToken;

Result<std::vector<Token>> scan(const std::string& sql) {
  return scan_tokens(sql);
}

/// True when the token is the (unquoted) word `w`, case-insensitively.
bool is(const std::vector<Token>& toks, size_t i, std::string_view w) {
  if (i >= toks.size() || toks[i].text.size() != w.size()) return false;
  for (size_t k = 0; k < w.size(); ++k) {
    if (std::tolower(static_cast<unsigned char>(toks[i].text[k])) != w[k]) return false;
  }
  return true;
}

tl::unexpected<Error> syntax_at(const std::vector<Token>& toks, size_t i, std::string_view what) {
  std::string near = i < toks.size() ? std::string(toks[i].text) : std::string("end of input");
  return fail(sqlstate::kSyntaxError,
              "syntax error at or near \"" + near + "\": expected " + std::string(what));
}

/// Reads `bucket_count = N` at toks[i]; advances i past it.
Result<uint32_t> bucket_count(const std::vector<Token>& toks, size_t& i) {
  if (!is(toks, i, "bucket_count")) {
    if (i < toks.size() && toks[i].kind != PG_QUERY__TOKEN__ASCII_41) {
      return fail(sqlstate::kInvalidParameterValue,
                  "unrecognized parameter \"" + std::string(toks[i].text) +
                      "\" for a hash-sharded primary key: it takes bucket_count");
    }
    return syntax_at(toks, i, "bucket_count");
  }
  ++i;
  if (!is(toks, i, "=")) return syntax_at(toks, i, "=");
  ++i;
  if (i >= toks.size()) return syntax_at(toks, i, "a bucket count");
  std::string_view v = toks[i].text;
  int64_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (toks[i].kind != PG_QUERY__TOKEN__ICONST || ec != std::errc() || end != v.data() + v.size() ||
      n < kMinBuckets || n > kMaxBuckets) {
    return fail(sqlstate::kInvalidParameterValue,
                "hash sharded index bucket count must be in range [" + std::to_string(kMinBuckets) +
                    ", " + std::to_string(kMaxBuckets) + "], got " + std::string(v));
  }
  ++i;
  return static_cast<uint32_t>(n);
}

}  // namespace

Result<std::optional<HashShardedCreate>> strip_hash_sharding(std::string_view sql) {
  // Cheap test first: most statements never mention HASH.
  bool mentions = false;
  for (size_t i = 0; i + 4 <= sql.size() && !mentions; ++i) {
    mentions = std::tolower(static_cast<unsigned char>(sql[i])) == 'h' &&
               std::tolower(static_cast<unsigned char>(sql[i + 1])) == 'a' &&
               std::tolower(static_cast<unsigned char>(sql[i + 2])) == 's' &&
               std::tolower(static_cast<unsigned char>(sql[i + 3])) == 'h';
  }
  if (!mentions) return std::nullopt;
  std::string owned(sql);
  auto scanned = scan(owned);
  if (!scanned) return std::nullopt;  // the shard reports the syntax error as PostgreSQL does
  const std::vector<Token>& toks = *scanned;
  std::optional<HashShardedCreate> out;
  size_t copied = 0;  // sql[0, copied) is in out->sql
  size_t statement = 0;
  size_t out_statement = 0;  // where out's clause was found
  while (statement < toks.size()) {
    size_t next = statement;
    while (next < toks.size() && !is(toks, next, ";")) ++next;
    // CREATE [GLOBAL | LOCAL] [TEMP | TEMPORARY | UNLOGGED] TABLE …, or ALTER TABLE …
    bool create = is(toks, statement, "create");
    bool alter = is(toks, statement, "alter");
    bool table = false;
    for (size_t i = statement + 1; i < next && i < statement + 4 && (create || alter); ++i) {
      if (is(toks, i, "table")) table = true;
    }
    for (size_t i = statement; table && i + 1 < next; ++i) {
      if (!is(toks, i, "primary") || !is(toks, i + 1, "key")) continue;
      size_t u = i + 2;
      if (is(toks, u, "(")) {  // the table constraint's column list
        int depth = 0;
        for (; u < next; ++u) {
          if (is(toks, u, "(")) ++depth;
          if (is(toks, u, ")") && --depth == 0) break;
        }
        ++u;
      }
      if (!is(toks, u, "using") || !is(toks, u + 1, "hash")) continue;
      if (alter) {
        return fail(sqlstate::kFeatureNotSupported,
                    "a hash-sharded primary key (USING HASH) in ALTER TABLE is not supported by "
                    "pgrange: create the table with it");
      }
      if (out && out_statement == statement) {
        return fail("42P16", "multiple primary keys for a table are not allowed");
      }
      if (out) {
        return fail(sqlstate::kFeatureNotSupported,
                    "a query string with several hash-sharded CREATE TABLEs is not supported by "
                    "pgrange: send them one at a time");
      }
      out_statement = statement;
      size_t j = u + 2;
      uint32_t buckets = kDefaultBuckets;
      if (is(toks, j, "with")) {
        ++j;
        bool parenthesised = is(toks, j, "(");
        if (parenthesised) ++j;
        auto n = bucket_count(toks, j);
        if (!n) return tl::unexpected(n.error());
        buckets = *n;
        if (parenthesised) {
          if (is(toks, j, ",")) {
            ++j;
            if (is(toks, j, "bucket_count")) {
              return fail(sqlstate::kSyntaxError, "bucket_count is given twice");
            }
            auto other = bucket_count(toks, j);  // names the parameter it does not know
            return tl::unexpected(other.error());
          }
          if (!is(toks, j, ")")) return syntax_at(toks, j, ")");
          ++j;
        }
      }
      out.emplace();
      out->buckets = buckets;
      // Keep what precedes USING and follows the clause; a space keeps the tokens apart.
      size_t cut_end = toks[j - 1].end;
      out->sql.append(sql.substr(copied, toks[u].start - copied)).append(" ");
      copied = cut_end;
      i = j - 1;
    }
    statement = next + 1;
  }
  if (!out) return std::nullopt;
  out->sql.append(sql.substr(copied));
  return out;
}

}  // namespace pgrange::sql
