// An INSERT … SELECT's rows, read by pgrange, written out again as INSERT … VALUES parts.

#include "proxy/exec/insert_parts.hpp"

#include <utility>

#include "proxy/wire/frame_reader.hpp"
#include "proxy/wire/message_writer.hpp"
#include "sql/quoting.hpp"

namespace pgrange::proxy::exec {
namespace {

/// A DataRow's values as one row of VALUES, appended to `values`.
void append_values_row(std::string_view body, std::string& values) {
  BodyReader b(body);
  int16_t n = 0;
  b.i16(n);
  values += values.empty() ? " VALUES (" : ", (";
  for (int16_t i = 0; i < n; ++i) {
    int32_t vlen = 0;
    std::string_view v;
    b.i32(vlen);
    if (i > 0) values += ", ";
    if (vlen < 0) {
      values += "NULL";
    } else {
      b.bytes(static_cast<size_t>(vlen), v);
      values += sql::quote_literal(v);
    }
  }
  values += ")";
}

}  // namespace

InsertParts::InsertParts(std::string answer, std::string before_rows, std::string after_rows)
    : answer_(std::move(answer)),
      before_rows_(std::move(before_rows)),
      after_rows_(std::move(after_rows)) {
  for (std::string_view rest = answer_;;) {
    FrameResult fr = read_typed_frame(rest, rest.size());
    if (fr.status != FrameStatus::kReady) break;
    rest.remove_prefix(fr.frame.total_size);
    if (fr.frame.type == 'E') {
      error_ = error_of_response(fr.frame.body);
      rows_ = 0;
      break;
    }
    if (fr.frame.type == 'D') ++rows_;
  }
  rows_left_ = rows_;
}

std::optional<std::string> InsertParts::next() {
  std::string values;
  size_t rows = 0;
  std::string_view rest = std::string_view(answer_).substr(offset_);
  while (rows_left_ > 0 && rows < kPartRows && values.size() < kPartBytes) {
    FrameResult fr = read_typed_frame(rest, rest.size());
    if (fr.status != FrameStatus::kReady) break;
    rest.remove_prefix(fr.frame.total_size);
    offset_ += fr.frame.total_size;
    if (fr.frame.type != 'D') continue;
    append_values_row(fr.frame.body, values);
    ++rows;
    --rows_left_;
  }
  if (rows == 0) return std::nullopt;
  return before_rows_ + values + after_rows_;
}

}  // namespace pgrange::proxy::exec
