#include "tests/support/differential_setup.hpp"

#include <regex>
#include <sstream>

#include "tests/support/differential.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

std::string where(const Statement& s) {
  return "line " + std::to_string(s.line) + ": " + s.sql;
}

/// The ranges of index `table@index` round-robin over the shards, from the second one (the
/// table's SCATTER starts with the first).
void scatter_index_ranges(PGconn* p, const std::string& index, SetupResult* result) {
  SqlResult ranges = pq_exec(p, "SHOW RANGES FROM INDEX " + index);
  if (!ranges.ok()) {
    result->failures.push_back("SHOW RANGES FROM INDEX " + index + ": " + ranges.message);
    return;
  }
  for (size_t n = 0; n < ranges.rows.size(); ++n) {
    std::string shard = "s" + std::to_string((n + 1) % 3 + 1);
    if (ranges.at(n, 3) == shard) continue;
    std::string sql = "ALTER RANGE " + ranges.at(n, 2) + " RELOCATE TO '" + shard + "'";
    SqlResult moved = pq_exec(p, sql);
    if (!moved.ok()) result->failures.push_back(sql + ": " + moved.message);
  }
}

/// `\place [index] NAME [(values)] SHARD`: moves the range holding the key, or every range of
/// the table, to SHARD.
void place(PGconn* p, const Statement& s, SetupResult* result) {
  static const std::regex form(R"(place\s+(index\s+)?(\S+)\s*(\(.*\))?\s*(\w+)\s*)",
                               std::regex::icase);
  std::smatch m;
  if (!std::regex_match(s.sql, m, form)) {
    result->failures.push_back(where(s) + ": expected \\place [index] NAME [(values)] SHARD");
    return;
  }
  std::string scope = m[1].matched ? "INDEX " : "TABLE ";
  std::string shard = m[4].str();
  std::string show = m[3].matched
                         ? "SHOW RANGE FROM " + scope + m[2].str() + " FOR ROW " + m[3].str()
                         : "SHOW RANGES FROM " + scope + m[2].str();
  SqlResult ranges = pq_exec(p, show);
  if (!ranges.ok() || ranges.rows.empty()) {
    result->failures.push_back(where(s) + ": " + show + ": " + ranges.message);
    return;
  }
  for (size_t n = 0; n < ranges.rows.size(); ++n) {
    if (ranges.at(n, 3) == shard) continue;
    std::string sql = "ALTER RANGE " + ranges.at(n, 2) + " RELOCATE TO '" + shard + "'";
    SqlResult moved = pq_exec(p, sql);
    if (!moved.ok()) result->failures.push_back(where(s) + ": " + sql + ": " + moved.message);
  }
}

}  // namespace

bool SetupResult::has(const std::vector<std::string>& features, std::string* why) const {
  for (const auto& f : features) {
    auto it = missing.find(f);
    if (it == missing.end()) continue;
    if (why) *why = "needs " + f + " (" + it->second + ")";
    return false;
  }
  return true;
}

std::string SetupResult::report() const {
  std::ostringstream s;
  s << "set-up: " << run << " statements on both sides, " << skipped << " skipped\n";
  for (const auto& [f, why] : missing) s << "  missing feature " << f << ": " << why << "\n";
  for (const auto& r : refusals) s << "  refused in set-up: " << r << "\n";
  for (const auto& f : failures) s << "SET-UP FAILURE " << f << "\n";
  return s.str();
}

void run_setup(PGconn* pgrange, PGconn* reference, const std::vector<Statement>& statements,
               SetupResult* result) {
  for (const Statement& s : statements) {
    if (!s.unless.empty() && !result->missing.count(s.unless)) continue;
    std::string why;
    if (!result->has(s.requires_features, &why)) {
      ++result->skipped;
      continue;
    }
    SqlResult a = pq_exec(pgrange, s.sql);
    if (!a.ok()) {
      std::string what = a.sqlstate + " " + a.message;
      if (a.sqlstate == "0A000" && names_construct(a.message)) {
        result->refusals.push_back(where(s) + "\n      → " + a.message);
      } else if (a.sqlstate == "0A000") {
        result->failures.push_back("refusal naming no construct: " + where(s) + "\n      → " +
                                   a.message);
      } else {
        result->failures.push_back("pgrange fails a set-up statement: " + where(s) + "\n      → " +
                                   what);
      }
      if (!s.provides.empty()) result->missing[s.provides] = what;
      continue;
    }
    SqlResult b = pq_exec(reference, reference_sql(s.sql));
    if (!b.ok()) {
      result->failures.push_back("the reference fails a set-up statement: " + reference_sql(s.sql) +
                                 ": " + b.message);
      continue;
    }
    ++result->run;
  }
}

void run_ranges(PGconn* pgrange, const std::vector<Statement>& statements, SetupResult* result) {
  static const std::regex scatter_index(R"(ALTER\s+INDEX\s+(\S+@\S+)\s+SCATTER)",
                                        std::regex::icase);
  for (const Statement& s : statements) {
    if (!result->has(s.requires_features, nullptr)) {
      ++result->skipped;
      continue;
    }
    if (s.meta) {
      place(pgrange, s, result);
      continue;
    }
    SqlResult a = pq_exec(pgrange, s.sql);
    std::smatch m;
    if (!a.ok() && a.sqlstate == "42601" && std::regex_match(s.sql, m, scatter_index)) {
      scatter_index_ranges(pgrange, m[1].str(), result);
      continue;
    }
    if (!a.ok()) result->failures.push_back(where(s) + ": " + a.message);
  }
}

std::string range_map_text(PGconn* pgrange, const std::vector<std::string>& tables) {
  std::ostringstream s;
  for (const auto& t : tables) {
    std::string scope = t.find('@') == std::string::npos ? "TABLE " : "INDEX ";
    SqlResult r = pq_exec(pgrange, "SHOW RANGES FROM " + scope + t);
    s << "  " << t << ":";
    if (!r.ok()) s << " " << r.message;
    for (size_t n = 0; n < r.rows.size(); ++n) {
      s << " [" << r.at(n, 0) << ", " << r.at(n, 1) << ")→" << r.at(n, 3);
    }
    s << "\n";
  }
  return s.str();
}

}  // namespace pgrange::testing
