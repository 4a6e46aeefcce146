#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pgrange::routing {

/// A result pgrange computes itself (admin statements): column names and type OIDs, rows of
/// text values (nullopt = NULL) and the CommandComplete tag.
struct ResultSet {
  struct Column {
    std::string name;
    uint32_t type_oid = 25;  // text
  };
  std::vector<Column> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;
  std::string tag;
};

namespace type_oid {
inline constexpr uint32_t kBool = 16;
inline constexpr uint32_t kBytea = 17;
inline constexpr uint32_t kInt8 = 20;
inline constexpr uint32_t kText = 25;
inline constexpr uint32_t kJson = 114;
inline constexpr uint32_t kXml = 142;
inline constexpr uint32_t kNumeric = 1700;
inline constexpr uint32_t kTimestamp = 1114;
inline constexpr uint32_t kTimestamptz = 1184;
inline constexpr uint32_t kFloat8 = 701;
}  // namespace type_oid

}  // namespace pgrange::routing
