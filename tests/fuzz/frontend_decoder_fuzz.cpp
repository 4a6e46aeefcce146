// libFuzzer target: the frontend message decoder and the field readers the session uses on
// client bytes. Invariants, not just "no crash": a Ready frame lies within the input, its body
// is exactly length-4 bytes, and consuming frames one by one ends on a NeedMore or Invalid.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "proxy/wire/frame_reader.hpp"
#include "proxy/wire/message_writer.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

void read_fields(char type, std::string_view body) {
  using pgrange::proxy::BodyReader;
  BodyReader br(body);
  std::string_view a, b;
  char c = 0;
  int16_t n = 0;
  int32_t v = 0;
  switch (type) {
    case 'P':  // Parse: name, query, parameter types
      if (br.cstr(a) && br.cstr(b) && br.i16(n)) {
        for (int i = 0; i < n && br.i32(v); ++i) {
        }
      }
      break;
    case 'B':  // Bind: portal, statement, formats, values, result formats
      if (br.cstr(a) && br.cstr(b) && br.i16(n)) {
        for (int i = 0; i < n && br.i16(n); ++i) {
        }
      }
      break;
    case 'D':
    case 'C':
      if (br.byte(c)) br.cstr(a);
      break;
    case 'E':
      pgrange::proxy::parse_error_fields(body);
      break;
    default:
      br.cstr(a);
  }
  check(br.position() <= body.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  using namespace pgrange::proxy;
  FrameResult s = read_startup_frame(in);
  if (s.status == FrameStatus::kReady) {
    check(s.frame.total_size <= in.size());
    check(s.frame.total_size >= 8 && s.frame.total_size <= kMaxStartupPacket);
    BodyReader br(s.frame.body);
    int32_t code = 0;
    br.i32(code);
    std::string_view k, v;
    while (br.cstr(k) && !k.empty() && br.cstr(v)) {
    }
  }
  std::string_view rest = in;
  for (int guard = 0; guard < 100000; ++guard) {
    FrameResult r = read_typed_frame(rest, 1 << 16);
    if (r.status != FrameStatus::kReady) break;
    check(r.frame.total_size <= rest.size());
    check(r.frame.body.size() + 5 == r.frame.total_size);
    check(r.frame.body.data() == rest.data() + 5);
    read_fields(r.frame.type, r.frame.body);
    rest.remove_prefix(r.frame.total_size);
  }
  return 0;
}
