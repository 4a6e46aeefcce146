#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "sql/foreign_key_constraint.hpp"
#include "sql/table_constraint.hpp"

namespace pgrange::sql {

/// What a statement does, as far as routing it is concerned.
enum class StatementKind {
  kEmpty,
  kSelect,
  kInsert,
  kUpdate,
  kDelete,
  kCreateTable,
  kDropTable,
  kAlterTable,
  kTruncate,
  kCreateIndex,
  kDropIndex,
  kVacuum,
  kAnalyze,
  kCopy,
  kTransaction,
  /// CREATE [OR REPLACE] VIEW, CREATE MATERIALIZED VIEW (`materialized`).
  kCreateView,
  /// DDL of any other object of the database's schema that every shard must hold alike: types,
  /// domains, functions and procedures, sequences, schemas, extensions, views (ALTER, DROP),
  /// triggers, rules, policies, comments, grants, casts, operators, statistics, foreign
  /// servers and tables, text search objects, REFRESH MATERIALIZED VIEW, REINDEX, CLUSTER, …
  kSchemaDdl,
  /// Roles, the server's objects: CREATE, ALTER, DROP ROLE (USER, GROUP), GRANT and REVOKE of
  /// a role's membership, ALTER ROLE … RENAME. Run once on each server holding shards; for
  /// CREATE ROLE `target.name` is the role.
  kRoleDdl,
  kOtherUtility
};

/// A relation named in a statement, with the names PostgreSQL folds (unquoted identifiers in lower
/// case, quoted ones exactly as written). `schema` is empty when the name is not qualified.
struct TableRef {
  std::string schema;
  std::string name;

  bool operator==(const TableRef&) const = default;
};

/// A value written in the statement for a column: a constant (with an optional cast), NULL, a
/// $n parameter, or a sum and difference of those (`$1 + 100`, `500 - 10`).
struct ValueRef {
  enum class Kind { kConst, kNull, kParam, kSum };
  Kind kind = Kind::kConst;
  /// The constant's text as written: numbers as written ("-5" for a negated numeric constant),
  /// strings unquoted and unescaped, booleans "true"/"false". Empty for kNull and kParam.
  std::string text;
  /// The type of an explicit cast ('…'::uuid, CAST(x AS int8)) as canonical lower-case PostgreSQL
  /// name (see ColumnInfo::type), else empty. With nested casts, the outermost one.
  std::string cast_type;
  /// $n, 1-based, for kParam.
  int param = 0;
  /// Byte offset of the constant in the statement text (of the minus sign when the grammar
  /// folded one into it), -1 when unknown.
  int location = -1;
  /// How to write the constant into another statement (value_sql): a string constant (else a
  /// number or boolean, written as its text), and the SQL of its cast's type.
  bool quoted = false;
  std::string cast_sql;
  /// pgrange cannot write it back (a bit string, a cast to a type with modifiers or arrays).
  bool unwritable = false;
  /// kSum: the terms added up, in the order written (never a kSum themselves); a term written
  /// after a minus sign (`$1 - 5`, or inside `- (…)`) is `subtracted`.
  std::vector<ValueRef> terms;
  bool subtracted = false;

  /// Equal values (where they were written does not matter).
  bool operator==(const ValueRef& o) const {
    return kind == o.kind && text == o.text && cast_type == o.cast_type && param == o.param &&
           subtracted == o.subtracted && terms == o.terms;
  }
};

/// A column definition of CREATE TABLE or ALTER TABLE … ADD COLUMN.
struct ColumnInfo {
  std::string name;
  /// Canonical PostgreSQL type name: "int4", "int8", "int2", "text", "varchar", "bpchar",
  /// "numeric", "float4", "float8", "bool", "bytea", "uuid", "date", "timestamp", "timestamptz";
  /// serial, bigserial and smallserial (and serial4/serial8/serial2) as "serial", "bigserial",
  /// "smallserial"; arrays as "int4[]"; anything else its last name component in lower case.
  std::string type;
  /// NOT NULL written on the column, or the column is part of the PRIMARY KEY.
  bool not_null = false;
  /// A value the column gets by default that each server computes differently (a serial or
  /// identity column's sequence, DEFAULT now(), random(), …): how it is written ("serial",
  /// "GENERATED AS IDENTITY", "now()"); empty otherwise.
  std::string varying_default = {};

  bool operator==(const ColumnInfo&) const = default;
};

/// What pgrange needs to know about one SQL statement to route it.
/// What a WHERE clause says about columns: AND/OR of comparisons of a column with a value.
/// Anything else (functions, NOT, comparisons of two columns, …) is kOpaque: it may be true or
/// false for any row, so it constrains nothing.
struct Condition {
  enum class Kind { kAnd, kOr, kCompare, kIn, kIsNull, kLike, kOpaque };
  Kind kind = Kind::kOpaque;
  std::string column;               ///< kCompare, kIn, kIsNull, kLike
  std::string op;                   ///< kCompare: "=", "<", "<=", ">" or ">=" (column op value)
  std::vector<ValueRef> values;     ///< kCompare: one; kIn: the list; kLike: the pattern
                                    ///< (like_prefix_of tells whether it is a prefix match)
  std::vector<Condition> children;  ///< kAnd, kOr

  bool operator==(const Condition&) const = default;
};

/// One mention of a relation in a statement, and how the statement uses it.
struct RelationUse {
  TableRef table;
  /// The construct through which the statement reads or writes it, for messages: "FROM",
  /// "JOIN", "UPDATE … FROM", "DELETE … USING", "MERGE … USING", "INSERT … SELECT", "subquery",
  /// "subquery in FROM", "LATERAL", "WITH", "UNION", "INTERSECT", "EXCEPT"; for the table an
  /// INSERT, UPDATE, DELETE, MERGE or COPY writes, that word.
  std::string construct;
  /// The statement's own target (INSERT/UPDATE/DELETE/MERGE/COPY, not one inside a WITH).
  bool target = false;
  /// The statement writes rows of it: its target, or an INSERT/UPDATE/DELETE/MERGE in a WITH
  /// (COPY only when FROM).
  bool writes = false;
  /// What the conditions of its query level say about its columns: the WHERE clause and the ON
  /// conditions of the joins above it, as far as no outer join adds rows of NULLs for it (the
  /// rows of it that fail them count for nothing). nullopt when none can narrow it.
  std::optional<Condition> where;
  /// Byte offset of its name in the statement text (of the schema when qualified).
  int location = -1;
  /// A FROM or JOIN item of a query (not a write's target, TABLESAMPLE or any other place): its
  /// name may be replaced by a derived table of the same rows.
  bool from_item = false;
  /// Written with an alias (FROM t AS x, FROM t x).
  bool aliased = false;
  /// A FROM item of the statement's own SELECT (no set operation, not in a subquery or CTE)
  /// that no outer join puts on its NULL-extended side: run over a part of its rows (every other
  /// relation whole), the SELECT's FROM gives exactly the rows made from that part, so the
  /// answers over its parts add up to the answer over all of it.
  bool preserved = false;
  /// FROM ONLY t: no rows of its inheritance children or partitions.
  bool only = false;
  /// Equalities of its columns with another relation's, among the conditions that narrow it
  /// (`where`): every row of it that counts has, for each, a row of the other relation with an
  /// equal (so not NULL) value. Both columns written qualified.
  struct Equality {
    std::string column;  ///< its column
    int other = -1;      ///< the other relation use's `location`
    std::string other_column;
    bool operator==(const Equality&) const = default;
  };
  std::vector<Equality> equalities;
  /// A FROM item of the statement's own SELECT (not in a subquery or CTE), preserved or not.
  bool top_from = false;
  /// For such an item: each outer join that adds rows of NULLs for it (it is on that join's
  /// NULL-extended side; both sides of a FULL JOIN are), with what the join keeps on its other
  /// side and the equalities of its ON between the two sides.
  struct OuterJoin {
    std::vector<int> kept;  ///< `location` of each relation on the side the join keeps
    struct Pair {
      int nullable = -1;  ///< a relation on this item's side (its location), and its column
      std::string nullable_column;
      int kept = -1;  ///< a relation on the other side, and its column
      std::string kept_column;
      bool operator==(const Pair&) const = default;
    };
    std::vector<Pair> pairs;  ///< ON conjuncts `a.x = b.y`, both qualified
    bool operator==(const OuterJoin&) const = default;
  };
  std::vector<OuterJoin> null_extended_by;

  bool operator==(const RelationUse&) const = default;
};

struct StatementInfo {
  StatementKind kind = StatementKind::kEmpty;
  /// Byte offsets of this statement in the original text ([begin, end), without the ';'; as
  /// PostgreSQL's stmt_location/stmt_len, so leading whitespace and comments may be included).
  size_t begin = 0;
  size_t end = 0;
  /// Every relation referenced anywhere in the statement (FROM, JOIN, subqueries, CTE bodies,
  /// INSERT/UPDATE/DELETE target, USING, DDL targets, REFERENCES/LIKE/INHERITS, TRUNCATE list,
  /// VACUUM/ANALYZE list, COPY table, the inner statement of EXPLAIN), deduplicated, in order of
  /// first appearance in the text. Names of CTEs in scope are not tables.
  std::vector<TableRef> tables;
  /// INSERT/UPDATE/DELETE/COPY/CREATE TABLE [AS]/SELECT INTO/ALTER TABLE/CREATE INDEX: the table.
  TableRef target;
  /// Exactly one relation, referenced once, and no subquery, CTE, join, function or TABLESAMPLE
  /// in FROM, or set operation anywhere.
  bool single_table = false;
  /// When the statement names a relation and is not single_table: every mention of a relation,
  /// with how it is used (sql/relation_uses.hpp), in order of appearance. Empty otherwise (a
  /// single-table statement's one mention is tables[0], its condition `where`).
  std::vector<RelationUse> relations;
  /// A SELECT whose FROM holds relations and joins of them only (no derived table, function,
  /// VALUES or CTE's name): every name its clauses use is a column of those relations or an
  /// output.
  bool plain_from = false;
  /// The functions the statement calls anywhere (schema empty when not qualified), once each, in
  /// order of first call: what they read counts as read by the statement (SQL functions pgrange
  /// knows the body of).
  std::vector<TableRef> functions;
  /// ALTER TABLE … ALTER COLUMN c SET DEFAULT e: (c, e's varying construct or "").
  std::vector<std::pair<std::string, std::string>> default_changes;
  /// CURRENT_DATE, CURRENT_TIME[STAMP], LOCALTIME[STAMP] somewhere in the statement: its value
  /// is the time of the transaction that runs it, which differs from shard to shard.
  bool reads_clock = false;
  /// SELECT/UPDATE/DELETE when single_table: the top-level AND-ed conjuncts of WHERE of the form
  /// `col = value` or `value = col` (col possibly qualified with the table name or alias; value a
  /// constant, a cast constant, a negative number or $n, possibly cast; never NULL), in order.
  std::vector<std::pair<std::string, ValueRef>> equalities;
  /// UPDATE … SET and INSERT … ON CONFLICT DO UPDATE SET: the columns assigned.
  std::vector<std::string> set_columns;
  /// SELECT/UPDATE/DELETE when single_table and there is a WHERE: the condition it puts on the
  /// table's columns (BETWEEN becomes an AND of two comparisons).
  std::optional<Condition> where;
  /// INSERT: the explicit column list (empty: all columns in table order).
  std::vector<std::string> insert_columns;
  /// INSERT … VALUES rows; nullopt for an entry that is not a constant, NULL or parameter
  /// (DEFAULT, an expression, a function call).
  std::vector<std::vector<std::optional<ValueRef>>> insert_rows;
  /// INSERT whose source is a VALUES list (false for INSERT … SELECT and DEFAULT VALUES).
  bool insert_values = false;
  bool on_conflict = false;
  bool on_conflict_update = false;  ///< ON CONFLICT … DO UPDATE
  /// ON CONFLICT (columns): the conflict target's columns ("" for an expression); empty when
  /// it names none (or names a constraint: conflict_constraint).
  std::vector<std::string> conflict_columns;
  std::string conflict_constraint;  ///< ON CONFLICT ON CONSTRAINT name
  bool returning = false;
  /// SELECT: why the results of running it on several shards cannot simply be concatenated: a
  /// short SQL construct name ("ORDER BY", "LIMIT", "OFFSET", "aggregate count()", "GROUP BY",
  /// "DISTINCT", "HAVING", "window function", "UNION", "INTERSECT", "EXCEPT", "subquery", "JOIN",
  /// "WITH", "FOR UPDATE", "FOR SHARE", "set-returning function", "TABLESAMPLE", "VALUES",
  /// "no table"); empty when they can. Always empty for other kinds.
  std::string fanout_blocker;
  /// SELECT count(…) FROM t [WHERE …] and nothing else: run on several shards, the answer is the
  /// sum of theirs (fanout_blocker still names the aggregate, for where that is not done).
  bool sums_counts = false;
  /// SELECT … INTO (kind kCreateTable, create_as).
  bool select_into = false;
  /// A SELECT, INSERT, UPDATE or DELETE with FOR UPDATE / FOR SHARE (…) anywhere in it.
  bool locks_rows = false;
  /// What the statement does to sequences, which pgrange's cluster-wide sequences must follow:
  /// ALTER SEQUENCE (kind kSchemaDdl, `target` the sequence), with RESTART; ALTER TABLE …
  /// ALTER COLUMN … SET identity options (each column, and whether RESTART is among them);
  /// TRUNCATE … RESTART IDENTITY.
  bool alters_sequence = false;
  bool restarts_sequence = false;
  std::vector<std::pair<std::string, bool>> identity_changes;
  bool restart_identity = false;
  /// DECLARE … CURSOR (kind kOtherUtility): `where` and `equalities` are its query's, which
  /// decides the shards it runs on.
  bool declares_cursor = false;

  // DDL
  /// CREATE TABLE: the column definitions in order.
  std::vector<ColumnInfo> columns;
  /// CREATE TABLE: the PRIMARY KEY columns (column or table constraint), in key order;
  /// ALTER TABLE … ADD [CONSTRAINT x] PRIMARY KEY (cols) or ADD COLUMN … PRIMARY KEY: those.
  std::vector<std::string> primary_key;
  bool if_not_exists = false;  ///< CREATE … IF NOT EXISTS, ALTER TABLE … ADD COLUMN IF NOT EXISTS
  bool if_exists = false;      ///< DROP … IF EXISTS, ALTER TABLE IF EXISTS
  /// CREATE TEMP TABLE, SELECT INTO TEMP, CREATE TEMP VIEW/SEQUENCE, an object in pg_temp.
  bool temporary = false;
  bool materialized = false;     ///< kCreateView: CREATE MATERIALIZED VIEW
  bool create_as = false;        ///< CREATE TABLE … AS, SELECT … INTO
  bool create_as_empty = false;  ///< CREATE TABLE … AS … WITH NO DATA
  /// CREATE TABLE with a hash-sharded PRIMARY KEY (… USING HASH WITH (bucket_count = N)): N
  /// (the session strips the clause, strip_hash_sharding, before analysis: libpg_query cannot
  /// parse it).
  uint32_t hash_buckets = 0;
  /// The statement as the shards run it when pgrange rewrote it (a CREATE TABLE without its
  /// USING HASH, a local CREATE INDEX without STORING or pgrange's storage parameters); empty
  /// when they run it as written.
  std::string rewritten_sql;
  /// A statement PostgreSQL refuses inside a transaction block (25001, PreventInTransactionBlock):
  /// the words its message starts with ("CREATE INDEX CONCURRENTLY", "VACUUM", "REINDEX
  /// DATABASE", …); empty for any other.
  std::string block_refusal;
  /// CREATE TABLE … INHERITS (p, …) or PARTITION OF p: the tables whose columns (and, through
  /// pgrange, whose ranges) it takes.
  std::vector<TableRef> parents;
  /// CREATE TABLE … PARTITION OF (parents then holds the partitioned table).
  bool partition_of = false;
  /// CREATE TABLE … OF type.
  bool of_type = false;
  /// ALTER TABLE … ATTACH / DETACH PARTITION, INHERIT, NO INHERIT, OF, NOT OF: a table joins
  /// or leaves another's family.
  bool changes_parents = false;
  /// CREATE TABLE (LIKE …): its columns, constraints and indexes partly come from another table.
  bool has_like = false;
  /// The tables of its LIKE clauses that copy indexes (INCLUDING INDEXES or ALL).
  std::vector<TableRef> like_indexes;
  std::vector<ColumnInfo> added_columns;     ///< ALTER TABLE ADD COLUMN
  std::vector<std::string> dropped_columns;  ///< ALTER TABLE DROP COLUMN
  /// ALTER TABLE t RENAME TO x; for kSchemaDdl, the new name of whatever it renames.
  std::optional<std::string> rename_to;
  /// GRANT or REVOKE on objects, a change of owner (ALTER … OWNER TO, REASSIGN OWNED), DROP
  /// OWNED: the privileges of the tables named (`tables`; none named: any table) may change.
  bool changes_privileges = false;
  /// ALTER TABLE t RENAME [COLUMN] a TO b: (a, b); alter_other is set too.
  std::optional<std::pair<std::string, std::string>> renamed_column;
  /// CREATE TABLE: its PRIMARY KEY, UNIQUE and EXCLUDE constraints; ALTER TABLE: those its ADD
  /// CONSTRAINT and ADD COLUMN subcommands add.
  std::vector<TableConstraint> constraints;
  /// CREATE TABLE: its FOREIGN KEY constraints; ALTER TABLE: those its ADD CONSTRAINT and ADD
  /// COLUMN subcommands add.
  std::vector<ForeignKeyConstraint> foreign_keys;
  /// ALTER TABLE … DROP CONSTRAINT name: the names, in order.
  std::vector<std::string> dropped_constraints;
  /// ALTER TABLE: how many subcommands it has.
  size_t alter_commands = 0;
  /// ALTER TABLE with any other subcommand (ALTER COLUMN TYPE, SET …, other constraints, …).
  bool alter_other = false;
  std::vector<std::string> altered_type_columns;  ///< ALTER TABLE … ALTER COLUMN c TYPE …
  /// The collations named by COLLATE on column definitions (CREATE TABLE, ADD COLUMN, ALTER
  /// COLUMN … TYPE), last name component as written.
  std::vector<std::string> column_collations;
  bool cascade = false;  ///< DROP … CASCADE, TRUNCATE … CASCADE, ALTER TABLE … DROP … CASCADE
  /// CREATE INDEX: the index name (empty when PostgreSQL picks it).
  std::string index_name;
  bool unique_index = false;  ///< CREATE UNIQUE INDEX
  /// DROP of any object kind: the dropped objects' names (for DROP TABLE the same as `tables`).
  std::vector<TableRef> dropped_objects;
  bool copy_from = false;   ///< COPY … FROM (vs TO)
  bool copy_query = false;  ///< COPY (SELECT …) TO
  /// kTransaction: "begin", "start", "commit", "rollback", "savepoint", "release", "rollback_to",
  /// "prepare", "commit_prepared", "rollback_prepared".
  std::string transaction_kind;
  /// kTransaction: the savepoint name or the prepared transaction's gid, if any.
  std::string transaction_name;
};

/// Parses `sql` (possibly several statements separated by ';') with PostgreSQL's grammar
/// (libpg_query) and describes each statement, in order. A syntax error is an Error with SQLSTATE
/// 42601 and PostgreSQL's message, followed by " at character N" (1-based, as PostgreSQL's
/// error position) when the position is known. An empty string or only comments → empty vector.
Result<std::vector<StatementInfo>> analyze_statements(std::string_view sql);

/// The text of a LIKE pattern before its first wildcard, or nullopt when the pattern has no
/// wildcard or escapes one (then it is not a prefix match pgrange can route).
std::optional<std::string> like_prefix_of(std::string_view pattern);

/// The canonical name of a kind ("select", "create_table", …), for logs and tests.
std::string_view statement_kind_name(StatementKind kind);

/// A function whose value differs from one server's call to another's, as each computes it:
/// time (now(), clock_timestamp(), …), chance (random(), gen_random_uuid(), …), a sequence
/// (nextval(), …), the server's own identity (pg_backend_pid(), …).
bool varies_by_server(const TableRef& function);

}  // namespace pgrange::sql
