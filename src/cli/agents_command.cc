#include <iostream>

#include "commands.h"

namespace weld::cli {

// Placeholder until the agents command lands.
int agents_main(int argc, char** argv) {
  std::cerr << "weld: 'agents' is not built yet\n";
  return 2;
}

}  // namespace weld::cli
