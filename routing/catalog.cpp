#include "routing/catalog.hpp"

namespace pgrange::routing {

std::string_view key_source_name(KeySource s) {
  switch (s) {
    case KeySource::kPrimaryKey:
      return "primary_key";
    case KeySource::kConfig:
      return "config";
    case KeySource::kUnsharded:
      return "unsharded";
  }
  return "unsharded";
}

std::optional<KeySource> key_source_from_name(std::string_view s) {
  if (s == "primary_key") return KeySource::kPrimaryKey;
  if (s == "config") return KeySource::kConfig;
  if (s == "unsharded") return KeySource::kUnsharded;
  return std::nullopt;
}

}  // namespace pgrange::routing
