#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "sql/copy_statement.hpp"

namespace pgrange::sql {

/// Splits the data of COPY … FROM STDIN into rows exactly as PostgreSQL 15 reads it
/// (copyfromparse.c), whatever byte positions the client cut its CopyData messages at, so that
/// each row can be forwarded unchanged to the shard that owns it, which runs the same COPY.
///
/// Text and CSV are read byte by byte with ASCII delimiters, quotes and escapes: right for UTF-8
/// and the other encodings in which an ASCII byte is always an ASCII character (not for client
/// encodings such as SJIS or BIG5). The encoding is not verified and type input is not run: the
/// shards report invalid bytes and values that do not convert.
class CopyRowReader {
 public:
  /// One complete row, valid during the callback only.
  struct Row {
    /// The row's bytes as received: text/CSV the line with its line end (the last row may have
    /// none: the data ended, or a "\." followed it, which is left out), binary the whole tuple.
    /// A view into the chunk given to feed() when the row lies within it, else into the reader.
    std::string_view raw;
    /// PostgreSQL's line number for this row (the header, if any, is line 1; a CSV row with
    /// quoted line ends is numbered by its last line, as PostgreSQL counts).
    uint64_t line = 0;
    /// The wanted fields, in the order of `wanted`: text/CSV their value after de-escaping or
    /// unquoting (nullopt = NULL as PostgreSQL decides it: the NULL string matched on the raw
    /// field, then FORCE_NOT_NULL and FORCE_NULL); binary the field's bytes (nullopt = length -1).
    std::vector<std::optional<std::string_view>> fields;
  };

  /// Malformed data as PostgreSQL reports it: the error (SQLSTATE 22P04 and PostgreSQL's
  /// message and hint), the line number of its CONTEXT (0 when PostgreSQL gives none: the binary
  /// file header) and the column its CONTEXT names (binary fields only), else empty.
  struct Failure {
    Error error;
    uint64_t line = 0;
    std::string column;
    /// Text and CSV errors about a whole line: the line as PostgreSQL's CONTEXT quotes it
    /// (`COPY t, line 3: "…"`, at most 100 bytes and "..."); nullopt when it quotes none.
    std::optional<std::string> text;
    /// PostgreSQL's CONTEXT for the failure of a COPY into `table` ("" when it has none).
    std::string context(std::string_view table) const;
  };

  /// PostgreSQL's cut of a value or line quoted in a COPY error's CONTEXT (limit_printout_length:
  /// at most 100 bytes, not splitting a UTF-8 character, then "...").
  static std::string printout(std::string_view s);

  using RowFn = std::function<void(const Row&)>;

  /// `columns`: the COPY's columns in order (the column list, else the table's columns);
  /// `wanted`: the indexes into `columns` of the fields to return with each row.
  CopyRowReader(CopyOptions options, std::vector<std::string> columns, std::vector<size_t> wanted);

  /// What PostgreSQL checks before it reads any data that concerns the columns: each
  /// FORCE_NOT_NULL / FORCE_NULL column must be one of `columns` (42P10). (Whether the columns
  /// exist in the table is the caller's to check first, as PostgreSQL does.)
  static std::optional<Error> check_columns(const CopyOptions& options,
                                            const std::vector<std::string>& columns);

  /// Reads the next bytes of the data; calls `on_row` for each row completed by them. After a
  /// failure, returns it again without reading.
  std::optional<Failure> feed(std::string_view chunk, const RowFn& on_row);
  /// The data has ended (CopyDone): reads the last row, which may lack a line end.
  std::optional<Failure> finish(const RowFn& on_row);

  /// Bytes every shard must get before any row: the HEADER line (text/CSV), the binary file
  /// header (signature, flags, extension). Complete once header_ready().
  std::string_view header() const { return header_; }
  bool header_ready() const { return header_done_; }
  /// The end-of-data marker ("\." alone on a line, or in text format after a row's fields) or
  /// the binary trailer was read: later text/CSV data is ignored, later binary data is an error.
  bool ended() const { return ended_; }
  /// The rows passed to on_row so far.
  uint64_t rows() const { return rows_; }

 private:
  enum class Eol { kUnknown, kNl, kCr, kCrNl };
  enum class Scan { kLine, kMarker, kEof, kNeedMore, kError };
  enum class Step { kUnit, kNeedMore, kStop };

  void consume(std::string_view chunk, bool eof, const RowFn& on_row);
  Step step(const char* d, size_t n, bool eof, size_t& used, const RowFn& on_row);
  Step step_text(const char* d, size_t n, bool eof, size_t& used, const RowFn& on_row);
  Step step_binary(const char* d, size_t n, bool eof, size_t& used, const RowFn& on_row);
  Step binary_header(const char* d, size_t n, bool eof, size_t& used);
  Scan scan_line(const char* d, size_t n, bool eof);
  /// Splits a line into fields; the wanted ones (every one with `all`) go to `out`. Returns the
  /// field count, or nullopt after setting the failure.
  std::optional<size_t> split_fields(const char* p, size_t len, bool all,
                                     std::vector<std::optional<std::string_view>>& out);
  bool check_header(const char* p, size_t len);
  bool emit_line(const char* d, size_t content, size_t raw, const RowFn& on_row);
  /// The failure just set is about the line p[0, len): quote it, as PostgreSQL does.
  bool quote_line(const char* p, size_t len);
  void reset_line();
  void fail(std::string message, std::string hint = {}, std::string column = {});
  void fail_code(std::string_view code, std::string message, std::string detail,
                 std::string column);

  CopyOptions opts_;
  bool csv_ = false;
  bool binary_ = false;
  std::vector<std::string> columns_;
  std::vector<size_t> wanted_;
  std::vector<int> slot_of_column_;   // column index → index into wanted_, or -1
  std::vector<char> force_not_null_;  // per column
  std::vector<char> force_null_;      // per column
  std::array<bool, 256> special_{};   // bytes the line scanner must look at one by one

  std::string header_;
  bool header_done_ = false;
  bool ended_ = false;
  bool finished_ = false;
  std::optional<Failure> failure_;
  uint64_t line_ = 0;
  uint64_t rows_ = 0;
  Eol eol_ = Eol::kUnknown;

  // The unfinished line or tuple carried from earlier chunks.
  std::string pending_;
  size_t need_hint_ = 0;  // binary: bytes still missing for the next step, when known
  bool line_open_ = false;
  // Text/CSV scanner state for the current line (copyfromparse.c CopyReadLineText).
  size_t scan_off_ = 0;
  bool in_quote_ = false;
  bool last_was_esc_ = false;
  bool first_char_ = true;
  size_t content_end_ = 0;
  size_t raw_end_ = 0;
  // Binary: progress within the current tuple.
  size_t bin_field_ = 0;
  size_t bin_off_ = 0;
  std::vector<std::pair<int64_t, int64_t>> bin_fields_;  // wanted slot → (offset, length)

  std::string scratch_;  // de-escaped field values of the current row
  Row row_;
  std::vector<std::optional<std::string_view>> header_fields_;
};

}  // namespace pgrange::sql
