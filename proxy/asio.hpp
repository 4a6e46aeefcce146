#pragma once

// clang-format off
// Boost 1.74's asio/awaitable.hpp uses std::exchange without including <utility>.
#include <utility>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
// clang-format on

namespace pgrange::proxy {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
template <typename T>
using awaitable = asio::awaitable<T>;
using asio::use_awaitable;
using error_code = boost::system::error_code;
/// Completion token that stores the error in `ec` instead of throwing.
inline auto no_throw(error_code& ec) {
  return asio::redirect_error(asio::use_awaitable, ec);
}

}  // namespace pgrange::proxy
