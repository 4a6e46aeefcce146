#include "proxy/backend/fault_point.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>

namespace pgrange::proxy {

void fault_point(const char* name) {
  static const char* fault = std::getenv("PGRANGE_TEST_FAULT");
  if (fault != nullptr && std::string_view(fault) == name) {
    spdlog::error("PGRANGE_TEST_FAULT: exiting at {}", name);
    spdlog::shutdown();
    std::_Exit(9);
  }
}

void raise_point(std::string_view message) {
  static const bool armed = [] {
    const char* fault = std::getenv("PGRANGE_TEST_FAULT");
    return fault != nullptr && std::string_view(fault) == "raise_in_session";
  }();
  if (armed && message.find("pgrange_test_raise") != std::string_view::npos) {
    throw std::logic_error("PGRANGE_TEST_FAULT raise_in_session");
  }
}

void delay_point(const char* name) {
  struct Delay {
    std::string point;
    std::chrono::milliseconds length{0};
  };
  static const Delay delay = [] {
    Delay d;
    const char* v = std::getenv("PGRANGE_TEST_DELAY");
    if (v == nullptr) return d;
    std::string_view s(v);
    size_t colon = s.rfind(':');
    if (colon == std::string_view::npos) return d;
    d.point = std::string(s.substr(0, colon));
    d.length = std::chrono::milliseconds(std::atoi(v + colon + 1));
    return d;
  }();
  if (delay.length.count() > 0 && delay.point == name) std::this_thread::sleep_for(delay.length);
}

}  // namespace pgrange::proxy
