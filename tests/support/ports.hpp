#pragma once

#include <chrono>
#include <functional>

namespace pgrange::testing {

/// Returns a TCP port in [20000, 32000) that can currently be bound on 127.0.0.1 and that this
/// process has not handed out before (so servers started together get distinct ports). The port
/// lies below the ephemeral range, but another process may still take it before it is used:
/// callers that bind it later must retry with a new port on "Address already in use".
/// Throws std::runtime_error if no port is found after many attempts.
int free_port();

/// True if `port` can be bound on 127.0.0.1 right now.
bool port_is_free(int port);

/// Waits until a TCP connection to 127.0.0.1:`port` succeeds (e.g. a pgrange process started
/// with ChildProcess). Polls every few milliseconds; returns false on timeout, or as soon as
/// `keep_waiting` (if given) returns false, e.g. `[&] { return proc.running(); }`.
bool wait_until_listening(int port, std::chrono::milliseconds timeout,
                          const std::function<bool()>& keep_waiting = {});

}  // namespace pgrange::testing
