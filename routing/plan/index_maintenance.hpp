#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "routing/meta/catalog.hpp"
#include "routing/meta/cluster_view.hpp"

/// Keeping global secondary indexes in step with their tables.
///
/// A row trigger on the table on every shard (index_trigger_sql) reports each changed row image
/// as a NoticeResponse with SQLSTATE PGRIX on the backend connection; pgrange reads those notes
/// off the connection (read_index_note, never passing them to the client) and turns them into
/// the writes of the index entries on the shards owning their keys (index_entry_writes).
///
/// A note's message is `<table_id><sign><fields>`: sign '-' for the row before the change
/// (UPDATE, DELETE), '+' for the row after it (INSERT, UPDATE); fields = for each column of
/// index_source_columns(t): `<byte length of name>:<name>` then `N` for NULL or
/// `<byte length of text>:<text>` (the value's ::text, with DateStyle ISO, bytea_output hex and
/// extra_float_digits >= 1 pinned while it is made, so keys parse the same in every session).
namespace pgrange::routing {

/// The SQLSTATE of the notices the index trigger raises.
inline constexpr std::string_view kIndexNoteSqlstate = "PGRIX";

/// The name of the index trigger (on "<schema>"."<table>") on every shard.
inline constexpr std::string_view kIndexTriggerName = "pgrange_index";

/// The name of the index trigger's function (in the table's schema): pgrange_index_<table_id>.
std::string index_trigger_function_name(const TableDescriptor& t);

/// SQL (several statements) that creates or replaces, on one shard, the trigger function and
/// the AFTER INSERT OR UPDATE OR DELETE … FOR EACH ROW trigger that report the table's changed
/// rows for its indexes (index_source_columns(t)); an UPDATE changing none of them reports
/// nothing. Notices get through whatever the session's client_min_messages.
std::string index_trigger_sql(const TableDescriptor& t);

/// SQL (a DO block) that gives the tables of t's global indexes on one shard the privileges
/// t's own grant (pgrange's internal role owns them): every role that may write t (INSERT,
/// UPDATE, DELETE or TRUNCATE, or owning it) may read and write them, as pgrange writes a
/// write's entries in its transaction, as its role; a role that may only read t may read them
/// (reads through the index); no other role may touch them.
std::string index_privileges_sql(const TableDescriptor& t);

/// SQL that drops the index trigger and its function from a shard (IF EXISTS).
std::string drop_index_trigger_sql(const TableDescriptor& t);

/// One row image a write reported for a table's indexes.
struct IndexNote {
  uint64_t table_id = 0;
  /// '+': the row after the write (INSERT, UPDATE); else '-': before it (UPDATE, DELETE).
  bool insert = false;
  /// (column, ::text value or nullopt for NULL), in index_source_columns order.
  std::vector<std::pair<std::string, std::optional<std::string>>> values;
  bool operator==(const IndexNote&) const = default;
};

/// Parses a note's message (`<table_id><+|-><fields>`); XX000 when it is malformed (bad
/// numbers, lengths past the end, a column named twice, trailing bytes).
Result<IndexNote> read_index_note_message(std::string_view message);

/// Reads a NoticeResponse body (fields: type byte, cstring, …, terminating 0): nullopt unless
/// its SQLSTATE (field 'C') is PGRIX; XX000 for a PGRIX notice without a well-formed message.
Result<std::optional<IndexNote>> read_index_note(std::string_view notice_body);

/// The writes that bring every index of `t` (whatever its state) in step with the notes of
/// `t` (notes of other tables are ignored), as one SQL string per shard pool index: first the
/// DELETEs (by row key) from "<schema>"."<table>@<index>", then the INSERTs, each entry on the
/// shard owning its key (index_prefix + the index_relation key). Several notes of one row (by
/// row key) net out: the entry before the first note is deleted, the entry after the last is
/// inserted, and nothing is written when they are the same entry on the same shard. Errors
/// name the index: XX000 for a value missing from a note or a key no range owns, the key
/// codec's (22P02, …) for a value that does not encode, 0A000 for indexes of a keyless table.
Result<std::map<int, std::string>> index_entry_writes(const ClusterView& view,
                                                      const TableDescriptor& t,
                                                      std::span<const IndexNote> notes);

}  // namespace pgrange::routing
