// Fuzzes the pretty-key parser: whatever it accepts must print back to a canonical form that
// parses to the same bytes and prints identically again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "routing/keys/pretty_key.hpp"

using namespace pgrange::routing;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto key = parse_pretty_key(text);
  if (!key) {
    // Rejections are errors with 22P02, never anything else.
    if (key.error().sqlstate != "22P02") std::abort();
    return 0;
  }
  std::string pretty = pretty_key(*key);
  auto again = parse_pretty_key(pretty);
  if (!again || *again != *key) std::abort();
  if (pretty_key(*again) != pretty) std::abort();
  return 0;
}
