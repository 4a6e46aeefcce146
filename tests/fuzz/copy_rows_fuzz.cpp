// Fuzzes the COPY row reader: any bytes, in text, CSV or binary format with various options,
// must be read into the same rows, header, end and failure whether they arrive whole, cut into
// chunks of sizes taken from the input, or one byte at a time.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql/copy_rows.hpp"

using namespace pgrange::sql;

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

struct Read {
  std::vector<std::string> rows;  // raw, line and fields of each row, flattened
  std::string end;                // failure, header, ended

  bool operator==(const Read&) const = default;
};

CopyOptions options_for(uint8_t selector) {
  CopyOptions o;
  switch (selector % 3) {
    case 0:
      break;
    case 1:
      o.format = CopyFormat::kCsv;
      o.delimiter = ',';
      o.null_string = "";
      if (selector & 0x10) {
        o.quote = '\'';
        o.escape = '\\';
      }
      if (selector & 0x20) o.force_null = {"b"};
      if (selector & 0x40) o.force_not_null = {"a"};
      break;
    default:
      o.format = CopyFormat::kBinary;
      return o;
  }
  if (selector & 0x04) o.header = true;
  if (selector & 0x08) o.header_match = o.header = true;
  if (selector & 0x80) o.null_string = "N";
  return o;
}

// Reads `data` cut into chunks whose sizes cycle through `sizes` (all of it at once when empty).
Read read(const CopyOptions& o, std::string_view data, const std::vector<size_t>& sizes) {
  CopyRowReader reader(o, {"a", "b", "c"}, {2, 0});
  Read out;
  auto on_row = [&](const CopyRowReader::Row& row) {
    check(reader.header_ready());
    std::string r = std::string(row.raw) + "|" + std::to_string(row.line);
    for (const auto& f : row.fields) r += f ? "|v" + std::string(*f) : "|null";
    out.rows.push_back(std::move(r));
  };
  std::optional<CopyRowReader::Failure> failure;
  size_t at = 0;
  for (size_t i = 0; at < data.size() && !failure; ++i) {
    const size_t n = sizes.empty() ? data.size() : sizes[i % sizes.size()];
    failure = reader.feed(data.substr(at, n), on_row);
    at += n;
  }
  if (!failure) failure = reader.finish(on_row);
  if (failure) {
    out.end = failure->error.sqlstate + failure->error.message + "|" +
              std::to_string(failure->line) + "|" + failure->column;
  }
  out.end += "|" + std::string(reader.header()) + (reader.ended() ? "|ended" : "");
  check(reader.rows() == out.rows.size());
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  if (size < 3) return 0;
  const CopyOptions o = options_for(bytes[0]);
  std::string data(reinterpret_cast<const char*>(bytes) + 3, size - 3);
  // Give binary input a valid file header often, so the fuzzer reaches the tuples.
  if (o.format == CopyFormat::kBinary && (bytes[1] & 1)) {
    data = std::string("PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0", 19) + data;
  }
  const Read whole = read(o, data, {});
  std::vector<size_t> sizes = {1 + bytes[1] % 17u, 1 + bytes[2] % 5u, 1 + bytes[2] % 97u};
  check(read(o, data, sizes) == whole);
  if (data.size() <= 2048) check(read(o, data, {1}) == whole);
  return 0;
}
