#include "proxy/wire/frame_reader.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "proxy/wire/message_writer.hpp"

namespace pgrange::proxy {
namespace {

std::string typed(char type, std::string_view body) {
  std::string out;
  MessageWriter(out).begin(type).bytes(body).end();
  return out;
}

TEST(FrameReader, ReadsOneWholeMessage) {
  std::string buf = typed('Q', std::string("select 1", 9));
  FrameResult r = read_typed_frame(buf, 1 << 20);
  ASSERT_EQ(r.status, FrameStatus::kReady);
  EXPECT_EQ(r.frame.type, 'Q');
  EXPECT_EQ(r.frame.body, std::string_view("select 1\0", 9));
  EXPECT_EQ(r.frame.total_size, buf.size());
}

TEST(FrameReader, EveryPrefixOfAMessageNeedsMore) {
  // A buffer split anywhere: no prefix may be mistaken for a whole message.
  std::string buf = typed('P', std::string("s1\0select $1\0\0\0", 15));
  for (size_t n = 0; n < buf.size(); ++n) {
    EXPECT_EQ(read_typed_frame(std::string_view(buf).substr(0, n), 1 << 20).status,
              FrameStatus::kNeedMore)
        << "prefix " << n;
  }
  EXPECT_EQ(read_typed_frame(buf, 1 << 20).status, FrameStatus::kReady);
}

TEST(FrameReader, TwoMessagesInOneRead) {
  std::string buf = typed('B', "abc") + typed('S', "");
  FrameResult first = read_typed_frame(buf, 1 << 20);
  ASSERT_EQ(first.status, FrameStatus::kReady);
  EXPECT_EQ(first.frame.type, 'B');
  EXPECT_EQ(first.frame.body, "abc");
  FrameResult second =
      read_typed_frame(std::string_view(buf).substr(first.frame.total_size), 1 << 20);
  ASSERT_EQ(second.status, FrameStatus::kReady);
  EXPECT_EQ(second.frame.type, 'S');
  EXPECT_TRUE(second.frame.body.empty());
  EXPECT_EQ(first.frame.total_size + second.frame.total_size, buf.size());
}

TEST(FrameReader, ZeroLengthBodyIsValid) {
  std::string buf = typed('H', "");
  FrameResult r = read_typed_frame(buf, 1 << 20);
  ASSERT_EQ(r.status, FrameStatus::kReady);
  EXPECT_EQ(r.frame.total_size, 5u);
}

TEST(FrameReader, LengthBelowFourIsInvalid) {
  for (int len : {0, 1, 2, 3, -1, -100000}) {
    std::string buf = "Q";
    uint32_t u = static_cast<uint32_t>(len);
    buf.push_back(char(u >> 24));
    buf.push_back(char(u >> 16));
    buf.push_back(char(u >> 8));
    buf.push_back(char(u));
    FrameResult r = read_typed_frame(buf, 1 << 20);
    EXPECT_EQ(r.status, FrameStatus::kInvalid) << len;
    EXPECT_NE(r.reason.find("invalid message length"), std::string::npos);
  }
}

TEST(FrameReader, OversizedLengthIsInvalidBeforeTheBodyArrives) {
  std::string buf = typed('Q', std::string(2000, 'x'));
  // Only the header is present: the limit is enforced without waiting for 2 KB.
  FrameResult r = read_typed_frame(std::string_view(buf).substr(0, 5), 1000);
  EXPECT_EQ(r.status, FrameStatus::kInvalid);
  EXPECT_NE(r.reason.find("exceeds the limit"), std::string::npos);
  EXPECT_EQ(read_typed_frame(buf, 5000).status, FrameStatus::kReady);
}

TEST(FrameReader, KnowsEveryFrontendMessageType) {
  for (char t : std::string("BCcdDEfFHPpQSX")) EXPECT_TRUE(is_known_frontend_type(t)) << t;
  for (char t : std::string("AZTKRGNzx\0\xff", 11))
    EXPECT_FALSE(is_known_frontend_type(t)) << int(t);
}

TEST(FrameReader, StartupPacket) {
  std::string buf;
  write_startup_message(buf, {{"user", "app"}, {"database", "db"}});
  FrameResult r = read_startup_frame(buf);
  ASSERT_EQ(r.status, FrameStatus::kReady);
  EXPECT_EQ(r.frame.total_size, buf.size());
  BodyReader br(r.frame.body);
  int32_t version = 0;
  ASSERT_TRUE(br.i32(version));
  EXPECT_EQ(version, kProtocolVersion3);
  std::string_view k, v;
  ASSERT_TRUE(br.cstr(k) && br.cstr(v));
  EXPECT_EQ(k, "user");
  EXPECT_EQ(v, "app");
  for (size_t n = 0; n < buf.size(); ++n) {
    EXPECT_EQ(read_startup_frame(std::string_view(buf).substr(0, n)).status,
              FrameStatus::kNeedMore);
  }
}

TEST(FrameReader, StartupPacketLengthLimits) {
  auto with_len = [](int32_t len) {
    std::string b;
    uint32_t u = static_cast<uint32_t>(len);
    b.push_back(char(u >> 24));
    b.push_back(char(u >> 16));
    b.push_back(char(u >> 8));
    b.push_back(char(u));
    return b;
  };
  EXPECT_EQ(read_startup_frame(with_len(7)).status, FrameStatus::kInvalid);
  EXPECT_EQ(read_startup_frame(with_len(10001)).status, FrameStatus::kInvalid);
  EXPECT_EQ(read_startup_frame(with_len(-8)).status, FrameStatus::kInvalid);
  EXPECT_EQ(read_startup_frame(with_len(10000)).status, FrameStatus::kNeedMore);
  // An SSLRequest is exactly 8 bytes.
  std::string ssl;
  MessageWriter(ssl).begin(0).i32(kSslRequestCode).end();
  FrameResult r = read_startup_frame(ssl);
  ASSERT_EQ(r.status, FrameStatus::kReady);
  EXPECT_EQ(r.frame.total_size, 8u);
}

TEST(FrameReader, RandomBytesNeverOverrun) {
  // Whatever the bytes, the decoder answers within the buffer and never claims more than it has.
  std::mt19937 rng(12345);
  for (int i = 0; i < 20000; ++i) {
    std::string buf(rng() % 64, '\0');
    for (char& c : buf) c = static_cast<char>(rng());
    FrameResult r = read_typed_frame(buf, 1 << 16);
    if (r.status == FrameStatus::kReady) {
      ASSERT_LE(r.frame.total_size, buf.size());
      ASSERT_EQ(r.frame.body.size() + 5, r.frame.total_size);
    }
    FrameResult s = read_startup_frame(buf);
    if (s.status == FrameStatus::kReady) {
      ASSERT_LE(s.frame.total_size, buf.size());
    }
  }
}

TEST(MessageWriter, ErrorResponseFields) {
  std::string out;
  Error e = Error::make(sqlstate::kFeatureNotSupported, "not here");
  e.detail = "why";
  write_error(out, e);
  FrameResult r = read_typed_frame(out, 1 << 20);
  ASSERT_EQ(r.status, FrameStatus::kReady);
  EXPECT_EQ(r.frame.type, 'E');
  ErrorFields f = parse_error_fields(r.frame.body);
  EXPECT_EQ(f.severity, "ERROR");
  EXPECT_EQ(f.sqlstate, "0A000");
  EXPECT_EQ(f.message, "not here");
  EXPECT_NE(std::string(r.frame.body).find(std::string("Dwhy\0", 5)), std::string::npos);
}

TEST(MessageWriter, FatalSeverity) {
  std::string out;
  write_error(out, Error::fatal(sqlstate::kProtocolViolation, "bad"));
  FrameResult r = read_typed_frame(out, 1 << 20);
  ASSERT_EQ(r.status, FrameStatus::kReady);
  EXPECT_EQ(parse_error_fields(r.frame.body).severity, "FATAL");
}

TEST(MessageWriter, ReadyForQueryAndParameterStatus) {
  std::string out;
  write_ready_for_query(out, 'T');
  write_parameter_status(out, "TimeZone", "UTC");
  EXPECT_EQ(out.substr(0, 6), std::string("Z\0\0\0\5T", 6));
  FrameResult r = read_typed_frame(std::string_view(out).substr(6), 1 << 20);
  ASSERT_EQ(r.status, FrameStatus::kReady);
  EXPECT_EQ(r.frame.type, 'S');
  EXPECT_EQ(r.frame.body, std::string_view("TimeZone\0UTC\0", 13));
}

TEST(BodyReader, RejectsReadsPastTheEnd) {
  BodyReader br(std::string_view("ab", 2));
  int32_t v = 0;
  EXPECT_FALSE(br.i32(v));
  std::string_view s;
  EXPECT_FALSE(br.cstr(s));  // no terminator
  int16_t h = 0;
  EXPECT_TRUE(br.i16(h));
  EXPECT_EQ(h, ('a' << 8) | 'b');
  char c = 0;
  EXPECT_FALSE(br.byte(c));
  EXPECT_TRUE(br.at_end());
}

}  // namespace
}  // namespace pgrange::proxy
