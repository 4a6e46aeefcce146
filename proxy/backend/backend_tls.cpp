#include "proxy/backend/backend_tls.hpp"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <string>
#include <vector>

#include "proxy/wire/frame_reader.hpp"
#include "proxy/wire/message_writer.hpp"

namespace pgrange::proxy {

namespace {

bool verifies(const config::ShardConfig& s) {
  return s.sslmode == "verify-ca" || s.sslmode == "verify-full" ||
         (s.sslmode == "require" && !s.sslrootcert.empty());
}

bool tls_required(const config::ShardConfig& s) {
  return s.sslmode == "require" || s.sslmode == "verify-ca" || s.sslmode == "verify-full";
}

/// The names libpq examines in a certificate for a host (its subjectAltName's DNS names and
/// addresses, then its common name when none of them is of the host's kind), for its message.
std::vector<std::string> certificate_names(X509* cert, bool host_is_address) {
  std::vector<std::string> names;
  bool same_kind = false;
  auto* sans =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; sans != nullptr && i < sk_GENERAL_NAME_num(sans); ++i) {
    const GENERAL_NAME* g = sk_GENERAL_NAME_value(sans, i);
    if (g->type == GEN_DNS) {
      const unsigned char* data = ASN1_STRING_get0_data(g->d.dNSName);
      names.emplace_back(reinterpret_cast<const char*>(data),
                         static_cast<size_t>(ASN1_STRING_length(g->d.dNSName)));
      same_kind = same_kind || !host_is_address;
    } else if (g->type == GEN_IPADD) {
      const unsigned char* a = ASN1_STRING_get0_data(g->d.iPAddress);
      int len = ASN1_STRING_length(g->d.iPAddress);
      char text[64] = {0};
      if (len == 4) {
        std::snprintf(text, sizeof text, "%d.%d.%d.%d", a[0], a[1], a[2], a[3]);
      } else if (len == 16) {
        inet_ntop(AF_INET6, a, text, sizeof text);
      }
      names.emplace_back(text);
      same_kind = same_kind || host_is_address;
    }
  }
  if (sans != nullptr) GENERAL_NAMES_free(sans);
  if (!same_kind) {
    char cn[256] = {0};
    if (X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, cn, sizeof cn) > 0) {
      names.emplace_back(cn);
    }
  }
  return names;
}

/// libpq's words for a certificate that does not name the host.
std::string mismatch_message(const std::vector<std::string>& names, const std::string& host) {
  if (names.empty()) return "could not get server's host name from server certificate";
  std::string out = "server certificate for \"" + names[0] + "\"";
  if (names.size() == 2) out += " (and 1 other name)";
  if (names.size() > 2) out += " (and " + std::to_string(names.size() - 1) + " other names)";
  return out + " does not match host name \"" + host + "\"";
}

}  // namespace

Result<std::unique_ptr<asio::ssl::context>> shard_tls_context(const config::ShardConfig& s) {
  if (s.sslmode == "disable" || s.sslmode == "allow") return nullptr;
  auto ctx = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_client);
  ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                   asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                   asio::ssl::context::no_tlsv1_1);
  auto file_error = [&](const std::string& what, const std::string& file, const error_code& ec) {
    return Error::make(sqlstate::kConfigFileError,
                       "shard \"" + s.name + "\": " + what + " \"" + file + "\": " + ec.message());
  };
  error_code ec;
  if (!s.sslrootcert.empty()) {
    ctx->load_verify_file(s.sslrootcert, ec);
    if (ec) return tl::unexpected(file_error("sslrootcert", s.sslrootcert, ec));
  }
  ctx->set_verify_mode(verifies(s) ? asio::ssl::verify_peer : asio::ssl::verify_none);
  if (!s.sslcert.empty()) {
    ctx->use_certificate_chain_file(s.sslcert, ec);
    if (ec) return tl::unexpected(file_error("sslcert", s.sslcert, ec));
    ctx->use_private_key_file(s.sslkey.empty() ? s.sslcert : s.sslkey, asio::ssl::context::pem, ec);
    if (ec) return tl::unexpected(file_error("sslkey", s.sslkey, ec));
  }
  return ctx;
}

awaitable<Result<std::unique_ptr<asio::ssl::stream<tcp::socket&>>>> start_shard_tls(
    tcp::socket& socket, asio::ssl::context& context, const config::ShardConfig& s) {
  using Stream = asio::ssl::stream<tcp::socket&>;
  auto failure = [&](std::string what) {
    return tl::unexpected(Error::make(
        sqlstate::kConnectionFailure,
        "shard \"" + s.name + "\" (" + s.host + ":" + s.port + "): " + std::move(what)));
  };
  std::string request;
  MessageWriter(request).begin(0).i32(kSslRequestCode).end();
  error_code ec;
  co_await asio::async_write(socket, asio::buffer(request), no_throw(ec));
  char answer = 0;
  if (!ec) co_await asio::async_read(socket, asio::buffer(&answer, 1), no_throw(ec));
  if (ec) co_return failure(ec == asio::error::eof ? "server closed the connection" : ec.message());
  if (answer == 'N') {
    if (tls_required(s)) co_return failure("server does not support SSL, but SSL was required");
    co_return nullptr;
  }
  if (answer != 'S') {
    co_return failure("received invalid response to SSL negotiation: " + std::string(1, answer));
  }
  auto stream = std::make_unique<Stream>(socket, context);
  SSL* ssl = stream->native_handle();
  if (s.sslmode == "verify-full") {
    // The host name (or address) the DSN names must be the certificate's (RFC 6125).
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
    if (X509_VERIFY_PARAM_set1_ip_asc(param, s.host.c_str()) != 1) {
      X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      X509_VERIFY_PARAM_set1_host(param, s.host.c_str(), 0);
    }
  }
  // The server certificate's names, kept for the message should they not name the host.
  in6_addr address{};
  bool host_is_address = inet_pton(AF_INET, s.host.c_str(), &address) == 1 ||
                         inet_pton(AF_INET6, s.host.c_str(), &address) == 1;
  std::vector<std::string> names;
  stream->set_verify_callback([&](bool preverified, asio::ssl::verify_context& vc) {
    X509_STORE_CTX* store = vc.native_handle();
    if (X509_STORE_CTX_get_error_depth(store) == 0) {
      if (X509* cert = X509_STORE_CTX_get_current_cert(store)) {
        names = certificate_names(cert, host_is_address);
      }
    }
    return preverified;
  });
  co_await stream->async_handshake(asio::ssl::stream_base::client, no_throw(ec));
  if (ec) {
    long verified = SSL_get_verify_result(ssl);
    if (verified == X509_V_ERR_HOSTNAME_MISMATCH || verified == X509_V_ERR_IP_ADDRESS_MISMATCH) {
      co_return failure(mismatch_message(names, s.host));
    }
    if (verified != X509_V_OK) {
      co_return failure(std::string("SSL error: certificate verify failed: ") +
                        X509_verify_cert_error_string(verified));
    }
    co_return failure("SSL error: " + ec.message());
  }
  co_return stream;
}

}  // namespace pgrange::proxy
