// One way to end on a bad command line, for every subcommand (usage.h).

#include "usage.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <string>

#include "weld/schema/schema.h"

namespace weld::cli {
namespace {

// The deepest subcommand that was reached, and its full name
// ("weld schema validate").
const CLI::App* failing_command(const CLI::App& app, std::string& name) {
  const CLI::App* command = &app;
  name = app.get_name();
  while (!command->get_subcommands().empty()) {
    command = command->get_subcommands().front();
    name += " " + command->get_name();
  }
  return command;
}

}  // namespace

void add_dialect_flag(CLI::App& command, std::string& dialect) {
  command.add_option("--dialect", dialect, "Dialect for schemas without $schema: draft4, draft6, draft7, 2019-09, 2020-12")
      ->check([](const std::string& name) {
        return schema::parse_dialect_name(name) ? std::string()
                                                : "unknown dialect \"" + name +
                                                      "\" (expected draft4, draft6, draft7, 2019-09 or 2020-12)";
      });
}

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForAllHelp& help) {
    return app.exit(help);
  } catch (const CLI::ParseError& error) {
    std::string name;
    const CLI::App* command = failing_command(app, name);
    CLI::Formatter formatter;
    std::cerr << name << ": " << error.what() << "\n"
              << formatter.make_usage(command, name) << "Run '" << name << " --help' for more information.\n";
    return kExitUsage;
  }
}

}  // namespace weld::cli
