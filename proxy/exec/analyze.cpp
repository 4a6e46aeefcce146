#include "proxy/exec/analyze.hpp"

#include <cstdio>

namespace pgrange::proxy::exec {
namespace {

constexpr size_t kMaxDescription = 160;

void add(const Operator& op, int depth, std::vector<std::string>& out) {
  std::string what = op.describe();
  if (what.size() > kMaxDescription) {
    size_t n = kMaxDescription;  // not inside a UTF-8 character
    while (n > 0 && (static_cast<unsigned char>(what[n]) & 0xC0) == 0x80) --n;
    what.resize(n);
    what += "…";
  }
  std::string line = std::string(2 * static_cast<size_t>(depth), ' ') + "actual: " + what + ": " +
                     std::to_string(op.rows_out()) + (op.rows_out() == 1 ? " row" : " rows");
  if (auto ms = op.elapsed_ms()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", *ms);
    line += std::string(", ") + buf + " ms";
  } else {
    line += " (not read to its end: the rows above were complete)";
  }
  out.push_back(std::move(line));
  for (const Operator* in : op.inputs()) add(*in, depth + 1, out);
}

}  // namespace

std::vector<std::string> actual_lines(const Operator& root) {
  std::vector<std::string> out;
  add(root, 0, out);
  return out;
}

}  // namespace pgrange::proxy::exec
