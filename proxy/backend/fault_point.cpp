#include "proxy/backend/fault_point.hpp"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <string_view>

namespace pgrange::proxy {

void fault_point(const char* name) {
  static const char* fault = std::getenv("PGRANGE_TEST_FAULT");
  if (fault != nullptr && std::string_view(fault) == name) {
    spdlog::error("PGRANGE_TEST_FAULT: exiting at {}", name);
    spdlog::shutdown();
    std::_Exit(9);
  }
}

}  // namespace pgrange::proxy
