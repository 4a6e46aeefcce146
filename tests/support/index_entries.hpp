#pragma once

#include <libpq-fe.h>

#include <map>
#include <string>
#include <vector>

namespace pgrange::testing {

/// Checks that the entries of every global index, read on the shards directly, are exactly its
/// table's rows there: an entry for each row, none for a row that is gone, with the indexed,
/// key and stored columns' current values. A write that leaves an index behind its rows gives
/// wrong answers to later lookups by the index, whatever the write itself answered.
class IndexEntryCheck {
 public:
  /// Finds the global indexes' backend tables ("table@index") on the first shard.
  explicit IndexEntryCheck(std::vector<PGconn*> shards);

  /// "" when every index holds its rows, or differs from them just as when last reported; else
  /// what differs now.
  std::string check();

  /// The backend tables checked.
  std::vector<std::string> indexes() const;

 private:
  struct Index {
    std::string backend;  ///< "table@index"
    std::string table;
    std::string columns;  ///< the backend table's columns, quoted, comma-separated
  };
  /// Every row `sql` returns on every shard, as lines; an error as a line of its own.
  std::vector<std::string> union_of(const std::string& sql);

  std::vector<PGconn*> shards_;
  std::vector<Index> indexes_;
  std::map<std::string, std::string> reported_;  ///< backend → the difference last reported
};

}  // namespace pgrange::testing
