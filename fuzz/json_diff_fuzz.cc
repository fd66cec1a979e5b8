// Differential fuzzer for the fast JSON parser and serializer: on any input
// they must agree with the frozen pre-speed-work implementation
// (src/json/reference_json.h) on the value (types, key order, exact doubles),
// the compact and pretty output, the error message and its position, and
// write_string of the raw bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "../src/json/reference_json.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace {

using weld::json::Value;

bool same(const Value& a, const Value& b) {
  using weld::json::Type;
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Type::Null: return true;
    case Type::Boolean: return a.as_bool() == b.as_bool();
    case Type::Integer: return a.as_integer() == b.as_integer();
    case Type::Real: {
      double x = a.as_real(), y = b.as_real();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    case Type::String: return a.as_string() == b.as_string();
    case Type::Array: {
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!same(a.as_array()[i], b.as_array()[i])) return false;
      }
      return true;
    }
    case Type::Object: {
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i) {
        const auto& x = a.as_object()[i];
        const auto& y = b.as_object()[i];
        if (x.key != y.key || !same(x.value, y.value)) return false;
      }
      return true;
    }
  }
  return false;
}

void check(std::string_view text, const weld::json::ParseOptions& options) {
  auto fast = weld::json::parse(text, options);
  auto slow = weld::json::reference::parse(text, options);
  if (fast.ok() != slow.ok()) std::abort();
  if (!fast) {
    if (fast.error().message != slow.error().message || fast.error().where != slow.error().where) std::abort();
    return;
  }
  if (!same(*fast, *slow)) std::abort();
  if (weld::json::serialize(*fast) != weld::json::reference::serialize(*slow)) std::abort();
  if (weld::json::serialize(*fast, {.indent = 2}) != weld::json::reference::serialize(*slow, {.indent = 2})) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  check(text, {});
  check(text, {.max_depth = 1 + static_cast<int>(size % 5)});
  std::string fast = "x", slow = "x";
  weld::json::write_string(fast, text);
  weld::json::reference::write_string(slow, text);
  if (fast != slow) std::abort();
  return 0;
}
