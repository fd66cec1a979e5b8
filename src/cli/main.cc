// weld's only main(): picks the subcommand and hands over argv. Everything
// else lives in the libraries; see commands.h.

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <string_view>

#include "commands.h"
#include "weld_build_info.h"
#include "suggest.h"

namespace {

// `weld help [COMMAND]`: that command's --help (the run's without one).
int help_main(int argc, char** argv) {
  static char help_flag[] = "--help";
  if (argc < 3) {
    char* args[] = {argv[0], help_flag, nullptr};
    return weld::cli::run_main(2, args);
  }
  std::string_view command = argv[2];
  char* args[] = {argv[2], help_flag, nullptr};
  if (command == "schema") return weld::cli::schema_main(2, args);
  if (command == "sample") return weld::cli::sample_main(2, args);
  if (command == "proxy") return weld::cli::proxy_main(2, args);
  if (command == "agents") return weld::cli::agents_main(2, args);
  if (command == "batch") return weld::cli::batch_main(2, args);
  if (command == "run") {
    char* run_args[] = {argv[0], help_flag, nullptr};
    return weld::cli::run_main(2, run_args);
  }
  std::optional<std::string> near = weld::cli::nearest(command, weld::cli::subcommand_names(), 2);
  std::cerr << "weld: help: no command \"" << command << "\""
            << (near ? "; did you mean \"weld help " + *near + "\"?" : ".")
            << " Commands: schema, sample, proxy, agents, batch (weld help alone: the run).\n";
  return 1;
}

// A first word one edit away from a subcommand ("bacth", "shema") is a
// typo, not a prompt to pay for: refused, naming the command and -p.
int refuse_near_command(std::string_view word, const std::string& command) {
  std::cerr << "weld: \"" << word << "\" is not a weld command; did you mean \"weld " << command
            << "\"? To send it to the model as a prompt, use -p: weld -p \"" << word << " …\"\n";
  return 1;
}

bool is_word(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z')) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) {
    std::string_view command = argv[1];
    if (command == "schema") return weld::cli::schema_main(argc - 1, argv + 1);
    if (command == "sample") return weld::cli::sample_main(argc - 1, argv + 1);
    if (command == "proxy") return weld::cli::proxy_main(argc - 1, argv + 1);
    if (command == "agents") return weld::cli::agents_main(argc - 1, argv + 1);
    if (command == "batch") return weld::cli::batch_main(argc - 1, argv + 1);
    if (command == "help") return help_main(argc, argv);
    if (command == "--version" || command == "-V" || command == "version") {
      // "weld 0.1.0 (commit 578d590c1a2b, Release)": the version first, for
      // scripts; the commit and build type for bug reports.
      std::cout << "weld " WELD_VERSION " (commit " WELD_GIT_COMMIT ", " WELD_BUILD_TYPE ")\n";
      return 0;
    }
    if (is_word(command)) {
      std::vector<std::string> names = weld::cli::subcommand_names();
      names.push_back("version");
      if (std::optional<std::string> near = weld::cli::nearest(command, names, 1)) {
        return refuse_near_command(command, *near);
      }
    }
  } else if (::isatty(STDIN_FILENO) != 0) {
    // `weld` alone on a terminal: nothing to run; the usage, not an error.
    static char help_flag[] = "--help";
    char* args[] = {argv[0], help_flag, nullptr};
    return weld::cli::run_main(2, args);
  }
  return weld::cli::run_main(argc, argv);
}
