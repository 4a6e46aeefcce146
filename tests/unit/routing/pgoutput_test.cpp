#include "routing/moves/pgoutput.hpp"

#include <gtest/gtest.h>

#include <string>

namespace pgrange::routing::pgoutput {
namespace {

/// Builds messages the way pgoutput writes them: big-endian integers, NUL-ended strings.
struct Bytes {
  std::string s;
  Bytes& byte(char c) {
    s += c;
    return *this;
  }
  Bytes& uint(uint64_t v, int width) {
    for (int shift = (width - 1) * 8; shift >= 0; shift -= 8) s += static_cast<char>(v >> shift);
    return *this;
  }
  Bytes& str(std::string_view v) {
    s += v;
    s += '\0';
    return *this;
  }
  Bytes& text(std::string_view v) {
    byte('t').uint(v.size(), 4);
    s += v;
    return *this;
  }
};

TEST(Pgoutput, RelationInsertUpdateDeleteCommitAndMessage) {
  Bytes rel;
  rel.byte('R').uint(16384, 4).str("public").str("t").byte('d').uint(2, 2);
  rel.uint(1, 1).str("id").uint(20, 4).uint(0xffffffff, 4);
  rel.uint(0, 1).str("v").uint(25, 4).uint(0xffffffff, 4);
  auto r = decode(rel.s);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->kind, Message::Kind::kRelation);
  EXPECT_EQ(r->relation.oid, 16384u);
  EXPECT_EQ(r->relation.schema, "public");
  ASSERT_EQ(r->relation.columns.size(), 2u);
  EXPECT_TRUE(r->relation.columns[0].key);
  EXPECT_FALSE(r->relation.columns[1].key);
  EXPECT_EQ(r->relation.columns[1].type_oid, 25u);

  Bytes ins;
  ins.byte('I').uint(16384, 4).byte('N').uint(2, 2).text("7");
  ins.byte('n');
  auto i = decode(ins.s);
  ASSERT_TRUE(i.has_value()) << i.error().message;
  EXPECT_EQ(i->kind, Message::Kind::kInsert);
  ASSERT_EQ(i->new_values.size(), 2u);
  EXPECT_EQ(i->new_values[0].text, "7");
  EXPECT_EQ(i->new_values[1].kind, Value::Kind::kNull);

  // An update of the key: the old key first ('K', other columns NULL), then the new row with
  // an unchanged TOAST value.
  Bytes upd;
  upd.byte('U').uint(16384, 4).byte('K').uint(2, 2).text("7").byte('n');
  upd.byte('N').uint(2, 2).text("8").byte('u');
  auto u = decode(upd.s);
  ASSERT_TRUE(u.has_value()) << u.error().message;
  EXPECT_EQ(u->old_values[0].text, "7");
  EXPECT_EQ(u->new_values[0].text, "8");
  EXPECT_EQ(u->new_values[1].kind, Value::Kind::kUnchanged);
  Bytes same_key;
  same_key.byte('U').uint(16384, 4).byte('N').uint(1, 2).text("x");
  auto sk = decode(same_key.s);
  ASSERT_TRUE(sk.has_value());
  EXPECT_TRUE(sk->old_values.empty());

  Bytes del;
  del.byte('D').uint(16384, 4).byte('O').uint(1, 2).text("9");
  auto d = decode(del.s);
  ASSERT_TRUE(d.has_value()) << d.error().message;
  EXPECT_EQ(d->kind, Message::Kind::kDelete);
  EXPECT_EQ(d->old_values[0].text, "9");

  Bytes commit;
  commit.byte('C').uint(0, 1).uint(0x100, 8).uint(0x1234ABCD, 8).uint(5, 8);
  auto c = decode(commit.s);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->end_lsn, 0x1234ABCDu);

  Bytes msg;
  msg.byte('M').uint(1, 1).uint(0x200, 8).str("pgrange_move_3").uint(2, 4);
  msg.s += "17";
  auto m = decode(msg.s);
  ASSERT_TRUE(m.has_value()) << m.error().message;
  EXPECT_EQ(m->prefix, "pgrange_move_3");
  EXPECT_EQ(m->content, "17");
}

TEST(Pgoutput, MalformedMessagesAreProtocolErrors) {
  Bytes ins;
  ins.byte('I').uint(1, 4).byte('N').uint(1, 2).text("12345");
  for (size_t cut = 0; cut < ins.s.size(); ++cut) {
    auto r = decode(std::string_view(ins.s).substr(0, cut));
    ASSERT_FALSE(r.has_value()) << cut;
    EXPECT_EQ(r.error().sqlstate, "08P01");
  }
  EXPECT_FALSE(decode(ins.s + "x").has_value());  // trailing bytes
  Bytes binary;
  binary.byte('I').uint(1, 4).byte('N').uint(1, 2).byte('b').uint(1, 4).byte('x');
  EXPECT_FALSE(decode(binary.s).has_value());
  EXPECT_FALSE(decode("Z").has_value());
  Bytes no_new;
  no_new.byte('I').uint(1, 4).byte('K').uint(0, 2);
  EXPECT_FALSE(decode(no_new.s).has_value());
  // A length past the end.
  Bytes longer;
  longer.byte('I').uint(1, 4).byte('N').uint(1, 2).byte('t').uint(0x7fffffff, 4);
  EXPECT_FALSE(decode(longer.s).has_value());
}

TEST(Pgoutput, FramesAndStatusUpdates) {
  Bytes w;
  w.byte('w').uint(0x10, 8).uint(0x20, 8).uint(0, 8).byte('B');
  auto f = decode_frame(w.s);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->kind, StreamFrame::Kind::kData);
  EXPECT_EQ(f->wal_start, 0x10u);
  EXPECT_EQ(f->payload, "B");
  Bytes k;
  k.byte('k').uint(0x30, 8).uint(0, 8).byte(1);
  auto ka = decode_frame(k.s);
  ASSERT_TRUE(ka.has_value());
  EXPECT_EQ(ka->kind, StreamFrame::Kind::kKeepalive);
  EXPECT_EQ(ka->wal_end, 0x30u);
  EXPECT_TRUE(ka->reply_requested);
  EXPECT_FALSE(decode_frame("k").has_value());
  EXPECT_FALSE(decode_frame("q").has_value());

  std::string r = status_update(0x0102030405060708ULL, true);
  ASSERT_EQ(r.size(), 1u + 8 * 4 + 1);
  EXPECT_EQ(r[0], 'r');
  EXPECT_EQ(r.substr(1, 8), std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
  EXPECT_EQ(r.substr(9, 8), r.substr(1, 8));
  EXPECT_EQ(r.back(), '\1');
}

}  // namespace
}  // namespace pgrange::routing::pgoutput
