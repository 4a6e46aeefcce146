#include "proxy/exec/spill_file.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pgrange::proxy::exec {
namespace {

std::vector<std::string> read_run(const SpillFile& file, size_t run, size_t buffer) {
  std::vector<std::string> rows;
  SpillFile::Reader reader = file.reader(run, buffer);
  std::string row;
  for (;;) {
    auto got = reader.next(row);
    EXPECT_TRUE(got) << (got ? "" : got.error().message);
    if (!got || !*got) break;
    rows.push_back(row);
  }
  return rows;
}

TEST(SpillFile, RunsReadBackAsWrittenWhateverTheirRowsSizes) {
  auto file = SpillFile::create("");
  ASSERT_TRUE(file) << file.error().message;
  // Rows empty, small, and larger than the readers' buffers and than the write buffer.
  const std::vector<std::string> first = {
      "", "a", std::string(10000, 'x'), "bc", std::string(300000, 'y'), ""};
  std::vector<std::string> second;
  for (int i = 0; i < 5000; ++i) second.push_back("row " + std::to_string(i));
  for (const auto& r : first) ASSERT_TRUE((*file)->append(r));
  ASSERT_TRUE((*file)->end_run());
  for (const auto& r : second) ASSERT_TRUE((*file)->append(r));
  ASSERT_TRUE((*file)->end_run());
  ASSERT_TRUE((*file)->end_run());  // an empty run
  EXPECT_EQ((*file)->runs(), 3u);
  for (size_t buffer : {4096u, 65536u, 1u << 20}) {
    SCOPED_TRACE(buffer);
    EXPECT_EQ(read_run(**file, 0, buffer), first);
    EXPECT_EQ(read_run(**file, 1, buffer), second);
    EXPECT_TRUE(read_run(**file, 2, buffer).empty());
  }
}

TEST(SpillFile, ADirectoryThatCannotHoldItIsAnError) {
  auto file = SpillFile::create("/nonexistent/dir");
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error().sqlstate, "58030");
}

}  // namespace
}  // namespace pgrange::proxy::exec
