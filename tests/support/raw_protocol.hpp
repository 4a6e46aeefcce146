#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pgrange::testing {

/// Extended-protocol messages, as a driver writes them (parameters and results in text).
std::string parse(const std::string& name, const std::string& sql, std::vector<int32_t> types = {});
/// `result_formats` as the Bind carries them (none: every column in text).
std::string bind(const std::string& portal, const std::string& statement,
                 std::vector<std::string> params = {}, std::vector<int16_t> result_formats = {});
std::string describe(char what, const std::string& name);
/// Execute of `portal`, with a row limit (0: all rows).
std::string execute(const std::string& portal, int32_t max_rows = 0);
std::string sync();

/// What a server answers each batch with, up to each one's ReadyForQuery: the message types in
/// order (an error's SQLSTATE after its 'E', a CommandComplete's tag after its 'C', a
/// DataRow's values after its 'D' — in hex where one is not printable —, each column's type
/// OID and format after a RowDescription's 'T').
std::vector<std::string> answers(int port, const std::string& user, const std::string& database,
                                 const std::vector<std::string>& batches);

}  // namespace pgrange::testing
