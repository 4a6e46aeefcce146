#pragma once

#include <string>

#include "common/error.hpp"
#include "proxy/auth/scram.hpp"

namespace pgrange::proxy {

/// Runs a whole SCRAM exchange of `client` with a ScramServer holding `verifier`: the first
/// error either side reports, else the client's check of the server's signature.
inline Result<void> scram_exchange(ScramClient& client, const ScramVerifier& verifier,
                                   const std::string& user = "alice") {
  ScramServer server(verifier, user);
  auto server_first = server.handle_client_first(client.client_first());
  if (!server_first) return tl::unexpected(server_first.error());
  auto client_final = client.handle_server_first(*server_first);
  if (!client_final) return tl::unexpected(client_final.error());
  auto server_final = server.handle_client_final(*client_final);
  if (!server_final) return tl::unexpected(server_final.error());
  return client.verify_server_final(*server_final);
}

}  // namespace pgrange::proxy
