#include "sql/quoting.hpp"

#include <gtest/gtest.h>

namespace pgrange::sql {
namespace {

TEST(QuoteLiteral, EscapesQuotesAndBackslashes) {
  EXPECT_EQ(quote_literal("abc"), "'abc'");
  EXPECT_EQ(quote_literal("it's"), "'it''s'");
  EXPECT_EQ(quote_literal("a\\b"), "E'a\\\\b'");
  EXPECT_EQ(quote_literal(""), "''");
  EXPECT_EQ(quote_literal("\t\n"), "'\t\n'");
}

TEST(QuoteIdent, AlwaysQuotesAndDoublesQuotes) {
  EXPECT_EQ(quote_ident("abc"), "\"abc\"");
  EXPECT_EQ(quote_ident("Mixed Case"), "\"Mixed Case\"");
  EXPECT_EQ(quote_ident("a\"b"), "\"a\"\"b\"");
  EXPECT_EQ(quote_ident(""), "\"\"");
}

}  // namespace
}  // namespace pgrange::sql
