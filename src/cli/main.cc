// weld's only main(): picks the subcommand and hands over argv. Everything
// else lives in the libraries; see commands.h.

#include <cstring>
#include <iostream>
#include <string_view>

#include "commands.h"
#include "weld_build_info.h"

int main(int argc, char** argv) {
  if (argc > 1) {
    std::string_view command = argv[1];
    if (command == "schema") return weld::cli::schema_main(argc - 1, argv + 1);
    if (command == "sample") return weld::cli::sample_main(argc - 1, argv + 1);
    if (command == "proxy") return weld::cli::proxy_main(argc - 1, argv + 1);
    if (command == "agents") return weld::cli::agents_main(argc - 1, argv + 1);
    if (command == "batch") return weld::cli::batch_main(argc - 1, argv + 1);
    if (command == "--version" || command == "version") {
      // "weld 0.1.0 (commit 578d590c1a2b, Release)": the version first, for
      // scripts; the commit and build type for bug reports.
      std::cout << "weld " WELD_VERSION " (commit " WELD_GIT_COMMIT ", " WELD_BUILD_TYPE ")\n";
      return 0;
    }
  }
  return weld::cli::run_main(argc, argv);
}
