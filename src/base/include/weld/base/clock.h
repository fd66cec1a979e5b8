#pragma once
/// \file
/// The wall clock as the wire protocols carry it.
///
/// \code
///   head.created = weld::unix_seconds();
/// \endcode

#include <chrono>
#include <cstdint>

namespace weld {

/// Whole seconds since the Unix epoch, now: OpenAI's `created` and the
/// Responses API's `created_at` of an answer weld writes.
inline std::int64_t unix_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace weld
