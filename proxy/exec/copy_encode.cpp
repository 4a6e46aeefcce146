// The CopyEncode operator: a query's rows as the client's COPY (query) TO STDOUT.

#include "proxy/exec/copy_encode.hpp"

#include <utility>

#include "proxy/wire/frame_reader.hpp"
#include "proxy/wire/message_writer.hpp"
#include "routing/merge/binary_value.hpp"

namespace pgrange::proxy::exec {

namespace {

constexpr uint32_t kFloat4Oid = 700;
constexpr uint32_t kFloat8Oid = 701;

}  // namespace

CopyEncode::CopyEncode(std::unique_ptr<Operator> input, sql::CopyOptions options, bool exact_floats)
    : input_(std::move(input)), options_(std::move(options)), exact_floats_(exact_floats) {}

awaitable<ExecResult<void>> CopyEncode::open() {
  if (auto o = co_await input_->open(); !o) co_return o;
  auto fields = routing::read_row_description(input_->columns());
  if (!fields) co_return tl::unexpected(ExecFailure::of(fields.error()));
  fields_ = std::move(*fields);
  std::vector<std::string> names;
  for (const auto& f : fields_) names.push_back(f.name);
  auto writer = sql::CopyRowWriter::make(options_, std::move(names));
  if (!writer) co_return tl::unexpected(ExecFailure::of(writer.error()));
  writer_.emplace(std::move(*writer));
  values_.resize(fields_.size());
  converted_.reserve(fields_.size());
  const bool binary = writer_->binary();
  if (binary) {
    for (const auto& f : fields_) {
      if (f.format == 1) continue;
      bool floats = f.type_oid == kFloat4Oid || f.type_oid == kFloat8Oid;
      if (!routing::sends_binary(f.type_oid) || (floats && !exact_floats_)) {
        co_return tl::unexpected(ExecFailure::of(
            Error::make(sqlstate::kFeatureNotSupported,
                        "COPY (query) TO STDOUT (FORMAT binary) over several shards of column \"" +
                            f.name + "\" (type OID " + std::to_string(f.type_oid) +
                            ") is not supported")
                .with_hint("use the text or CSV format")));
      }
    }
  }
  // CopyOutResponse: the overall format, then each column's.
  MessageWriter response(response_);
  response.byte(binary ? 1 : 0).i16(static_cast<int16_t>(fields_.size()));
  for (size_t i = 0; i < fields_.size(); ++i) response.i16(binary ? 1 : 0);
  co_return ExecResult<void>{};
}

Result<void> CopyEncode::encode(std::string body, std::string& data) {
  auto row = routing::MergeRow::parse(std::move(body), fields_.size());
  if (!row) return tl::unexpected(row.error());
  // Both vectors are the operator's, reused row after row; converted_ has room for every
  // column (reserved in open()), so the views into it stay valid.
  converted_.clear();
  for (size_t i = 0; i < row->size(); ++i) {
    values_[i] = row->value(i);
    if (values_[i] && writer_->binary() && fields_[i].format == 0) {
      auto bytes = routing::binary_value(fields_[i].type_oid, *values_[i]);
      if (!bytes) return tl::unexpected(bytes.error());
      converted_.push_back(std::move(*bytes));
      values_[i] = converted_.back();
    }
  }
  line_.clear();
  writer_->row(values_, line_);
  MessageWriter(data).begin('d').bytes(line_).end();
  return {};
}

awaitable<ExecResult<bool>> CopyEncode::next(Batch& out) {
  if (!started_) {
    started_ = true;
    std::string start = writer_->start();
    if (!start.empty()) MessageWriter(out.data).begin('d').bytes(start).end();
  }
  Batch in;
  in.max_rows = out.max_rows;
  auto more = co_await input_->next(in);
  if (!more) co_return more;
  std::string_view rest = in.data;
  while (!rest.empty()) {
    FrameResult frame = read_typed_frame(rest, rest.size());
    if (frame.status != FrameStatus::kReady) {
      co_return tl::unexpected(ExecFailure::of(
          Error::make(sqlstate::kInternalError, "a row of the query could not be read")));
    }
    if (frame.frame.type == 'D') {
      if (auto r = encode(std::string(frame.frame.body), out.data); !r) {
        co_return tl::unexpected(ExecFailure::of(r.error()));
      }
    } else {
      out.data.append(rest.substr(0, frame.frame.total_size));  // passed on as it came
    }
    rest.remove_prefix(frame.frame.total_size);
  }
  out.rows += in.rows;
  rows_out_ += in.rows;
  co_return *more;
}

std::string CopyEncode::describe() const {
  return std::string("CopyEncode: the rows as COPY ") +
         (options_.format == sql::CopyFormat::kCsv      ? "CSV"
          : options_.format == sql::CopyFormat::kBinary ? "binary"
                                                        : "text") +
         " data";
}

}  // namespace pgrange::proxy::exec
