#include "tests/support/write_comparer.hpp"

#include <sstream>

#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

const char* status_name(PGTransactionStatusType s) {
  switch (s) {
    case PQTRANS_IDLE:
      return "idle";
    case PQTRANS_INTRANS:
      return "in a transaction block";
    case PQTRANS_INERROR:
      return "in a failed transaction block";
    case PQTRANS_ACTIVE:
      return "busy";
    default:
      return "connection lost";
  }
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

/// How two reads of a table differ: the rows only one side has (as multisets), or, when a read
/// failed or the columns differ, the first differing line.
struct TableDifference {
  std::vector<std::string> only_reference, only_pgrange;
  std::string other;

  bool empty() const { return only_reference.empty() && only_pgrange.empty() && other.empty(); }

  /// Every row of it, to tell whether a later difference is the same.
  std::string key() const {
    std::string k = other + "\n";
    for (const auto& r : only_reference) k += "-" + r + "\n";
    for (const auto& r : only_pgrange) k += "+" + r + "\n";
    return k;
  }

  /// "2 row(s) only on the reference: …; 1 only through pgrange: …" (a few of each shown).
  std::string text() const {
    std::string s = other.empty() ? "" : "\n    " + other;
    return s + sample_lines(only_reference, "row(s) only on the reference") +
           sample_lines(only_pgrange, "row(s) only through pgrange");
  }
};

TableDifference difference_of(const TableImage& want, const TableImage& got) {
  TableDifference d;
  std::string a_text = want.text(), b_text = got.text();
  if (a_text == b_text) return d;
  if (!want.ok || !got.ok || want.columns != got.columns) {
    d.other = first_difference(a_text, b_text);
    if (!got.ok) d.other += "\n    pgrange's error: " + got.error;
    return d;
  }
  LineDifference lines = line_difference(lines_of(a_text), lines_of(b_text));
  d.only_reference = std::move(lines.only_first);
  d.only_pgrange = std::move(lines.only_second);
  // Equal as multisets but not in key order: pgrange's ORDER BY merge put them out of order.
  if (d.empty()) d.other = "same rows, another order: " + first_difference(a_text, b_text);
  return d;
}

}  // namespace

WriteComparer::WriteComparer(PGconn* pgrange, PGconn* reference, std::vector<TableSpec> tables)
    : pgrange_(pgrange), reference_(reference), tables_(std::move(tables)) {}

WriteComparer::Verdict WriteComparer::run(const std::string& sql, const std::string& group,
                                          int line, bool extended) {
  Verdict v;
  v.statement = compare_statement(pgrange_, reference_, sql, group, line, extended);
  std::string differences;
  if (v.statement.refused) {
    v.named = names_construct(v.statement.got.message);
  } else if (!v.statement.identical) {
    differences += "\n  answer: " + v.statement.difference;
  }
  std::string status = align_transaction_status(v.statement.refused);
  if (!status.empty()) differences += "\n  transaction status: " + status;
  std::string tables = compare_tables();
  if (!tables.empty()) {
    differences += v.statement.refused
                       ? "\n  the tables differ after the refused statement:" + tables
                       : tables;
  }
  for (auto& check : checks_) differences += check();
  if (differences.empty()) {
    v.kind = v.statement.refused ? Verdict::kRefused : Verdict::kIdentical;
  } else {
    v.kind = Verdict::kMismatched;
    v.differences = differences;
    if (v.statement.refused) {
      v.differences = "\n  refused: " + v.statement.got.message + differences;
    }
  }
  return v;
}

std::string WriteComparer::align_transaction_status(bool refused) {
  PGTransactionStatusType p = PQtransactionStatus(pgrange_);
  PGTransactionStatusType r = PQtransactionStatus(reference_);
  if (p == r) return "";
  std::string what = std::string("reference ") + status_name(r) + ", pgrange " + status_name(p);
  // The reference follows pgrange, so that the statements after are judged on their own.
  if (p == PQTRANS_INERROR && r == PQTRANS_INTRANS) {
    pq_exec(reference_, "DO $$BEGIN RAISE EXCEPTION 'as pgrange''s transaction failed'; END$$");
    // A refusal is an error: a block it fails is what PostgreSQL does after one.
    if (refused) return "";
  } else if (p == PQTRANS_IDLE) {
    pq_exec(reference_, "ROLLBACK");
  } else if (p == PQTRANS_INTRANS) {
    if (r != PQTRANS_IDLE) pq_exec(reference_, "ROLLBACK");
    pq_exec(reference_, "BEGIN");
  } else if (p == PQTRANS_INERROR) {
    pq_exec(reference_, "BEGIN");
    pq_exec(reference_, "DO $$BEGIN RAISE EXCEPTION 'as pgrange''s transaction failed'; END$$");
  }
  return what;
}

std::string WriteComparer::compare_tables() {
  std::string out;
  for (const TableSpec& t : tables_) {
    ++comparisons_;
    TableImage want = read_table(reference_, t);
    TableImage got = read_table(pgrange_, t);
    TableDifference d = difference_of(want, got);
    auto accepted = accepted_.find(t.name);
    if (accepted == accepted_.end() ? d.empty() : d.key() == accepted->second) continue;
    out += "\n  table " + t.name + ":";
    if (accepted != accepted_.end()) out += " (differed before: the difference changed)";
    out += d.empty() ? " now none" : d.text();
    // Back in line: the reference takes pgrange's rows. Where it cannot (rows that break a
    // constraint, a failed read), this difference is accepted and only a change of it is
    // reported later.
    std::string failure = d.empty() ? "" : copy_rows_into(reference_, t, got);
    if (failure.empty()) {
      accepted_.erase(t.name);
    } else {
      accepted_[t.name] = d.key();
      diverged_[t.name] = failure;
      out += "\n    (the reference cannot take pgrange's rows: " + failure +
             "; later statements are judged by whether they change this difference)";
    }
  }
  return out;
}

void WriteComparer::count(Tally* tally, const std::string& group, bool must_run, const Verdict& v) {
  const Comparison& c = v.statement;
  if (!c.query.values.empty()) ++tally->parameterised;
  if (!c.refused && !c.want.ok) {
    tally->reference_errors[c.want.sqlstate].push_back(c.where);
    // A syntax error or an unknown name on the reference is a statement that tests nothing.
    if (c.want.sqlstate.rfind("42", 0) == 0) {
      tally->failures.push_back("the reference cannot run this corpus statement: " + c.where +
                                "\n      → " + c.want.sqlstate + " " + c.want.message);
    }
  }
  switch (v.kind) {
    case Verdict::kIdentical:
      tally->add_identical(group);
      break;
    case Verdict::kRefused:
      tally->add_refused(group, c.where, c.got.message);
      if (!v.named) {
        tally->failures.push_back("refusal naming no construct: " + c.where + "\n      → " +
                                  c.got.message);
      }
      if (must_run) {
        tally->failures.push_back("refused, but must run: " + c.where + "\n      → " +
                                  c.got.message);
      }
      break;
    case Verdict::kMismatched:
      tally->add_mismatch(group, c.where + v.differences);
      break;
  }
}

}  // namespace pgrange::testing
