#include "tests/support/ports.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>

namespace pgrange::testing {

bool port_is_free(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  // Same option PostgreSQL and most servers use, so ports in TIME_WAIT count as free.
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok =
      ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && ::listen(fd, 1) == 0;
  ::close(fd);
  return ok;
}

int free_port() {
  static std::mutex mu;
  static std::set<int> handed_out;
  static std::mt19937 rng(std::random_device{}() ^ static_cast<unsigned>(::getpid()));
  std::lock_guard lock(mu);
  std::uniform_int_distribution<int> dist(20000, 31999);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const int port = dist(rng);
    if (handed_out.count(port) != 0) continue;
    if (!port_is_free(port)) continue;
    handed_out.insert(port);
    return port;
  }
  throw std::runtime_error("free_port: no bindable port found in [20000, 32000)");
}

bool wait_until_listening(int port, std::chrono::milliseconds timeout,
                          const std::function<bool()>& keep_waiting) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    if (ok) return true;
    if (keep_waiting && !keep_waiting()) return false;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace pgrange::testing
