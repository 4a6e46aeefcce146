// The operators that merge the shards' answers (exec::make_merge_tree: MergeSort, Aggregate,
// Filter, Sort, Distinct, Limit, Project), run as the proxy runs them over shards that each
// describe their columns and hand up their rows one at a time when asked. The plans come from
// sql::plan_merge, as in production; each shard's rows are what PostgreSQL 15 sends for the
// plan's shard query over that shard's part of the table, and the expected answers are what
// PostgreSQL 15 answers for the whole table (checked against a server: e.g. `SELECT avg(x)
// FROM (VALUES (1), (2)) v(x)` is 1.5000000000000000).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "proxy/exec/merge_build.hpp"
#include "routing/merge/merge_rows.hpp"
#include "sql/merge_query.hpp"

namespace pgrange::routing {
namespace {

namespace asio = boost::asio;
using proxy::awaitable;

using sql::MergeQuery;
using Cell = std::optional<std::string>;
using Row = std::vector<Cell>;
using Rows = std::vector<Row>;

constexpr uint32_t kBool = 16, kInt8 = 20, kInt4 = 23, kText = 25, kJson = 114, kFloat4 = 700,
                   kFloat8 = 701, kTimestamptz = 1184, kNumeric = 1700;

const Cell kNull = std::nullopt;

const std::vector<std::string> kKeys = {"id"};
const std::vector<std::string> kColumns = {"id", "grp", "name", "amount"};

MergeQuery plan(const std::string& sql) {
  auto q = sql::plan_merge(sql, kKeys, kColumns);
  EXPECT_TRUE(q.has_value()) << sql << ": " << (q ? "" : q.error().message);
  return q ? *q : MergeQuery{};
}

int16_t type_len(uint32_t oid) {
  switch (oid) {
    case kBool:
      return 1;
    case kInt4:
      return 4;
    case kInt8:
    case kFloat8:
    case kTimestamptz:
      return 8;
    default:
      return -1;
  }
}

ResultField field(const std::string& name, uint32_t oid) {
  ResultField f;
  f.name = name;
  f.type_oid = oid;
  f.type_len = type_len(oid);
  return f;
}

/// A RowDescription body for columns (name, type OID).
std::string describe(const std::vector<std::pair<std::string, uint32_t>>& columns) {
  std::vector<ResultField> fields;
  for (const auto& [name, oid] : columns) fields.push_back(field(name, oid));
  return write_row_description(fields);
}

void put16(std::string& out, uint16_t v) {
  out.push_back(static_cast<char>(v >> 8));
  out.push_back(static_cast<char>(v & 0xff));
}
void put32(std::string& out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<char>((v >> s) & 0xff));
}
uint32_t get32(const std::string& s, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(s.at(at + i));
  return v;
}

/// A DataRow body: int16 count, then per value int32 length (-1: NULL) and the bytes.
std::string data_row(const Row& row) {
  std::string body;
  put16(body, static_cast<uint16_t>(row.size()));
  for (const Cell& c : row) {
    if (!c) {
      put32(body, 0xffffffffu);
      continue;
    }
    put32(body, static_cast<uint32_t>(c->size()));
    body += *c;
  }
  return body;
}

/// The values of the DataRow body at `s[at…]`; `at` ends after them.
Row parse_body(const std::string& s, size_t& at) {
  size_t n = (static_cast<uint8_t>(s.at(at)) << 8) | static_cast<uint8_t>(s.at(at + 1));
  at += 2;
  Row row;
  for (size_t i = 0; i < n; ++i) {
    uint32_t l = get32(s, at);
    at += 4;
    if (l == 0xffffffffu) {
      row.push_back(kNull);
      continue;
    }
    row.push_back(s.substr(at, l));
    at += l;
  }
  return row;
}

/// Reads back a sequence of DataRow messages ('D', int32 length including itself, body).
Rows parse_data_rows(const std::string& out) {
  Rows rows;
  size_t pos = 0;
  while (pos < out.size()) {
    EXPECT_EQ(out[pos], 'D');
    size_t end = pos + 1 + get32(out, pos + 1);
    EXPECT_LE(end, out.size());
    if (end > out.size()) break;
    size_t at = pos + 5;
    rows.push_back(parse_body(out, at));
    EXPECT_EQ(at, end) << "DataRow length does not match its values";
    pos = end;
  }
  return rows;
}

/// What one merge produced, and what it asked the shards for.
struct Outcome {
  std::optional<Error> error;  ///< the first error of describe/add_row/step
  Rows rows;                   ///< the answer's rows
  std::string row_description;
  uint64_t count = 0;               ///< rows()
  std::vector<size_t> requested;    ///< per shard: the rows it was asked for
  std::vector<bool> asked_end;      ///< per shard: asked past its last row (end_of_rows fed)
  bool asked_after_end = false;     ///< a shard was asked again after its end of rows
  bool asked_while_held = false;    ///< a shard was asked while its previous row was unsent
  std::vector<size_t> order_asked;  ///< the shards asked, in order
};

struct Options {
  /// Ordered mode with rows unique across shards, no OFFSET/DISTINCT: check that a shard is
  /// only asked for a row once its previous one is in the answer (its first `held_width`
  /// values are the answer's row).
  size_t held_width = 0;
  /// query_memory, for a Sort, and where it writes its runs past it.
  size_t memory_limit = SIZE_MAX;
  std::string temp_directory = "";
};

/// The client's result formats and whether floats print exactly (Project's).
struct Formats {
  std::vector<int16_t> client_formats;
  bool exact_floats = true;
};

/// What the shards were asked, and the answer so far (for held_width).
struct Probe {
  const std::vector<std::vector<std::string>>* shards = nullptr;
  Outcome* run = nullptr;
  const std::string* out = nullptr;
  size_t held_width = 0;
  std::vector<std::optional<Row>> last;  // the last row handed up by each shard
};

/// A shard of the test: its description, then its rows one at a time, each request recorded.
class TestShard final : public proxy::exec::ShardRows {
 public:
  TestShard(size_t index, std::string description, Probe& probe)
      : index_(index), description_(std::move(description)), probe_(probe) {}

  awaitable<proxy::exec::ExecResult<void>> start() override {
    co_return proxy::exec::ExecResult<void>{};
  }
  awaitable<proxy::exec::ExecResult<void>> open() override {
    co_return proxy::exec::ExecResult<void>{};
  }
  std::string columns() const override { return description_; }
  bool ended() const override { return false; }
  awaitable<proxy::exec::ExecResult<bool>> next_row(std::string& body) override {
    Outcome& run = *probe_.run;
    const size_t s = index_;
    run.order_asked.push_back(s);
    if (run.asked_end[s]) {
      run.asked_after_end = true;
      co_return false;
    }
    if (probe_.held_width > 0 && probe_.last[s]) {
      Rows sent = parse_data_rows(*probe_.out);
      Row prefix(probe_.last[s]->begin(),
                 probe_.last[s]->begin() + static_cast<long>(probe_.held_width));
      if (std::find(sent.begin(), sent.end(), prefix) == sent.end()) run.asked_while_held = true;
    }
    const auto& rows = (*probe_.shards)[s];
    if (run.requested[s] >= rows.size()) {
      run.asked_end[s] = true;
      co_return false;
    }
    body = rows[run.requested[s]++];
    if (probe_.held_width > 0) {
      size_t at = 0;
      probe_.last[s] = parse_body(body, at);
    }
    ++rows_out_;
    co_return true;
  }
  awaitable<void> close(bool) override { co_return; }
  std::vector<const proxy::exec::Operator*> inputs() const override { return {}; }
  std::string describe() const override { return "test shard " + std::to_string(index_); }

 private:
  size_t index_;
  std::string description_;
  Probe& probe_;
};

Error error_of(const proxy::exec::ExecFailure& f) {
  if (f.error) return *f.error;
  return Error::make("XX000", "a shard failed");
}

/// Describes every shard with `descriptions` (one for all, or one per shard), then runs the
/// merge tree as the proxy does, a row at a time, over raw DataRow bodies per shard.
Outcome run_bodies(const MergeQuery& q, const std::vector<std::string>& descriptions,
                   const std::vector<std::vector<std::string>>& shards, Options opt = {},
                   const Formats& formats = {}) {
  Outcome run;
  const size_t n = shards.size();
  run.requested.assign(n, 0);
  run.asked_end.assign(n, false);
  std::string out;
  Probe probe;
  probe.shards = &shards;
  probe.run = &run;
  probe.out = &out;
  probe.held_width = opt.held_width;
  probe.last.resize(n);
  std::vector<std::unique_ptr<proxy::exec::ShardRows>> inputs;
  for (size_t s = 0; s < n; ++s) {
    inputs.push_back(std::make_unique<TestShard>(
        s, descriptions.size() == 1 ? descriptions[0] : descriptions.at(s), probe));
  }
  proxy::exec::MergeTreeOptions options;
  options.client_formats = formats.client_formats;
  options.exact_floats = formats.exact_floats;
  options.memory_limit = opt.memory_limit;
  options.temp_directory = opt.temp_directory;
  auto root = proxy::exec::make_merge_tree(q, std::move(inputs), std::move(options));
  asio::io_context io;
  bool done = false;
  asio::co_spawn(
      io,
      [&]() -> awaitable<void> {
        if (auto o = co_await root->open(); !o) {
          run.error = error_of(o.error());
          co_return;
        }
        run.row_description = root->columns();
        for (int guard = 0;; ++guard) {
          if (guard > 100000) {
            ADD_FAILURE() << "the merge does not finish";
            break;
          }
          proxy::exec::Batch batch;
          batch.max_rows = 1;
          auto more = co_await root->next(batch);
          out += batch.data;
          if (!more) {
            run.error = error_of(more.error());
            break;
          }
          if (!*more) break;
        }
        co_await root->close(run.error.has_value());
        done = true;
      },
      asio::detached);
  io.run();
  EXPECT_TRUE(done || run.error.has_value());
  run.rows = parse_data_rows(out);
  run.count = root->rows_out();
  return run;
}

Outcome run_rows(const MergeQuery& q, const std::vector<std::string>& descriptions,
                 const std::vector<Rows>& shards, Options opt = {}, const Formats& formats = {}) {
  std::vector<std::vector<std::string>> bodies;
  for (const Rows& rows : shards) {
    bodies.emplace_back();
    for (const Row& r : rows) bodies.back().push_back(data_row(r));
  }
  return run_bodies(q, descriptions, bodies, opt, formats);
}

/// A run that must succeed.
Outcome merged(const MergeQuery& q, const std::vector<std::string>& descriptions,
               const std::vector<Rows>& shards, Options opt = {}, const Formats& formats = {}) {
  Outcome r = run_rows(q, descriptions, shards, opt, formats);
  EXPECT_FALSE(r.error.has_value()) << r.error->sqlstate << " " << r.error->message;
  EXPECT_FALSE(r.asked_after_end);
  EXPECT_FALSE(r.asked_while_held);
  EXPECT_EQ(r.count, r.rows.size());
  return r;
}

/// One-column rows.
Rows col(const std::vector<Cell>& values) {
  Rows rows;
  for (const Cell& v : values) rows.push_back({v});
  return rows;
}

Rows sorted(Rows rows) {
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::vector<ResultField> fields_of(const std::string& body) {
  auto f = read_row_description(body);
  EXPECT_TRUE(f.has_value());
  return f ? *f : std::vector<ResultField>{};
}

// ---------------------------------------------------------------------------------------------
// Ordered mode: k-way merge

TEST(MergeTreeOrdered, ThreeShardsAscendingHoldingOneRowEach) {
  MergeQuery q = plan("SELECT id, name FROM t ORDER BY id");
  const std::string d = describe({{"id", kInt4}, {"name", kText}});
  Outcome r = merged(q, {d},
                     {{{"1", "a"}, {"4", "d"}, {"7", "g"}},
                      {{"2", "b"}, {"5", "e"}, {"8", "h"}, {"9", "i"}},
                      {{"3", "c"}, {"6", "f"}}},
                     {.held_width = 2});
  EXPECT_EQ(r.rows, (Rows{{"1", "a"},
                          {"2", "b"},
                          {"3", "c"},
                          {"4", "d"},
                          {"5", "e"},
                          {"6", "f"},
                          {"7", "g"},
                          {"8", "h"},
                          {"9", "i"}}));
  EXPECT_EQ(r.count, 9u);
  EXPECT_EQ(r.row_description, d);
  EXPECT_EQ(r.requested, (std::vector<size_t>{3, 4, 2}));
  EXPECT_EQ(r.asked_end, (std::vector<bool>{true, true, true}));
  // First one row from every shard, before anything is sent.
  ASSERT_GE(r.order_asked.size(), 3u);
  EXPECT_EQ(sorted(Rows{{std::to_string(r.order_asked[0])},
                        {std::to_string(r.order_asked[1])},
                        {std::to_string(r.order_asked[2])}}),
            (Rows{{"0"}, {"1"}, {"2"}}));
}

TEST(MergeTreeOrdered, DescendingPutsNullsFirstByDefault) {
  MergeQuery q = plan("SELECT id, amount FROM t ORDER BY amount DESC, id");
  ASSERT_EQ(q.order.size(), 2u);
  const std::string d = describe({{"id", kInt4}, {"amount", kNumeric}});
  // Each shard sends its rows in the same order: amount DESC NULLS FIRST, id ASC.
  Outcome r = merged(q, {d},
                     {{{"3", kNull}, {"1", "5"}, {"7", "2"}},
                      {{"2", kNull}, {"4", "4.5"}, {"9", "-1"}},
                      {{"5", "10"}, {"8", "2.0"}}},
                     {.held_width = 2});
  EXPECT_EQ(r.rows, (Rows{{"2", kNull},
                          {"3", kNull},
                          {"5", "10"},
                          {"1", "5"},
                          {"4", "4.5"},
                          {"7", "2"},
                          {"8", "2.0"},
                          {"9", "-1"}}));
}

TEST(MergeTreeOrdered, NullsLastWithDescAndNullsFirstWithAsc) {
  const std::string d = describe({{"id", kInt4}, {"amount", kInt4}});
  {
    MergeQuery q = plan("SELECT id, amount FROM t ORDER BY amount DESC NULLS LAST, id DESC");
    Outcome r = merged(q, {d},
                       {{{"1", "30"}, {"6", kNull}},
                        {{"2", "20"}, {"5", "10"}, {"4", kNull}},
                        {{"3", "20"}, {"9", kNull}}},
                       {.held_width = 2});
    EXPECT_EQ(r.rows, (Rows{{"1", "30"},
                            {"3", "20"},
                            {"2", "20"},
                            {"5", "10"},
                            {"9", kNull},
                            {"6", kNull},
                            {"4", kNull}}));
  }
  {
    MergeQuery q = plan("SELECT id, amount FROM t ORDER BY amount NULLS FIRST, id");
    Outcome r = merged(q, {d},
                       {{{"6", kNull}, {"1", "30"}},
                        {{"4", kNull}, {"5", "10"}, {"2", "20"}},
                        {{"9", kNull}, {"3", "20"}}},
                       {.held_width = 2});
    EXPECT_EQ(r.rows, (Rows{{"4", kNull},
                            {"6", kNull},
                            {"9", kNull},
                            {"5", "10"},
                            {"2", "20"},
                            {"3", "20"},
                            {"1", "30"}}));
  }
}

TEST(MergeTreeOrdered, TiesAreBrokenByTheLaterKeys) {
  MergeQuery q = plan("SELECT grp, name, id FROM t ORDER BY grp, name DESC, id");
  const std::string d = describe({{"grp", kInt4}, {"name", kText}, {"id", kInt4}});
  Outcome r = merged(q, {d},
                     {{{"1", "b", "4"}, {"1", "a", "1"}, {"2", "z", "2"}},
                      {{"1", "b", "3"}, {"2", "z", "5"}, {"2", "a", "6"}},
                      {{"1", "c", "7"}, {"2", "m", "8"}}},
                     {.held_width = 3});
  EXPECT_EQ(r.rows, (Rows{{"1", "c", "7"},
                          {"1", "b", "3"},
                          {"1", "b", "4"},
                          {"1", "a", "1"},
                          {"2", "z", "2"},
                          {"2", "z", "5"},
                          {"2", "m", "8"},
                          {"2", "a", "6"}}));
}

TEST(MergeTreeOrdered, IntegersCompareAsNumbersAndTextBytewise) {
  const std::vector<Rows> shards = {{{"9"}, {"100"}}, {{"10"}, {"11"}}, {{"2"}}};
  {
    MergeQuery q = plan("SELECT id FROM t ORDER BY id");
    Outcome r = merged(q, {describe({{"id", kInt4}})}, shards, {.held_width = 1});
    EXPECT_EQ(r.rows, col({"2", "9", "10", "11", "100"}));
  }
  {
    // The same digits as text: each shard sorts them as strings (C collation).
    MergeQuery q = plan("SELECT name FROM t ORDER BY name");
    Outcome r = merged(q, {describe({{"name", kText}})},
                       {{{"100"}, {"9"}}, {{"10"}, {"11"}}, {{"2"}}}, {.held_width = 1});
    EXPECT_EQ(r.rows, col({"10", "100", "11", "2", "9"}));
  }
  {
    MergeQuery q = plan("SELECT id FROM t ORDER BY id DESC");
    Outcome r =
        merged(q, {describe({{"id", kInt8}})},
               {{{"100"}, {"-3"}}, {{"11"}, {"10"}, {"-20"}}, {{"9"}, {"2"}}}, {.held_width = 1});
    EXPECT_EQ(r.rows, col({"100", "11", "10", "9", "2", "-3", "-20"}));
  }
}

TEST(MergeTreeOrdered, EqualNumericsTieAndTheNextKeyDecides) {
  // 1.0 = 1.00 = 1 in numeric: id decides; as text "1" < "1.0" < "1.00" would decide.
  MergeQuery q = plan("SELECT amount, id FROM t ORDER BY amount, id");
  const std::string d = describe({{"amount", kNumeric}, {"id", kInt4}});
  Outcome r = merged(q, {d},
                     {{{"0.5", "4"}, {"1.0", "3"}, {"10", "6"}},
                      {{"1.00", "1"}, {"2", "5"}},
                      {{"1", "2"}, {"1.5", "7"}}},
                     {.held_width = 2});
  EXPECT_EQ(r.rows, (Rows{{"0.5", "4"},
                          {"1.00", "1"},
                          {"1", "2"},
                          {"1.0", "3"},
                          {"1.5", "7"},
                          {"2", "5"},
                          {"10", "6"}}));
}

TEST(MergeTreeOrdered, FloatBoolAndTimestamptzCompareAsTheirTypes) {
  {
    // float8: NaN after Infinity, -0 = 0 (id decides).
    MergeQuery q = plan("SELECT amount, id FROM t ORDER BY amount, id");
    Outcome r = merged(q, {describe({{"amount", kFloat8}, {"id", kInt4}})},
                       {{{"-Infinity", "1"}, {"0", "5"}, {"NaN", "2"}},
                        {{"-1.5", "3"}, {"-0", "4"}, {"1e+100", "6"}},
                        {{"2.5", "7"}, {"Infinity", "8"}}},
                       {.held_width = 2});
    EXPECT_EQ(r.rows, (Rows{{"-Infinity", "1"},
                            {"-1.5", "3"},
                            {"-0", "4"},
                            {"0", "5"},
                            {"2.5", "7"},
                            {"1e+100", "6"},
                            {"Infinity", "8"},
                            {"NaN", "2"}}));
  }
  {
    MergeQuery q = plan("SELECT name, id FROM t ORDER BY name DESC, id");
    Outcome r = merged(q, {describe({{"name", kBool}, {"id", kInt4}})},
                       {{{"t", "2"}, {"f", "1"}}, {{"t", "3"}}, {{"f", "4"}}}, {.held_width = 2});
    EXPECT_EQ(r.rows, (Rows{{"t", "2"}, {"t", "3"}, {"f", "1"}, {"f", "4"}}));
  }
  {
    // 10:00+02 is 08:00 UTC: before 09:00+00.
    MergeQuery q = plan("SELECT name FROM t ORDER BY name");
    Outcome r = merged(q, {describe({{"name", kTimestamptz}})},
                       {{{"2024-01-01 09:00:00+00"}},
                        {{"2024-01-01 10:00:00+02"}, {"2024-01-01 09:30:00.5+00"}},
                        {}},
                       {.held_width = 1});
    EXPECT_EQ(r.rows, col({"2024-01-01 10:00:00+02", "2024-01-01 09:00:00+00",
                           "2024-01-01 09:30:00.5+00"}));
  }
}

TEST(MergeTreeOrdered, SpecialTimestampsAndNumerics) {
  {
    // TimeZone Europe/Amsterdam: local mean time before 1892, BC years, years past 9999.
    MergeQuery q = plan("SELECT name FROM t ORDER BY name");
    Outcome r = merged(q, {describe({{"name", kTimestamptz}})},
                       {{{"-infinity"}, {"2024-06-01 12:00:00+02"}},
                        {{"0044-03-15 12:19:32+00:19:32 BC"}, {"12024-01-01 01:00:00+01"}},
                        {{"1800-01-01 00:19:32+00:19:32"}, {"infinity"}}},
                       {.held_width = 1});
    EXPECT_EQ(r.rows,
              col({"-infinity", "0044-03-15 12:19:32+00:19:32 BC", "1800-01-01 00:19:32+00:19:32",
                   "2024-06-01 12:00:00+02", "12024-01-01 01:00:00+01", "infinity"}));
  }
  {
    MergeQuery q = plan("SELECT amount FROM t ORDER BY amount");
    Outcome r = merged(
        q, {describe({{"amount", kNumeric}})},
        {{{"-Infinity"}, {"100000000000000000000"}}, {{"-0.5"}, {"NaN"}}, {{"0.0"}, {"Infinity"}}},
        {.held_width = 1});
    EXPECT_EQ(r.rows,
              col({"-Infinity", "-0.5", "0.0", "100000000000000000000", "Infinity", "NaN"}));
  }
}

TEST(MergeTreeOrdered, TimestampNotInDateStyleIsoIsRefused) {
  MergeQuery q = plan("SELECT name FROM t ORDER BY name");
  Outcome r = run_rows(q, {describe({{"name", kTimestamptz}})},
                       {{{"Mon Jan 01 10:00:00 2024 UTC"}}, {}, {}});
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->sqlstate, "0A000");
}

TEST(MergeTreeOrdered, EmptyShards) {
  MergeQuery q = plan("SELECT id FROM t ORDER BY id");
  const std::string d = describe({{"id", kInt4}});
  {
    Outcome r = merged(q, {d}, {{}, {{"2"}, {"3"}}, {}}, {.held_width = 1});
    EXPECT_EQ(r.rows, col({"2", "3"}));
    EXPECT_EQ(r.asked_end, (std::vector<bool>{true, true, true}));
  }
  {
    Outcome r = merged(q, {d}, {{}, {}, {}});
    EXPECT_TRUE(r.rows.empty());
    EXPECT_EQ(r.count, 0u);
    EXPECT_EQ(r.asked_end, (std::vector<bool>{true, true, true}));
  }
}

TEST(MergeTreeOrdered, HiddenSortColumnsAreStripped) {
  MergeQuery q = plan("SELECT name FROM t ORDER BY amount * -1 NULLS FIRST, lower(name), 1");
  ASSERT_EQ(q.hidden, 2);
  // The shard query: SELECT name, amount * -1, lower(name) FROM t ORDER BY …
  const std::string d = describe({{"name", kText}, {"?column?", kInt4}, {"lower", kText}});
  Outcome r = merged(q, {d},
                     {{{"Zed", kNull, "zed"}, {"b", "-5", "b"}, {"a", "-1", "a"}},
                      {{"Bob", "-5", "bob"}, {"B", "-1", "b"}},
                      {{"x", kNull, "x"}, {"Ann", "-5", "ann"}, {"c", "0", "c"}}},
                     {.held_width = 1});
  EXPECT_EQ(r.rows, col({"x", "Zed", "Ann", "b", "Bob", "a", "B", "c"}));
  for (const Row& row : r.rows) EXPECT_EQ(row.size(), 1u);
  EXPECT_EQ(fields_of(r.row_description), (std::vector<ResultField>{field("name", kText)}));
}

TEST(MergeTreeOrdered, StarWithAHiddenColumnAndLimit) {
  MergeQuery q = plan("SELECT * FROM t ORDER BY name LIMIT 3");
  ASSERT_EQ(q.visible, -1);
  ASSERT_EQ(q.hidden, 1);
  // SELECT *, name FROM t ORDER BY name LIMIT 3
  const std::string d = describe(
      {{"id", kInt4}, {"grp", kInt4}, {"name", kText}, {"amount", kNumeric}, {"name", kText}});
  Outcome r = merged(q, {d},
                     {{{"1", "1", "b", "2.50", "b"}, {"4", kNull, "e", "1", "e"}},
                      {{"2", "2", "a", kNull, "a"}, {"5", "1", "f", "0", "f"}},
                      {{"3", "1", "c", "7", "c"}, {"6", "3", "d", "8", "d"}}},
                     {.held_width = 4});
  EXPECT_EQ(r.rows, (Rows{{"2", "2", "a", kNull}, {"1", "1", "b", "2.50"}, {"3", "1", "c", "7"}}));
  EXPECT_EQ(fields_of(r.row_description),
            (std::vector<ResultField>{field("id", kInt4), field("grp", kInt4), field("name", kText),
                                      field("amount", kNumeric)}));
  // a, b, c sent: the merge holds e (shard 0) and f (shard 1) and asks for nothing more.
  EXPECT_EQ(r.requested, (std::vector<size_t>{2, 2, 1}));
  EXPECT_EQ(r.asked_end, (std::vector<bool>{false, false, false}));
}

// ---------------------------------------------------------------------------------------------
// OFFSET / LIMIT

const std::vector<Rows> kNine = {
    {{"1"}, {"4"}, {"7"}}, {{"2"}, {"5"}, {"8"}, {"9"}}, {{"3"}, {"6"}}};

TEST(MergeTreeLimit, LimitZeroAsksForNothing) {
  MergeQuery q = plan("SELECT id FROM t ORDER BY id LIMIT 0");
  const std::string d = describe({{"id", kInt4}});
  Outcome r = merged(q, {d}, kNine);
  EXPECT_TRUE(r.rows.empty());
  EXPECT_EQ(r.count, 0u);
  EXPECT_EQ(r.requested, (std::vector<size_t>{0, 0, 0}));
  EXPECT_TRUE(r.order_asked.empty());
  EXPECT_EQ(r.row_description, d);
}

TEST(MergeTreeLimit, LimitAndOffsetStopReadingOnceReached) {
  MergeQuery q = plan("SELECT id FROM t ORDER BY id LIMIT 3 OFFSET 2");
  Outcome r = merged(q, {describe({{"id", kInt4}})}, kNine);
  EXPECT_EQ(r.rows, col({"3", "4", "5"}));
  EXPECT_EQ(r.count, 3u);
  // Rows 1…5 consumed; 6 (shard 2) and 7 (shard 0) are the last ones asked for.
  EXPECT_EQ(r.requested, (std::vector<size_t>{3, 2, 2}));
  EXPECT_EQ(r.asked_end, (std::vector<bool>{false, false, false}));
}

TEST(MergeTreeLimit, LimitWithoutOffset) {
  MergeQuery q = plan("SELECT id FROM t ORDER BY id DESC LIMIT 2");
  Outcome r = merged(q, {describe({{"id", kInt4}})},
                     {{{"7"}, {"4"}, {"1"}}, {{"9"}, {"8"}, {"5"}, {"2"}}, {{"6"}, {"3"}}},
                     {.held_width = 1});
  EXPECT_EQ(r.rows, col({"9", "8"}));
  EXPECT_EQ(r.requested, (std::vector<size_t>{1, 2, 1}));
}

TEST(MergeTreeLimit, OffsetBeyondTheEnd) {
  MergeQuery q = plan("SELECT id FROM t ORDER BY id LIMIT 5 OFFSET 20");
  Outcome r = merged(q, {describe({{"id", kInt4}})}, kNine);
  EXPECT_TRUE(r.rows.empty());
  EXPECT_EQ(r.count, 0u);
  EXPECT_EQ(r.asked_end, (std::vector<bool>{true, true, true}));
  MergeQuery exact = plan("SELECT id FROM t ORDER BY id OFFSET 9");
  EXPECT_TRUE(merged(exact, {describe({{"id", kInt4}})}, kNine).rows.empty());
  MergeQuery last = plan("SELECT id FROM t ORDER BY id OFFSET 8");
  EXPECT_EQ(merged(last, {describe({{"id", kInt4}})}, kNine).rows, col({"9"}));
}

TEST(MergeTreeLimit, LimitLargerThanTheRows) {
  MergeQuery q = plan("SELECT id FROM t ORDER BY id LIMIT 100 OFFSET 1");
  Outcome r = merged(q, {describe({{"id", kInt4}})}, kNine);
  EXPECT_EQ(r.rows, col({"2", "3", "4", "5", "6", "7", "8", "9"}));
  EXPECT_EQ(r.requested, (std::vector<size_t>{3, 4, 2}));
  EXPECT_EQ(r.asked_end, (std::vector<bool>{true, true, true}));
}

TEST(MergeTreeLimit, LimitNull) {
  MergeQuery q = plan("SELECT id FROM t ORDER BY id LIMIT NULL");
  EXPECT_EQ(merged(q, {describe({{"id", kInt4}})}, kNine).rows.size(), 9u);
  MergeQuery all = plan("SELECT id FROM t ORDER BY id LIMIT ALL OFFSET 7");
  EXPECT_EQ(merged(all, {describe({{"id", kInt4}})}, kNine).rows, col({"8", "9"}));
}

// ---------------------------------------------------------------------------------------------
// No ORDER BY: shard after shard

TEST(MergeTreeUnordered, ShardAfterShard) {
  MergeQuery q = plan("SELECT id, name FROM t WHERE id > 0");
  EXPECT_FALSE(q.ordered());
  const std::string d = describe({{"id", kInt4}, {"name", kText}});
  Outcome r =
      merged(q, {d}, {{{"5", "e"}, {"1", "a"}}, {}, {{"9", kNull}, {"2", "b"}}, {{"3", "c"}}});
  EXPECT_EQ(r.rows, (Rows{{"5", "e"}, {"1", "a"}, {"9", kNull}, {"2", "b"}, {"3", "c"}}));
  // One shard at a time: never a row from a later shard before an earlier one has ended.
  EXPECT_EQ(r.order_asked, (std::vector<size_t>{0, 0, 0, 1, 2, 2, 2, 3, 3}));
}

TEST(MergeTreeUnordered, LimitStopsAtTheShardThatFillsIt) {
  MergeQuery q = plan("SELECT id FROM t LIMIT 3");
  EXPECT_FALSE(q.ordered());
  Outcome r = merged(q, {describe({{"id", kInt4}})},
                     {{{"5"}, {"1"}}, {{"9"}, {"2"}, {"8"}}, {{"3"}, {"4"}}});
  EXPECT_EQ(r.rows, col({"5", "1", "9"}));
  EXPECT_EQ(r.requested, (std::vector<size_t>{2, 1, 0}));
  EXPECT_EQ(r.asked_end, (std::vector<bool>{true, false, false}));
}

TEST(MergeTreeUnordered, OffsetSpansShards) {
  MergeQuery q = plan("SELECT id FROM t LIMIT 2 OFFSET 3");
  Outcome r = merged(q, {describe({{"id", kInt4}})},
                     {{{"5"}, {"1"}}, {{"9"}, {"2"}, {"8"}}, {{"3"}, {"4"}}});
  EXPECT_EQ(r.rows, col({"2", "8"}));
  EXPECT_EQ(r.requested, (std::vector<size_t>{2, 3, 0}));
  MergeQuery zero = plan("SELECT id FROM t LIMIT 0");
  Outcome z = merged(zero, {describe({{"id", kInt4}})}, {{{"5"}}, {{"9"}}});
  EXPECT_TRUE(z.rows.empty());
  EXPECT_EQ(z.requested, (std::vector<size_t>{0, 0}));
}

// ---------------------------------------------------------------------------------------------
// DISTINCT (ordered mode)

TEST(MergeTreeDistinct, DuplicatesAcrossAndWithinShards) {
  MergeQuery q = plan("SELECT DISTINCT grp, name FROM t");
  ASSERT_TRUE(q.distinct);
  ASSERT_EQ(q.order.size(), 2u);
  const std::string d = describe({{"grp", kInt4}, {"name", kText}});
  // Each shard runs SELECT DISTINCT grp, name FROM t ORDER BY 1, 2: its own rows are distinct,
  // but the same row can come from several shards. NULLs sort last and are equal to each other.
  Outcome r = merged(q, {d},
                     {{{"1", "a"}, {"1", "b"}, {"2", kNull}, {kNull, "a"}},
                      {{"1", "a"}, {"2", "a"}, {"2", kNull}, {kNull, "a"}, {kNull, kNull}},
                      {{"1", "b"}, {"10", "a"}, {kNull, kNull}}});
  EXPECT_EQ(r.rows, (Rows{{"1", "a"},
                          {"1", "b"},
                          {"2", "a"},
                          {"2", kNull},
                          {"10", "a"},
                          {kNull, "a"},
                          {kNull, kNull}}));
}

TEST(MergeTreeDistinct, WithOrderByDescLimitAndOffset) {
  MergeQuery q = plan("SELECT DISTINCT grp FROM t ORDER BY grp DESC LIMIT 2 OFFSET 1");
  const std::string d = describe({{"grp", kInt4}});
  // DESC: NULLS FIRST. Distinct values: NULL, 9, 5, 3, 1.
  Outcome r = merged(
      q, {d}, {{{kNull}, {"9"}, {"3"}}, {{"9"}, {"5"}, {"1"}}, {{kNull}, {"9"}, {"5"}, {"3"}}});
  EXPECT_EQ(r.rows, col({"9", "5"}));
  // After 5 is sent nothing more is needed: 1 (shard 1) is never asked for.
  EXPECT_EQ(r.asked_end, (std::vector<bool>{false, false, false}));
  EXPECT_LT(r.requested[1], 3u);
}

TEST(MergeTreeDistinct, DuplicateRowsCountAgainstNothing) {
  // Duplicates do not use up the LIMIT or the OFFSET; equal neighbours from one shard are
  // dropped too.
  MergeQuery q = plan("SELECT DISTINCT name FROM t ORDER BY name LIMIT 2 OFFSET 1");
  Outcome r = merged(q, {describe({{"name", kText}})},
                     {{{"a"}, {"a"}, {"b"}, {"c"}}, {{"a"}, {"b"}, {"b"}, {"d"}}, {{"a"}, {"c"}}});
  EXPECT_EQ(r.rows, col({"b", "c"}));
}

// ---------------------------------------------------------------------------------------------
// Aggregate mode
//
// The table of these tests, as PostgreSQL 15 sees it (amount int4):
//   id grp name amount      split over shards: 0: ids 1 4 6 8   1: ids 2 5 7 9   2: ids 3 10
//    1   1  a     4
//    2   1  b     6
//    3   1  c     1
//    4   2  d     NULL
//    5   2  e     NULL
//    6   3  f     2
//    7   3  g     9
//    8 NULL h     3
//    9 NULL i     5
//   10   4  j    20
// SELECT grp, count(*), sum(amount), avg(amount) FROM t GROUP BY grp ORDER BY grp:
//   1|3|11|3.6666666666666667   2|2||   3|2|11|5.5000000000000000   4|1|20|20.0000000000000000
//   NULL|2|8|4.0000000000000000

TEST(MergeTreeAggregate, UngroupedAggregatesOverShards) {
  MergeQuery q = plan("SELECT count(*), sum(amount), min(amount), max(amount), avg(amount) FROM t");
  ASSERT_EQ(q.mode, MergeQuery::Mode::kAggregate);
  EXPECT_EQ(q.shard_sql,
            "SELECT count(*), sum(amount), min(amount), max(amount), sum(amount * 1) AS avg, "
            "count(amount) FROM t");
  const std::string d = describe({{"count", kInt8},
                                  {"sum", kInt8},
                                  {"min", kInt4},
                                  {"max", kInt4},
                                  {"avg", kInt8},
                                  {"count", kInt8}});
  Outcome r = merged(q, {d},
                     {{{"4", "9", "2", "4", "9", "3"}},
                      {{"4", "20", "5", "9", "20", "3"}},
                      {{"2", "21", "1", "20", "21", "2"}}});
  EXPECT_EQ(r.rows, (Rows{{"10", "50", "1", "20", "6.2500000000000000"}}));
  EXPECT_EQ(
      fields_of(r.row_description),
      (std::vector<ResultField>{field("count", kInt8), field("sum", kInt8), field("min", kInt4),
                                field("max", kInt4), field("avg", kNumeric)}));
}

// A client asking for binary results: the combined values (text) go out as the types' send
// functions write them, each column in the format asked.
TEST(MergeTreeAggregate, BinaryResultsAreConvertedAsSent) {
  MergeQuery q = plan("SELECT count(*), sum(amount), min(amount), max(amount), avg(amount) FROM t");
  const std::string d = describe({{"count", kInt8},
                                  {"sum", kInt8},
                                  {"min", kInt4},
                                  {"max", kInt4},
                                  {"avg", kInt8},
                                  {"count", kInt8}});
  const std::vector<Rows> shards = {{{"4", "9", "2", "4", "9", "3"}},
                                    {{"4", "20", "5", "9", "20", "3"}},
                                    {{"2", "21", "1", "20", "21", "2"}}};
  Formats binary;
  binary.client_formats = {1, 0, 1, 1, 1};
  Outcome r = merged(q, {d}, shards, {}, binary);
  using namespace std::string_literals;
  EXPECT_EQ(r.rows, (Rows{{"\0\0\0\0\0\0\0\x0a"s, "50", "\0\0\0\x01"s, "\0\0\0\x14"s,
                           // numeric 6.2500000000000000: 2 digits, weight 0, +, dscale 16
                           "\0\x02\0\0\0\0\0\x10\0\x06\x09\xc4"s}}));
  std::vector<ResultField> fields = fields_of(r.row_description);
  ASSERT_EQ(fields.size(), 5u);
  EXPECT_EQ(fields[0].format, 1);
  EXPECT_EQ(fields[1].format, 0);
  EXPECT_EQ(fields[4].format, 1);
  EXPECT_EQ(fields[4].type_oid, kNumeric);
  // One format for every column.
  binary.client_formats = {1};
  r = merged(q, {d}, shards, {}, binary);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0][1], "\0\0\0\0\0\0\0\x32"s);
  // PostgreSQL's errors for a wrong number of formats and an unknown format.
  binary.client_formats = {1, 1};
  Outcome wrong = run_rows(q, {d}, shards, {}, binary);
  ASSERT_TRUE(wrong.error.has_value());
  EXPECT_EQ(wrong.error->sqlstate, "08P01");
  binary.client_formats = {2};
  wrong = run_rows(q, {d}, shards, {}, binary);
  ASSERT_TRUE(wrong.error.has_value());
  EXPECT_EQ(wrong.error->sqlstate, "22023");
}

TEST(MergeTreeAggregate, BinaryFloatsOnlyWhenPrintedExactly) {
  MergeQuery q = plan("SELECT min(f) FROM t");
  const std::string d = describe({{"min", kFloat8}});
  const std::vector<Rows> shards = {{{"0.1"}}, {{"2.5"}}};
  Formats binary;
  binary.client_formats = {1};
  Outcome r = merged(q, {d}, shards, {}, binary);
  using namespace std::string_literals;
  EXPECT_EQ(r.rows, (Rows{{"\x3f\xb9\x99\x99\x99\x99\x99\x9a"s}}));
  binary.exact_floats = false;
  Outcome refused = run_rows(q, {d}, shards, {}, binary);
  ASSERT_TRUE(refused.error.has_value());
  EXPECT_EQ(refused.error->sqlstate, "0A000");
  EXPECT_NE(refused.error->message.find("extra_float_digits"), std::string::npos);
}

TEST(MergeTreeAggregate, UngroupedWithSomeAndAllShardsEmpty) {
  MergeQuery q = plan("SELECT count(*), sum(amount), min(name), max(name), avg(amount) FROM t");
  const std::string d = describe({{"count", kInt8},
                                  {"sum", kInt8},
                                  {"min", kText},
                                  {"max", kText},
                                  {"avg", kInt8},
                                  {"count", kInt8}});
  const Row empty = {"0", kNull, kNull, kNull, kNull, "0"};
  {
    // avg of 1, 2 over two shards; a shard without rows still sends its one row.
    Outcome r = merged(
        q, {d}, {{{"1", "1", "b", "b", "1", "1"}}, {empty}, {{"1", "2", "a", "a", "2", "1"}}});
    EXPECT_EQ(r.rows, (Rows{{"2", "3", "a", "b", "1.5000000000000000"}}));
  }
  {
    // SELECT count(*), sum(amount), min(name), max(name), avg(amount) FROM t WHERE false
    Outcome r = merged(q, {d}, {{empty}, {empty}, {empty}});
    EXPECT_EQ(r.rows, (Rows{{"0", kNull, kNull, kNull, kNull}}));
    EXPECT_EQ(r.count, 1u);
  }
}

TEST(MergeTreeAggregate, AvgScaleAsPostgresComputesIt) {
  MergeQuery q = plan("SELECT avg(amount) FROM t");
  {
    // numeric 1.50, 2.25, 3: the sums keep the largest scale
    const std::string d = describe({{"avg", kNumeric}, {"count", kInt8}});
    Outcome r = merged(q, {d}, {{{"3.75", "2"}}, {{kNull, "0"}}, {{"3", "1"}}});
    EXPECT_EQ(r.rows, col({"2.2500000000000000"}));
  }
  {
    // int8 10, 20, 30, 40: the shard's sum(int8) is numeric
    const std::string d = describe({{"avg", kNumeric}, {"count", kInt8}});
    Outcome r = merged(q, {d}, {{{"30", "2"}}, {{"70", "2"}}});
    EXPECT_EQ(r.rows, col({"25.0000000000000000"}));
  }
  {
    // int4 1, 2, 2
    const std::string d = describe({{"avg", kInt8}, {"count", kInt8}});
    Outcome r = merged(q, {d}, {{{"1", "1"}}, {{"4", "2"}}});
    EXPECT_EQ(r.rows, col({"1.6666666666666667"}));
    EXPECT_EQ(fields_of(r.row_description), (std::vector<ResultField>{field("avg", kNumeric)}));
  }
}

/// One group's partial aggregates on one shard.
struct GroupPartial {
  Cell grp;
  const char* count;  // count(*)
  Cell sum, min, max;
  const char* nonnull;  // count(amount)
};

const std::vector<std::vector<GroupPartial>> kTablePartials = {
    {{"1", "1", "4", "4", "4", "1"},
     {"2", "1", kNull, kNull, kNull, "0"},
     {"3", "1", "2", "2", "2", "1"},
     {kNull, "1", "3", "3", "3", "1"}},
    {{"1", "1", "6", "6", "6", "1"},
     {"2", "1", kNull, kNull, kNull, "0"},
     {"3", "1", "9", "9", "9", "1"},
     {kNull, "1", "5", "5", "5", "1"}},
    {{"1", "1", "1", "1", "1", "1"}, {"4", "1", "20", "20", "20", "1"}},
};

/// The shards' RowDescription and rows for a plan grouped by grp with count(*), sum(amount),
/// min(amount), max(amount) and avg(amount) over the table above.
std::pair<std::string, std::vector<Rows>> table_partials(const MergeQuery& q) {
  EXPECT_EQ(q.group_columns, 1);
  std::vector<std::pair<std::string, uint32_t>> columns = {{"grp", kInt4}};
  for (const sql::MergeAggregate& a : q.aggregates) {
    switch (a.kind) {
      case sql::MergeAggregate::Kind::kCount:
        columns.push_back({"count", kInt8});
        break;
      case sql::MergeAggregate::Kind::kSum:
        columns.push_back({"sum", kInt8});
        break;
      case sql::MergeAggregate::Kind::kMin:
        columns.push_back({"min", kInt4});
        break;
      case sql::MergeAggregate::Kind::kMax:
        columns.push_back({"max", kInt4});
        break;
      case sql::MergeAggregate::Kind::kAvg:
        columns.push_back({"avg", kInt8});
        columns.push_back({"count", kInt8});
        break;
    }
  }
  std::vector<Rows> shards;
  for (const auto& shard : kTablePartials) {
    shards.emplace_back();
    for (const GroupPartial& g : shard) {
      Row row = {g.grp};
      for (const sql::MergeAggregate& a : q.aggregates) {
        switch (a.kind) {
          case sql::MergeAggregate::Kind::kCount:
            row.push_back(g.count);
            break;
          case sql::MergeAggregate::Kind::kSum:
            row.push_back(g.sum);
            break;
          case sql::MergeAggregate::Kind::kMin:
            row.push_back(g.min);
            break;
          case sql::MergeAggregate::Kind::kMax:
            row.push_back(g.max);
            break;
          case sql::MergeAggregate::Kind::kAvg:
            row.push_back(g.sum);
            row.push_back(g.nonnull);
            break;
        }
      }
      shards.back().push_back(std::move(row));
    }
  }
  return {describe(columns), shards};
}

const std::string kGroupDescription =
    describe({{"grp", kInt4}, {"count", kInt8}, {"sum", kInt8}, {"avg", kInt8}, {"count", kInt8}});

// SELECT grp, count(*), sum(amount), sum(amount * 1) AS avg, count(amount) FROM t GROUP BY 1
// ORDER BY 1, on each shard of the table above.
const std::vector<Rows> kGroupPartials = {
    {{"1", "1", "4", "4", "1"},
     {"2", "1", kNull, kNull, "0"},
     {"3", "1", "2", "2", "1"},
     {kNull, "1", "3", "3", "1"}},
    {{"1", "1", "6", "6", "1"},
     {"2", "1", kNull, kNull, "0"},
     {"3", "1", "9", "9", "1"},
     {kNull, "1", "5", "5", "1"}},
    {{"1", "1", "1", "1", "1"}, {"4", "1", "20", "20", "1"}},
};

TEST(MergeTreeAggregate, GroupsOnSeveralShardsAreCombined) {
  MergeQuery q = plan("SELECT grp, count(*), sum(amount), avg(amount) FROM t GROUP BY grp");
  EXPECT_EQ(q.shard_sql,
            "SELECT grp, count(*), sum(amount), sum(amount * 1) AS avg, count(amount) FROM t GROUP "
            "BY 1 ORDER BY 1");
  Outcome r = merged(q, {kGroupDescription}, kGroupPartials);
  // No ORDER BY: PostgreSQL may send the groups in any order.
  EXPECT_EQ(sorted(r.rows), sorted(Rows{{"1", "3", "11", "3.6666666666666667"},
                                        {"2", "2", kNull, kNull},
                                        {"3", "2", "11", "5.5000000000000000"},
                                        {"4", "1", "20", "20.0000000000000000"},
                                        {kNull, "2", "8", "4.0000000000000000"}}));
  EXPECT_EQ(fields_of(r.row_description),
            (std::vector<ResultField>{field("grp", kInt4), field("count", kInt8),
                                      field("sum", kInt8), field("avg", kNumeric)}));
}

TEST(MergeTreeAggregate, GroupsStreamAndLimitStopsReading) {
  MergeQuery q = plan("SELECT grp, count(*) FROM t GROUP BY grp LIMIT 1");
  EXPECT_FALSE(q.limit_pushed);
  const std::string d = describe({{"grp", kInt4}, {"count", kInt8}});
  Outcome r = merged(q, {d},
                     {{{"1", "1"}, {"2", "1"}, {"3", "1"}, {kNull, "1"}},
                      {{"1", "1"}, {"2", "1"}, {"3", "1"}, {kNull, "1"}},
                      {{"1", "1"}, {"4", "1"}}});
  // Any one group is a right answer; the merge finishes the first one and stops.
  EXPECT_EQ(r.rows, (Rows{{"1", "3"}}));
  EXPECT_EQ(r.requested, (std::vector<size_t>{2, 2, 2}));
  EXPECT_EQ(r.asked_end, (std::vector<bool>{false, false, false}));
}

TEST(MergeTreeAggregate, GroupColumnsInAnyPositionAndNotSelected) {
  {
    MergeQuery q = plan("SELECT count(*) AS n, grp FROM t GROUP BY grp ORDER BY grp DESC");
    EXPECT_EQ(q.shard_sql, "SELECT grp, count(*) AS n FROM t GROUP BY 1 ORDER BY 1");
    Outcome r = merged(q, {describe({{"grp", kInt4}, {"n", kInt8}})},
                       {{{"1", "1"}, {"2", "1"}, {"3", "1"}, {kNull, "1"}},
                        {{"1", "1"}, {"2", "1"}, {"3", "1"}, {kNull, "1"}},
                        {{"1", "1"}, {"4", "1"}}});
    EXPECT_EQ(r.rows, (Rows{{"2", kNull}, {"1", "4"}, {"2", "3"}, {"2", "2"}, {"3", "1"}}));
    EXPECT_EQ(fields_of(r.row_description),
              (std::vector<ResultField>{field("n", kInt8), field("grp", kInt4)}));
  }
  {
    MergeQuery q = plan("SELECT count(*) FROM t GROUP BY grp");
    Outcome r = merged(q, {describe({{"grp", kInt4}, {"count", kInt8}})},
                       {{{"1", "1"}, {"2", "1"}, {"3", "1"}, {kNull, "1"}},
                        {{"1", "1"}, {"2", "1"}, {"3", "1"}, {kNull, "1"}},
                        {{"1", "1"}, {"4", "1"}}});
    EXPECT_EQ(sorted(r.rows), col({"1", "2", "2", "2", "3"}));
    EXPECT_EQ(fields_of(r.row_description), (std::vector<ResultField>{field("count", kInt8)}));
  }
}

TEST(MergeTreeAggregate, SeveralGroupColumnsWithNulls) {
  MergeQuery q = plan("SELECT grp, name, sum(amount) FROM t GROUP BY grp, name ORDER BY grp, name");
  EXPECT_EQ(q.group_columns, 2);
  const std::string d = describe({{"grp", kInt4}, {"name", kText}, {"sum", kInt8}});
  Outcome r = merged(q, {d},
                     {{{"1", "a", "1"}, {"1", kNull, "2"}, {kNull, "a", "3"}, {kNull, kNull, "4"}},
                      {{"1", "a", "10"}, {"1", "b", "20"}, {kNull, kNull, "40"}},
                      {{"1", kNull, "200"}, {"2", "a", kNull}, {kNull, "a", "300"}}});
  EXPECT_EQ(r.rows, (Rows{{"1", "a", "11"},
                          {"1", "b", "20"},
                          {"1", kNull, "202"},
                          {"2", "a", kNull},
                          {kNull, "a", "303"},
                          {kNull, kNull, "44"}}));
}

TEST(MergeTreeAggregate, EqualNumericGroupKeysAreOneGroup) {
  MergeQuery q = plan("SELECT amount, count(*) FROM t GROUP BY amount");
  const std::string d = describe({{"amount", kNumeric}, {"count", kInt8}});
  Outcome r =
      merged(q, {d}, {{{"1.0", "2"}, {"2", "1"}}, {{"1.00", "3"}}, {{"1", "1"}, {"2.0", "1"}}});
  // PostgreSQL shows one of the equal values for the group.
  ASSERT_EQ(r.rows.size(), 2u);
  Rows rows = r.rows;
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a[1] > b[1]; });
  EXPECT_TRUE(rows[0][0] == "1.0" || rows[0][0] == "1.00" || rows[0][0] == "1") << *rows[0][0];
  EXPECT_EQ(rows[0][1], "6");
  EXPECT_TRUE(rows[1][0] == "2" || rows[1][0] == "2.0") << *rows[1][0];
  EXPECT_EQ(rows[1][1], "2");
}

/// SELECT grp FROM t GROUP BY grp HAVING … ORDER BY grp, over the table above.
Rows groups_having(const std::string& having) {
  MergeQuery q = plan("SELECT grp FROM t GROUP BY grp HAVING " + having + " ORDER BY grp");
  EXPECT_EQ(q.visible_outputs, 1);
  auto [d, partials] = table_partials(q);
  return merged(q, {d}, partials).rows;
}

TEST(MergeTreeAggregate, HavingAndOrNot) {
  auto groups = groups_having;
  // Groups: 1 (count 3, sum 11), 2 (2, NULL), 3 (2, 11), 4 (1, 20), NULL (2, 8).
  EXPECT_EQ(groups("count(*) >= 2 AND sum(amount) < 11"), col({kNull}));
  EXPECT_EQ(groups("count(*) > 2 OR sum(amount) >= 20"), col({"1", "4"}));
  EXPECT_EQ(groups("NOT (count(*) = 2)"), col({"1", "4"}));
  EXPECT_EQ(groups("2 < count(*) OR grp = 3"), col({"1", "3"}));
  EXPECT_EQ(groups("count(*) <> 2 AND NOT grp <= 1"), col({"4"}));
  EXPECT_EQ(groups("sum(amount) IS NULL"), col({"2"}));
  EXPECT_EQ(groups("sum(amount) IS NOT NULL AND grp IS NULL"), col({kNull}));
  EXPECT_EQ(groups("count(*) > 2.5"), col({"1"}));
  EXPECT_EQ(groups("max(amount) > min(amount)"), col({"1", "3", kNull}));
}

TEST(MergeTreeAggregate, HavingNullComparisonsDropTheGroup) {
  auto groups = groups_having;
  // Group 2's sum is NULL: sum > 5 is NULL, NOT NULL is NULL; both drop it.
  EXPECT_EQ(groups("sum(amount) > 5"), col({"1", "3", "4", kNull}));
  EXPECT_EQ(groups("NOT sum(amount) > 5"), col({}));
  EXPECT_EQ(groups("NOT sum(amount) > 10"), col({kNull}));
  // NULL OR true is true; NULL AND false is false, and NOT false is true.
  EXPECT_EQ(groups("sum(amount) > 5 OR count(*) >= 2"), col({"1", "2", "3", "4", kNull}));
  EXPECT_EQ(groups("NOT (sum(amount) > 5 AND count(*) > 100)"), col({"1", "2", "3", "4", kNull}));
  // NULL OR false, NULL AND true: NULL, dropped.
  EXPECT_EQ(groups("sum(amount) > 5 OR count(*) > 100"), col({"1", "3", "4", kNull}));
  EXPECT_EQ(groups("NOT (sum(amount) < 5 OR count(*) > 100)"), col({"1", "3", "4", kNull}));
  // A NULL group key compared is NULL too; a comparison with NULL is never true.
  EXPECT_EQ(groups("grp <> 1"), col({"2", "3", "4"}));
  EXPECT_EQ(groups("NOT grp = 1"), col({"2", "3", "4"}));
  EXPECT_EQ(groups("count(*) > NULL"), col({}));
  EXPECT_EQ(groups("NOT count(*) = NULL"), col({}));
}

TEST(MergeTreeAggregate, UngroupedHaving) {
  const std::string d = describe({{"count", kInt8}});
  MergeQuery none = plan("SELECT count(*) FROM t HAVING count(*) > 100");
  EXPECT_TRUE(merged(none, {d}, {{{"4"}}, {{"4"}}, {{"2"}}}).rows.empty());
  MergeQuery one = plan("SELECT count(*) FROM t HAVING count(*) = 10");
  EXPECT_EQ(merged(one, {d}, {{{"4"}}, {{"4"}}, {{"2"}}}).rows, col({"10"}));
}

TEST(MergeTreeAggregate, HavingOnTextAndNumericConstants) {
  // min(name) per group over rows (1,'b') (1,'Ab') | (2,'a') (1,'c') | (2,'B') (3, NULL).
  const std::string d = describe({{"grp", kInt4}, {"min", kText}});
  const std::vector<Rows> partials = {
      {{"1", "Ab"}}, {{"1", "c"}, {"2", "a"}}, {{"2", "B"}, {"3", kNull}}};
  MergeQuery q = plan("SELECT grp, min(name) FROM t GROUP BY grp HAVING min(name) >= 'B'");
  EXPECT_EQ(sorted(merged(q, {d}, partials).rows), (Rows{{"2", "B"}}));
  MergeQuery lt = plan("SELECT grp FROM t GROUP BY grp HAVING min(name) < 'a' ORDER BY grp");
  EXPECT_EQ(merged(lt, {d}, partials).rows, col({"1", "2"}));
  MergeQuery eq = plan("SELECT grp FROM t GROUP BY grp HAVING grp = '2' OR grp >= 2.5");
  EXPECT_EQ(sorted(merged(eq, {d}, partials).rows), col({"2", "3"}));
}

TEST(MergeTreeAggregate, OffsetAndLimitOverGroups) {
  {
    MergeQuery q = plan("SELECT grp, count(*) FROM t GROUP BY grp ORDER BY grp LIMIT 2 OFFSET 1");
    auto [d, partials] = table_partials(q);
    EXPECT_EQ(merged(q, {d}, partials).rows, (Rows{{"2", "2"}, {"3", "2"}}));
  }
  {
    MergeQuery q = plan("SELECT grp, count(*) FROM t GROUP BY grp ORDER BY grp OFFSET 10");
    auto [d, partials] = table_partials(q);
    EXPECT_TRUE(merged(q, {d}, partials).rows.empty());
  }
  {
    MergeQuery q = plan("SELECT grp, count(*) FROM t GROUP BY grp LIMIT 0");
    auto [d, partials] = table_partials(q);
    Outcome r = merged(q, {d}, partials);
    EXPECT_TRUE(r.rows.empty());
    EXPECT_EQ(r.requested, (std::vector<size_t>{0, 0, 0}));
  }
  {
    // The one row of an ungrouped aggregate, after OFFSET 1: none.
    MergeQuery q = plan("SELECT count(*) FROM t OFFSET 1");
    EXPECT_TRUE(
        merged(q, {describe({{"count", kInt8}})}, {{{"4"}}, {{"4"}}, {{"2"}}}).rows.empty());
    MergeQuery one = plan("SELECT count(*) FROM t ORDER BY 1 LIMIT 1");
    EXPECT_EQ(merged(one, {describe({{"count", kInt8}})}, {{{"4"}}, {{"4"}}, {{"2"}}}).rows,
              col({"10"}));
  }
}

TEST(MergeTreeAggregate, OrderByAnAggregateDescWithLimit) {
  // SELECT grp, sum(amount) AS total FROM t GROUP BY grp ORDER BY total DESC LIMIT 3:
  // DESC puts the NULL sum (group 2) first.
  MergeQuery q =
      plan("SELECT grp, sum(amount) AS total FROM t GROUP BY grp ORDER BY total DESC, grp LIMIT 3");
  const std::string d = describe({{"grp", kInt4}, {"total", kInt8}});
  const std::vector<Rows> partials = {
      {{"1", "4"}, {"2", kNull}, {"3", "2"}, {kNull, "3"}},
      {{"1", "6"}, {"2", kNull}, {"3", "9"}, {kNull, "5"}},
      {{"1", "1"}, {"4", "20"}},
  };
  Outcome r = merged(q, {d}, partials);
  EXPECT_EQ(r.rows, (Rows{{"2", kNull}, {"4", "20"}, {"1", "11"}}));
  // Sorting needs every group: all of the shards' rows are read.
  EXPECT_EQ(r.asked_end, (std::vector<bool>{true, true, true}));
  EXPECT_EQ(fields_of(r.row_description),
            (std::vector<ResultField>{field("grp", kInt4), field("total", kInt8)}));

  MergeQuery offset = plan(
      "SELECT grp, sum(amount) AS total FROM t GROUP BY grp ORDER BY 2 DESC NULLS LAST, 1 DESC "
      "LIMIT 2 OFFSET 1");
  EXPECT_EQ(merged(offset, {d}, partials).rows, (Rows{{"3", "11"}, {"1", "11"}}));
}

TEST(MergeTreeAggregate, OrderByAHiddenAggregate) {
  MergeQuery q = plan("SELECT grp FROM t GROUP BY grp ORDER BY max(amount) DESC NULLS LAST");
  EXPECT_EQ(q.visible_outputs, 1);
  const std::string d = describe({{"grp", kInt4}, {"max", kInt4}});
  Outcome r = merged(q, {d},
                     {{{"1", "4"}, {"2", kNull}, {"3", "2"}, {kNull, "3"}},
                      {{"1", "6"}, {"2", kNull}, {"3", "9"}, {kNull, "5"}},
                      {{"1", "1"}, {"4", "20"}}});
  EXPECT_EQ(r.rows, col({"4", "3", "1", kNull, "2"}));
  EXPECT_EQ(fields_of(r.row_description), (std::vector<ResultField>{field("grp", kInt4)}));
}

TEST(MergeTreeAggregate, OrderByAvgComparesNumerically) {
  MergeQuery q = plan("SELECT grp, avg(amount) FROM t GROUP BY grp ORDER BY avg(amount), grp");
  Outcome r = merged(q, {describe({{"grp", kInt4}, {"avg", kInt8}, {"count", kInt8}})},
                     {{{"1", "4", "1"}, {"2", kNull, "0"}, {"3", "2", "1"}, {kNull, "3", "1"}},
                      {{"1", "6", "1"}, {"2", kNull, "0"}, {"3", "9", "1"}, {kNull, "5", "1"}},
                      {{"1", "1", "1"}, {"4", "20", "1"}}});
  EXPECT_EQ(r.rows, (Rows{{"1", "3.6666666666666667"},
                          {kNull, "4.0000000000000000"},
                          {"3", "5.5000000000000000"},
                          {"4", "20.0000000000000000"},
                          {"2", kNull}}));
}

TEST(MergeTreeAggregate, DistinctOverCombinedRows) {
  MergeQuery q = plan("SELECT DISTINCT count(*) AS c FROM t GROUP BY grp ORDER BY c DESC");
  ASSERT_TRUE(q.distinct);
  const std::string d = describe({{"grp", kInt4}, {"c", kInt8}});
  Outcome r = merged(q, {d},
                     {{{"1", "1"}, {"2", "1"}, {"3", "1"}, {kNull, "1"}},
                      {{"1", "1"}, {"2", "1"}, {"3", "1"}, {kNull, "1"}},
                      {{"1", "1"}, {"4", "1"}}});
  // Counts per group: 3, 2, 2, 1, 2 (the partial rows are all different).
  EXPECT_EQ(r.rows, col({"3", "2", "1"}));

  MergeQuery sums = plan("SELECT DISTINCT sum(amount) FROM t GROUP BY grp LIMIT 10");
  Outcome s = merged(sums, {describe({{"grp", kInt4}, {"sum", kInt8}})},
                     {{{"1", "4"}, {"2", kNull}, {"3", "2"}, {kNull, "3"}},
                      {{"1", "6"}, {"2", kNull}, {"3", "9"}, {kNull, "5"}},
                      {{"1", "1"}, {"4", "20"}}});
  // Sums per group: 11, NULL, 11, 20, 8.
  EXPECT_EQ(sorted(s.rows), sorted(col({"11", kNull, "20", "8"})));
}

TEST(MergeTreeAggregate, MinMaxOfTextAcrossShards) {
  MergeQuery q = plan("SELECT grp, min(name), max(name) FROM t GROUP BY grp ORDER BY grp");
  const std::string d = describe({{"grp", kInt4}, {"min", kText}, {"max", kText}});
  Outcome r = merged(q, {d},
                     {{{"1", "b", "q"}, {"2", kNull, kNull}},
                      {{"1", "B", "a"}, {"2", "10", "9"}},
                      {{"1", kNull, kNull}, {"2", "100", "11"}}});
  EXPECT_EQ(r.rows, (Rows{{"1", "B", "q"}, {"2", "10", "9"}}));
}

TEST(MergeTreeAggregate, SumOfInt4IsInt8AndOverflowIsAnError) {
  MergeQuery q = plan("SELECT sum(amount) AS s FROM t");
  const std::string d = describe({{"s", kInt8}});
  Outcome r = merged(q, {d}, {{{"2147483647"}}, {{"2147483647"}}, {{kNull}}});
  EXPECT_EQ(r.rows, col({"4294967294"}));
  EXPECT_EQ(fields_of(r.row_description), (std::vector<ResultField>{field("s", kInt8)}));
  // sum(int8): the shards' numeric sums do not overflow.
  Outcome n = merged(q, {describe({{"s", kNumeric}})},
                     {{{"9223372036854775807"}}, {{"9223372036854775807"}}, {{kNull}}});
  EXPECT_EQ(n.rows, col({"18446744073709551614"}));
  // count(*) over int8 partials that PostgreSQL could not add either: bigint out of range.
  MergeQuery c = plan("SELECT count(*) FROM t");
  Outcome o =
      run_rows(c, {describe({{"count", kInt8}})}, {{{"9223372036854775807"}}, {{"1"}}, {{"0"}}});
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->sqlstate, "22003");
}

// ---------------------------------------------------------------------------------------------
// The tree of operators

/// The operators of a query's merge tree, root first, one per line (indented by depth).
std::string tree_of(const MergeQuery& q, size_t shards) {
  Probe probe;
  std::vector<std::unique_ptr<proxy::exec::ShardRows>> inputs;
  for (size_t s = 0; s < shards; ++s) inputs.push_back(std::make_unique<TestShard>(s, "", probe));
  auto root = proxy::exec::make_merge_tree(q, std::move(inputs), {});
  std::string out;
  std::vector<std::pair<const proxy::exec::Operator*, int>> stack = {{root.get(), 0}};
  while (!stack.empty()) {
    auto [op, depth] = stack.back();
    stack.pop_back();
    std::string what = op->describe();
    out += std::string(2 * static_cast<size_t>(depth), ' ') + what.substr(0, what.find(':')) + "\n";
    auto in = op->inputs();
    for (auto it = in.rbegin(); it != in.rend(); ++it) stack.push_back({*it, depth + 1});
  }
  return out;
}

TEST(MergeTreeShape, EachStepIsAnOperator) {
  EXPECT_EQ(tree_of(plan("SELECT id, name FROM t ORDER BY id LIMIT 5"), 2),
            "Project\n  Limit\n    MergeSort\n      test shard 0\n      test shard 1\n");
  EXPECT_EQ(tree_of(plan("SELECT name FROM t"), 2),
            "Project\n  Append\n    test shard 0\n    test shard 1\n");
  EXPECT_EQ(tree_of(plan("SELECT DISTINCT name FROM t"), 1),
            "Project\n  Distinct\n    MergeSort\n      test shard 0\n");
  EXPECT_EQ(tree_of(plan("SELECT count(*) FROM t"), 1),
            "Project\n  Aggregate\n    Append\n      test shard 0\n");
  EXPECT_EQ(tree_of(plan("SELECT DISTINCT grp, count(*) FROM t GROUP BY grp HAVING count(*) > 1 "
                         "ORDER BY 2 DESC OFFSET 1 LIMIT 2"),
                    1),
            "Project\n  Limit\n    Sort\n      Distinct\n        Sort\n          Filter\n"
            "            Aggregate\n              MergeSort\n                test shard 0\n");
}

TEST(MergeTreeSort, OrderByOverGroupsPastQueryMemorySortsInRunsOnDisk) {
  MergeQuery q = plan("SELECT grp, count(*) FROM t GROUP BY grp ORDER BY 2 DESC, 1");
  const std::string d = describe({{"grp", kInt4}, {"count", kInt8}});
  std::vector<Rows> shards(3);
  Rows expected;
  for (int g = 0; g < 300; ++g) {
    for (size_t s = 0; s < shards.size(); ++s) {
      shards[s].push_back({std::to_string(g), std::to_string((g * 7 + static_cast<int>(s)) % 11)});
    }
  }
  // Each group's count is the sum of its partials; sorted by it, descending, then by group.
  std::vector<std::pair<int, int>> totals;
  for (int g = 0; g < 300; ++g) {
    int total = 0;
    for (int s = 0; s < 3; ++s) total += (g * 7 + s) % 11;
    totals.push_back({-total, g});
  }
  std::sort(totals.begin(), totals.end());
  for (auto [neg, g] : totals) expected.push_back({std::to_string(g), std::to_string(-neg)});
  Outcome whole = merged(q, {d}, shards);
  EXPECT_EQ(whole.rows, expected);

  // 300 combined groups of about 60 bytes each do not fit in 4 KiB (nor in 1 KiB): they are
  // sorted in runs written to a temporary file, merged at the end: the same answer.
  EXPECT_EQ(merged(q, {d}, shards, {.memory_limit = 4096}).rows, expected);
  EXPECT_EQ(merged(q, {d}, shards, {.memory_limit = 1024}).rows, expected);
  EXPECT_EQ(merged(q, {d}, shards, {.memory_limit = 1 << 20}).rows, expected);
  // Where no file can be made, the statement fails as PostgreSQL's would, and says where.
  Outcome nowhere =
      run_rows(q, {d}, shards, {.memory_limit = 4096, .temp_directory = "/nonexistent/dir"});
  ASSERT_TRUE(nowhere.error.has_value());
  EXPECT_EQ(nowhere.error->sqlstate, "58030");
  EXPECT_NE(nowhere.error->message.find("/nonexistent/dir"), std::string::npos)
      << nowhere.error->message;
}

TEST(MergeTreeSort, SortInRunsOnDiskIsStableAcrossTheRuns) {
  // Many groups with few distinct counts: ties across every run keep the groups' order.
  MergeQuery q = plan("SELECT grp, count(*) FROM t GROUP BY grp ORDER BY 2 DESC");
  const std::string d = describe({{"grp", kInt4}, {"count", kInt8}});
  std::vector<Rows> shards(2);
  std::vector<std::pair<int, int>> totals;  // (-count, grp): the stable order
  for (int g = 0; g < 1000; ++g) {
    shards[0].push_back({std::to_string(g), std::to_string(g % 3)});
    shards[1].push_back({std::to_string(g), "1"});
    totals.push_back({-(g % 3 + 1), g});
  }
  std::sort(totals.begin(), totals.end());
  Rows expected;
  for (auto [neg, g] : totals) expected.push_back({std::to_string(g), std::to_string(-neg)});
  EXPECT_EQ(merged(q, {d}, shards, {.memory_limit = 2048}).rows, expected);
}

TEST(MergeTreeSort, SortIsStableAndKeepsTheGroupOrderForTies) {
  // Ties on the ORDER BY key keep the groups' order (by group), as the combined groups come.
  MergeQuery q = plan("SELECT grp, count(*) FROM t GROUP BY grp ORDER BY 2");
  const std::string d = describe({{"grp", kInt4}, {"count", kInt8}});
  Outcome r = merged(q, {d}, {{{"1", "2"}, {"2", "1"}, {"3", "1"}}, {{"1", "1"}, {"4", "1"}}});
  EXPECT_EQ(r.rows, (Rows{{"2", "1"}, {"3", "1"}, {"4", "1"}, {"1", "3"}}));
}

// ---------------------------------------------------------------------------------------------
// Errors

TEST(MergeTreeErrors, ShardsDescribingDifferentColumns) {
  MergeQuery q = plan("SELECT id, name FROM t ORDER BY id");
  const std::string a = describe({{"id", kInt4}, {"name", kText}});
  {
    Outcome r = run_rows(q, {a, a, describe({{"id", kInt8}, {"name", kText}})}, {{}, {}, {}});
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(r.error->sqlstate, "XX000");
  }
  {
    Outcome r = run_rows(q, {a, describe({{"id", kInt4}, {"nom", kText}}), a}, {{}, {}, {}});
    ASSERT_TRUE(r.error.has_value());
  }
  {
    Outcome r = run_rows(q, {a, describe({{"id", kInt4}}), a}, {{}, {}, {}});
    ASSERT_TRUE(r.error.has_value());
  }
  {
    // The same on every shard, but not the plan's two columns.
    Outcome r =
        run_rows(q, {describe({{"id", kInt4}, {"name", kText}, {"x", kText}})}, {{}, {}, {}});
    ASSERT_TRUE(r.error.has_value());
  }
  {
    // A malformed RowDescription.
    Outcome r = run_rows(q, {std::string("\0\1id", 4)}, {{}});
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(r.error->sqlstate, "XX000");
  }
}

TEST(MergeTreeErrors, OrderByJsonIsNotSupported) {
  MergeQuery q = plan("SELECT id, name FROM t ORDER BY name");
  Outcome r = run_rows(q, {describe({{"id", kInt4}, {"name", kJson}})}, {{}, {}});
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->sqlstate, "0A000");
  EXPECT_TRUE(r.order_asked.empty());
  EXPECT_NE(r.error->message.find("ORDER BY"), std::string::npos) << r.error->message;

  MergeQuery distinct = plan("SELECT DISTINCT name FROM t");
  Outcome dr = run_rows(distinct, {describe({{"name", kJson}})}, {{}, {}});
  ASSERT_TRUE(dr.error.has_value());
  EXPECT_EQ(dr.error->sqlstate, "0A000");

  MergeQuery group = plan("SELECT name, count(*) FROM t GROUP BY name");
  Outcome gr = run_rows(group, {describe({{"name", kJson}, {"count", kInt8}})}, {{}, {}});
  ASSERT_TRUE(gr.error.has_value());
  EXPECT_EQ(gr.error->sqlstate, "0A000");

  // Not compared: a json column is passed on as it is.
  MergeQuery plain = plan("SELECT name FROM t ORDER BY id");
  Outcome pr = merged(plain, {describe({{"name", kJson}, {"id", kInt4}})},
                      {{{"{\"b\": 1}", "2"}}, {{"[1]", "1"}}});
  EXPECT_EQ(pr.rows, col({"[1]", "{\"b\": 1}"}));
}

TEST(MergeTreeErrors, MalformedDataRows) {
  MergeQuery q = plan("SELECT id, name FROM t ORDER BY id");
  const std::string d = describe({{"id", kInt4}, {"name", kText}});
  std::string ok = data_row({"1", "a"});
  std::string three = data_row({"1", "a", "x"});
  std::string one = data_row({"1"});
  std::string truncated = ok.substr(0, ok.size() - 1);
  std::string cut_length = ok.substr(0, 2 + 4 + 1 + 2);  // the second length is cut
  std::string no_count = std::string("\0", 1);
  for (const std::string& bad : {three, one, truncated, cut_length, no_count}) {
    Outcome r = run_bodies(q, {d}, {{bad}, {data_row({"2", "b"})}});
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(r.error->sqlstate, "XX000");
  }
  // In aggregate mode too.
  MergeQuery agg = plan("SELECT count(*) FROM t");
  Outcome r = run_bodies(agg, {describe({{"count", kInt8}})}, {{data_row({"1", "2"})}, {}});
  ASSERT_TRUE(r.error.has_value());
}

// Float sums are combined as PostgreSQL's parallel plans combine them; avg of float4 (summed as
// float4 on each shard) and float sums the shards print rounded are refused.
TEST(MergeTreeErrors, FloatSumsCombineAndWhatCannotIsRefused) {
  MergeQuery grouped = plan("SELECT grp, sum(amount) FROM t GROUP BY grp");
  Outcome sums = merged(grouped, {describe({{"grp", kInt4}, {"sum", kFloat8}})},
                        {{{"1", "0.1"}, {"2", "1e+308"}}, {{"1", "0.2"}, {"2", "1e+300"}}});
  EXPECT_EQ(sums.rows, (Rows{{"1", "0.30000000000000004"}, {"2", "1.00000001e+308"}}));
  Outcome overflow = run_rows(grouped, {describe({{"grp", kInt4}, {"sum", kFloat8}})},
                              {{{"2", "1e+308"}}, {{"2", "1e+308"}}});
  ASSERT_TRUE(overflow.error.has_value());
  EXPECT_EQ(overflow.error->sqlstate, "22003");
  MergeQuery avg = plan("SELECT avg(amount) FROM t");
  Outcome a = merged(avg, {describe({{"avg", kFloat8}, {"count", kInt8}})},
                     {{{"0.1", "1"}}, {{"0.2", "1"}}, {{kNull, "0"}}});
  EXPECT_EQ(a.rows, (Rows{{"0.15000000000000002"}}));
  Outcome a4 = run_rows(avg, {describe({{"avg", kFloat4}, {"count", kInt8}})}, {{}, {}});
  ASSERT_TRUE(a4.error.has_value());
  EXPECT_EQ(a4.error->sqlstate, "0A000");
  MergeQuery sum = plan("SELECT sum(amount) FROM t");
  Formats rounded;
  rounded.exact_floats = false;
  Outcome r = run_rows(sum, {describe({{"sum", kFloat8}})}, {{}, {}}, {}, rounded);
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->sqlstate, "0A000");
  // min/max of float8 compare exactly.
  MergeQuery mm = plan("SELECT min(amount), max(amount) FROM t");
  Outcome ok = merged(mm, {describe({{"min", kFloat8}, {"max", kFloat8}})},
                      {{{"-0.5", "NaN"}}, {{"-Infinity", "1e+300"}}});
  EXPECT_EQ(ok.rows, (Rows{{"-Infinity", "NaN"}}));
}

// --- windows computed in pgrange (kWindow): the shards' rows merged in the window's order ---

/// The plan computing the windows in pgrange (what runs when partitions span shards).
MergeQuery windows(const std::string& sql) {
  MergeQuery q = plan(sql);
  if (!q.windows_in_pgrange || !*q.windows_in_pgrange) {
    ADD_FAILURE() << sql << ": no plan computing the windows in pgrange";
    return MergeQuery{};
  }
  EXPECT_EQ((*q.windows_in_pgrange)->mode, MergeQuery::Mode::kWindow);
  return **q.windows_in_pgrange;
}

TEST(MergeTreeWindow, RanksOffsetsValuesAndRunningAggregatesPerPartition) {
  MergeQuery q = windows(
      "SELECT id, row_number() OVER w, rank() OVER w, sum(amount) OVER w, lag(id) OVER w, "
      "lead(id, 1, 0) OVER w, first_value(id) OVER w, last_value(id) OVER w, count(*) OVER "
      "(PARTITION BY grp ORDER BY amount, id ROWS UNBOUNDED PRECEDING) FROM t WINDOW w AS "
      "(PARTITION BY grp ORDER BY amount, id) ORDER BY id");
  EXPECT_EQ(q.shard_sql,
            "SELECT id, amount, CASE WHEN NULL THEN id ELSE 0 END, grp FROM t ORDER BY 4, 2, 1");
  const std::string d =
      describe({{"id", kInt8}, {"amount", kInt4}, {"case", kInt8}, {"grp", kInt4}});
  // (id, amount, the default, grp), each shard's sorted by grp (NULLS LAST), amount, id.
  Outcome r = merged(q, {d},
                     {{{"1", "10", "0", "1"}, {"4", "5", "0", "2"}},
                      {{"2", "10", "0", "1"}, {"3", "20", "0", "1"}, {"5", "1", "0", kNull}},
                      {}});
  EXPECT_EQ(r.rows, (Rows{{"1", "1", "1", "10", kNull, "2", "1", "1", "1"},
                          {"2", "2", "2", "20", "1", "3", "1", "2", "2"},
                          {"3", "3", "3", "40", "2", "0", "1", "3", "3"},
                          {"4", "1", "1", "5", kNull, "0", "4", "4", "1"},
                          {"5", "1", "1", "1", kNull, "0", "5", "5", "1"}}));
  EXPECT_EQ(fields_of(r.row_description),
            (std::vector<ResultField>{
                field("id", kInt8), field("row_number", kInt8), field("rank", kInt8),
                field("sum", kInt8), field("lag", kInt8), field("lead", kInt8),
                field("first_value", kInt8), field("last_value", kInt8), field("count", kInt8)}));
}

TEST(MergeTreeWindow, PeersShareRanksAndTheDefaultFrameEndsAtTheLastPeer) {
  MergeQuery q = windows(
      "SELECT id, rank() OVER w, dense_rank() OVER w, sum(amount) OVER w, count(*) OVER w, "
      "avg(amount) OVER (PARTITION BY grp ORDER BY amount ROWS BETWEEN UNBOUNDED PRECEDING AND "
      "UNBOUNDED FOLLOWING), nth_value(amount, 3) OVER w FROM t WINDOW w AS (PARTITION BY grp "
      "ORDER BY amount) ORDER BY id");
  const std::string d = describe({{"id", kInt8}, {"amount", kInt4}, {"grp", kInt4}});
  Outcome r = merged(q, {d},
                     {{{"1", "10", "1"}, {"3", "20", "1"}, {"6", "20", "1"}},
                      {{"2", "10", "1"}, {"4", "30", "1"}},
                      {{"5", "7", "2"}}});
  EXPECT_EQ(r.rows, (Rows{{"1", "1", "1", "20", "2", "18.0000000000000000", kNull},
                          {"2", "1", "1", "20", "2", "18.0000000000000000", kNull},
                          {"3", "3", "2", "60", "4", "18.0000000000000000", "20"},
                          {"4", "5", "3", "90", "5", "18.0000000000000000", "20"},
                          {"5", "1", "1", "7", "1", "7.0000000000000000", kNull},
                          {"6", "3", "2", "60", "4", "18.0000000000000000", "20"}}));
}

TEST(MergeTreeWindow, RelativeRanksAndTilesCountThePartition) {
  MergeQuery q = windows(
      "SELECT id, percent_rank() OVER w, cume_dist() OVER w, ntile(2) OVER w, ntile(3) OVER w, "
      "ntile(7) OVER w FROM t WINDOW w AS (PARTITION BY grp ORDER BY amount) ORDER BY id");
  EXPECT_EQ(q.shard_sql, "SELECT id, grp, amount FROM t ORDER BY 2, 3");
  const std::string d = describe({{"id", kInt8}, {"grp", kInt4}, {"amount", kInt4}});
  // grp 1: amounts 10, 10, 20, 20, 30 (ids 1, 2, 3, 6, 4); grp 2: one row.
  Outcome r = merged(q, {d},
                     {{{"1", "1", "10"}, {"3", "1", "20"}, {"6", "1", "20"}},
                      {{"2", "1", "10"}, {"4", "1", "30"}},
                      {{"5", "2", "7"}}});
  // ntile deals the rows in merge order: peers 1 and 2 (and 3 and 6) may come either way, so
  // the test sorts what it can tell apart: each bucket's size.
  ASSERT_EQ(r.rows.size(), 6u);
  const Rows expected_ranks = {{"1", "0", "0.4"}, {"2", "0", "0.4"}, {"3", "0.5", "0.8"},
                               {"4", "1", "1"},   {"5", "0", "1"},   {"6", "0.5", "0.8"}};
  std::vector<int> two(3), three(4), seven(8);
  for (size_t i = 0; i < r.rows.size(); ++i) {
    EXPECT_EQ(Row(r.rows[i].begin(), r.rows[i].begin() + 3), expected_ranks[i]);
    if (r.rows[i][0] == "5") {
      EXPECT_EQ(Row(r.rows[i].begin() + 3, r.rows[i].end()), (Row{"1", "1", "1"}));
      continue;
    }
    ++two.at(static_cast<size_t>(std::stoi(*r.rows[i][3])));
    ++three.at(static_cast<size_t>(std::stoi(*r.rows[i][4])));
    ++seven.at(static_cast<size_t>(std::stoi(*r.rows[i][5])));
  }
  // PostgreSQL's ntile over 5 rows: 2 buckets of 3 and 2, 3 of 2, 2 and 1, 7 of one row each
  // (the last two empty).
  EXPECT_EQ(two, (std::vector<int>{0, 3, 2}));
  EXPECT_EQ(three, (std::vector<int>{0, 2, 2, 1}));
  EXPECT_EQ(seven, (std::vector<int>{0, 1, 1, 1, 1, 1, 0, 0}));
  EXPECT_EQ(fields_of(r.row_description)[1], field("percent_rank", kFloat8));
  EXPECT_EQ(fields_of(r.row_description)[3], field("ntile", kInt4));
  // Floats as PostgreSQL writes them: the shortest exact digits, fixed from 1e-4 on.
  q = windows("SELECT id, cume_dist() OVER (ORDER BY id) FROM t");
  std::vector<Rows> many(1);
  for (int i = 0; i < 30000; ++i) many[0].push_back({std::to_string(i)});
  Outcome c = merged(q, {describe({{"id", kInt8}})}, many);
  ASSERT_EQ(c.rows.size(), 30000u);
  EXPECT_EQ(c.rows[0][1], "3.3333333333333335e-05");
  EXPECT_EQ(c.rows[2][1], "0.0001");
  EXPECT_EQ(c.rows[9999][1], "0.3333333333333333");
  EXPECT_EQ(c.rows[29999][1], "1");
}

TEST(MergeTreeWindow, StreamsAndALimitStopsReading) {
  MergeQuery q = windows("SELECT id, row_number() OVER (ORDER BY id) FROM t LIMIT 3");
  const std::string d = describe({{"id", kInt8}});
  std::vector<Rows> shards(3);
  for (int i = 0; i < 900; ++i) shards[static_cast<size_t>(i % 3)].push_back({std::to_string(i)});
  Outcome r = merged(q, {d}, shards);
  EXPECT_EQ(r.rows, (Rows{{"0", "1"}, {"1", "2"}, {"2", "3"}}));
  for (size_t s = 0; s < 3; ++s) {
    EXPECT_LT(r.requested[s], 100u) << "shard " << s << " was read further than the rows needed";
    EXPECT_FALSE(r.asked_end[s]);
  }
}

TEST(MergeTreeWindow, PartitionsPastQueryMemoryGoToDisk) {
  // No ORDER BY: every row of the partition is a peer of every other, so all wait for the last;
  // 300 rows do not fit in 4 KiB and are written to a temporary file: the same answer.
  MergeQuery q = windows("SELECT id, count(*) OVER (PARTITION BY grp) FROM t");
  const std::string d = describe({{"id", kInt8}, {"grp", kInt4}});
  std::vector<Rows> shards(3);
  for (int i = 0; i < 300; ++i)
    shards[static_cast<size_t>(i % 3)].push_back({std::to_string(i), "1"});
  Outcome whole = merged(q, {d}, shards);
  ASSERT_EQ(whole.rows.size(), 300u);
  for (const Row& row : whole.rows) EXPECT_EQ(row[1], "300");
  EXPECT_EQ(merged(q, {d}, shards, {.memory_limit = 4096}).rows, whole.rows);
  // Where no file can be made, the statement fails as PostgreSQL's would, and says where;
  // with the rows in memory it needs none.
  Outcome nowhere =
      run_rows(q, {d}, shards, {.memory_limit = 4096, .temp_directory = "/nonexistent/dir"});
  ASSERT_TRUE(nowhere.error.has_value());
  EXPECT_EQ(nowhere.error->sqlstate, "58030");
  EXPECT_NE(nowhere.error->message.find("/nonexistent/dir"), std::string::npos);
  EXPECT_EQ(
      merged(q, {d}, shards, {.memory_limit = 1 << 20, .temp_directory = "/nonexistent/dir"}).rows,
      whole.rows);
  // Partitions of 10 rows each: each is let go when the next one starts.
  for (size_t s = 0; s < 3; ++s) {
    for (Row& row : shards[s]) row[1] = std::to_string(std::stoi(*row[0]) / 10);
    std::sort(shards[s].begin(), shards[s].end(),
              [](const Row& a, const Row& b) { return std::stoi(*a[1]) < std::stoi(*b[1]); });
  }
  Outcome parts = merged(q, {d}, shards, {.memory_limit = 4096});
  ASSERT_EQ(parts.rows.size(), 300u);
  for (const Row& row : parts.rows) EXPECT_EQ(row[1], "10");
}

TEST(MergeTreeWindow, EveryFunctionGivesTheSameAnswerFromDisk) {
  // Partitions of 600 rows with peer groups of 1 to 40 rows: every kind of call, each frame,
  // lead() far ahead; computed with the rows in memory, then with 2 KiB (and 1 KiB, the least
  // query_memory) held and the rest on disk.
  MergeQuery q = windows(
      "SELECT id, row_number() OVER w, rank() OVER w, dense_rank() OVER w, percent_rank() OVER "
      "w, cume_dist() OVER w, ntile(7) OVER w, lag(id, 3) OVER w, lead(id, 50, -1) OVER w, "
      "first_value(id) OVER w, last_value(id) OVER w, nth_value(id, 20) OVER w, sum(amount) "
      "OVER w, count(*) OVER w, sum(amount) OVER (PARTITION BY grp ORDER BY amount ROWS "
      "UNBOUNDED PRECEDING), max(id) OVER (PARTITION BY grp ORDER BY amount ROWS BETWEEN "
      "UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), last_value(id) OVER (PARTITION BY grp "
      "ORDER BY amount ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM t WINDOW w AS "
      "(PARTITION BY grp ORDER BY amount)");
  EXPECT_EQ(q.shard_sql,
            "SELECT id, CASE WHEN NULL THEN id ELSE -1 END, amount, grp FROM t "
            "ORDER BY 4, 3");
  const std::string d =
      describe({{"id", kInt8}, {"case", kInt8}, {"amount", kInt4}, {"grp", kInt4}});
  std::vector<Rows> shards(3);
  int id = 0;
  for (int grp = 0; grp < 3; ++grp) {
    for (int i = 0; i < 600; ++i, ++id) {
      // amount: peer groups of growing size (i*i/900 repeats small values few times and large
      // ones often).
      shards[static_cast<size_t>(id % 3)].push_back(
          {std::to_string(id), "-1", std::to_string(i * i / 900), std::to_string(grp)});
    }
  }
  Outcome whole = merged(q, {d}, shards);
  ASSERT_EQ(whole.rows.size(), 1800u);
  // A few values checked by hand: the partition's first row and its counts.
  EXPECT_EQ(whole.rows[0][1], "1");
  EXPECT_EQ(whole.rows[0][15], "599");    // max(id) over the whole first partition
  EXPECT_EQ(whole.rows[0][2], "1");       // rank
  EXPECT_EQ(whole.rows[1799][1], "600");  // row_number at the last partition's end
  EXPECT_EQ(whole.rows[1799][5], "1");    // cume_dist of the last peer
  EXPECT_EQ(whole.rows[1799][8], "-1");   // lead() past the partition: the default
  for (size_t limit : {size_t{2048}, size_t{1024}}) {
    Outcome spilled = merged(q, {d}, shards, {.memory_limit = limit});
    EXPECT_EQ(spilled.rows, whole.rows) << "memory_limit " << limit;
  }
}

TEST(MergeTreeWindow, TheRowsLagReadsCountAgainstQueryMemory) {
  // lag(id, 200) keeps the last 200 rows sent: about 16 KiB, over a cap of 8 KiB; lag(id, 2)
  // keeps two, and runs under the same cap.
  const std::string d = describe({{"id", kInt8}});
  std::vector<Rows> shards(3);
  for (int i = 0; i < 600; ++i) shards[static_cast<size_t>(i % 3)].push_back({std::to_string(i)});
  MergeQuery far = windows("SELECT id, lag(id, 200) OVER (ORDER BY id) FROM t");
  Outcome whole = merged(far, {d}, shards);
  ASSERT_EQ(whole.rows.size(), 600u);
  EXPECT_EQ(whole.rows[199][1], std::nullopt);
  EXPECT_EQ(whole.rows[599][1], "399");
  Outcome capped = run_rows(far, {d}, shards, {.memory_limit = 8192});
  ASSERT_TRUE(capped.error.has_value());
  EXPECT_EQ(capped.error->sqlstate, "53200");
  EXPECT_NE(capped.error->detail.find("for lag() to read"), std::string::npos);
  MergeQuery near = windows("SELECT id, lag(id, 2) OVER (ORDER BY id) FROM t");
  Outcome fits = merged(near, {d}, shards, {.memory_limit = 8192});
  ASSERT_EQ(fits.rows.size(), 600u);
  EXPECT_EQ(fits.rows[599][1], "597");
}

TEST(MergeTreeWindow, WhatPgrangeDoesNotComputeIsGathered) {
  for (const char* sql : {
           "SELECT ntile(amount) OVER (ORDER BY id) FROM t",
           "SELECT sum(amount) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t",
           "SELECT row_number() OVER (ORDER BY id), rank() OVER (ORDER BY amount) FROM t",
           "SELECT row_number() OVER (ORDER BY id) + 1 FROM t",
           "SELECT count(*) FILTER (WHERE amount > 1) OVER () FROM t",
           "SELECT * , row_number() OVER () FROM t",
       }) {
    MergeQuery q = plan(sql);
    ASSERT_TRUE(q.windows_in_pgrange) << sql;
    EXPECT_FALSE(*q.windows_in_pgrange) << sql;
  }
}

}  // namespace
}  // namespace pgrange::routing
