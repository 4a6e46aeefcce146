#pragma once

#include <string>
#include <string_view>

namespace pgrange::proxy {

/// Prepares a SCRAM password with SASLprep (RFC 4013, the stringprep profile of RFC 3454) exactly
/// as PostgreSQL's pg_saslprep() (src/common/saslprep.c) and its callers do, so that keys derived
/// from the result match the ones PostgreSQL's server and libpq derive:
///  - pure ASCII input (control characters included) is returned unchanged;
///  - input that is not well-formed UTF-8 is returned unchanged (PostgreSQL's SASLPREP_INVALID_UTF8
///    case, where both server and libpq fall back to the raw bytes);
///  - otherwise non-ASCII spaces (RFC 3454 table C.1.2) become U+0020, characters "commonly
///    mapped to nothing" (table B.1) are dropped, and the result is normalised with NFKC (ICU's
///    normaliser) and returned as UTF-8.
/// The raw input is returned instead (PostgreSQL's SASLPREP_PROHIBITED fallback) when nothing is
/// left after the mapping, when the mapped string holds a prohibited character (tables C.1.2,
/// C.2.1, C.2.2, C.3 to C.9) or a code point unassigned in Unicode 3.2 (table A.1), or when it
/// breaks the bidi rules of RFC 3454 section 6 (a string with a RandALCat character, table D.1,
/// must hold no LCat character, table D.2, and must start and end with a RandALCat character).
/// Like PostgreSQL, these checks look at the mapped string before normalisation, not at the
/// normalised output as RFC 3454 would: "a" + U+0341 (table C.8) falls back to the raw bytes
/// even though its NFKC form, U+00E1, is permitted. A NUL byte, which a PostgreSQL password cannot
/// hold, is a C.2.1 control character here. Throws std::runtime_error only if ICU cannot normalise
/// (it cannot allocate memory) or the password is over 1 GiB.
std::string saslprep(std::string_view password);

}  // namespace pgrange::proxy
