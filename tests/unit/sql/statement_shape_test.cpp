#include "sql/statement_shape.hpp"

#include <gtest/gtest.h>

#include <random>

#include "sql/where_condition.hpp"

namespace pgrange::sql {
namespace {

TEST(StatementShape, LiteralsComeOutAndTheRestStays) {
  auto sh = statement_shape("SELECT abalance FROM t WHERE aid = 42 AND name = 'it''s' -- 7\n");
  ASSERT_TRUE(sh);
  ASSERT_EQ(sh->literals.size(), 2u);
  EXPECT_EQ(sh->literals[0].value, "42");
  EXPECT_FALSE(sh->literals[0].is_string);
  EXPECT_EQ(sh->literals[1].value, "it's");
  EXPECT_TRUE(sh->literals[1].is_string);
  auto other = statement_shape("SELECT abalance FROM t WHERE aid = 7 AND name = 'x' -- 7\n");
  ASSERT_TRUE(other);
  EXPECT_EQ(sh->key, other->key);
  // Identifiers, parameters, quoted names and comments are part of the shape.
  for (auto [a, b] : std::vector<std::pair<std::string, std::string>>{
           {"SELECT 1 FROM t1", "SELECT 1 FROM t2"},
           {"SELECT $1", "SELECT $2"},
           {"SELECT \"a'b\" FROM t", "SELECT \"a'c\" FROM t"},
           {"SELECT 1 /* a */", "SELECT 1 /* b */"},
           {"SELECT 1", "SELECT '1'"},
       }) {
    auto sa = statement_shape(a), sb = statement_shape(b);
    ASSERT_TRUE(sa && sb) << a << " | " << b;
    EXPECT_NE(sa->key, sb->key) << a << " | " << b;
  }
  auto num = statement_shape("SELECT 1.5, .5, 5., 1e3, 2.5E-7, x1, 3::int8");
  ASSERT_TRUE(num);
  std::vector<std::string> values;
  for (const auto& l : num->literals) values.push_back(l.value);
  EXPECT_EQ(values, (std::vector<std::string>{"1.5", ".5", "5.", "1e3", "2.5E-7", "3"}));
}

TEST(StatementShape, TextsItCannotTakeApartSafelyAreLeftAlone) {
  for (std::string sql :
       {"SELECT E'a\\nb'", "SELECT U&'d\\0061t'", "SELECT B'101'", "SELECT X'1F'", "SELECT N'x'",
        "SELECT $$x$$", "SELECT $tag$x$tag$", "SELECT 'a'\n'b'", "SELECT 'open", "SELECT \"open",
        "SELECT /* open", "SELECT 12abc", "SELECT 1e", "SELECT \x01 FROM t"}) {
    EXPECT_FALSE(statement_shape(sql)) << sql;
  }
  // Nested comments end where PostgreSQL ends them.
  auto sh = statement_shape("SELECT /* a /* b */ 'c' */ 5");
  ASSERT_TRUE(sh);
  ASSERT_EQ(sh->literals.size(), 1u);
  EXPECT_EQ(sh->literals[0].value, "5");
}

/// A value with the terms of a sum.
std::string describe_value(const ValueRef& v) {
  std::string out = std::to_string(static_cast<int>(v.kind)) + ":" + v.text + ":" + v.cast_type +
                    ":" + value_sql(v).value_or("-") + ":" + std::to_string(v.param) +
                    (v.subtracted ? "-" : "+");
  for (const auto& t : v.terms) out += "{" + describe_value(t) + "}";
  return out;
}

std::string describe_condition(const Condition& c) {
  std::string out = std::to_string(static_cast<int>(c.kind)) + ":" + c.column + c.op + "[";
  for (const auto& v : c.values) out += describe_value(v) + ",";
  out += "](";
  for (const auto& child : c.children) out += describe_condition(child) + " ";
  return out + ")";
}

/// Every field the router reads, for comparisons.
std::string describe(const Result<std::vector<StatementInfo>>& r) {
  if (!r) return "error " + r.error().sqlstate;
  std::string out;
  for (const auto& s : *r) {
    out += std::string(statement_kind_name(s.kind)) + "[" + std::to_string(s.begin) + "," +
           std::to_string(s.end) + ") ";
    for (const auto& t : s.tables) out += t.schema + "." + t.name + " ";
    for (const auto& [col, v] : s.equalities) out += col + "=" + describe_value(v) + " ";
    for (const auto& row : s.insert_rows) {
      out += "(";
      for (const auto& v : row) out += v ? describe_value(*v) + "," : "?,";
      out += ")";
    }
    if (s.where) out += " where " + describe_condition(*s.where);
    // The relations of a statement over several: where they are written, and what narrows
    // them (the gather planner writes both into the SQL it runs).
    for (const auto& u : s.relations) {
      out += " rel " + u.table.name + "@" + std::to_string(u.location);
      for (const auto& e : u.equalities) {
        out += " eq " + e.column + "=" + std::to_string(e.other) + "." + e.other_column;
      }
      if (u.where) out += " " + describe_condition(*u.where);
    }
    out += s.fanout_blocker + "|";
  }
  return out;
}

TEST(AnalysisCache, ShapeHitsGiveExactlyWhatParsingGives) {
  std::mt19937 rng(42);
  auto num = [&] {
    int64_t v = static_cast<int64_t>(rng() % 2000000) - 1000000;
    return std::to_string(v);
  };
  auto str = [&] {
    std::string s;
    for (int i = 0, n = static_cast<int>(rng() % 6); i < n; ++i) {
      s += "ab'c x"[rng() % 6];
    }
    return s;
  };
  auto quoted = [](const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
  };
  std::vector<std::function<std::string()>> templates = {
      [&] { return "SELECT abalance FROM pgbench_accounts WHERE aid = " + num() + ";"; },
      [&] {
        return "UPDATE pgbench_accounts SET abalance = abalance + " + num() +
               " WHERE aid = " + num() + ";";
      },
      [&] {
        return "INSERT INTO h (tid, bid, aid, delta, mtime) VALUES (" + num() + ", " + num() +
               ", " + num() + ", " + num() + ", CURRENT_TIMESTAMP);";
      },
      [&] {
        return "SELECT * FROM t WHERE k = " + quoted(str()) + " AND n = -" +
               std::to_string(rng() % 50) + " AND flag = true";
      },
      [&] {
        return "select * from t where k = " + quoted(str()) + "::text and id = " + num() +
               "::int8; select 1";
      },
      [&] { return "DELETE FROM t WHERE a = " + num() + " AND b = " + quoted(str()); },
      [&] { return "SELECT * FROM t WHERE id = 00" + std::to_string(rng() % 9 + 1); },
      [&] { return "SELECT * FROM t WHERE id = - " + std::to_string(rng() % 99); },
      [&] { return "SELECT * FROM t WHERE x = 1.50 AND y = " + num() + ".25"; },
      [&] {
        // Literals before the relations' names move them.
        return "SELECT " + num() + ", " + quoted(str()) + " FROM a x JOIN b y ON y.id = x.id AND " +
               "y.k = " + quoted(str()) + "::text LEFT JOIN c USING (id) WHERE x.id IN (" + num() +
               ", " + num() + ") AND EXISTS (SELECT 1 FROM d WHERE d.v > " + num() + ")";
      },
      [&] {
        // Sums: each of their constants is a literal of the text.
        return "SELECT * FROM t WHERE id BETWEEN " + num() + " AND " + num() + " + " + num() +
               " AND id = $1 - (" + num() + " - " + num() + ") AND n < " + num() + " + $2;" +
               "INSERT INTO t (id) VALUES (" + num() + " + " + num() + ")";
      },
      [&] {
        return "SELECT * FROM t WHERE id BETWEEN " + num() + " AND " + num() + " OR k IN (" +
               quoted(str()) + ", " + quoted(str()) + ") OR k LIKE " +
               quoted(str() + (rng() % 2 ? "%" : "")) + " OR id IS NULL";
      },
  };
  AnalysisCache cache;
  size_t texts = 0;
  for (int round = 0; round < 60; ++round) {
    for (auto& make : templates) {
      std::string sql = make();
      ++texts;
      auto cached = cache.analyze(sql);
      auto direct = analyze_statements(sql);
      EXPECT_EQ(describe(*cached), describe(direct)) << sql;
    }
  }
  // The shapes were parsed once each (plus the texts whose constants the grammar rewrites).
  EXPECT_LT(cache.parses(), texts / 4);
}

TEST(AnalysisCache, LiteralsOutsideValuesAreNeverTakenFromAnotherText) {
  // A transaction's name is a literal but no value: each text gets its own.
  AnalysisCache cache;
  for (std::string kind : {"PREPARE TRANSACTION", "COMMIT PREPARED", "ROLLBACK PREPARED"}) {
    for (std::string name : {"a", "tx-2", "b"}) {
      auto a = cache.analyze(kind + " '" + name + "'");
      ASSERT_TRUE(*a);
      EXPECT_EQ((**a)[0].transaction_name, name) << kind;
    }
  }
}

}  // namespace
}  // namespace pgrange::sql
