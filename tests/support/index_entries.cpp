#include "tests/support/index_entries.hpp"

#include "tests/support/proxy_process.hpp"
#include "tests/support/table_compare.hpp"

namespace pgrange::testing {

IndexEntryCheck::IndexEntryCheck(std::vector<PGconn*> shards) : shards_(std::move(shards)) {
  if (shards_.empty()) return;
  SqlResult r =
      pq_exec(shards_[0],
              "SELECT c.relname, (SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY "
              "a.attnum) FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 "
              "AND NOT a.attisdropped) FROM pg_class c WHERE c.relkind = 'r' AND "
              "c.relnamespace = 'public'::regnamespace AND c.relname LIKE '%@%' ORDER BY 1");
  for (size_t n = 0; r.ok() && n < r.rows.size(); ++n) {
    Index i;
    i.backend = r.at(n, 0);
    i.table = i.backend.substr(0, i.backend.find('@'));
    i.columns = r.at(n, 1);
    indexes_.push_back(std::move(i));
  }
}

std::vector<std::string> IndexEntryCheck::indexes() const {
  std::vector<std::string> out;
  for (const auto& i : indexes_) out.push_back(i.backend);
  return out;
}

std::vector<std::string> IndexEntryCheck::union_of(const std::string& sql) {
  std::vector<std::string> out;
  for (size_t s = 0; s < shards_.size(); ++s) {
    SqlResult r = pq_exec(shards_[s], sql);
    if (!r.ok()) out.push_back("s" + std::to_string(s + 1) + " error: " + r.message);
    for (const auto& row : r.rows) {
      std::string line;
      for (size_t c = 0; c < row.size(); ++c) line += (c ? " | " : "") + row[c];
      out.push_back(std::move(line));
    }
  }
  return out;
}

std::string IndexEntryCheck::check() {
  std::string out;
  for (const Index& i : indexes_) {
    std::vector<std::string> rows = union_of("SELECT " + i.columns + " FROM \"" + i.table + "\"");
    std::vector<std::string> entries =
        union_of("SELECT " + i.columns + " FROM \"" + i.backend + "\"");
    LineDifference d = line_difference(std::move(rows), std::move(entries));
    std::string difference = sample_lines(d.only_first, "row(s) without their entry") +
                             sample_lines(d.only_second, "entries without their row");
    std::string& last = reported_[i.backend];
    if (difference == last) continue;
    out += "\n  index " + i.backend + " (" + i.columns + ") against its rows on the shards:" +
           (difference.empty() ? std::string(" in line again") : difference);
    last = difference;
  }
  return out;
}

}  // namespace pgrange::testing
