#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "proxy/backend/backend_connection.hpp"
#include "proxy/backend/backend_pool.hpp"
#include "proxy/exec/merge_sort.hpp"
#include "proxy/exec/operator.hpp"
#include "sql/merge_query.hpp"

namespace pgrange::proxy::exec {

/// What running operators over shard connections needs from the client's session.
struct ShardSession {
  /// Brings a connection to the session's settings (SET …) before a query is sent on it.
  std::function<awaitable<std::optional<Error>>(BackendConnection&)> sync;
  /// A shard's pool (by pool index): its database's collation is kept there once read.
  std::function<BackendPool&(int shard)> pool;
  /// What a shard sends besides rows (NoticeResponse, ParameterStatus), for the client.
  std::function<void(char type, const std::string& body)> other;
  /// The session prints floats exactly (extra_float_digits 1 or more): a combined float read
  /// back from its text is the shards' value, and can be sent in binary.
  bool exact_floats = true;
  /// The most bytes a Sort in pgrange holds for the statement (query_memory), and where it
  /// writes what it cannot hold (temp_directory).
  size_t query_memory = SIZE_MAX;
  std::string temp_directory;
};

/// A statement of the extended protocol: its Parse's parameter types, its Bind after the
/// portal and statement names.
struct BoundStatement {
  std::string_view parameter_types;
  std::string_view bind_rest;
};

/// The result formats of a merge: those its shards are asked for, and those the Merge sends
/// the values it combines in (Project), from the client's (as its Bind gives them:
/// none, one for every column, or one per column). Aggregates are combined in text: the shards
/// answer in text, the Merge converts. Otherwise the values pass through in the client's
/// formats, and the hidden sort columns after them come in text.
struct MergeFormats {
  std::vector<int16_t> shard;
  std::vector<int16_t> client;
};
MergeFormats merge_formats(const sql::MergeQuery& merge, std::vector<int16_t> client);

/// What a merge tree needs besides its query and inputs.
struct MergeTreeOptions {
  TextOrderCheck text_order;            ///< see TextOrderCheck
  std::vector<int16_t> client_formats;  ///< MergeFormats::client
  bool exact_floats = true;             ///< ShardSession::exact_floats
  size_t memory_limit = SIZE_MAX;       ///< query_memory, for a Sort
  std::string temp_directory;           ///< where a Sort writes its runs past it
};

/// The operators that make `query`'s answer of its shard query's rows on `inputs` (one per
/// shard): PostgreSQL's one answer. Ordered mode: MergeSort (ORDER BY; an Append without one),
/// Distinct, Limit, Project (the hidden sort columns dropped). Aggregate mode: MergeSort on
/// the group columns, Aggregate, Filter (HAVING), Sort and Distinct (DISTINCT), Sort (ORDER
/// BY), Limit, Project (the hidden outputs dropped, values converted to binary as asked).
std::unique_ptr<RowOperator> make_merge_tree(sql::MergeQuery query,
                                             std::vector<std::unique_ptr<ShardRows>> inputs,
                                             MergeTreeOptions options);

/// What the merge tree of `query` over `shards` shards makes of their columns before any row
/// (`columns`, a RowDescription body as a shard describes its answer): its failure, 0A000 where
/// it cannot compare or combine values of those types, or nullopt. The tree is opened over
/// inputs that describe those columns and have no rows, so it checks them as it would the
/// shards' own answers.
awaitable<std::optional<ExecFailure>> merge_refusal(const sql::MergeQuery& query,
                                                    const std::string& columns, size_t shards,
                                                    MergeTreeOptions options);

/// Makes the merge tree of `merge`'s shard query on `conns` (one idle connection per shard, or
/// with `in_transaction` a transaction block's parts: read to their end, never cancelled). The
/// query goes as one Query, or with `bound` as Parse/Bind/Describe/Execute/Sync carrying the
/// client's parameters, one request shared by every shard. With `bound`, the shards answer in
/// the Bind's result formats where their values pass through (a hidden sort column in text),
/// and in text where the merge combines them (aggregates): the tree sends those in the formats
/// asked. Each connection is first brought to the session's settings; when the merge compares
/// text (ORDER BY, DISTINCT, groups), each shard's database collation is read once and kept in
/// its pool, and the tree stops with 0A000 where a shard does not order text bytewise (pgrange
/// compares it so).
awaitable<ExecResult<std::unique_ptr<RowOperator>>> make_merge(
    sql::MergeQuery merge, const std::vector<BackendConnection*>& conns,
    const ShardSession& session, const BoundStatement* bound, bool in_transaction);

}  // namespace pgrange::proxy::exec
