#pragma once

#include <string>
#include <vector>

namespace pgrange::testing {

/// One statement of a corpus file, with what the file says about it.
///
/// File format: one statement per line, or several lines up to one ending in ';' (a statement
/// continues while the next line is indented). Lines starting with `--` are comments, except
/// these directives:
///   `-- group: NAME`     starts a group (counted in summaries); ends the group's directives
///   `-- requires: A, B`  the group's statements from here on need features A and B
///   `-- expect: run`     the group's statements from here on must not be refused
///   `-- provides: A`     the next statement provides feature A (a setup statement)
///   `-- unless: A`       the next statement runs only when feature A is missing (a fallback)
/// A line starting with `\` is a meta-command of the test (one line, e.g. `\hold …`).
struct Statement {
  std::string group = "(none)";
  std::string sql;
  int line = 0;
  std::vector<std::string> requires_features;
  bool must_run = false;
  std::string provides;
  std::string unless;
  bool meta = false;  ///< a `\` meta-command: `sql` is the line without the backslash
};

/// Reads a file of statements (see Statement). Throws std::runtime_error when it cannot be read
/// or a directive is unknown.
std::vector<Statement> read_statements(const std::string& path);

}  // namespace pgrange::testing
