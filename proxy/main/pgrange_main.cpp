#include <spdlog/spdlog.h>

#include <cstring>
#include <iostream>
#include <string>

#include "common/log_format.hpp"
#include "config/config.hpp"
#include "proxy/server.hpp"

namespace {

constexpr const char* kUsage =
    R"(pgrange — a PostgreSQL-wire proxy that range-partitions tables over shards

Usage: pgrange --config FILE [--log-level LEVEL]   (SIGHUP or RELOAD reads FILE again)
       pgrange --check-config FILE
       pgrange --help | --version

  --config FILE        start with this TOML configuration
  --check-config FILE  validate a configuration and exit (0 = valid)
  --log-level LEVEL    trace, debug, info, warn, error, critical, off (overrides the file)
)";

}  // namespace

int main(int argc, char** argv) {
  std::string config_path;
  std::string log_level;
  bool check_only = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (a == "--version" || a == "-V") {
      std::cout << "pgrange " << PGRANGE_VERSION << "\n";
      return 0;
    }
    if ((a == "--config" || a == "-c" || a == "--check-config") && i + 1 < argc) {
      check_only = a == "--check-config";
      config_path = argv[++i];
    } else if (a == "--log-level" && i + 1 < argc) {
      log_level = argv[++i];
    } else {
      std::cerr << "pgrange: unknown argument \"" << a << "\"\n" << kUsage;
      return 2;
    }
  }
  if (config_path.empty()) {
    std::cerr << "pgrange: --config FILE is required\n" << kUsage;
    return 2;
  }
  auto cfg = pgrange::config::load_config(config_path);
  if (!cfg) {
    std::cerr << "pgrange: " << config_path << ": " << cfg.error().message << "\n";
    return 1;
  }
  if (check_only) {
    std::cout << "configuration is valid\n";
    return 0;
  }
  if (!log_level.empty()) cfg->log_level = log_level;
  spdlog::set_level(spdlog::level::from_str(cfg->log_level));
  pgrange::set_log_format(cfg->log_format);
  pgrange::proxy::Server server(std::move(*cfg), config_path);
  auto opened = server.open();
  if (!opened) {
    std::cerr << "pgrange: " << opened.error().message << "\n";
    return 1;
  }
  return server.run();
}
