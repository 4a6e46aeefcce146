#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <utility>

namespace pgrange {

/// SQLSTATE codes pgrange raises itself (PostgreSQL Appendix A).
namespace sqlstate {
inline constexpr std::string_view kSyntaxError = "42601";
inline constexpr std::string_view kUndefinedTable = "42P01";
inline constexpr std::string_view kFeatureNotSupported = "0A000";
inline constexpr std::string_view kConnectionFailure = "08006";
inline constexpr std::string_view kProtocolViolation = "08P01";
inline constexpr std::string_view kAdminShutdown = "57P01";
inline constexpr std::string_view kInvalidPassword = "28P01";
inline constexpr std::string_view kInvalidAuthorization = "28000";
inline constexpr std::string_view kInvalidCatalogName = "3D000";
inline constexpr std::string_view kInvalidTextRepresentation = "22P02";
inline constexpr std::string_view kNumericValueOutOfRange = "22003";
inline constexpr std::string_view kInvalidParameterValue = "22023";
inline constexpr std::string_view kSerializationFailure = "40001";
inline constexpr std::string_view kTooManyConnections = "53300";
inline constexpr std::string_view kQueryCanceled = "57014";
inline constexpr std::string_view kInFailedSqlTransaction = "25P02";
inline constexpr std::string_view kTransactionResolutionUnknown = "08007";
inline constexpr std::string_view kInternalError = "XX000";
inline constexpr std::string_view kConfigFileError = "F0000";
inline constexpr std::string_view kOutOfMemory = "53200";
inline constexpr std::string_view kInsufficientPrivilege = "42501";
}  // namespace sqlstate

/// Severity of an Error as PostgreSQL names it in ErrorResponse field 'S'.
enum class Severity { kError, kFatal };

/// One failure that ends a statement (or, when FATAL, a connection); becomes one ErrorResponse.
struct Error {
  std::string sqlstate;
  std::string message;
  std::string detail;
  std::string hint;
  /// Where it happened (ErrorResponse field 'W'), e.g. "COPY t, line 3, column id: \"x\"".
  std::string context;
  Severity severity = Severity::kError;

  /// Builds an ERROR with the given SQLSTATE and message.
  static Error make(std::string_view code, std::string msg) {
    Error e;
    e.sqlstate = std::string(code);
    e.message = std::move(msg);
    return e;
  }
  /// Builds a FATAL error (the connection closes after it is sent).
  static Error fatal(std::string_view code, std::string msg) {
    Error e = make(code, std::move(msg));
    e.severity = Severity::kFatal;
    return e;
  }
  Error&& with_detail(std::string d) && {
    detail = std::move(d);
    return std::move(*this);
  }
  Error&& with_hint(std::string h) && {
    hint = std::move(h);
    return std::move(*this);
  }
  /// "ERROR" or "FATAL".
  std::string_view severity_text() const;
  /// A one-line form for logs: "ERROR 42601: message".
  std::string to_string() const;
};

/// SQLSTATE 0A000 for what pgrange cannot do (correctly), naming the construct, with a hint.
inline Error not_supported(std::string msg, std::string hint = {}) {
  Error e = Error::make(sqlstate::kFeatureNotSupported, std::move(msg));
  e.hint = std::move(hint);
  return e;
}

/// 53200 for rows pgrange must hold in memory past query_memory: "<what> exceed query_memory
/// (<limit> bytes)", why they are held or how much they are (detail), what to do (hint).
inline Error query_memory_exceeded(const std::string& what, uint64_t limit, std::string detail,
                                   std::string hint) {
  Error e = Error::make(sqlstate::kOutOfMemory,
                        what + " exceed query_memory (" + std::to_string(limit) + " bytes)");
  e.detail = std::move(detail);
  e.hint = std::move(hint);
  return e;
}

/// PostgreSQL's 25P02 for a statement in a transaction block that already failed.
inline Error aborted_transaction_error() {
  return Error::make(sqlstate::kInFailedSqlTransaction,
                     "current transaction is aborted, commands ignored until end of transaction "
                     "block");
}

/// The data plane's return type: a value or the Error that ends the statement.
template <typename T>
using Result = tl::expected<T, Error>;

/// Shorthand for returning an error from a function that returns Result<T>.
inline tl::unexpected<Error> fail(std::string_view code, std::string msg) {
  return tl::unexpected<Error>(Error::make(code, std::move(msg)));
}
inline tl::unexpected<Error> fail(Error e) {
  return tl::unexpected<Error>(std::move(e));
}

}  // namespace pgrange
