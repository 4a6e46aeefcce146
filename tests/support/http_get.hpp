#pragma once

#include <string>

namespace pgrange::testing {

/// What an HTTP GET answered.
struct HttpReply {
  int status = 0;       ///< 0 when the request failed (`body` then says why)
  std::string headers;  ///< the status line and headers, as sent
  std::string body;
};

/// GET http://127.0.0.1:`port``path` (HTTP/1.1, Connection: close), blocking, 30 s at most.
HttpReply http_get(int port, const std::string& path);

}  // namespace pgrange::testing
