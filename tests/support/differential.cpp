#include "tests/support/differential.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <sstream>

#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

std::string escape(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '|' || c == '\\') {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

/// A float's text (or its binary form) to 12 significant digits (a float4's to 6, all it
/// holds); NaN and infinities as they are.
std::string rounded_float(PGresult* res, int r, int c) {
  const char* v = PQgetvalue(res, r, c);
  double d = 0;
  if (PQfformat(res, c) == 1) {
    uint64_t bits = 0;
    for (int i = 0; i < PQgetlength(res, r, c); ++i) {
      bits = (bits << 8) | static_cast<unsigned char>(v[i]);
    }
    if (PQgetlength(res, r, c) == 4) {
      float f = 0;
      uint32_t b32 = static_cast<uint32_t>(bits);
      std::memcpy(&f, &b32, sizeof f);
      d = f;
    } else {
      std::memcpy(&d, &bits, sizeof d);
    }
  } else {
    d = std::strtod(v, nullptr);
  }
  if (!std::isfinite(d)) return std::isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity";
  char buf[40];
  std::snprintf(buf, sizeof buf, PQftype(res, c) == 700 ? "%.6g" : "%.12g", d);
  return std::string("~") + buf;
}

}  // namespace

Outcome outcome_of(PGresult* res, PGconn* conn, bool round_floats) {
  Outcome o;
  if (res == nullptr) {
    o.sqlstate = "<no result>";
    o.message = PQerrorMessage(conn);
    return o;
  }
  ExecStatusType st = PQresultStatus(res);
  o.ok = st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK;
  if (const char* s = PQresultErrorField(res, PG_DIAG_SQLSTATE)) o.sqlstate = s;
  if (const char* m = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY)) o.message = m;
  if (!o.ok && o.sqlstate.empty()) {
    o.sqlstate = "<" + std::string(PQresStatus(st)) + ">";
    o.message = PQresultErrorMessage(res);
  }
  o.command = PQcmdStatus(res);
  for (int c = 0; c < PQnfields(res); ++c) o.columns.push_back(PQfname(res, c));
  for (int r = 0; r < PQntuples(res); ++r) {
    std::string line;
    for (int c = 0; c < PQnfields(res); ++c) {
      if (c > 0) line += " | ";
      const Oid type = PQftype(res, c);
      if (PQgetisnull(res, r, c)) {
        line += "<null>";
      } else if (round_floats && (type == 700 || type == 701)) {
        line += rounded_float(res, r, c);
      } else if (PQfformat(res, c) == 1) {
        line += "\\x";
        const char* v = PQgetvalue(res, r, c);
        char hex[3];
        for (int i = 0; i < PQgetlength(res, r, c); ++i) {
          std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(v[i]));
          line += hex;
        }
      } else {
        line += escape(PQgetvalue(res, r, c));
      }
    }
    o.rows.push_back(std::move(line));
  }
  PQclear(res);
  // Drain anything else (there should be nothing for one statement).
  while (PGresult* more = PQgetResult(conn)) PQclear(more);
  return o;
}

Outcome run_statement(PGconn* conn, const Parameterised& q, bool extended, bool binary,
                      bool round_floats) {
  if (!extended) return outcome_of(PQexec(conn, q.sql.c_str()), conn, round_floats);
  std::vector<const char*> values;
  for (const auto& v : q.values) values.push_back(v.c_str());
  return outcome_of(
      PQexecParams(conn, q.sql.c_str(), static_cast<int>(values.size()), nullptr,
                   values.empty() ? nullptr : values.data(), nullptr, nullptr, binary ? 1 : 0),
      conn, round_floats);
}

bool sums_floats(const std::string& sql) {
  static const std::regex sums(R"(\b(sum|avg)\s*\()", std::regex::icase);
  return std::regex_search(sql, sums);
}

std::string rendering(const Outcome& o, bool in_order) {
  std::ostringstream s;
  if (!o.ok) {
    s << "error " << o.sqlstate << "\n";
    return s.str();
  }
  s << "command: " << o.command << "\n";
  s << "columns:";
  for (const auto& c : o.columns) s << " " << c;
  s << "\n";
  std::vector<std::string> rows = o.rows;
  if (!in_order) std::sort(rows.begin(), rows.end());
  for (const auto& r : rows) s << r << "\n";
  return s.str();
}

std::string construct_of(const std::string& message) {
  std::string m = message;
  size_t open = m.find(" (\"");
  if (open != std::string::npos) {
    size_t close = m.find(')', open);
    if (close != std::string::npos) m.erase(open, close + 1 - open);
  }
  return m;
}

bool names_construct(const std::string& message) {
  // SQL keywords as messages write them (upper case), so that "from" or "in" in a sentence do
  // not count; a bare INSERT/UPDATE/DELETE/SELECT names the statement, not a construct.
  static const std::regex keyword(
      R"(\b(FROM|USING|JOIN|WITH|RETURNING|ON CONFLICT|EXISTS|IN|NOT IN|ANY|ALL|SOME|LATERAL|)"
      R"(UNION|INTERSECT|EXCEPT|FOR UPDATE|FOR NO KEY UPDATE|FOR SHARE|FOR KEY SHARE|)"
      R"(SKIP LOCKED|NOWAIT|DISTINCT|DISTINCT ON|GROUP BY|ORDER BY|LIMIT|OFFSET|HAVING|VALUES|)"
      R"(DEFAULT|REFERENCES|FOREIGN KEY|UNIQUE|CHECK|EXCLUDE|TRUNCATE|COPY|CREATE|ALTER|DROP|)"
      R"(PREPARE|LISTEN|DECLARE|SAVEPOINT|GROUPING SETS|ROLLUP|CUBE|TABLESAMPLE|MERGE)\b)");
  static const std::regex statement_with(R"(\b(INSERT|UPDATE|DELETE|SELECT) (…|\.\.\.) ?\w)");
  static const std::regex word(
      R"(\b(sub-?quer(y|ies)|sub-?select|common table expression|CTEs?|joins?|views?|)"
      R"(functions?|procedures?|triggers?|rules?|sequences?|types?|domains?|foreign keys?|)"
      R"(unique|constraints?|(global )?index(es)?|aggregates?|window functions?|)"
      R"(set operations?|row locks?|locking|transaction blocks?|extended (query )?protocol|)"
      R"(session|multi-row INSERT|DDL|data-modifying|writable)\b)",
      std::regex::icase);
  return std::regex_search(message, keyword) || std::regex_search(message, statement_with) ||
         std::regex_search(message, word);
}

Comparison compare_statement(PGconn* pgrange, PGconn* reference, const std::string& sql,
                             const std::string& group, int line, bool extended, bool binary) {
  Comparison c;
  c.query = extended ? parameterise(sql) : Parameterised{sql, {}};
  c.where = "line " + std::to_string(line) + " [" + group + "] " + c.query.sql;
  if (!c.query.values.empty()) {
    c.where += "  -- params:";
    for (const auto& v : c.query.values) c.where += " '" + v + "'";
  }
  // pgrange first: a refused write is not run on the reference, so both keep the same rows.
  const bool round_floats = sums_floats(sql);
  c.got = run_statement(pgrange, c.query, extended, binary, round_floats);
  if (c.got.sqlstate == "0A000") {
    c.refused = true;
    return c;
  }
  c.want = run_statement(reference, c.query, extended, binary, round_floats);
  bool in_order = ordered(sql);
  std::string a = rendering(c.want, in_order), b = rendering(c.got, in_order);
  c.identical = a == b;
  if (c.identical) return c;
  c.difference = first_difference(a, b);
  if (!c.got.ok) c.difference += "\n  pgrange's error: " + c.got.message;
  if (!c.want.ok) c.difference += "\n  reference's error: " + c.want.message;
  return c;
}

std::string reference_sql(const std::string& sql) {
  static const std::regex hash(R"(\s+USING\s+HASH\b)", std::regex::icase);
  static const std::regex options(R"(\s+WITH\s*\(\s*(bucket_count|local)\s*=\s*\w+\s*\))",
                                  std::regex::icase);
  static const std::regex storing(R"(\bSTORING\s*\()", std::regex::icase);
  std::string out = std::regex_replace(sql, hash, "");
  out = std::regex_replace(out, options, "");
  return std::regex_replace(out, storing, "INCLUDE (");
}

void Tally::add_identical(const std::string& group) {
  ++run;
  ++identical;
  ++groups[group].identical;
}

void Tally::add_refused(const std::string& group, const std::string& where,
                        const std::string& message) {
  ++run;
  ++refused;
  ++groups[group].refused;
  ++constructs[construct_of(message)];
  refusals.push_back(where + "\n      → " + message);
}

void Tally::add_mismatch(const std::string& group, const std::string& where_and_difference) {
  ++run;
  ++mismatched;
  ++groups[group].mismatched;
  mismatches.push_back(where_and_difference);
}

void Tally::add_skipped(const std::string& group, const std::string& reason) {
  ++skipped;
  ++groups[group].skipped;
  ++skip_reasons[reason];
}

void Tally::add(const std::string& group, const Comparison& c) {
  if (!c.query.values.empty()) ++parameterised;
  if (!c.refused && !c.want.ok) reference_errors[c.want.sqlstate].push_back(c.where);
  if (c.refused) {
    add_refused(group, c.where, c.got.message);
  } else if (c.identical) {
    add_identical(group);
  } else {
    add_mismatch(group, c.where + "\n  " + c.difference);
  }
}

std::string Tally::report(const std::string& title) const {
  std::ostringstream s;
  auto pct = [&](int n) { return run == 0 ? 0.0 : 100.0 * n / run; };
  s << "\n==== " << title << " ====\n";
  s << "refused statements:\n";
  for (const auto& r : refusals) s << "  " << r << "\n";
  s << "refusals by construct:\n";
  for (const auto& [c, n] : constructs) s << "  " << n << "  " << c << "\n";
  s << "per group (identical / refused / mismatched / skipped):\n";
  for (const auto& [g, n] : groups) {
    s << "  " << g << ": " << n.identical << " / " << n.refused << " / " << n.mismatched << " / "
      << n.skipped << "\n";
  }
  if (!skip_reasons.empty()) {
    s << "skipped statements by reason:\n";
    for (const auto& [r, n] : skip_reasons) s << "  " << n << "  " << r << "\n";
  }
  if (!reference_errors.empty()) {
    s << "statements the reference answered with an error, by SQLSTATE:\n";
    for (const auto& [state, where] : reference_errors) {
      s << "  " << state << ": " << where.size() << "\n";
      for (const auto& w : where) s << "      " << w << "\n";
    }
  }
  for (const auto& f : failures) s << "FAILURE " << f << "\n";
  for (const auto& m : mismatches) s << "MISMATCH " << m << "\n";
  s << "statements run: " << run << " (parameterised: " << parameterised << ")"
    << ", identical: " << identical << " (" << pct(identical) << "%)"
    << ", refused: " << refused << " (" << pct(refused) << "%)"
    << ", mismatched: " << mismatched << ", skipped: " << skipped << "\n";
  return s.str();
}

}  // namespace pgrange::testing
