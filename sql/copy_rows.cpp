#include "sql/copy_rows.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace pgrange::sql {

namespace {

constexpr std::string_view kBadCopyFileFormat = "22P04";
constexpr std::string_view kInvalidColumnReference = "42P10";
constexpr std::string_view kProgramLimitExceeded = "54000";

// PostgreSQL's binary COPY signature (copyfromparse.c BinarySignature).
constexpr char kBinarySignature[11] = {'P',  'G',    'C',  'O',  'P', 'Y',
                                       '\n', '\377', '\r', '\n', '\0'};
constexpr size_t kBinaryHeaderFixed = 19;  // signature, flags, extension length
// stringinfo.c enlargeStringInfo refuses a field this long (MaxAllocSize).
constexpr int64_t kMaxFieldSize = 0x3fffffff;
// Bytes of a chunk added to an unfinished row at a time, so that the rows after it stay views
// into the chunk.
constexpr size_t kPiece = 512;

uint32_t be32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | uint32_t{u[3]};
}

int16_t be16(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<int16_t>((u[0] << 8) | u[1]);
}

bool is_octal(char c) {
  return c >= '0' && c <= '7';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A field value as PostgreSQL's input functions see it: a C string, cut at the first NUL.
std::string_view c_string(std::string_view v) {
  const size_t nul = v.find('\0');
  return nul == std::string_view::npos ? v : v.substr(0, nul);
}

}  // namespace

CopyRowReader::CopyRowReader(CopyOptions options, std::vector<std::string> columns,
                             std::vector<size_t> wanted)
    : opts_(std::move(options)), columns_(std::move(columns)), wanted_(std::move(wanted)) {
  csv_ = opts_.format == CopyFormat::kCsv;
  binary_ = opts_.format == CopyFormat::kBinary;
  slot_of_column_.assign(columns_.size(), -1);
  for (size_t k = 0; k < wanted_.size(); ++k) {
    if (wanted_[k] < columns_.size()) slot_of_column_[wanted_[k]] = static_cast<int>(k);
  }
  force_not_null_.assign(columns_.size(), 0);
  force_null_.assign(columns_.size(), 0);
  for (size_t i = 0; i < columns_.size(); ++i) {
    auto named = [&](const std::vector<std::string>& names) {
      return std::find(names.begin(), names.end(), columns_[i]) != names.end();
    };
    force_not_null_[i] = csv_ && named(opts_.force_not_null);
    force_null_[i] = csv_ && named(opts_.force_null);
  }
  if (csv_) {
    special_['\n'] = special_['\r'] = true;
    special_[static_cast<unsigned char>(opts_.quote)] = true;
    // With ESCAPE the same as QUOTE, CopyReadLineText compares with '\0' instead.
    special_[opts_.escape == opts_.quote ? 0 : static_cast<unsigned char>(opts_.escape)] = true;
  } else {
    special_['\n'] = special_['\r'] = special_['\\'] = true;
  }
  row_.fields.assign(wanted_.size(), std::nullopt);
  bin_fields_.assign(wanted_.size(), {-1, -1});
  header_done_ = binary_ ? false : !opts_.header;
}

std::optional<Error> CopyRowReader::check_columns(const CopyOptions& options,
                                                  const std::vector<std::string>& columns) {
  auto check = [&](const std::vector<std::string>& names,
                   std::string_view option) -> std::optional<Error> {
    for (const std::string& name : names) {
      if (std::find(columns.begin(), columns.end(), name) == columns.end()) {
        return Error::make(kInvalidColumnReference,
                           std::string(option) + " column \"" + name + "\" not referenced by COPY");
      }
    }
    return std::nullopt;
  };
  if (auto e = check(options.force_not_null, "FORCE_NOT_NULL")) return e;
  return check(options.force_null, "FORCE_NULL");
}

std::optional<CopyRowReader::Failure> CopyRowReader::feed(std::string_view chunk,
                                                          const RowFn& on_row) {
  if (failure_ || finished_) return failure_;
  if (ended_) {
    // After the binary trailer PostgreSQL reads one more byte and refuses it.
    if (binary_ && !chunk.empty()) fail("received copy data after EOF marker");
    return failure_;
  }
  if (!chunk.empty()) consume(chunk, false, on_row);
  return failure_;
}

std::optional<CopyRowReader::Failure> CopyRowReader::finish(const RowFn& on_row) {
  if (failure_ || finished_) return failure_;
  if (!ended_) consume({}, true, on_row);
  finished_ = true;
  return failure_;
}

void CopyRowReader::consume(std::string_view chunk, bool eof, const RowFn& on_row) {
  size_t off = 0;
  if (eof) {
    const char* d = pending_.data();
    size_t n = pending_.size();
    size_t used = 0;
    while (step(d, n, true, used, on_row) == Step::kUnit) {
      d += used;
      n -= used;
    }
    pending_.clear();
    return;
  }
  if (!pending_.empty()) {
    // Add the chunk to the unfinished row a piece at a time until the row is complete; the
    // bytes after it are then read from the chunk itself.
    size_t appended = 0;
    for (;;) {
      const size_t take =
          std::min(chunk.size() - off, std::max({kPiece, pending_.size(), need_hint_}));
      pending_.append(chunk.substr(off, take));
      off += take;
      appended += take;
      size_t used = 0;
      const Step s = step(pending_.data(), pending_.size(), false, used, on_row);
      if (s == Step::kNeedMore) {
        if (off < chunk.size()) continue;
        return;
      }
      if (s == Step::kStop) {
        pending_.clear();
        return;
      }
      const size_t extra = pending_.size() - used;
      if (extra <= appended) {
        off -= extra;
        pending_.clear();
        break;
      }
      pending_.erase(0, used);
      appended = 0;
    }
  }
  const char* d = chunk.data() + off;
  size_t n = chunk.size() - off;
  while (n > 0) {
    size_t used = 0;
    const Step s = step(d, n, false, used, on_row);
    if (s == Step::kStop) return;
    if (s == Step::kNeedMore) {
      pending_.assign(d, n);
      return;
    }
    d += used;
    n -= used;
  }
}

CopyRowReader::Step CopyRowReader::step(const char* d, size_t n, bool eof, size_t& used,
                                        const RowFn& on_row) {
  if (failure_ || ended_) return Step::kStop;
  return binary_ ? step_binary(d, n, eof, used, on_row) : step_text(d, n, eof, used, on_row);
}

void CopyRowReader::fail(std::string message, std::string hint, std::string column) {
  Error e = Error::make(kBadCopyFileFormat, std::move(message));
  e.hint = std::move(hint);
  failure_ = Failure{std::move(e), line_, std::move(column), std::nullopt};
}

void CopyRowReader::fail_code(std::string_view code, std::string message, std::string detail,
                              std::string column) {
  Error e = Error::make(code, std::move(message));
  e.detail = std::move(detail);
  failure_ = Failure{std::move(e), line_, std::move(column), std::nullopt};
}

void CopyRowReader::reset_line() {
  line_open_ = false;
  scan_off_ = 0;
  in_quote_ = false;
  last_was_esc_ = false;
  first_char_ = true;
}

// ---------------------------------------------------------------------------------------------
// Text and CSV

// copyfromparse.c CopyReadLineText: finds the end of the line that starts at d[0], resuming at
// scan_off_. Every look-ahead a byte needs is checked before the byte changes any state, so a
// line cut anywhere is read as if it had arrived whole. At the end of the data, bytes looked
// ahead past it read as '\0', as PostgreSQL's padded buffer does.
CopyRowReader::Scan CopyRowReader::scan_line(const char* d, size_t n, bool eof) {
  const char quotec = opts_.quote;
  const char escapec = opts_.escape == opts_.quote ? '\0' : opts_.escape;
  auto at = [&](size_t i) { return i < n ? d[i] : '\0'; };
  auto carriage_return = [&]() {
    if (csv_) {
      fail("unquoted carriage return found in data",
           "Use quoted CSV field to represent carriage return.");
    } else {
      fail("literal carriage return found in data", "Use \"\\r\" to represent carriage return.");
    }
    return Scan::kError;
  };
  size_t pos = scan_off_;
  for (;;) {
    if (!first_char_) {
      const size_t from = pos;
      while (pos < n && !special_[static_cast<unsigned char>(d[pos])]) ++pos;
      if (pos > from) last_was_esc_ = false;
    }
    if (pos >= n) {
      if (!eof) {
        scan_off_ = pos;
        return Scan::kNeedMore;
      }
      content_end_ = raw_end_ = n;
      return Scan::kEof;
    }
    const char c = d[pos];
    size_t need = 0;
    if (c == '\r') {
      need = 1;
    } else if (c == '\\' && (!csv_ || first_char_)) {
      need = 1;
      if (pos + 1 < n && d[pos + 1] == '.') need = eol_ == Eol::kCrNl ? 3 : 2;
    }
    if (need > 0 && pos + need >= n && !eof) {
      scan_off_ = pos;
      return Scan::kNeedMore;
    }
    if (csv_) {
      if (in_quote_ && c == escapec) last_was_esc_ = !last_was_esc_;
      if (c == quotec && !last_was_esc_) in_quote_ = !in_quote_;
      if (c != escapec) last_was_esc_ = false;
      // PostgreSQL counts quoted line ends as lines (on the first line only '\r' ones).
      if (in_quote_ && c == (eol_ == Eol::kNl ? '\n' : '\r')) ++line_;
    }
    if (c == '\r' && (!csv_ || !in_quote_)) {
      if (eol_ == Eol::kUnknown || eol_ == Eol::kCrNl) {
        if (at(pos + 1) == '\n') {
          eol_ = Eol::kCrNl;
          content_end_ = pos;
          raw_end_ = pos + 2;
          return Scan::kLine;
        }
        if (eol_ == Eol::kCrNl) return carriage_return();
        eol_ = Eol::kCr;
      } else if (eol_ == Eol::kNl) {
        return carriage_return();
      }
      content_end_ = pos;
      raw_end_ = pos + 1;
      return Scan::kLine;
    }
    if (c == '\n' && (!csv_ || !in_quote_)) {
      if (eol_ == Eol::kCr || eol_ == Eol::kCrNl) {
        if (csv_) {
          fail("unquoted newline found in data", "Use quoted CSV field to represent newline.");
        } else {
          fail("literal newline found in data", "Use \"\\n\" to represent newline.");
        }
        return Scan::kError;
      }
      eol_ = Eol::kNl;
      content_end_ = pos;
      raw_end_ = pos + 1;
      return Scan::kLine;
    }
    // In CSV "\." ends the data only alone on a line, since it is a valid CSV value.
    if (c == '\\' && (!csv_ || first_char_)) {
      if (pos + 1 >= n) {
        content_end_ = raw_end_ = n;
        return Scan::kEof;
      }
      if (d[pos + 1] == '.') {
        size_t p = pos + 2;
        bool data = false;
        if (eol_ == Eol::kCrNl) {
          const char c2 = at(p++);
          if (c2 == '\n') {
            if (!csv_) {
              fail("end-of-copy marker does not match previous newline style");
              return Scan::kError;
            }
            data = true;
          } else if (c2 != '\r') {
            if (!csv_) {
              fail("end-of-copy marker corrupt");
              return Scan::kError;
            }
            data = true;
          }
        }
        if (!data) {
          const char c2 = at(p++);
          if (c2 != '\r' && c2 != '\n') {
            if (!csv_) {
              fail("end-of-copy marker corrupt");
              return Scan::kError;
            }
            data = true;
          } else if ((eol_ == Eol::kNl && c2 != '\n') || (eol_ == Eol::kCrNl && c2 != '\n') ||
                     (eol_ == Eol::kCr && c2 != '\r')) {
            fail("end-of-copy marker does not match previous newline style");
            return Scan::kError;
          } else {
            content_end_ = raw_end_ = pos;
            return Scan::kMarker;
          }
        }
        // CSV data after all: the bytes looked ahead at are read again as data.
        first_char_ = false;
        ++pos;
        continue;
      }
      if (!csv_) {
        // Whatever follows a backslash is data, a line end too.
        first_char_ = false;
        pos += 2;
        continue;
      }
    }
    first_char_ = false;
    ++pos;
  }
}

CopyRowReader::Step CopyRowReader::step_text(const char* d, size_t n, bool eof, size_t& used,
                                             const RowFn& on_row) {
  if (!line_open_) {
    ++line_;
    line_open_ = true;
  }
  const Scan s = scan_line(d, n, eof);
  if (s == Scan::kNeedMore) return Step::kNeedMore;
  if (s == Scan::kError) return Step::kStop;
  const bool last = s != Scan::kLine;
  const size_t content = content_end_;
  const size_t raw = raw_end_;
  used = raw;
  reset_line();
  if (s == Scan::kMarker) ended_ = true;
  if (!header_done_) {
    header_.assign(d, raw);
    header_done_ = true;
    if (opts_.header_match && !check_header(d, content)) return Step::kStop;
    return last ? Step::kStop : Step::kUnit;
  }
  // The end of the data at the start of a line is no row.
  if (last && content == 0) return Step::kStop;
  if (!emit_line(d, content, raw, on_row)) return Step::kStop;
  return last ? Step::kStop : Step::kUnit;
}

// copyfromparse.c CopyReadAttributesText / CopyReadAttributesCSV.
std::optional<size_t> CopyRowReader::split_fields(
    const char* p, size_t len, bool all, std::vector<std::optional<std::string_view>>& out) {
  const size_t ncols = columns_.size();
  if (ncols == 0) {
    if (len != 0) {
      fail("extra data after last expected column");
      return std::nullopt;
    }
    return 0;
  }
  // Values are never longer than the line: views into scratch_ stay valid while it fills.
  if (scratch_.size() < len) scratch_.resize(std::max(len, 2 * scratch_.size()));
  char* const out_base = scratch_.data();
  char* o = out_base;
  const char* const end = p + len;
  const char delimc = opts_.delimiter;
  const std::string_view null_string = opts_.null_string;
  size_t fieldno = 0;
  for (;;) {
    int slot = -1;
    if (all) {
      slot = static_cast<int>(fieldno);
      if (out.size() <= fieldno) out.resize(fieldno + 1);
    } else if (fieldno < ncols) {
      slot = slot_of_column_[fieldno];
    }
    const bool want = slot >= 0;
    const char* const start = p;
    const char* end_ptr = p;
    char* const value = o;
    bool found_delim = false;
    bool saw_quote = false;
    if (!csv_) {
      for (;;) {
        end_ptr = p;
        if (p >= end) break;
        char c = *p++;
        if (c == delimc) {
          found_delim = true;
          break;
        }
        if (c == '\\') {
          if (p >= end) break;
          c = *p++;
          switch (c) {
            case '0':
            case '1':
            case '2':
            case '3':
            case '4':
            case '5':
            case '6':
            case '7': {
              int val = c - '0';
              if (p < end && is_octal(*p)) {
                val = (val << 3) + (*p++ - '0');
                if (p < end && is_octal(*p)) val = (val << 3) + (*p++ - '0');
              }
              c = static_cast<char>(val & 0377);
              break;
            }
            case 'x':
              if (p < end && hex_value(*p) >= 0) {
                int val = hex_value(*p++);
                if (p < end && hex_value(*p) >= 0) val = (val << 4) + hex_value(*p++);
                c = static_cast<char>(val & 0xff);
              }
              break;
            case 'b':
              c = '\b';
              break;
            case 'f':
              c = '\f';
              break;
            case 'n':
              c = '\n';
              break;
            case 'r':
              c = '\r';
              break;
            case 't':
              c = '\t';
              break;
            case 'v':
              c = '\v';
              break;
            default:
              break;  // any other byte after a backslash stands for itself
          }
        }
        if (want) *o++ = c;
      }
    } else {
      const char quotec = opts_.quote;
      const char escapec = opts_.escape;
      for (;;) {
        // Not in quotes.
        bool ended_field = false;
        for (;;) {
          end_ptr = p;
          if (p >= end) {
            ended_field = true;
            break;
          }
          const char c = *p++;
          if (c == delimc) {
            found_delim = true;
            ended_field = true;
            break;
          }
          if (c == quotec) {
            saw_quote = true;
            break;
          }
          if (want) *o++ = c;
        }
        if (ended_field) break;
        // In quotes.
        for (;;) {
          end_ptr = p;
          if (p >= end) {
            fail("unterminated CSV quoted field");
            return std::nullopt;
          }
          const char c = *p++;
          if (c == escapec && p < end && (*p == escapec || *p == quotec)) {
            if (want) *o++ = *p;
            ++p;
            continue;
          }
          if (c == quotec) break;
          if (want) *o++ = c;
        }
      }
    }
    if (want) {
      const std::string_view raw_field(start, static_cast<size_t>(end_ptr - start));
      if (!saw_quote && raw_field == null_string) {
        out[static_cast<size_t>(slot)] = std::nullopt;
      } else {
        out[static_cast<size_t>(slot)] = std::string_view(value, static_cast<size_t>(o - value));
      }
    }
    ++fieldno;
    if (!found_delim) break;
  }
  return fieldno;
}

std::string CopyRowReader::Failure::context(std::string_view table) const {
  if (line == 0) return "";
  std::string out = "COPY " + std::string(table) + ", line " + std::to_string(line);
  if (!column.empty()) out += ", column " + column;
  if (text) out += ": \"" + *text + "\"";
  return out;
}

std::string CopyRowReader::printout(std::string_view s) {
  constexpr size_t kMax = 100;  // copyfrom.c MAX_COPY_DATA_DISPLAY
  if (s.size() <= kMax) return std::string(s);
  size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return std::string(s.substr(0, cut)) + "...";
}

bool CopyRowReader::quote_line(const char* p, size_t len) {
  if (failure_) failure_->text = printout(std::string_view(p, len));
  return false;
}

// copyfromparse.c NextCopyFromRawFields, HEADER MATCH.
bool CopyRowReader::check_header(const char* p, size_t len) {
  header_fields_.clear();
  auto count = split_fields(p, len, true, header_fields_);
  if (!count) return quote_line(p, len);
  if (*count != columns_.size()) {
    fail("wrong number of fields in header line: got " + std::to_string(*count) + ", expected " +
         std::to_string(columns_.size()));
    return quote_line(p, len);
  }
  for (size_t i = 0; i < columns_.size(); ++i) {
    const auto& name = header_fields_[i];
    if (!name) {
      fail("column name mismatch in header line field " + std::to_string(i + 1) +
           ": got null value (\"" + opts_.null_string + "\"), expected \"" + columns_[i] + "\"");
      return quote_line(p, len);
    }
    if (c_string(*name) != columns_[i]) {
      fail("column name mismatch in header line field " + std::to_string(i + 1) + ": got \"" +
           std::string(c_string(*name)) + "\", expected \"" + columns_[i] + "\"");
      return quote_line(p, len);
    }
  }
  return true;
}

// copyfromparse.c NextCopyFrom for text and CSV, up to the input functions.
bool CopyRowReader::emit_line(const char* d, size_t content, size_t raw, const RowFn& on_row) {
  auto count = split_fields(d, content, false, row_.fields);
  if (!count) return quote_line(d, content);
  const size_t ncols = columns_.size();
  if (ncols > 0 && *count > ncols) {
    fail("extra data after last expected column");
    return quote_line(d, content);
  }
  if (*count < ncols) {
    fail("missing data for column \"" + columns_[*count] + "\"");
    return quote_line(d, content);
  }
  if (csv_) {
    for (size_t k = 0; k < wanted_.size(); ++k) {
      const size_t m = wanted_[k];
      if (m >= ncols) continue;
      auto& v = row_.fields[k];
      if (!v && force_not_null_[m]) {
        v = std::string_view(opts_.null_string);
      } else if (force_null_[m] && v && c_string(*v) == opts_.null_string) {
        v = std::nullopt;
      }
    }
  }
  row_.raw = std::string_view(d, raw);
  row_.line = line_;
  ++rows_;
  on_row(row_);
  return true;
}

// ---------------------------------------------------------------------------------------------
// Binary

// copyfromparse.c ReceiveCopyBinaryHeader. PostgreSQL reads it before the COPY's error context
// is set up: its errors name no line.
CopyRowReader::Step CopyRowReader::binary_header(const char* d, size_t n, bool eof, size_t& used) {
  auto need = [&](size_t bytes, const char* message) {
    if (eof) {
      fail(message);
      failure_->line = 0;
      return Step::kStop;
    }
    need_hint_ = bytes - n;
    return Step::kNeedMore;
  };
  auto refuse = [&](const char* message) {
    fail(message);
    failure_->line = 0;
    return Step::kStop;
  };
  if (n < 11) return need(11, "COPY file signature not recognized");
  if (std::memcmp(d, kBinarySignature, 11) != 0) {
    return refuse("COPY file signature not recognized");
  }
  if (n < 15) return need(15, "invalid COPY file header (missing flags)");
  uint32_t flags = be32(d + 11);
  if ((flags & (1u << 16)) != 0) return refuse("invalid COPY file header (WITH OIDS)");
  flags &= ~(1u << 16);
  if ((flags >> 16) != 0) return refuse("unrecognized critical flags in COPY file header");
  if (n < kBinaryHeaderFixed) {
    return need(kBinaryHeaderFixed, "invalid COPY file header (missing length)");
  }
  const auto ext = static_cast<int32_t>(be32(d + 15));
  if (ext < 0) return refuse("invalid COPY file header (missing length)");
  const size_t total = kBinaryHeaderFixed + static_cast<size_t>(ext);
  if (n < total) return need(total, "invalid COPY file header (wrong length)");
  header_.assign(d, total);
  header_done_ = true;
  need_hint_ = 0;
  used = total;
  return Step::kUnit;
}

// copyfromparse.c NextCopyFrom and CopyReadBinaryAttribute for binary, up to the receive
// functions.
CopyRowReader::Step CopyRowReader::step_binary(const char* d, size_t n, bool eof, size_t& used,
                                               const RowFn& on_row) {
  if (!header_done_) return binary_header(d, n, eof, used);
  if (!line_open_) {
    ++line_;
    line_open_ = true;
    bin_field_ = 0;
    bin_off_ = 2;
  }
  // A tuple's field count cut short by the end of the data ends the COPY quietly.
  if (n < 2) {
    need_hint_ = 2 - n;
    return eof ? Step::kStop : Step::kNeedMore;
  }
  const int16_t count = be16(d);
  if (count == -1) {
    ended_ = true;
    if (n > 2) fail("received copy data after EOF marker");
    return Step::kStop;
  }
  const size_t ncols = columns_.size();
  if (count < 0 || static_cast<size_t>(count) != ncols) {
    fail("row field count is " + std::to_string(count) + ", expected " + std::to_string(ncols));
    return Step::kStop;
  }
  while (bin_field_ < ncols) {
    const std::string& column = columns_[bin_field_];
    if (n < bin_off_ + 4) {
      if (eof) {
        fail("unexpected EOF in COPY data", {}, column);
        return Step::kStop;
      }
      need_hint_ = bin_off_ + 4 - n;
      return Step::kNeedMore;
    }
    const int64_t size = static_cast<int32_t>(be32(d + bin_off_));
    const int slot = slot_of_column_[bin_field_];
    if (size == -1) {
      if (slot >= 0) bin_fields_[static_cast<size_t>(slot)] = {-1, -1};
      bin_off_ += 4;
      ++bin_field_;
      continue;
    }
    if (size < 0) {
      fail("invalid field size", {}, column);
      return Step::kStop;
    }
    if (size >= kMaxFieldSize) {
      fail_code(kProgramLimitExceeded, "out of memory",
                "Cannot enlarge string buffer containing 0 bytes by " + std::to_string(size) +
                    " more bytes.",
                column);
      return Step::kStop;
    }
    const size_t end = bin_off_ + 4 + static_cast<size_t>(size);
    if (n < end) {
      if (eof) {
        fail("unexpected EOF in COPY data", {}, column);
        return Step::kStop;
      }
      need_hint_ = end - n;
      return Step::kNeedMore;
    }
    if (slot >= 0) {
      bin_fields_[static_cast<size_t>(slot)] = {static_cast<int64_t>(bin_off_ + 4), size};
    }
    bin_off_ = end;
    ++bin_field_;
  }
  for (size_t k = 0; k < wanted_.size(); ++k) {
    const auto [offset, size] = bin_fields_[k];
    if (wanted_[k] >= ncols || offset < 0) {
      row_.fields[k] = std::nullopt;
    } else {
      row_.fields[k] = std::string_view(d + offset, static_cast<size_t>(size));
    }
  }
  used = bin_off_;
  need_hint_ = 0;
  line_open_ = false;
  row_.raw = std::string_view(d, used);
  row_.line = line_;
  ++rows_;
  on_row(row_);
  return Step::kUnit;
}

}  // namespace pgrange::sql
