#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "routing/meta/cluster_view.hpp"
#include "routing/meta/table_sizes.hpp"
#include "routing/plan/router.hpp"
#include "sql/merge_query.hpp"
#include "sql/statement_info.hpp"

namespace pgrange::routing {

/// One relation a statement reads, brought to the shard that runs the statement: a Route (its
/// rows from the shards owning its ranges, with the statement's conditions on it pushed down)
/// feeding a Materialize (the rows as a literal array of the table's row type, put in the
/// statement where the table was named).
struct GatherInput {
  size_t use = 0;         ///< index into the statement's relations
  std::string table;      ///< its name, for messages and EXPLAIN
  std::string relation;   ///< the table as SQL ("public"."users"): its row type too
  std::string schema;     ///< its schema as SQL ("public")
  std::string qualifier;  ///< what the statement calls it (its alias, else its name), as SQL
  bool aliased = false;   ///< the statement gives it an alias
  std::string name;       ///< its name as written (without schema), for a derived table's alias
  /// The statement's conditions on it, as SQL on `qualifier` ("" when none can be pushed).
  std::string filter;
  /// Columns later inputs look their rows up by: fetched after the row, in this order.
  std::vector<std::string> provides;
  /// A lookup join: only its rows whose `column` equals a value of `source`'s column are
  /// fetched (the statement's join condition discards the others).
  struct Lookup {
    size_t source = 0;         ///< index into GatherPlan::inputs (an earlier input)
    size_t source_column = 0;  ///< index into that input's `provides`
    std::string column;        ///< its column
    std::string key_type;      ///< the column's type when it is the table's first key column
  };
  std::optional<Lookup> lookup;
  /// Where its name is in the statement text: [name_begin, name_end), from the text's start.
  size_t name_begin = 0;
  size_t name_end = 0;
  /// Why it is read this way (EXPLAIN).
  std::vector<std::string> reasons;
  /// Its mention is the one table of a query that reads nothing else and answers fewer rows
  /// than the table has (a CTE's body or a derived table with GROUP BY, an aggregate, DISTINCT
  /// or LIMIT: sql::SummaryQuery): that query is answered over the table's shards first, merged
  /// as a statement of its own is, and its rows take its place in the statement. Where that
  /// cannot be done (a merge that meets values it cannot compare), the table's rows are read
  /// as for any other input.
  struct Summary {
    size_t begin = 0;  ///< the query's text in the statement, inside its parentheses
    size_t end = 0;
    sql::MergeQuery merge;    ///< its merge over the shards
    bool parameters = false;  ///< it has the statement's $n (bound when it runs)
  };
  std::optional<Summary> summary;
};

/// A SELECT over tables spread across shards, run by pgrange as a tree: every table's rows
/// read by a Route (pruned by the statement's conditions and by lookup values), materialized,
/// and the statement itself run on one shard with those rows in place of its tables. Every
/// construct the statement has (joins of any kind, subqueries, CTEs, set operations,
/// aggregates, window functions, ORDER BY, LIMIT) is then PostgreSQL's own.
struct GatherPlan {
  std::string text;  ///< the statement
  std::vector<GatherInput> inputs;
  /// Reference tables the statement reads that no lookup needs first: every shard holds their
  /// rows, so they stay in the statement and are read where it runs (EXPLAIN names them).
  std::vector<std::string> in_place;
  /// A broadcast join: when the rows a read of the last input would reach are on several
  /// shards, that table is not read: the statement runs on each of those shards, every other
  /// table replaced by the rows read for it, and their answers are merged as one table's are.
  /// Planned when each shard's answer is exactly the answer's rows made from its own rows of
  /// that table (a FROM item of the statement's own SELECT that no outer join extends with
  /// NULLs, its table named nowhere else in the statement) and the merge can combine the
  /// answers; nullopt otherwise (the statement then runs on one shard). Its shard query holds
  /// a marker for each other input's rows (broadcast_sql writes them in).
  std::optional<sql::MergeQuery> broadcast;
  /// The last table's estimated bytes (the shards' sizes): past that many bytes of rows read
  /// for the others, sending them to each of its shards costs more than reading it, and the
  /// broadcast is not made. nullopt: unknown, always made.
  std::optional<int64_t> broadcast_limit;
  /// Why the tables are read in this order, and whether the statement may run on several
  /// shards (EXPLAIN).
  std::vector<std::string> reasons;

  /// The SQL that reads input i's rows: the whole row (its text is the row literal), then its
  /// `provides`. `lookup_values` are the distinct non-NULL text values of its lookup's source
  /// column, and `lookup_type` their type's name ("" when unknown): nullopt when it has no
  /// lookup. nullopt when the values leave no row to read.
  std::optional<std::string> fetch_sql(size_t i,
                                       const std::vector<std::string>* lookup_values = nullptr,
                                       std::string_view lookup_type = {}) const;
  /// The reads of input i (fetch_sql's, for its lookup's values): one, or none when the values
  /// leave no row; past kLookupBatch values of a type the lookup can name, one read per batch
  /// of them (a batched lookup join: each pruned to its own ranges, every row in one batch
  /// only), integers in their numeric order so that a batch stays within few ranges.
  std::vector<std::string> fetch_sqls(size_t i, const std::set<std::string>& lookup_values,
                                      std::string_view lookup_type) const;
  /// The most values one lookup read lists.
  static constexpr size_t kLookupBatch = 10000;
  /// The statement with each input's rows (the text of each row, in order) in place of its
  /// table; an input marked in `kept` stays the table it is (the statement then runs on the one
  /// shard that holds every row of it the statement can use); for an input marked in
  /// `summarized`, its rows' one element is the query of its Summary's rows (summary_rows_sql),
  /// put in place of that query; for an input with a name in `tables`, its rows are that
  /// temporary table's (one column `r` of the input's row type, spilled_rows_table_sql).
  std::string final_sql(const std::vector<std::vector<std::string>>& rows,
                        const std::vector<bool>& kept = {},
                        const std::vector<bool>& summarized = {},
                        const std::vector<std::string>& tables = {}) const;
  /// The query of input i's Summary, as a statement of its own.
  std::string summary_sql(size_t i) const;
  /// The broadcast's shard query with the rows read for each input but the last written in
  /// (`rows`, as for final_sql).
  std::string broadcast_sql(const std::vector<std::vector<std::string>>& rows) const;
  /// The tree, one operator per line, indented by depth (EXPLAIN).
  std::vector<std::string> describe() const;
};

/// Whether a statement the router refused (Route::refusal, 0A000) for reading tables spread
/// over several shards is a SELECT that plan_gather may run instead.
bool gatherable(const sql::StatementInfo& s, const Route& route);

/// Whether a statement the router refused is an UPDATE, DELETE or INSERT … VALUES that reads
/// other tables spread over several shards (UPDATE … FROM, DELETE … USING, subqueries in SET,
/// WHERE, VALUES or RETURNING, CTEs that only read):
/// plan_gather reads those, and the write, with their rows written in, runs on its table's
/// shards as any write does.
bool gatherable_write(const sql::StatementInfo& s, const Route& route);

/// Plans the merge of a SELECT over the rows `rows` describes (sql::plan_merge, or a cache of
/// it: the same text over the same view has the same plan).
using MergePlanner =
    std::function<Result<sql::MergeQuery>(std::string_view sql, const TableDescriptor& rows)>;

/// Plans a SELECT whose relations are pgrange tables spread across shards: a refusal (0A000
/// naming the construct) for what it cannot run correctly that way. `text` is the statement
/// alone (from s.begin to s.end); `params` the Bind's values ($n in conditions pushed down).
/// For an UPDATE or DELETE (gatherable_write) its own table is left in place: every other
/// relation it reads is an input. `sizes`, the shards' estimates of the tables' sizes (none:
/// nullptr), decide which table a broadcast join leaves where it is: the largest, when it
/// outweighs the others. `merges` plans a broadcast's merge (empty: sql::plan_merge).
Result<GatherPlan> plan_gather(const ClusterView& view, const sql::StatementInfo& s,
                               std::string_view text, const BindParams* params,
                               const TableSizes* sizes = nullptr, const MergePlanner& merges = {});

/// A SELECT of one spread table that no merge of the shards' answers computes (a window
/// function, DISTINCT ON, an aggregate pgrange does not combine, GROUPING SETS): planned as a
/// gather of its one table, so that PostgreSQL computes it over the rows read (with its
/// conditions pushed down), on one shard. The statement must start `whole` (it is analysed
/// again for how it uses its table). Refused (0A000) as plan_gather refuses, and for anything
/// but such a SELECT.
Result<GatherPlan> plan_gather_one_table(const ClusterView& view, const sql::StatementInfo& s,
                                         std::string_view whole, const BindParams* params = nullptr,
                                         const TableSizes* sizes = nullptr,
                                         const MergePlanner& merges = {});

/// The literal array of row texts `rows` as SQL of type `relation`[] (dollar-quoted, so that no
/// session setting changes what it means).
std::string rows_literal(const std::vector<std::string>& rows, std::string_view relation);

/// A query whose rows are those of `columns` (column by column, each value's text or nullopt for
/// NULL), its columns named `names` and of types `types` (as format_type writes them): one text
/// array per column, unnested and cast. `ordered`: the rows come in their order (WITH
/// ORDINALITY).
std::string summary_rows_sql(const std::vector<std::string>& names,
                             const std::vector<std::string>& types,
                             const std::vector<std::vector<std::optional<std::string>>>& columns,
                             bool ordered);

/// The name of the type with OID `oid` among the built-in types lookups use, or "".
std::string_view builtin_type_name(uint32_t oid);

}  // namespace pgrange::routing
