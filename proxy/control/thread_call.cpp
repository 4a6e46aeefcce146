#include "proxy/control/thread_call.hpp"

#include <spdlog/spdlog.h>

namespace pgrange::proxy {

std::thread run_io_thread(asio::io_context& io, const char* what) {
  return std::thread([&io, what] {
    for (;;) {
      try {
        io.run();
        break;
      } catch (const std::exception& e) {
        spdlog::error("{}: {}", what, e.what());
      }
    }
  });
}

}  // namespace pgrange::proxy
