#pragma once
// Test helper: bytes arriving as socket reads deliver them. Tests and
// fuzz targets only.

#include <algorithm>
#include <cstring>
#include <string_view>

#include "asio.h"

namespace weld::proxy::testing {

/// Appends the next `piece` bytes of `wire` (from `offset`) to `buffer`, as
/// one socket read would; returns the new offset.
inline std::size_t deliver(beast::flat_buffer& buffer, std::string_view wire, std::size_t offset, std::size_t piece) {
  const std::size_t n = std::min(piece, wire.size() - offset);
  auto room = buffer.prepare(n);
  std::memcpy(room.data(), wire.data() + offset, n);
  buffer.commit(n);
  return offset + n;
}

}  // namespace weld::proxy::testing
