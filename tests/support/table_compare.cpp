#include "tests/support/table_compare.hpp"

#include <algorithm>
#include <iterator>
#include <memory>
#include <sstream>

#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

std::string identifier(PGconn* conn, const std::string& name) {
  std::unique_ptr<char, decltype(&PQfreemem)> q(PQescapeIdentifier(conn, name.c_str(), name.size()),
                                                &PQfreemem);
  return q ? std::string(q.get()) : "\"" + name + "\"";
}

std::string literal(PGconn* conn, const std::string& value) {
  std::unique_ptr<char, decltype(&PQfreemem)> q(PQescapeLiteral(conn, value.c_str(), value.size()),
                                                &PQfreemem);
  return q ? std::string(q.get()) : "NULL";
}

}  // namespace

std::vector<TableSpec> reference_tables(PGconn* reference) {
  // Key columns in key order; tables without a primary key get all columns in column order.
  SqlResult r =
      pq_exec(reference,
              "SELECT c.relname, coalesce((SELECT string_agg(quote_ident(a.attname), ','"
              " ORDER BY array_position(i.indkey::int2[], a.attnum)) FROM pg_index i"
              " JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)"
              " WHERE i.indrelid = c.oid AND i.indisprimary), (SELECT string_agg("
              "quote_ident(a.attname), ',' ORDER BY a.attnum) FROM pg_attribute a"
              " WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped))"
              " FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace ="
              " 'public'::regnamespace ORDER BY c.relname");
  std::vector<TableSpec> out;
  if (!r.ok()) return out;
  for (size_t n = 0; n < r.rows.size(); ++n) {
    TableSpec t;
    t.name = r.at(n, 0);
    std::string cols = r.at(n, 1);
    size_t start = 0;
    while (start <= cols.size()) {
      size_t comma = cols.find(',', start);
      if (comma == std::string::npos) comma = cols.size();
      t.order_by.push_back(cols.substr(start, comma - start));
      start = comma + 1;
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::string TableImage::text() const {
  if (!ok) return "error " + error.substr(0, error.find(' ')) + "\n";
  std::ostringstream s;
  s << "columns:";
  for (const auto& c : columns) s << " " << c;
  s << "\n";
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) s << " | ";
      s << (row[c] ? *row[c] : "<null>");
    }
    s << "\n";
  }
  return s.str();
}

TableImage read_table(PGconn* conn, const TableSpec& table) {
  std::string sql = "SELECT * FROM " + identifier(conn, table.name) + " ORDER BY ";
  for (size_t i = 0; i < table.order_by.size(); ++i) sql += (i ? ", " : "") + table.order_by[i];
  TableImage image;
  PGresult* res = PQexec(conn, sql.c_str());
  ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
  image.ok = st == PGRES_TUPLES_OK;
  if (!image.ok) {
    const char* state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
    image.error = std::string(state ? state : "<none>") + " " + PQerrorMessage(conn);
  } else {
    for (int c = 0; c < PQnfields(res); ++c) image.columns.push_back(PQfname(res, c));
    for (int r = 0; r < PQntuples(res); ++r) {
      std::vector<std::optional<std::string>> row;
      for (int c = 0; c < PQnfields(res); ++c) {
        if (PQgetisnull(res, r, c)) {
          row.emplace_back(std::nullopt);
        } else {
          row.emplace_back(
              std::string(PQgetvalue(res, r, c), static_cast<size_t>(PQgetlength(res, r, c))));
        }
      }
      image.rows.push_back(std::move(row));
    }
  }
  PQclear(res);
  while (PGresult* more = PQgetResult(conn)) PQclear(more);
  return image;
}

std::string copy_rows_into(PGconn* reference, const TableSpec& table, const TableImage& image) {
  if (!image.ok) return "pgrange's rows could not be read: " + image.error;
  std::string name = identifier(reference, table.name);
  std::string columns;
  for (size_t c = 0; c < image.columns.size(); ++c) {
    columns += (c ? ", " : "") + identifier(reference, image.columns[c]);
  }
  std::vector<std::string> steps = {"SET session_replication_role = replica",
                                    "DELETE FROM " + name};
  for (const auto& row : image.rows) {
    std::string values;
    for (size_t c = 0; c < row.size(); ++c) {
      values += (c ? ", " : "") + (row[c] ? literal(reference, *row[c]) : std::string("NULL"));
    }
    steps.push_back("INSERT INTO " + name + " (" + columns + ") VALUES (" + values + ")");
  }
  // All or nothing: in the caller's transaction block under a savepoint, else in a block of
  // its own, so that a failure leaves the reference's rows as they were.
  PGTransactionStatusType status = PQtransactionStatus(reference);
  if (status != PQTRANS_IDLE && status != PQTRANS_INTRANS) {
    return "the reference's transaction has failed: its rows cannot be set";
  }
  bool in_block = status == PQTRANS_INTRANS;
  pq_exec(reference, in_block ? "SAVEPOINT pgrange_test_copy" : "BEGIN");
  std::string failure;
  for (const auto& sql : steps) {
    SqlResult r = pq_exec(reference, sql);
    if (!r.ok()) {
      failure = sql.substr(0, 200) + ": " + r.message;
      break;
    }
  }
  if (in_block) {
    pq_exec(reference, failure.empty() ? "RELEASE SAVEPOINT pgrange_test_copy"
                                       : "ROLLBACK TO SAVEPOINT pgrange_test_copy");
  } else {
    pq_exec(reference, failure.empty() ? "COMMIT" : "ROLLBACK");
  }
  pq_exec(reference, "RESET session_replication_role");
  return failure;
}

LineDifference line_difference(std::vector<std::string> first, std::vector<std::string> second) {
  std::sort(first.begin(), first.end());
  std::sort(second.begin(), second.end());
  LineDifference d;
  std::set_difference(first.begin(), first.end(), second.begin(), second.end(),
                      std::back_inserter(d.only_first));
  std::set_difference(second.begin(), second.end(), first.begin(), first.end(),
                      std::back_inserter(d.only_second));
  return d;
}

std::string sample_lines(const std::vector<std::string>& lines, const std::string& label) {
  if (lines.empty()) return "";
  std::ostringstream s;
  s << "\n    " << lines.size() << " " << label << ":";
  for (size_t i = 0; i < lines.size() && i < 4; ++i) s << " (" << lines[i] << ")";
  if (lines.size() > 4) s << " …";
  return s.str();
}

}  // namespace pgrange::testing
