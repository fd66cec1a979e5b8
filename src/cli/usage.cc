// One way to end on a bad command line, for every subcommand (usage.h).

#include "usage.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <string>

#include "suggest.h"
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

// "weld: …", "weld batch: …", "weld schema check: …": a line that names
// weld already.
bool names_weld(std::string_view line) {
  if (line.rfind("weld:", 0) == 0) return true;
  if (line.rfind("weld ", 0) != 0) return false;
  std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return false;
  for (char c : line.substr(5, colon - 5)) {
    if (!(c >= 'a' && c <= 'z') && c != ' ') return false;
  }
  return true;
}

}  // namespace

std::string with_prefix(std::string_view prefix, std::string_view text) {
  std::string out;
  out.reserve(text.size() + prefix.size());
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && !names_weld(line)) out += prefix;
    out += line;
    if (end == std::string_view::npos) break;
    out += '\n';
    text.remove_prefix(end + 1);
  }
  return out;
}

void write_stderr_lines(std::string_view prefix, std::string_view text) {
  const std::string lines = with_prefix(prefix, text);
  std::fwrite(lines.data(), 1, lines.size(), stderr);
  std::fflush(stderr);
}

void add_dialect_flag(CLI::App& command, std::string& dialect) {
  command.add_option("--dialect", dialect, "Dialect for schemas without $schema: draft4, draft6, draft7, 2019-09, 2020-12, v1")
      ->check([](const std::string& name) {
        return schema::parse_dialect_name(name) ? std::string()
                                                : "unknown dialect \"" + name +
                                                      "\" (expected draft4, draft6, draft7, 2019-09, 2020-12 or v1)";
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
    std::cerr << with_prefix(name + ": ", parse_error_text(*command, error) + "\n");
    std::cerr << with_prefix(name + ": ", formatter.make_usage(command, name))
              << name << ": Run '" << name << " --help' for more information.\n";
    return kExitUsage;
  }
}

}  // namespace weld::cli
