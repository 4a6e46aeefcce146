#include "routing/plan/copy_plan.hpp"

#include "routing/plan/hash_sharding.hpp"
#include "routing/plan/key_predicate.hpp"
#include "sql/quoting.hpp"
#include "sql/statement_info.hpp"

namespace pgrange::routing {

namespace {

using sql::quote_ident;
using sql::quote_literal;

/// The WITH (…) of a COPY … TO with these options.
std::string copy_to_options(const sql::CopyOptions& o) {
  std::string out = " WITH (FORMAT ";
  out += o.format == sql::CopyFormat::kText  ? "text"
         : o.format == sql::CopyFormat::kCsv ? "csv"
                                             : "binary";
  if (o.format != sql::CopyFormat::kBinary) {
    out += ", DELIMITER " + quote_literal(std::string(1, o.delimiter));
    out += ", NULL " + quote_literal(o.null_string);
    if (o.header) out += ", HEADER";
  }
  if (o.format == sql::CopyFormat::kCsv) {
    out += ", QUOTE " + quote_literal(std::string(1, o.quote));
    out += ", ESCAPE " + quote_literal(std::string(1, o.escape));
    if (o.force_quote_all) {
      out += ", FORCE_QUOTE *";
    } else if (!o.force_quote.empty()) {
      out += ", FORCE_QUOTE (";
      for (size_t i = 0; i < o.force_quote.size(); ++i) {
        out += (i > 0 ? ", " : "") + quote_ident(o.force_quote[i]);
      }
      out += ")";
    }
  }
  if (!o.encoding.empty()) out += ", ENCODING " + quote_literal(o.encoding);
  return out + ")";
}

}  // namespace

Result<CopyOutPlan> plan_copy_out(const ClusterView& view, const sql::CopyStatement& stmt) {
  if (!stmt.stdio) {
    return tl::unexpected(
        Error::make(sqlstate::kFeatureNotSupported,
                    "COPY TO a file or program of rows on several shards is not supported")
            .with_hint("use COPY … TO STDOUT (psql's \\copy)"));
  }
  if (!stmt.query.empty()) {
    // A query's rows are those of its SELECT's plan (the session plans it as one).
    return tl::unexpected(
        Error::make(sqlstate::kFeatureNotSupported,
                    "COPY (query) TO over several shards runs only as a simple query, of a SELECT")
            .with_hint("run the query as a plain SELECT"));
  }
  CopyOutPlan plan;
  plan.binary = stmt.options.format == sql::CopyFormat::kBinary;
  plan.header = stmt.options.header && !plan.binary;
  std::string options = copy_to_options(stmt.options);
  const TableDescriptor* t = view.find_table(stmt.table.schema, stmt.table.name);
  if (t == nullptr) {
    return tl::unexpected(Error::make(sqlstate::kUndefinedTable,
                                      "relation \"" + stmt.table.name + "\" does not exist"));
  }
  std::string columns;
  for (const std::string& c : stmt.columns) {
    columns += (columns.empty() ? "" : ", ") + quote_ident(c);
  }
  if (columns.empty()) columns = "*";
  std::string order;
  const std::vector<std::string> key_sql = key_column_sql(*t);
  for (size_t k = 0; k < t->key.size(); ++k) {
    order += order.empty() ? " ORDER BY " : ", ";
    order += key_sql[k];  // a hash-sharded key's bucket is an expression
    if (is_text_type(t->key[k].column.type)) order += " COLLATE \"C\"";
    if (t->key[k].column.descending) order += " DESC";
  }
  // Range by range in key order: the table's rows come out in key order.
  for (size_t i : view.table_ranges(t->table_id)) {
    const RangeDescriptor& r = view.ranges().at(i);
    auto predicate = key_range_predicate(*t, r.start_key, r.end_key);
    if (!predicate) return tl::unexpected(predicate.error());
    plan.steps.push_back({view.shard_index(r.shard),
                          "COPY (SELECT " + columns + " FROM " + qualified_table_name(*t) +
                              " WHERE " + *predicate + order + ") TO STDOUT" + options});
  }
  if (plan.steps.empty()) {
    return tl::unexpected(
        Error::make(sqlstate::kConnectionFailure, "no shard holds the table's rows"));
  }
  return plan;
}

}  // namespace pgrange::routing
