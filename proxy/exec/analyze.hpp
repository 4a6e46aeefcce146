#pragma once

#include <string>
#include <vector>

#include "proxy/exec/operator.hpp"

namespace pgrange::proxy::exec {

/// EXPLAIN ANALYZE's lines for a tree that ran: each operator (indented under the one that read
/// it) with the rows it handed up and, where it timed itself, the time from the start of its
/// work to its last row; an input left before its end says so.
std::vector<std::string> actual_lines(const Operator& root);

}  // namespace pgrange::proxy::exec
