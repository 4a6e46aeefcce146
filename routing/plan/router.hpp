#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "routing/keys/span.hpp"
#include "routing/meta/cluster_view.hpp"
#include "routing/ranges/range_activity.hpp"
#include "sql/statement_info.hpp"

namespace pgrange::routing {

/// One step of the router's reading of a statement: a condition (or fact) and what it did to
/// the keys, e.g. {"id = 5", "point"}, {"name > 'a'", "not read: …"}.
struct RouteReason {
  std::string condition;
  std::string effect;
  /// "condition → effect".
  std::string text() const;
  bool operator==(const RouteReason&) const = default;
};

/// How the router placed one table of one statement (explain_statements only).
struct TableRoute {
  /// What the statement may touch of the table.
  enum class Reach {
    kPoints,      ///< single keys (every key column given by =, INSERT … VALUES rows)
    kSpans,       ///< the spans its key conditions allow (possibly none: a contradiction)
    kWholeTable,  ///< every range of the table
  };
  /// The range a span overlaps.
  struct RangeHit {
    uint64_t range_id = 0;
    std::string shard;
    std::string start_key;
    std::string end_key;
    bool operator==(const RangeHit&) const = default;
  };

  size_t statement = 0;  ///< index into the routed statements
  uint64_t table_id = 0;
  std::string table;  ///< the table's name (without schema)
  Reach reach = Reach::kWholeTable;
  /// The encoded key spans (sorted, disjoint): point spans [k, k\x00), condition spans, or the
  /// table's span for kWholeTable.
  SpanSet spans;
  /// Why, in the order the router read the statement.
  std::vector<RouteReason> reasons;
  /// The ranges the spans overlap, in key order.
  std::vector<RangeHit> ranges;
  /// The statement writes this table.
  bool write = false;
};

/// Where the statements of one client message must run.
struct Route {
  /// Pool indexes of the shards, ascending; empty when no pgrange table is involved (any
  /// shard will do: the session's current one, or the first).
  std::vector<int> shards;
  /// The ranges used on those shards (for range moves to wait on).
  std::vector<RangeActivity::Use> uses;
  /// The version of the view the route was made with: `uses` hold only while it is the
  /// published one (a move that published a newer one may not have waited for them).
  int64_t view_version = -1;
  /// Several shards and one plain SELECT whose shard results can simply be concatenated.
  bool fanout_select = false;
  /// …or a SELECT count(…) whose answer is the sum of the shards' counts.
  bool sum_counts = false;
  /// Why this cannot run (0A000 naming the construct), when it cannot.
  std::optional<Error> refusal;
  /// Some statement writes (INSERT, UPDATE, DELETE, COPY FROM).
  bool writes = false;
  /// A sample of the single keys routed (one statement's in every kSampleEvery on a thread):
  /// where in its range the load falls (RangeLoad), for splits by load.
  struct KeySample {
    uint64_t range_id = 0;
    std::string key;
  };
  std::vector<KeySample> samples;
  /// A query string of several statements that together reach several shards (`refusal` says
  /// so): the proxy may run them one by one in one transaction over those shards.
  bool several_statements = false;
  /// Some statement reads relations besides the one it works on shard by shard (other tables,
  /// relations pgrange does not manage, what its views and SQL functions read): it can run only
  /// where those are whole, on one shard; a merge or COPY over several shards must not take it.
  bool side_reads = false;
  /// Several shards and one INSERT … VALUES (every row's key known), UPDATE or DELETE: it runs
  /// as one transaction on every shard it touches, committed with two-phase commit.
  bool distributed_write = false;
  /// An UPDATE that assigns a key column of a table whose ranges are on several shards: rows
  /// whose new key another shard owns move there (deleted, inserted) in the statement's
  /// transaction, so it runs as a distributed write even on one shard (`distributed_write`).
  bool moves_keys = false;
  /// A write to a table with global indexes: the shards report the rows it wrote (a trigger's
  /// notes) and pgrange writes their index entries in the statement's transaction, on the
  /// shards owning them, so it runs as a distributed write even on one shard. `uses` holds
  /// every range of those indexes, for moves to wait on.
  bool maintains_index = false;
  /// A write to a reference table: the same statement on every shard (`shards` holds them all),
  /// one after the other in shard order, committed with two-phase commit. Every shard holds the
  /// same rows, so each gives the same answer: the first shard's is the client's, and another
  /// shard's that differs fails the statement.
  bool replicated = false;
  /// No shard is needed but one holding the reference tables it reads (`shards` is empty): any
  /// shard answers it alike, so the proxy may spread such reads over the shards.
  bool reference_only = false;
  /// A SELECT over several shards whose rows meet on each shard: one spread table, or tables of
  /// one co-location group joined on the group's key prefix (aligned ranges), joined with
  /// reference tables, each a FROM item whose rows each make their own rows of the answer
  /// (RelationUse::preserved). It runs on their shards and the answers are merged as a single
  /// table's are. The rows a merge of it is planned with: the first spread table's name, and
  /// the columns of every relation of its FROM (no key: no group or DISTINCT value is one
  /// shard's own). `refusal` holds the refusal of the statement when no merge answers it (then
  /// it is gathered).
  std::optional<TableDescriptor> joined;
  /// A SELECT whose WHERE the router read through a global index of its table (and not through
  /// its key): the index's key spans and the shards of the index ranges they overlap. The
  /// proxy reads the matching entries there, then the rows from the shards owning their keys
  /// (the index join), or the index alone when it stores every column the query needs.
  struct IndexLookup {
    uint64_t table_id = 0;
    uint32_t index_id = 0;
    SpanSet spans;
    std::vector<int> shards;
  };
  std::optional<IndexLookup> index_lookup;
  /// An INSERT … VALUES on a pgrange table: the shard (pool index) of each VALUES row, in
  /// order (-1 for a row whose key no range holds).
  std::vector<int> row_shards;
  /// Per statement and pgrange table, in order: the spans, reasons and ranges. Filled by
  /// explain_statements only (route_statements runs for every query and leaves it empty).
  std::vector<TableRoute> explanation;
};

/// The parameter values of a Bind message, for routing by `$n` on key columns.
struct BindParams {
  std::vector<int16_t> formats;  ///< none: all text; one: for all; else one per parameter
  std::vector<std::optional<std::string_view>> values;  ///< nullopt = NULL
  /// The types the statement's Parse gave its parameters (0 or missing: left to PostgreSQL,
  /// which gives `$n` the type of the column it is compared with).
  std::vector<uint32_t> types;
  /// Parameter n (1-based) as PostgreSQL's text form of a `type` value; nullopt when it is
  /// missing, NULL, or its binary form does not decode as `type`. A binary value is read as the
  /// type its Parse gave it: an integer of another width (drivers send small integers as int2)
  /// or a numeric as its number; a type of another kind (a float8 for an int8 key, a
  /// timestamptz for a timestamp key) as nothing known, never as the key type's bytes.
  std::optional<std::string> text(int n, KeyType type) const;
  /// Parameter n's format code (0 text, 1 binary) and the type its Parse gave it (0: none).
  int16_t format(int n) const;
  uint32_t declared_type(int n) const;
  /// Parameter n (1-based) as an integer (text, or binary int2/int4/int8 by its length), as a
  /// LIMIT or OFFSET reads it: nullopt for NULL; PostgreSQL's error for a value that is not one.
  Result<std::optional<int64_t>> bigint(int n) const;
};

/// Routes the analysed statements of one message with the view: a statement that gives every
/// key column by `=` (or an INSERT whose VALUES rows give them) goes to the shard owning that
/// key; any other statement on a pgrange table goes to every shard holding one of its ranges.
/// Statements on tables pgrange does not know are not constrained.
Route route_statements(const ClusterView& view, std::span<const sql::StatementInfo> statements,
                       const BindParams* params = nullptr);

/// route_statements with Route::explanation filled in (same routing, same code): for EXPLAIN
/// and tests, not for the hot path.
Route explain_statements(const ClusterView& view, std::span<const sql::StatementInfo> statements,
                         const BindParams* params = nullptr);

/// A SELECT on one table routed to several shards whose answers can be concatenated, or whose
/// only obstacle to that is something a merge can do (ORDER BY, LIMIT/OFFSET, aggregates, GROUP
/// BY, HAVING, DISTINCT): sql::plan_merge plans it.
bool mergeable_select(std::span<const sql::StatementInfo> statements, const Route& route);

/// The encoded primary key of a row given as text values of all key columns, for lookups.
Result<std::string> point_key(const TableDescriptor& table,
                              std::span<const std::optional<std::string>> values);

}  // namespace pgrange::routing
