#include <iostream>

#include "commands.h"

namespace weld::cli {

// Placeholder until the sample command lands.
int sample_main(int argc, char** argv) {
  std::cerr << "weld: 'sample' is not built yet\n";
  return 2;
}

}  // namespace weld::cli
