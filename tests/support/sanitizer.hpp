#pragma once

namespace pgrange::testing {

/// True in the AddressSanitizer build. There the heaviest tests run the same code paths over
/// less repetition (fewer protocol combinations, shorter load runs): the normal build runs them
/// all, and the sanitizer run's time stays within CI's budget.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace pgrange::testing
