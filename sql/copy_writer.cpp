// Rows written as COPY … TO writes them: PostgreSQL 15's CopyAttributeOutText,
// CopyAttributeOutCSV and binary tuples (copyto.c).

#include "sql/copy_writer.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace pgrange::sql {

namespace {

constexpr std::string_view kBinarySignature{"PGCOPY\n\377\r\n\0", 11};
constexpr std::string_view kBinaryTrailer{"\377\377", 2};

void put_i16(std::string& out, int16_t v) {
  auto u = static_cast<uint16_t>(v);
  out += static_cast<char>(u >> 8);
  out += static_cast<char>(u & 0xff);
}

void put_i32(std::string& out, int32_t v) {
  auto u = static_cast<uint32_t>(v);
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((u >> shift) & 0xff);
}

}  // namespace

Result<CopyRowWriter> CopyRowWriter::make(CopyOptions options, std::vector<std::string> columns) {
  if (!options.encoding.empty()) {
    return tl::unexpected(
        Error::make(sqlstate::kFeatureNotSupported,
                    "COPY … TO with ENCODING of rows pgrange reads from several shards is not "
                    "supported")
            .with_hint("set client_encoding instead"));
  }
  std::vector<bool> quoted(columns.size(), options.force_quote_all);
  for (const std::string& name : options.force_quote) {
    auto it = std::find(columns.begin(), columns.end(), name);
    if (it == columns.end()) {
      return tl::unexpected(Error::make("42703", "column \"" + name + "\" does not exist"));
    }
    quoted[static_cast<size_t>(it - columns.begin())] = true;
  }
  return CopyRowWriter(std::move(options), std::move(columns), std::move(quoted));
}

CopyRowWriter::CopyRowWriter(CopyOptions options, std::vector<std::string> columns,
                             std::vector<bool> quoted)
    : options_(std::move(options)), columns_(std::move(columns)), force_quote_(std::move(quoted)) {}

std::string CopyRowWriter::start() const {
  std::string out;
  if (binary()) {
    out.append(kBinarySignature);
    put_i32(out, 0);  // flags
    put_i32(out, 0);  // header extension length
    return out;
  }
  if (!options_.header) return out;
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (i > 0) out += options_.delimiter;
    if (options_.format == CopyFormat::kCsv) {
      csv_value(columns_[i], false, out);
    } else {
      text_value(columns_[i], out);
    }
  }
  out += '\n';
  return out;
}

void CopyRowWriter::row(std::span<const std::optional<std::string_view>> values,
                        std::string& out) const {
  if (binary()) {
    put_i16(out, static_cast<int16_t>(values.size()));
    for (const auto& v : values) {
      if (!v) {
        put_i32(out, -1);
        continue;
      }
      put_i32(out, static_cast<int32_t>(v->size()));
      out.append(*v);
    }
    return;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += options_.delimiter;
    if (!values[i]) {
      out += options_.null_string;
    } else if (options_.format == CopyFormat::kCsv) {
      csv_value(*values[i], i < force_quote_.size() && force_quote_[i], out);
    } else {
      text_value(*values[i], out);
    }
  }
  out += '\n';
}

std::string_view CopyRowWriter::trailer() const {
  return binary() ? kBinaryTrailer : std::string_view();
}

void CopyRowWriter::text_value(std::string_view value, std::string& out) const {
  const char delimiter = options_.delimiter;
  for (char c : value) {
    if (static_cast<unsigned char>(c) < 0x20) {
      char letter = 0;
      switch (c) {
        case '\b':
          letter = 'b';
          break;
        case '\f':
          letter = 'f';
          break;
        case '\n':
          letter = 'n';
          break;
        case '\r':
          letter = 'r';
          break;
        case '\t':
          letter = 't';
          break;
        case '\v':
          letter = 'v';
          break;
        default:
          // Other control characters go as they are, but for the delimiter.
          if (c == delimiter) {
            letter = c;
            break;
          }
          out += c;
          continue;
      }
      out += '\\';
      out += letter;
    } else if (c == '\\' || c == delimiter) {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
}

void CopyRowWriter::csv_value(std::string_view value, bool quote, std::string& out) const {
  const char delimiter = options_.delimiter;
  const char quote_char = options_.quote;
  const char escape = options_.escape;
  // A value equal to the NULL string is quoted, so that it reads back as that value.
  if (!quote && value == options_.null_string) quote = true;
  if (!quote) {
    // "\." alone on a line would end the data: quoted.
    if (columns_.size() == 1 && value == "\\.") {
      quote = true;
    } else {
      quote = std::any_of(value.begin(), value.end(), [&](char c) {
        return c == delimiter || c == quote_char || c == '\n' || c == '\r';
      });
    }
  }
  if (!quote) {
    out.append(value);
    return;
  }
  out += quote_char;
  for (char c : value) {
    if (c == quote_char || c == escape) out += escape;
    out += c;
  }
  out += quote_char;
}

}  // namespace pgrange::sql
