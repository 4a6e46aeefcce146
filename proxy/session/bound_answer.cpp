// Answers pgrange makes of a statement's messages for a Bind's portal: what the extended
// protocol sends of them, and the rows in the Bind's result formats.

#include "proxy/session/bound_answer.hpp"

#include <algorithm>

#include "proxy/wire/frame_reader.hpp"
#include "proxy/wire/message_writer.hpp"
#include "routing/merge/binary_value.hpp"
#include "routing/merge/merge_rows.hpp"

namespace pgrange::proxy {
namespace {

/// The message of `answer` at `at` (kReady), or the end of its messages.
FrameResult message_at(std::string_view answer, size_t at) {
  return read_typed_frame(answer.substr(std::min(at, answer.size())), answer.size());
}

}  // namespace

bool has_error(std::string_view answer) {
  for (size_t at = 0;;) {
    FrameResult f = message_at(answer, at);
    if (f.status != FrameStatus::kReady) return false;
    if (f.frame.type == 'E') return true;
    at += f.frame.total_size;
  }
}

void as_bound_answer(std::string& answer, bool describe) {
  FrameResult first = message_at(answer, 0);
  bool rows = first.status == FrameStatus::kReady && first.frame.type == 'T';
  if (rows && !describe) {
    answer.erase(0, first.frame.total_size);
  } else if (!rows && describe && !has_error(answer)) {
    std::string no_data;
    MessageWriter(no_data).begin('n').end();
    answer.insert(0, no_data);
  }
}

std::optional<Error> in_result_formats(std::string& answer, const std::vector<int16_t>& formats,
                                       bool exact_floats) {
  FrameResult f = message_at(answer, 0);
  if (f.status != FrameStatus::kReady || f.frame.type != 'T') return std::nullopt;  // MOVE, CLOSE
  auto fields = routing::read_row_description(f.frame.body);
  if (!fields) return fields.error();
  std::vector<routing::ResultField> as_text = *fields;
  for (auto& f : as_text) f.format = 0;
  auto wanted = routing::binary_columns(as_text, formats, exact_floats);
  if (!wanted) return wanted.error();
  std::vector<bool> binary(fields->size(), false);  // converted to binary here
  for (size_t i = 0; i < fields->size(); ++i) {
    if ((*fields)[i].format != 0 && !(*wanted)[i]) {
      return not_supported(
          "text results of a BINARY cursor over several shards are not "
          "supported through the extended query protocol",
          "fetch it in binary, or declare it without BINARY");
    }
    binary[i] = (*fields)[i].format == 0 && (*wanted)[i];
    if (binary[i]) (*fields)[i].format = 1;
  }
  if (std::none_of(binary.begin(), binary.end(), [](bool b) { return b; })) return std::nullopt;
  std::string out;
  MessageWriter(out).begin('T').bytes(routing::write_row_description(*fields)).end();
  for (size_t at = f.frame.total_size;; at += f.frame.total_size) {
    f = message_at(answer, at);
    if (f.status != FrameStatus::kReady) break;
    if (f.frame.type != 'D') {
      MessageWriter(out).begin(f.frame.type).bytes(f.frame.body).end();
      continue;
    }
    auto row = routing::MergeRow::parse(std::string(f.frame.body), fields->size());
    if (!row) return row.error();
    routing::RowValues values;
    for (size_t i = 0; i < fields->size(); ++i) {
      auto v = row->value(i);
      if (!v) {
        values.emplace_back();
      } else if (binary[i]) {
        auto b = routing::binary_value((*fields)[i].type_oid, *v);
        if (!b) return b.error();
        values.emplace_back(std::move(*b));
      } else {
        values.emplace_back(std::string(*v));
      }
    }
    routing::append_data_row(out, routing::data_row_body(values));
  }
  answer = std::move(out);
  return std::nullopt;
}

}  // namespace pgrange::proxy
