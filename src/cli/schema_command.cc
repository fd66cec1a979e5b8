#include <iostream>

#include "commands.h"

namespace weld::cli {

// Placeholder until the schema command lands.
int schema_main(int argc, char** argv) {
  std::cerr << "weld: 'schema' is not built yet\n";
  return 2;
}

}  // namespace weld::cli
