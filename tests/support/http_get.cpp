#include "tests/support/http_get.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace pgrange::testing {

HttpReply http_get(int port, const std::string& path) {
  HttpReply reply;
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    reply.body = std::string("socket: ") + std::strerror(errno);
    return reply;
  }
  timeval tv{30, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    reply.body = std::string("connect: ") + std::strerror(errno);
    ::close(fd);
    return reply;
  }
  std::string request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  for (size_t sent = 0; sent < request.size();) {
    ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) {
      reply.body = std::string("send: ") + std::strerror(errno);
      ::close(fd);
      return reply;
    }
    sent += static_cast<size_t>(n);
  }
  std::string all;
  char buf[16384];
  for (;;) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    all.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  auto end = all.find("\r\n\r\n");
  if (all.rfind("HTTP/1.", 0) != 0 || end == std::string::npos) {
    reply.body = "not an HTTP answer: " + all.substr(0, 200);
    return reply;
  }
  reply.status = std::atoi(all.c_str() + 9);
  reply.headers = all.substr(0, end);
  reply.body = all.substr(end + 4);
  return reply;
}

}  // namespace pgrange::testing
