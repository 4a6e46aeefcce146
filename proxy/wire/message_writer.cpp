#include "proxy/wire/message_writer.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "proxy/wire/byte_buffer.hpp"

namespace pgrange::proxy {

MessageWriter& MessageWriter::begin(char type) {
  if (type != 0) out_.push_back(type);
  start_ = out_.size();
  out_.append(4, '\0');
  return *this;
}

MessageWriter& MessageWriter::i32(int32_t v) {
  uint32_t u = static_cast<uint32_t>(v);
  char b[4] = {char(u >> 24), char(u >> 16), char(u >> 8), char(u)};
  out_.append(b, 4);
  return *this;
}

MessageWriter& MessageWriter::i16(int16_t v) {
  uint16_t u = static_cast<uint16_t>(v);
  char b[2] = {char(u >> 8), char(u)};
  out_.append(b, 2);
  return *this;
}

MessageWriter& MessageWriter::byte(char c) {
  out_.push_back(c);
  return *this;
}

MessageWriter& MessageWriter::cstr(std::string_view s) {
  out_.append(s.data(), s.size());
  out_.push_back('\0');
  return *this;
}

MessageWriter& MessageWriter::bytes(std::string_view s) {
  out_.append(s.data(), s.size());
  return *this;
}

void MessageWriter::end() {
  uint32_t len = static_cast<uint32_t>(out_.size() - start_);
  out_[start_] = char(len >> 24);
  out_[start_ + 1] = char(len >> 16);
  out_[start_ + 2] = char(len >> 8);
  out_[start_ + 3] = char(len);
}

void write_notice(std::string& out, std::string_view message, std::string_view sqlstate) {
  MessageWriter(out)
      .begin('N')
      .byte('S')
      .cstr("NOTICE")
      .byte('V')
      .cstr("NOTICE")
      .byte('C')
      .cstr(sqlstate)
      .byte('M')
      .cstr(message)
      .byte('\0')
      .end();
}

void write_error(std::string& out, const Error& e) {
  MessageWriter w(out);
  std::string_view sev = e.severity_text();
  // Fields per protocol §55.8 "Error and Notice Message Fields".
  w.begin('E').byte('S').cstr(sev).byte('V').cstr(sev).byte('C').cstr(e.sqlstate);
  w.byte('M').cstr(e.message);
  if (!e.detail.empty()) w.byte('D').cstr(e.detail);
  if (!e.hint.empty()) w.byte('H').cstr(e.hint);
  if (!e.context.empty()) w.byte('W').cstr(e.context);
  w.byte('\0');
  w.end();
}

void write_ready_for_query(std::string& out, char status) {
  MessageWriter(out).begin('Z').byte(status).end();
}

void write_parameter_status(std::string& out, std::string_view name, std::string_view value) {
  MessageWriter(out).begin('S').cstr(name).cstr(value).end();
}

void write_backend_key_data(std::string& out, int32_t pid, int32_t secret) {
  MessageWriter(out).begin('K').i32(pid).i32(secret).end();
}

void write_auth_request(std::string& out, int32_t code, std::string_view payload) {
  MessageWriter(out).begin('R').i32(code).bytes(payload).end();
}

void write_startup_message(std::string& out,
                           const std::vector<std::pair<std::string, std::string>>& params) {
  MessageWriter w(out);
  w.begin(0).i32(196608);
  for (const auto& [k, v] : params) w.cstr(k).cstr(v);
  w.byte('\0');
  w.end();
}

void write_query(std::string& out, std::string_view sql) {
  MessageWriter(out).begin('Q').cstr(sql).end();
}

bool BodyReader::i32(int32_t& v) {
  if (body_.size() - pos_ < 4) return false;
  v = read_i32(body_.data() + pos_);
  pos_ += 4;
  return true;
}

bool BodyReader::i16(int16_t& v) {
  if (body_.size() - pos_ < 2) return false;
  v = read_i16(body_.data() + pos_);
  pos_ += 2;
  return true;
}

bool BodyReader::byte(char& c) {
  if (pos_ >= body_.size()) return false;
  c = body_[pos_++];
  return true;
}

bool BodyReader::cstr(std::string_view& s) {
  const void* nul = std::memchr(body_.data() + pos_, 0, body_.size() - pos_);
  if (nul == nullptr) return false;
  size_t end = static_cast<const char*>(nul) - body_.data();
  s = body_.substr(pos_, end - pos_);
  pos_ = end + 1;
  return true;
}

bool BodyReader::bytes(size_t n, std::string_view& s) {
  if (body_.size() - pos_ < n) return false;
  s = body_.substr(pos_, n);
  pos_ += n;
  return true;
}

ErrorFields parse_error_fields(std::string_view body) {
  ErrorFields f;
  BodyReader r(body);
  char code = 0;
  while (r.byte(code) && code != '\0') {
    std::string_view v;
    if (!r.cstr(v)) break;
    if (code == 'C')
      f.sqlstate = v;
    else if (code == 'M')
      f.message = v;
    else if (code == 'D')
      f.detail = v;
    else if (code == 'H')
      f.hint = v;
    else if (code == 'V' || (code == 'S' && f.severity.empty()))
      f.severity = v;
  }
  return f;
}

Error error_of_response(std::string_view body) {
  ErrorFields f = parse_error_fields(body);
  if (f.message.empty()) return Error::make(sqlstate::kInternalError, std::string(body));
  Error e = Error::make(f.sqlstate.empty() ? sqlstate::kInternalError : f.sqlstate, f.message);
  e.detail = std::move(f.detail);
  e.hint = std::move(f.hint);
  return e;
}

std::vector<std::optional<std::string>> data_row_values(std::string_view body) {
  std::vector<std::optional<std::string>> out;
  BodyReader r(body);
  int16_t n = 0;
  if (!r.i16(n)) return out;
  for (int16_t i = 0; i < n; ++i) {
    int32_t len = 0;
    if (!r.i32(len)) break;
    if (len < 0) {
      out.emplace_back(std::nullopt);
      continue;
    }
    std::string_view v;
    if (!r.bytes(static_cast<size_t>(len), v)) break;
    out.emplace_back(std::string(v));
  }
  return out;
}

void write_shard_error(std::string& out, std::string_view body) {
  MessageWriter w(out);
  w.begin('E');
  BodyReader r(body);
  char code = 0;
  while (r.byte(code) && code != '\0') {
    std::string_view v;
    if (!r.cstr(v)) break;
    if ((code == 'S' || code == 'V') && (v == "FATAL" || v == "PANIC")) v = "ERROR";
    w.byte(code).cstr(v);
  }
  w.byte('\0').end();
}

std::string add_tag_counts(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  size_t sa = a.rfind(' '), sb = b.rfind(' ');
  auto counted = [](const std::string& tag, size_t space) {
    return space != std::string::npos && space + 1 < tag.size() &&
           std::all_of(tag.begin() + static_cast<std::ptrdiff_t>(space) + 1, tag.end(),
                       [](char c) { return c >= '0' && c <= '9'; });
  };
  // Tags without a count ("TRUNCATE TABLE", "ANALYZE") stay as they are.
  if (!counted(a, sa) || !counted(b, sb)) return a;
  uint64_t n = std::strtoull(a.c_str() + sa + 1, nullptr, 10) +
               std::strtoull(b.c_str() + sb + 1, nullptr, 10);
  return a.substr(0, sa + 1) + std::to_string(n);
}

bool split_bind(std::string_view rest, std::string_view& params,
                std::vector<int16_t>& result_formats) {
  BodyReader b(rest);
  int16_t formats = 0, values = 0;
  if (!b.i16(formats) || formats < 0) return false;
  for (int16_t i = 0; i < formats; ++i) {
    int16_t f = 0;
    if (!b.i16(f)) return false;
  }
  if (!b.i16(values) || values < 0) return false;
  for (int16_t i = 0; i < values; ++i) {
    int32_t len = 0;
    std::string_view v;
    if (!b.i32(len) || (len > 0 && !b.bytes(static_cast<size_t>(len), v))) return false;
  }
  params = rest.substr(0, rest.size() - b.rest().size());
  int16_t n = 0;
  if (!b.i16(n) || n < 0) return false;
  for (int16_t i = 0; i < n; ++i) {
    int16_t f = 0;
    if (!b.i16(f)) return false;
    result_formats.push_back(f);
  }
  return true;
}

}  // namespace pgrange::proxy
