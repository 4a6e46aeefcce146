#pragma once

#include <memory>

#include "common/error.hpp"
#include "config/config.hpp"
#include "proxy/asio.hpp"

namespace pgrange::proxy {

/// The TLS client context of pgrange's pooled connections to a shard, from the TLS settings of
/// its DSN with libpq's meaning: nullptr for sslmode disable or allow (no TLS); prefer and
/// require without sslrootcert encrypt without verifying the server; require with sslrootcert,
/// verify-ca and verify-full verify its certificate chain against sslrootcert (verify-full its
/// host name too, at the handshake); sslcert and sslkey are presented when the server asks.
/// F0000 naming the file when one cannot be loaded.
Result<std::unique_ptr<asio::ssl::context>> shard_tls_context(const config::ShardConfig& shard);

/// Asks the server on `socket` for TLS (SSLRequest) and performs the handshake: the stream to
/// speak through, or nullptr when the server has no TLS and the sslmode lets pgrange go on
/// without it. Errors (08006) read as libpq's: "server does not support SSL, but SSL was
/// required", "certificate verify failed", "server certificate for "x" does not match host
/// name "y"".
awaitable<Result<std::unique_ptr<asio::ssl::stream<tcp::socket&>>>> start_shard_tls(
    tcp::socket& socket, asio::ssl::context& context, const config::ShardConfig& shard);

}  // namespace pgrange::proxy
