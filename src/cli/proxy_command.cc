#include <iostream>

#include "commands.h"

namespace weld::cli {

// Placeholder until the proxy command lands.
int proxy_main(int argc, char** argv) {
  std::cerr << "weld: 'proxy' is not built yet\n";
  return 2;
}

}  // namespace weld::cli
