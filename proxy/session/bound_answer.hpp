#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace pgrange::proxy {

/// Whether the messages in `answer` hold an ErrorResponse.
bool has_error(std::string_view answer);

/// A statement's answer as a Query gets it (RowDescription, DataRows, CommandComplete) as the
/// extended protocol gives it: the RowDescription only to a portal that was described, NoData
/// to a described one that returns no rows.
void as_bound_answer(std::string& answer, bool describe);

/// Such an answer in the result formats a Bind asked for (none: text; one for every column, or
/// one per column): text values sent in binary where asked (routing::binary_columns says which
/// types pgrange can). A BINARY cursor's values come in binary already: 0A000 where the Bind
/// asks them in text.
std::optional<Error> in_result_formats(std::string& answer, const std::vector<int16_t>& formats,
                                       bool exact_floats);

}  // namespace pgrange::proxy
