#include <iostream>

#include "commands.h"

namespace weld::cli {

// Placeholder until the run command lands.
int run_main(int argc, char** argv) {
  std::cerr << "weld: 'run' is not built yet\n";
  return 2;
}

}  // namespace weld::cli
