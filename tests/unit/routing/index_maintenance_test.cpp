#include "routing/plan/index_maintenance.hpp"

#include <gtest/gtest.h>

#include "routing/keys/key_space.hpp"
#include "tests/unit/routing/tiled_ranges.hpp"

namespace pgrange::routing {
namespace {

/// A field of a note's message: `<len>:<name>` then `N` or `<len>:<value>`.
std::string field(std::string_view name, std::optional<std::string_view> value) {
  std::string out = std::to_string(name.size()) + ":" + std::string(name);
  if (!value) return out + "N";
  return out + std::to_string(value->size()) + ":" + std::string(*value);
}

/// A NoticeResponse body with the given SQLSTATE and message.
std::string notice_body(std::string_view code, std::optional<std::string_view> message) {
  std::string body;
  body += 'S';
  body += "NOTICE";
  body += '\0';
  body += 'C';
  body += code;
  body += '\0';
  if (message) {
    body += 'M';
    body += *message;
    body += '\0';
  }
  body += 'W';
  body += "PL/pgSQL function pgrange_index_50() line 30 at RAISE";
  body += '\0';
  body += '\0';
  return body;
}

TEST(IndexNoteTest, ReadsAMessage) {
  std::string m = "50+" + field("id", "7") + field("name", "O'Brien \\ x") + field("price", "3.50");
  auto note = read_index_note_message(m);
  ASSERT_TRUE(note) << note.error().message;
  EXPECT_EQ(note->table_id, 50u);
  EXPECT_TRUE(note->insert);
  ASSERT_EQ(note->values.size(), 3u);
  EXPECT_EQ(note->values[0], (std::pair<std::string, std::optional<std::string>>{"id", "7"}));
  EXPECT_EQ(note->values[1].second, "O'Brien \\ x");
  EXPECT_EQ(note->values[2].first, "price");
  EXPECT_EQ(note->values[2].second, "3.50");
}

TEST(IndexNoteTest, ReadsNullsEmptyStringsAndMultibyteText) {
  // "é" and "日本" are 2 and 6 bytes; a value may hold ':' , 'N' and digits.
  std::string m = "18446744073709551615-" + field("a", std::nullopt) + field("b", "") +
                  field("é", "日本") + field("N", "N") + field("c", "12:3N\n");
  auto note = read_index_note_message(m);
  ASSERT_TRUE(note) << note.error().message;
  EXPECT_EQ(note->table_id, UINT64_MAX);
  EXPECT_FALSE(note->insert);
  ASSERT_EQ(note->values.size(), 5u);
  EXPECT_EQ(note->values[0].second, std::nullopt);
  EXPECT_EQ(note->values[1].second, std::optional<std::string>(""));
  EXPECT_EQ(note->values[2].first, "é");
  EXPECT_EQ(note->values[2].second, "日本");
  EXPECT_EQ(note->values[3].first, "N");
  EXPECT_EQ(note->values[3].second, "N");
  EXPECT_EQ(note->values[4].second, "12:3N\n");
  // No columns at all is well formed.
  auto empty = read_index_note_message("3+");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->values.empty());
}

TEST(IndexNoteTest, RejectsMalformedMessages) {
  for (std::string m :
       {"", "50", "+2:id1:1", "50*2:id1:1", "x+", "50+2:id", "50+2:idN3:ab", "50+3:id1:1",
        "50+2:id2:1", "50+2:id1:1x", "50+2:idNN", "50+:id1:1", "50+2id1:1", "50+2:id1:12:id1:2",
        "50+2:id-1:1", "18446744073709551616+2:id1:1", "50+99999999999999999999:a"}) {
    auto note = read_index_note_message(m);
    ASSERT_FALSE(note) << m;
    EXPECT_EQ(note.error().sqlstate, "XX000") << m;
    EXPECT_NE(note.error().message.find("malformed index note"), std::string::npos);
  }
}

TEST(IndexNoteTest, ReadsANoticeBody) {
  std::string m = "50-" + field("id", "9");
  auto note = read_index_note(notice_body("PGRIX", m));
  ASSERT_TRUE(note) << note.error().message;
  ASSERT_TRUE(note->has_value());
  EXPECT_EQ((*note)->table_id, 50u);
  EXPECT_FALSE((*note)->insert);
  EXPECT_EQ((*note)->values.size(), 1u);

  auto other = read_index_note(notice_body("00000", m));
  ASSERT_TRUE(other);
  EXPECT_FALSE(other->has_value());
  auto warning = read_index_note(notice_body("01000", std::nullopt));
  ASSERT_TRUE(warning);
  EXPECT_FALSE(warning->has_value());
  auto empty = read_index_note("");
  ASSERT_TRUE(empty);
  EXPECT_FALSE(empty->has_value());

  auto bad = read_index_note(notice_body("PGRIX", "50+2:id9:1"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().sqlstate, "XX000");
  auto no_message = read_index_note(notice_body("PGRIX", std::nullopt));
  ASSERT_FALSE(no_message);
  EXPECT_EQ(no_message.error().sqlstate, "XX000");
}

TEST(IndexTriggerSqlTest, CreatesFunctionAndTrigger) {
  TableDescriptor t;
  t.table_id = 50;
  t.schema = "app";
  t.name = "it\"ems";
  t.key_source = KeySource::kPrimaryKey;
  t.columns = {"id", "name", "note"};
  t.key.push_back({"id", KeyColumn{KeyType::kInt8}});
  IndexDescriptor by_name;
  by_name.index_id = 2;
  by_name.name = "by_name";
  by_name.columns.push_back({"name", KeyColumn{KeyType::kText}});
  by_name.storing = {"it's"};
  t.indexes.push_back(by_name);
  std::string sql = index_trigger_sql(t);
  EXPECT_NE(sql.find("CREATE OR REPLACE FUNCTION \"app\".\"pgrange_index_50\"() RETURNS trigger"),
            std::string::npos)
      << sql;
  EXPECT_NE(sql.find("DROP TRIGGER IF EXISTS \"pgrange_index\" ON \"app\".\"it\"\"ems\";"),
            std::string::npos);
  EXPECT_NE(sql.find("CREATE TRIGGER \"pgrange_index\" AFTER INSERT OR UPDATE OR DELETE ON "
                     "\"app\".\"it\"\"ems\" FOR EACH ROW EXECUTE FUNCTION "
                     "\"app\".\"pgrange_index_50\"();"),
            std::string::npos);
  EXPECT_NE(sql.find("OLD.\"it's\"::text IS NOT DISTINCT FROM NEW.\"it's\"::text"),
            std::string::npos);
  EXPECT_NE(sql.find("'4:it''s'"), std::string::npos);
  EXPECT_NE(sql.find("MESSAGE = '50-'"), std::string::npos);
  EXPECT_NE(sql.find("MESSAGE = '50+'"), std::string::npos);
  EXPECT_NE(sql.find("ERRCODE = 'PGRIX'"), std::string::npos);
  EXPECT_EQ(sql.find("note"), std::string::npos);  // not indexed: not reported
  EXPECT_NE(sql.find("AS $pgrange$"), std::string::npos);
  // TRUNCATE (no row trigger fires) empties the index tables on the shard.
  EXPECT_NE(sql.find("TRUNCATE \"app\".\"it\"\"ems@by_name\";"), std::string::npos) << sql;
  EXPECT_NE(sql.find("CREATE TRIGGER \"pgrange_index_truncate\" AFTER TRUNCATE ON "
                     "\"app\".\"it\"\"ems\" FOR EACH STATEMENT EXECUTE FUNCTION "
                     "\"app\".\"pgrange_index_50_truncate\"();"),
            std::string::npos);

  // A column name holding the dollar tag moves the tag.
  t.indexes[0].storing = {"$pgrange$"};
  std::string moved = index_trigger_sql(t);
  EXPECT_NE(moved.find("AS $pgrange1$"), std::string::npos) << moved;

  EXPECT_EQ(drop_index_trigger_sql(t),
            "DROP TRIGGER IF EXISTS \"pgrange_index\" ON \"app\".\"it\"\"ems\";\n"
            "DROP FUNCTION IF EXISTS \"app\".\"pgrange_index_50\"();\n"
            "DROP TRIGGER IF EXISTS \"pgrange_index_truncate\" ON \"app\".\"it\"\"ems\";\n"
            "DROP FUNCTION IF EXISTS \"app\".\"pgrange_index_50_truncate\"();\n");
}

/// Table items (id 50: key id int8; indexes by_name (name text, storing price) and unique by_tag
/// (tag text)) over shards s1, s2, s3 (pool 0, 1, 2): rows on s1, by_name entries below 'm' on
/// s2 and from 'm' on s3, by_tag entries on s3 (on s1 from tag 'x').
class IndexEntryWritesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    items_.table_id = 50;
    items_.name = "items";
    items_.key_source = KeySource::kPrimaryKey;
    items_.columns = {"id", "name", "price", "tag", "other"};
    items_.key.push_back({"id", KeyColumn{KeyType::kInt8}});
    IndexDescriptor by_name;
    by_name.index_id = 2;
    by_name.name = "by_name";
    by_name.columns.push_back({"name", KeyColumn{KeyType::kText}});
    by_name.storing = {"price"};
    IndexDescriptor by_tag;
    by_tag.index_id = 3;
    by_tag.name = "by_tag";
    by_tag.columns.push_back({"tag", KeyColumn{KeyType::kText}});
    by_tag.unique = true;
    by_tag.state = IndexDescriptor::State::kPublic;
    items_.indexes = {by_name, by_tag};
    view_ = make_view({items_});
  }

  /// A view of `tables` over the ranges described above.
  std::shared_ptr<const ClusterView> make_view(std::vector<TableDescriptor> tables,
                                               std::string_view tag_x_shard = "s1") {
    MetadataSnapshot snap;
    snap.version = 1;
    snap.shards = {{"s1", "dsn1"}, {"s2", "dsn2"}, {"s3", "dsn3"}};
    snap.tables = std::move(tables);
    auto text_key = [](uint64_t index, std::string_view v) {
      std::vector<KeyColumn> cols{KeyColumn{KeyType::kText}};
      std::optional<std::string_view> vals[1] = {v};
      return *encode_key_text(50, index, cols, vals);
    };
    std::vector<std::pair<std::string, std::string>> bounds = {
        {std::string(kMinKey), "s1"},
        {index_prefix(50, 2), "s2"},
        {text_key(2, "m"), "s3"},
        {index_prefix(50, 3), "s3"},
        {text_key(3, "x"), std::string(tag_x_shard)},
        {table_prefix(51), "s1"}};
    snap.ranges = tiled_ranges(bounds);
    auto v = ClusterView::build(std::move(snap), {"s1", "s2", "s3"});
    EXPECT_TRUE(v) << v.error().message;
    return v ? *v : nullptr;
  }

  /// A note of items.
  static IndexNote note(bool insert, std::string id, std::optional<std::string> name,
                        std::optional<std::string> price, std::optional<std::string> tag) {
    return IndexNote{
        50, insert, {{"id", std::move(id)}, {"name", name}, {"price", price}, {"tag", tag}}};
  }

  TableDescriptor items_;
  std::shared_ptr<const ClusterView> view_;
};

TEST_F(IndexEntryWritesTest, InsertsGoToTheShardsOwningTheEntries) {
  std::vector<IndexNote> notes = {note(true, "7", "apple", "3.50", "t1"),
                                  note(true, "8", "pear", std::nullopt, "x'ray"),
                                  note(true, "9", std::nullopt, "1", std::nullopt)};
  auto writes = index_entry_writes(*view_, items_, notes);
  ASSERT_TRUE(writes) << writes.error().message;
  ASSERT_EQ(writes->size(), 3u);
  // NULL sorts last: the NULL name goes with the names from 'm', the NULL tag with those from 'x'.
  EXPECT_EQ(writes->at(0),
            "INSERT INTO \"public\".\"items@by_tag\" (\"tag\", \"id\") VALUES "
            "('x''ray', '8'), (NULL, '9');\n");
  EXPECT_EQ(writes->at(1),
            "INSERT INTO \"public\".\"items@by_name\" (\"name\", \"id\", "
            "\"price\") VALUES ('apple', '7', '3.50');\n");
  EXPECT_EQ(writes->at(2),
            "INSERT INTO \"public\".\"items@by_name\" (\"name\", \"id\", \"price\") VALUES "
            "('pear', '8', NULL), (NULL, '9', '1');\n"
            "INSERT INTO \"public\".\"items@by_tag\" (\"tag\", \"id\") VALUES ('t1', '7');\n");
}

/// What removes entries by row key: an INSERT of the keys that waits for a transaction still
/// committing one of them on that shard, then the DELETE.
std::string fenced_delete(const std::string& table, const std::string& keys,
                          const std::string& tuples) {
  const std::string t = "\"public\".\"" + table + "\"";
  return "INSERT INTO " + t + " (" + keys + ") VALUES " + tuples + " ON CONFLICT (" + keys +
         ") DO NOTHING;\nDELETE FROM " + t + " WHERE (" + keys + ") IN (" + tuples + ");\n";
}

TEST_F(IndexEntryWritesTest, UpdatesMoveOnlyTheEntriesThatChange) {
  // id 7's name moves from s2 to s3; its tag stays (no write); id 8's price changes in place;
  // id 9's tag moves from s3 to s1.
  std::vector<IndexNote> notes = {
      note(false, "7", "apple", "3.50", "t1"), note(true, "7", "zebra", "3.50", "t1"),
      note(false, "8", "pear", "1", "u"),      note(true, "8", "pear", "2", "u"),
      note(false, "9", "b", "1", "v"),         note(true, "9", "b", "1", "y\\z")};
  auto writes = index_entry_writes(*view_, items_, notes);
  ASSERT_TRUE(writes) << writes.error().message;
  ASSERT_EQ(writes->size(), 3u);
  EXPECT_EQ(writes->at(0),
            "INSERT INTO \"public\".\"items@by_tag\" (\"tag\", \"id\") VALUES "
            "(E'y\\\\z', '9');\n");
  EXPECT_EQ(writes->at(1), fenced_delete("items@by_name", "\"id\"", "('7')"));
  EXPECT_EQ(writes->at(2),
            fenced_delete("items@by_name", "\"id\"", "('8')") +
                "INSERT INTO \"public\".\"items@by_name\" (\"name\", \"id\", \"price\") VALUES "
                "('zebra', '7', '3.50'), ('pear', '8', '2');\n" +
                fenced_delete("items@by_tag", "\"id\"", "('9')"));
}

TEST_F(IndexEntryWritesTest, DeletesAndNetting) {
  std::vector<IndexNote> notes = {
      note(false, "7", "apple", "3.50", "t1"),  // deleted
      note(true, "8", "kiwi", "1", "k"),        // inserted, then deleted: nothing
      note(false, "8", "kiwi", "1", "k"),
      note(false, "9", "fig", "1", "f"),  // updated twice: from the first to the last image
      note(true, "9", "fig", "2", "f"),
      note(false, "9", "fig", "2", "f"),
      note(true, "9", "date", "3", "f"),
      IndexNote{51, true, {{"id", "1"}}},  // another table's
  };
  auto writes = index_entry_writes(*view_, items_, notes);
  ASSERT_TRUE(writes) << writes.error().message;
  ASSERT_EQ(writes->size(), 2u);
  EXPECT_EQ(writes->at(1), fenced_delete("items@by_name", "\"id\"", "('7'), ('9')") +
                               "INSERT INTO \"public\".\"items@by_name\" (\"name\", \"id\", "
                               "\"price\") VALUES ('date', '9', '3');\n");
  EXPECT_EQ(writes->at(2), fenced_delete("items@by_tag", "\"id\"", "('7')"));

  auto none = index_entry_writes(*view_, items_, std::span<const IndexNote>());
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST_F(IndexEntryWritesTest, Errors) {
  IndexNote missing{50, true, {{"id", "7"}, {"name", "a"}, {"tag", "t"}}};
  auto m = index_entry_writes(*view_, items_, std::span<const IndexNote>(&missing, 1));
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().sqlstate, "XX000");
  EXPECT_NE(m.error().message.find("index by_name"), std::string::npos) << m.error().message;
  EXPECT_NE(m.error().message.find("price"), std::string::npos);

  IndexNote bad_key = note(true, "seven", "a", "1", "t");
  auto b = index_entry_writes(*view_, items_, std::span<const IndexNote>(&bad_key, 1));
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().sqlstate, "22P02");
  EXPECT_NE(b.error().message.find("items"), std::string::npos) << b.error().message;

  auto gone = make_view({items_}, "gone");
  IndexNote far = note(true, "7", "a", "1", "zz");
  auto g = index_entry_writes(*gone, items_, std::span<const IndexNote>(&far, 1));
  ASSERT_FALSE(g);
  EXPECT_EQ(g.error().sqlstate, "XX000");
  EXPECT_NE(g.error().message.find("index by_tag"), std::string::npos) << g.error().message;

  TableDescriptor keyless = items_;
  keyless.key.clear();
  auto k = index_entry_writes(*view_, keyless, std::span<const IndexNote>(&far, 1));
  ASSERT_FALSE(k);
  EXPECT_EQ(k.error().sqlstate, "0A000");
}

TEST_F(IndexEntryWritesTest, HashShardedTable) {
  // The bucket is no column of the rows: neither in the entries nor in the row key tuples.
  TableDescriptor hashed = items_;
  make_hash_sharded(hashed, 8);
  ASSERT_EQ(hashed.key.size(), 2u);
  auto view = make_view({hashed});
  std::vector<IndexNote> notes = {note(false, "7", "apple", "3.50", "t1"),
                                  note(true, "7", "melon", "3.50", "t1")};
  auto writes = index_entry_writes(*view, hashed, notes);
  ASSERT_TRUE(writes) << writes.error().message;
  ASSERT_EQ(writes->size(), 2u);
  EXPECT_EQ(writes->at(1), fenced_delete("items@by_name", "\"id\"", "('7')"));
  EXPECT_EQ(writes->at(2),
            "INSERT INTO \"public\".\"items@by_name\" (\"name\", \"id\", "
            "\"price\") VALUES ('melon', '7', '3.50');\n");
}

TEST_F(IndexEntryWritesTest, CompositeRowKey) {
  TableDescriptor pairs = items_;
  pairs.key.push_back({"name", KeyColumn{KeyType::kText}});  // key (id, name)
  auto view = make_view({pairs});
  std::vector<IndexNote> notes = {note(false, "7", "apple", "1", "t1"),
                                  note(true, "7", "apple", "1", "t2")};
  auto writes = index_entry_writes(*view, pairs, notes);
  ASSERT_TRUE(writes) << writes.error().message;
  ASSERT_EQ(writes->size(), 1u);
  EXPECT_EQ(writes->at(2), fenced_delete("items@by_tag", "\"id\", \"name\"", "('7', 'apple')") +
                               "INSERT INTO \"public\".\"items@by_tag\" (\"tag\", \"id\", "
                               "\"name\") VALUES ('t2', '7', 'apple');\n");
}

}  // namespace
}  // namespace pgrange::routing
