// Fuzzes key decoding: any byte string must pretty-print to a form that parses back to the
// same bytes; every value the schema-less walker accepts must re-encode to the bytes it
// consumed; and every value a typed column accepts must survive text output -> text input
// -> encoding unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "routing/keys/key_codec.hpp"
#include "routing/keys/key_space.hpp"
#include "routing/keys/pretty_key.hpp"

using namespace pgrange::routing;

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view key(reinterpret_cast<const char*>(data), size);

  // 1. Pretty printing is total and reversible.
  std::string pretty = pretty_key(key);
  auto back = parse_pretty_key(pretty);
  check(back.has_value() && *back == key);

  // 2. The schema-less walker only accepts canonical encodings.
  std::string_view in = key;
  while (!in.empty()) {
    std::string_view before = in;
    auto v = read_tagged_value(in);
    if (!v) break;
    std::string again;
    append_tagged_value(again, *v);
    check(again == before.substr(0, before.size() - in.size()));
  }

  // 3. Typed decoding: the first byte picks a column, the rest is the encoded value.
  if (size >= 1) {
    const KeyColumn col{kAllKeyTypes[data[0] % std::size(kAllKeyTypes)], (data[0] & 0x80) != 0,
                        (data[0] & 0x40) != 0 ? NullsOrder::kFirst : NullsOrder::kDefault};
    std::string_view rest = key.substr(1);
    std::string_view start = rest;
    auto text = decode_text_value(rest, col);
    if (text) {
      std::string_view consumed = start.substr(0, start.size() - rest.size());
      std::string reencoded;
      auto r = append_text_value(reencoded, col,
                                 *text ? std::optional<std::string_view>(**text) : std::nullopt);
      check(r.has_value() && reencoded == consumed);
    }
  }
  return 0;
}
