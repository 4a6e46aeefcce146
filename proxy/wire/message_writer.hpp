#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"

namespace pgrange::proxy {

/// Appends protocol messages to a string: begin(type), fields, end() back-patches the length.
class MessageWriter {
 public:
  explicit MessageWriter(std::string& out) : out_(out) {}

  /// Starts a typed message; type 0 starts an untyped (startup-phase) packet.
  MessageWriter& begin(char type);
  MessageWriter& i32(int32_t v);
  MessageWriter& i16(int16_t v);
  MessageWriter& byte(char c);
  /// A null-terminated string (the protocol's String).
  MessageWriter& cstr(std::string_view s);
  MessageWriter& bytes(std::string_view s);
  /// Writes the length of the message begun last.
  void end();

 private:
  std::string& out_;
  size_t start_ = 0;
};

/// ErrorResponse ('E') or, with notice=true, NoticeResponse ('N') for an Error.
void write_error(std::string& out, const Error& e);
/// NoticeResponse ('N') of severity NOTICE with this SQLSTATE and message.
void write_notice(std::string& out, std::string_view message, std::string_view sqlstate = "00000");
/// ReadyForQuery ('Z') with a transaction status of 'I', 'T' or 'E'.
void write_ready_for_query(std::string& out, char status);
/// ParameterStatus ('S').
void write_parameter_status(std::string& out, std::string_view name, std::string_view value);
/// BackendKeyData ('K').
void write_backend_key_data(std::string& out, int32_t pid, int32_t secret);
/// AuthenticationOk and the other Authentication* requests ('R').
void write_auth_request(std::string& out, int32_t code, std::string_view payload = {});
/// A StartupMessage for protocol 3.0 with the given parameters.
void write_startup_message(std::string& out,
                           const std::vector<std::pair<std::string, std::string>>& params);
/// A simple Query ('Q').
void write_query(std::string& out, std::string_view sql);

/// Authentication request codes (protocol §55.7, AuthenticationXXX).
inline constexpr int32_t kAuthOk = 0;
inline constexpr int32_t kAuthCleartext = 3;
inline constexpr int32_t kAuthMd5 = 5;
inline constexpr int32_t kAuthSasl = 10;
inline constexpr int32_t kAuthSaslContinue = 11;
inline constexpr int32_t kAuthSaslFinal = 12;

/// Reads fields from a message body without trusting it: every read checks bounds.
class BodyReader {
 public:
  explicit BodyReader(std::string_view body) : body_(body) {}
  bool i32(int32_t& v);
  bool i16(int16_t& v);
  bool byte(char& c);
  bool cstr(std::string_view& s);
  bool bytes(size_t n, std::string_view& s);
  std::string_view rest() const { return body_.substr(pos_); }
  size_t position() const { return pos_; }
  bool at_end() const { return pos_ == body_.size(); }

 private:
  std::string_view body_;
  size_t pos_ = 0;
};

/// The fields of an ErrorResponse/NoticeResponse body: code 'C', message 'M', severity 'S'.
struct ErrorFields {
  std::string severity;
  std::string sqlstate;
  std::string message;
  std::string detail;  ///< 'D'
  std::string hint;    ///< 'H'
};
ErrorFields parse_error_fields(std::string_view body);
/// A shard's ErrorResponse body as an Error: its SQLSTATE, message, detail and hint. A body
/// without a message (not an ErrorResponse: why a request could not be sent) becomes XX000 with
/// the body as its message.
Error error_of_response(std::string_view body);

/// A shard's ErrorResponse body, passed on to a client as an ErrorResponse ('E'). A FATAL (or
/// PANIC) ends the shard's connection, not the client's connection to pgrange, so the client
/// gets it as an ERROR (fields S and V), everything else as the shard sent it.
void write_shard_error(std::string& out, std::string_view body);

/// The values of a DataRow body in text format (nullopt = NULL).
std::vector<std::optional<std::string>> data_row_values(std::string_view body);

/// A Bind body after its portal and statement names (`rest`) split into its parameters (format
/// codes and values, as they are: `params` points into `rest`) and its result format codes;
/// false when it is malformed.
bool split_bind(std::string_view rest, std::string_view& params,
                std::vector<int16_t>& result_formats);

/// Two CommandComplete tags of one statement on several shards as one: their counts added
/// ("INSERT 0 3" and "INSERT 0 4" → "INSERT 0 7"); `a` empty → `b`.
std::string add_tag_counts(const std::string& a, const std::string& b);

}  // namespace pgrange::proxy
