#include "common/error.hpp"

namespace pgrange {

std::string_view Error::severity_text() const {
  return severity == Severity::kFatal ? "FATAL" : "ERROR";
}

std::string Error::to_string() const {
  std::string out(severity_text());
  out += ' ';
  out += sqlstate;
  out += ": ";
  out += message;
  return out;
}

}  // namespace pgrange
