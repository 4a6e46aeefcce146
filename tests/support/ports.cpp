#include "tests/support/ports.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mutex>
#include <random>
#include <set>
#include <stdexcept>

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

}  // namespace pgrange::testing
