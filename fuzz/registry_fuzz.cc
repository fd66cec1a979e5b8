// Fuzzes the agent registry loader (docs/proxy.md, "The registry"): any bytes must give a
// registry or an error naming the problem; never a crash or a hang.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "weld/proxy/registry.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto registry = weld::proxy::load_registry(text, "fuzz");
  if (registry) {
    for (const weld::proxy::Agent& agent : (*registry)->agents()) {
      if ((*registry)->find(agent.name) == nullptr) __builtin_trap();  // every listed agent must be found
    }
  } else if (registry.error().message.empty()) {
    __builtin_trap();  // an error always says what is wrong
  }
  return 0;
}
