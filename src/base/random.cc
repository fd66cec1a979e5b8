#include "weld/base/random.h"

#include <memory>

namespace weld {

std::mt19937_64& thread_random() {
  thread_local std::unique_ptr<std::mt19937_64> engine;
  if (!engine) engine = std::make_unique<std::mt19937_64>(std::random_device{}());
  return *engine;
}

}  // namespace weld
