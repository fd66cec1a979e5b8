#pragma once
// Test support: a protobuf field walk, enough for the telemetry tests to
// read what the OTLP encoder wrote (the e2e tests decode it with the
// official decoders).

#include <gtest/gtest.h>

#include <cstdint>
#include <string_view>
#include <vector>

namespace weld::telemetry {

// A protobuf field walk, enough to find the length-delimited fields
// numbered `wanted` (the first, or all).
inline std::vector<std::string_view> fields(std::string_view message, std::uint32_t wanted) {
  std::vector<std::string_view> found;
  std::size_t at = 0;
  auto varint = [&]() {
    std::uint64_t value = 0;
    for (int shift = 0; at < message.size(); shift += 7) {
      auto byte = static_cast<unsigned char>(message[at++]);
      value |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) break;
    }
    return value;
  };
  while (at < message.size()) {
    std::uint64_t tag = varint();
    std::uint32_t number = static_cast<std::uint32_t>(tag >> 3);
    switch (tag & 7) {
      case 0: varint(); break;
      case 1: at += 8; break;
      case 5: at += 4; break;
      case 2: {
        std::size_t size = varint();
        std::string_view bytes = message.substr(at, size);
        at += size;
        if (number == wanted) found.push_back(bytes);
        break;
      }
      default: ADD_FAILURE() << "wire type " << (tag & 7); return found;
    }
  }
  return found;
}

inline std::string_view field(std::string_view message, std::uint32_t wanted) {
  std::vector<std::string_view> found = fields(message, wanted);
  return found.empty() ? std::string_view() : found.front();
}

}  // namespace weld::telemetry
