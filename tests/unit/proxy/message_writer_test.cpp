#include "proxy/wire/message_writer.hpp"

#include <gtest/gtest.h>

#include "proxy/wire/frame_reader.hpp"

namespace pgrange::proxy {
namespace {

/// An ErrorResponse body with these fields.
std::string error_body(const std::vector<std::pair<char, std::string>>& fields) {
  std::string body;
  for (const auto& [code, value] : fields) {
    body += code;
    body += value;
    body += '\0';
  }
  body += '\0';
  return body;
}

TEST(WriteShardError, AFatalBecomesAnErrorAndKeepsItsFields) {
  std::string out;
  write_shard_error(out, error_body({{'S', "FATAL"},
                                     {'V', "FATAL"},
                                     {'C', "57P01"},
                                     {'M', "terminating connection due to administrator command"},
                                     {'F', "postgres.c"}}));
  FrameResult fr = read_typed_frame(out, 1 << 20);
  ASSERT_EQ(fr.status, FrameStatus::kReady);
  EXPECT_EQ(fr.frame.type, 'E');
  EXPECT_EQ(fr.frame.total_size, out.size());
  EXPECT_EQ(std::string(fr.frame.body),
            error_body({{'S', "ERROR"},
                        {'V', "ERROR"},
                        {'C', "57P01"},
                        {'M', "terminating connection due to administrator command"},
                        {'F', "postgres.c"}}));
  ErrorFields f = parse_error_fields(fr.frame.body);
  EXPECT_EQ(f.severity, "ERROR");
  EXPECT_EQ(f.sqlstate, "57P01");
}

TEST(WriteShardError, OtherErrorsPassUnchanged) {
  std::string body = error_body({{'S', "ERROR"}, {'V', "ERROR"}, {'C', "23505"}, {'M', "dup"}});
  std::string out;
  write_shard_error(out, body);
  FrameResult fr = read_typed_frame(out, 1 << 20);
  ASSERT_EQ(fr.status, FrameStatus::kReady);
  EXPECT_EQ(std::string(fr.frame.body), body);
}

TEST(DataRowValues, TextValuesAndNulls) {
  std::string body;
  MessageWriter w(body);
  w.begin('D').i16(3).i32(1).bytes("t").i32(-1).i32(0).end();
  auto values = data_row_values(std::string_view(body).substr(5));
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[0], std::optional<std::string>("t"));
  EXPECT_EQ(values[1], std::nullopt);
  EXPECT_EQ(values[2], std::optional<std::string>(""));
}

}  // namespace
}  // namespace pgrange::proxy
