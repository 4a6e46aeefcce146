#include "sql/index_statement.hpp"

#include <gtest/gtest.h>

#include "sql/parse_node.hpp"

namespace pgrange::sql {
namespace {

using Names = std::vector<std::string>;

IndexSpec read(std::string_view sql) {
  auto r = read_index_statement(sql);
  EXPECT_TRUE(r.has_value()) << sql << ": " << (r ? "" : r.error().message);
  EXPECT_TRUE(r.has_value() && r->has_value()) << sql;
  return r && *r ? **r : IndexSpec{};
}

Error error_of(std::string_view sql) {
  auto r = read_index_statement(sql);
  EXPECT_FALSE(r.has_value()) << sql;
  return r ? Error{} : r.error();
}

/// libpg_query parses `sql` as one CREATE INDEX.
bool parses_as_index(const std::string& sql) {
  auto tree = parse_tree(sql);
  return tree && (*tree)->n_stmts == 1 &&
         (*tree)->stmts[0]->stmt->node_case == PG_QUERY__NODE__NODE_INDEX_STMT;
}

TEST(IndexStatement, NamesTableAndColumnsAreFolded) {
  IndexSpec s = read(R"(CREATE UNIQUE INDEX "ByEmail" ON App."Users" (Email, "Tenant Id"))");
  EXPECT_TRUE(s.unique);
  EXPECT_FALSE(s.if_not_exists);
  EXPECT_FALSE(s.concurrently);
  EXPECT_EQ(s.name, "ByEmail");
  EXPECT_EQ(s.table, (TableRef{"app", "Users"}));
  EXPECT_EQ(s.columns, (Names{"email", "Tenant Id"}));
  EXPECT_TRUE(s.storing.empty());
  EXPECT_FALSE(s.local);
  EXPECT_FALSE(s.hashed);
  EXPECT_EQ(s.buckets, 0u);
  EXPECT_EQ(s.global_blocker, "");
  EXPECT_EQ(s.shard_sql, R"(CREATE UNIQUE INDEX "ByEmail" ON App."Users" (Email, "Tenant Id"))");
}

TEST(IndexStatement, FlagsAndMissingName) {
  IndexSpec s = read("create index concurrently if not exists Idx_A on t (a);");
  EXPECT_TRUE(s.concurrently);
  EXPECT_TRUE(s.if_not_exists);
  EXPECT_FALSE(s.unique);
  EXPECT_EQ(s.name, "idx_a");
  EXPECT_EQ(s.table, (TableRef{"", "t"}));
  EXPECT_EQ(s.shard_sql, "create index concurrently if not exists Idx_A on t (a);");

  IndexSpec unnamed = read("CREATE INDEX ON t USING btree (b, a)");
  EXPECT_EQ(unnamed.name, "");
  EXPECT_EQ(unnamed.columns, (Names{"b", "a"}));
  EXPECT_EQ(unnamed.global_blocker, "");
  IndexSpec asc = read("CREATE INDEX ON t (a ASC)");
  EXPECT_EQ(asc.global_blocker, "");
}

TEST(IndexStatement, StoringAndInclude) {
  IndexSpec s = read("CREATE INDEX i ON t (a) STORING (B, \"C\")");
  EXPECT_EQ(s.columns, (Names{"a"}));
  EXPECT_EQ(s.storing, (Names{"b", "C"}));
  EXPECT_EQ(s.shard_sql, "CREATE INDEX i ON t (a) INCLUDE (B, \"C\")");
  EXPECT_EQ(s.global_blocker, "");

  IndexSpec inc = read("CREATE INDEX i ON t (a) INCLUDE (b, c) WHERE storing(a)");
  EXPECT_EQ(inc.storing, (Names{"b", "c"}));
  EXPECT_EQ(inc.global_blocker, "WHERE");
  EXPECT_EQ(inc.shard_sql, "CREATE INDEX i ON t (a) INCLUDE (b, c) WHERE storing(a)");

  // Columns and indexes named like the clauses are not clauses.
  IndexSpec words = read("CREATE INDEX storing ON storing (storing) STORING (hash, \"using\")");
  EXPECT_EQ(words.name, "storing");
  EXPECT_EQ(words.table.name, "storing");
  EXPECT_EQ(words.columns, (Names{"storing"}));
  EXPECT_EQ(words.storing, (Names{"hash", "using"}));
  EXPECT_EQ(words.shard_sql, "CREATE INDEX storing ON storing (storing) INCLUDE (hash, \"using\")");
}

TEST(IndexStatement, LocalIndexes) {
  for (std::string_view sql : {
           "CREATE INDEX i ON t (a) WITH (local)",
           "CREATE INDEX i ON t (a) WITH (local = true)",
           "CREATE INDEX i ON t (a) WITH (LOCAL = on)",
           "CREATE INDEX i ON t (a) WITH (local = 1)",
           "CREATE INDEX i ON t (a) WITH (\"local\" = 'yes')",
       }) {
    IndexSpec s = read(sql);
    EXPECT_TRUE(s.local) << sql;
    EXPECT_EQ(s.global_blocker, "") << sql;
    EXPECT_EQ(s.shard_sql, "CREATE INDEX i ON t (a)") << sql;
  }
  for (std::string_view sql : {
           "CREATE INDEX i ON t (a) WITH (local = false)",
           "CREATE INDEX i ON t (a) WITH (local = off)",
           "CREATE INDEX i ON t (a) WITH (local = 0)",
       }) {
    IndexSpec s = read(sql);
    EXPECT_FALSE(s.local) << sql;
    EXPECT_EQ(s.shard_sql, "CREATE INDEX i ON t (a)") << sql;
  }
  // The words on either side of a removed WITH stay apart.
  IndexSpec glued =
      read("CREATE UNIQUE INDEX i ON t (a) NULLS NOT DISTINCT WITH (local)WHERE a > 1");
  EXPECT_EQ(glued.shard_sql, "CREATE UNIQUE INDEX i ON t (a) NULLS NOT DISTINCT WHERE a > 1");
  EXPECT_EQ(glued.global_blocker, "WHERE");
  EXPECT_TRUE(glued.nulls_not_distinct);
  IndexSpec mixed = read(
      "CREATE INDEX i ON t (a) STORING (b) WITH (fillfactor = 70, local, deduplicate_items = off) "
      "WHERE a > 0");
  EXPECT_TRUE(mixed.local);
  EXPECT_EQ(mixed.storing, (Names{"b"}));
  EXPECT_EQ(mixed.global_blocker, "storage parameters fillfactor, deduplicate_items");
  EXPECT_EQ(mixed.shard_sql,
            "CREATE INDEX i ON t (a) INCLUDE (b) WITH (fillfactor = 70, deduplicate_items = off) "
            "WHERE a > 0");
}

TEST(IndexStatement, HashSharded) {
  IndexSpec d = read("CREATE INDEX i ON t (a, b) USING HASH");
  EXPECT_TRUE(d.hashed);
  EXPECT_EQ(d.buckets, 16u);
  EXPECT_EQ(d.columns, (Names{"a", "b"}));
  EXPECT_EQ(d.global_blocker, "");
  EXPECT_EQ(d.shard_sql, "CREATE INDEX i ON t (a, b)");

  IndexSpec n = read("CREATE UNIQUE INDEX ON t (a) USING HASH STORING (c) WITH (bucket_count = 8)");
  EXPECT_TRUE(n.hashed);
  EXPECT_EQ(n.buckets, 8u);
  EXPECT_EQ(n.storing, (Names{"c"}));
  EXPECT_EQ(n.shard_sql, "CREATE UNIQUE INDEX ON t (a) INCLUDE (c)");

  IndexSpec old = read("create index i on t (a) using hash with bucket_count = 2 storing (b);");
  EXPECT_EQ(old.buckets, 2u);
  EXPECT_EQ(old.storing, (Names{"b"}));
  EXPECT_EQ(old.shard_sql, "create index i on t (a) include (b);");
  EXPECT_EQ(read("create index i on t (a) with (local=false,fillfactor=5)").shard_sql,
            "create index i on t (a) with (fillfactor=5)");

  IndexSpec kept =
      read("CREATE INDEX i ON t (a) USING HASH WITH (bucket_count = 2048, fillfactor=50)");
  EXPECT_EQ(kept.buckets, 2048u);
  EXPECT_EQ(kept.global_blocker, "storage parameter fillfactor");
  EXPECT_EQ(kept.shard_sql, "CREATE INDEX i ON t (a) WITH (fillfactor=50)");

  // A line comment before the clause keeps its newline: what follows stays code.
  IndexSpec comment = read("CREATE INDEX i ON t (a) -- hashed\nUSING HASH STORING (b)");
  EXPECT_EQ(comment.shard_sql, "CREATE INDEX i ON t (a) -- hashed\n INCLUDE (b)");
}

TEST(IndexStatement, ShardSqlReparses) {
  for (std::string_view sql : {
           "CREATE INDEX i ON t (a) STORING (b)",
           "CREATE INDEX i ON t (a) USING HASH",
           "CREATE INDEX i ON t (a)USING HASH STORING(b)WITH(bucket_count=4)WHERE a > 1",
           "CREATE UNIQUE INDEX i ON t (a) NULLS NOT DISTINCT WITH (local)WHERE a > 1",
           "CREATE INDEX i ON t (a) WITH (local) TABLESPACE pg_default",
           "CREATE INDEX i ON t (a) USING HASH WITH (bucket_count = 3, local = false)",
           "CREATE INDEX i ON t (a) /* c */ USING HASH /* d */ STORING /* e */ (b)",
           "CREATE INDEX i ON t (a) WITH (local, fillfactor = 10)",
           "CREATE INDEX i ON ONLY t USING gin (a) WITH (fastupdate = off, local = on)",
       }) {
    auto r = read_index_statement(sql);
    ASSERT_TRUE(r.has_value() && r->has_value()) << sql << (r ? "" : ": " + r.error().message);
    EXPECT_TRUE(parses_as_index((*r)->shard_sql)) << sql << " -> " << (*r)->shard_sql;
  }
}

TEST(IndexStatement, GlobalBlockers) {
  struct Case {
    std::string_view sql;
    std::string_view blocker;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"CREATE INDEX i ON t (lower(a))", "expression"},
           {"CREATE INDEX i ON t ((a + b))", "expression"},
           {"CREATE INDEX i ON t (a, b DESC)", "DESC"},
           {"CREATE INDEX i ON t (a NULLS FIRST)", "NULLS FIRST"},
           {"CREATE INDEX i ON t (a ASC NULLS LAST)", "NULLS LAST"},
           {"CREATE INDEX i ON t (a COLLATE \"C\")", "COLLATE"},
           {"CREATE INDEX i ON t (a text_pattern_ops)", "operator class"},
           {"CREATE INDEX i ON t (a) WHERE a IS NOT NULL", "WHERE"},
           {"CREATE INDEX i ON t USING hash (a)", "USING hash"},
           {"CREATE INDEX i ON t USING GIN (a)", "USING gin"},
           {"CREATE INDEX i ON t (a) WITH (fillfactor = 70)", "storage parameter fillfactor"},
           {"CREATE INDEX i ON t (a) WITH (toast.x = 1)", "storage parameter toast.x"},
           {"CREATE INDEX i ON ONLY t (a)", "ONLY"},
           {"CREATE UNIQUE INDEX i ON t (a) NULLS NOT DISTINCT", ""},
           {"CREATE INDEX i ON t (a) INCLUDE ((b))", "expression"},
           // The first one in the statement.
           {"CREATE INDEX i ON t USING brin (a DESC) WHERE b", "USING brin"},
       }) {
    EXPECT_EQ(read(c.sql).global_blocker, c.blocker) << c.sql;
  }
  IndexSpec e = read("CREATE INDEX i ON t (a, lower(b), c)");
  EXPECT_EQ(e.columns, (Names{"a", "c"}));
}

TEST(IndexStatement, OtherStatementsAreNotIndexes) {
  for (std::string_view sql : {
           "SELECT 1",
           "CREATE TABLE t (a int)",
           "CREATE UNIQUE TABLE x",
           "DROP INDEX i",
           "CREATE SCHEMA s CREATE INDEX i ON t (a)",
           "SELECT 'unterminated",
           "",
       }) {
    auto r = read_index_statement(sql);
    ASSERT_TRUE(r.has_value()) << sql << ": " << r.error().message;
    EXPECT_FALSE(r->has_value()) << sql;
  }
}

TEST(IndexStatement, Errors) {
  struct Case {
    std::string_view sql;
    std::string_view sqlstate;
    std::string_view message_part;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"CREATE INDEX i ON t (a) STORING b", "42601", "STORING"},
           {"CREATE INDEX i ON t (a) STORING ()", "42601", "column name"},
           {"CREATE INDEX i ON t (a) STORING (b", "42601", ")"},
           {"CREATE INDEX i ON t (a) STORING (b) INCLUDE (c)", "42601", "STORING and INCLUDE"},
           {"CREATE INDEX i ON t (a) INCLUDE (c) STORING (b)", "42601", "STORING and INCLUDE"},
           {"CREATE INDEX i ON t (a) STORING (b) STORING (c)", "42601", "twice"},
           {"CREATE INDEX i ON t (a) USING HASH USING HASH", "42601", "twice"},
           {"CREATE INDEX i ON t (a) USING HASH WITH bucket_count 4", "42601", "="},
           {"CREATE INDEX i ON t (a) USING HASH WITH buckets = 4", "42601", "BUCKET_COUNT"},
           {"CREATE INDEX i ON t (a) USING HASH WITH bucket_count =", "42601", "bucket count"},
           {"CREATE INDEX i ON t (a) WITH (bucket_count 4) USING HASH", "42601", "syntax error"},
           {"CREATE INDEX i ON t (a) WITH () USING HASH", "42601", "syntax error"},
           {"CREATE INDEX i ON t (a) USING HASH WITH (local = true)", "22023", "local index"},
           {"CREATE INDEX i ON t (a) WITH (local = maybe)", "22023", "\"local\""},
           {"CREATE INDEX i ON t (a) WITH (local = 2)", "22023", "\"local\""},
           {"CREATE INDEX i ON t (a) WITH (local, local = false)", "22023", "more than once"},
           {"CREATE INDEX i ON t (a) WITH (bucket_count = 8)", "22023", "hash-sharded"},
           {"CREATE INDEX i ON t (a) USING HASH WITH bucket_count = 4 WITH (bucket_count = 4)",
            "22023", "more than once"},
           {"CREATE INDEX i ON t (a) SELECT", "42601", "syntax error"},
           {"CREATE INDEX i ON t (a); SELECT 1", "0A000", "alone"},
       }) {
    Error e = error_of(c.sql);
    EXPECT_EQ(e.sqlstate, c.sqlstate) << c.sql << ": " << e.message;
    EXPECT_NE(e.message.find(c.message_part), std::string::npos) << c.sql << ": " << e.message;
  }
}

TEST(IndexStatement, BadBucketCounts) {
  for (std::string_view sql : {
           "CREATE INDEX i ON t (a) USING HASH WITH (bucket_count = 0)",
           "CREATE INDEX i ON t (a) USING HASH WITH (bucket_count = 1)",
           "CREATE INDEX i ON t (a) USING HASH WITH (bucket_count = 2049)",
           "CREATE INDEX i ON t (a) USING HASH WITH (bucket_count = -3)",
           "CREATE INDEX i ON t (a) USING HASH WITH (bucket_count = 2.5)",
           "CREATE INDEX i ON t (a) USING HASH WITH (bucket_count = 'x')",
           "CREATE INDEX i ON t (a) USING HASH WITH (bucket_count = 99999999999)",
           "CREATE INDEX i ON t (a) USING HASH WITH (bucket_count)",
           "CREATE INDEX i ON t (a) USING HASH WITH bucket_count = 1",
           "CREATE INDEX i ON t (a) USING HASH WITH bucket_count = -8",
           "CREATE INDEX i ON t (a) USING HASH WITH bucket_count = 'x'",
       }) {
    Error e = error_of(sql);
    EXPECT_EQ(e.sqlstate, "22023") << sql;
    EXPECT_NE(e.message.find("bucket count must be in range [2, 2048]"), std::string::npos)
        << e.message;
  }
  EXPECT_EQ(read("CREATE INDEX i ON t (a) USING HASH WITH (bucket_count = '32')").buckets, 32u);
}

// The expected names are those PostgreSQL 15 gave the same CREATE INDEX without a name.
TEST(IndexStatement, DefaultIndexNamesAreThoseOfPostgres) {
  EXPECT_EQ(default_index_name("t", {"a"}), "t_a_idx");
  EXPECT_EQ(default_index_name("t", {"a", "b"}), "t_a_b_idx");
  // CREATE INDEX ON expr_t (a) INCLUDE (a): PostgreSQL names the included columns too.
  EXPECT_EQ(default_index_name("expr_t", {"a", "a"}), "expr_t_a_a1_idx");
  EXPECT_EQ(default_index_name("t", {"Mixed Col"}), "t_Mixed Col_idx");
  EXPECT_EQ(default_index_name("t", {"b", "b"}), "t_b_b1_idx");
  EXPECT_EQ(default_index_name("Tab", {"id"}), "Tab_id_idx");
  // A UNIQUE constraint's, and the numbered names tried when a name is taken: the number is
  // part of the label, so a long name is shortened to make room for it.
  EXPECT_EQ(default_index_name("p", {"email"}, "key"), "p_email_key");
  EXPECT_EQ(default_index_name("p", {"a", "b"}, "key1"), "p_a_b_key1");
  EXPECT_EQ(default_index_name("a_rather_long_table_name_for_pgrange_index_naming_tests_xx", {"x"},
                               "key12"),
            "a_rather_long_table_name_for_pgrange_index_naming_tests_x_key12");
  EXPECT_EQ(default_index_name("a_rather_long_table_name_for_pgrange_index_naming_tests_xx", {"x"},
                               "key1"),
            "a_rather_long_table_name_for_pgrange_index_naming_tests__x_key1");
  // The longer part is shortened first.
  EXPECT_EQ(default_index_name(
                "a_rather_long_table_name_for_pgrange_index_naming_tests_xx",
                {"first_long_column_name_for_pgrange", "second_long_column_name_for_pgrange"}),
            "a_rather_long_table_name_for__first_long_column_name_for_pg_idx");
  EXPECT_EQ(default_index_name("a_rather_long_table_name_for_pgrange_index_naming_tests_xx", {"x"}),
            "a_rather_long_table_name_for_pgrange_index_naming_tests_x_x_idx");
  EXPECT_EQ(default_index_name("short", {"first_long_column_name_for_pgrange",
                                         "second_long_column_name_for_pgrange",
                                         "third_long_column_name_for_pgrange_x"}),
            "short_first_long_column_name_for_pgrange_second_long_column_idx");
  // Multi-byte names are cut between characters (ä and ö are two bytes each).
  EXPECT_EQ(default_index_name("ääääääääääääääääääääääääääääää", {"ööööööööööööööööööööööööööööö"}),
            "ääääääääääääää_öööööööööööööö_idx");
  EXPECT_EQ(default_index_name("täbläääääääääääääääääääääääääääää", {"c1"}),
            "täbläääääääääääääääääääääääää_c1_idx");
}

}  // namespace
}  // namespace pgrange::sql
