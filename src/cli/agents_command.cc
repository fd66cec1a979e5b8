// `weld agents check [FILE]` and `weld agents export --claude-code DIR`
// (docs/proxy.md). check: compiles a registry strictly, exit 0 / 52. export:
// one Claude Code sub-agent file per agent (model: <base>__schema=<agent>)
// and a skill that lists the shapes and when to dispatch each; it replaces
// only files it wrote (--force: any), never through a link out of DIR.

#include <CLI/CLI.hpp>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <vector>

#include "commands.h"
#include "usage.h"
#include "weld/agent/files_beneath.h"
#include "weld/json/serialize.h"
#include "weld/proxy/registry.h"

namespace weld::cli {
namespace {

Result<proxy::RegistryPtr> load(const std::string& file) {
  if (file.empty()) return proxy::load_registry(proxy::default_registry_text(), "built-in default registry");
  return proxy::load_registry_file(file);
}

// A one-line picture of a schema for people and models:
// {"action": "search"|"refund"}, [{"label": string, "confidence": number 0..1}] (1-3 items)
std::string shape_of(const json::Value& schema, int depth = 0) {
  if (depth > 6 || !schema.is_object()) return "any";
  if (const json::Value* e = schema.find("enum"); e && e->is_array()) {
    std::string out;
    for (const json::Value& v : e->as_array()) {
      if (!out.empty()) out += "|";
      out += json::serialize(v);
    }
    return out;
  }
  if (const json::Value* c = schema.find("const")) return json::serialize(*c);
  std::string type;
  if (const json::Value* t = schema.find("type"); t && t->is_string()) type = t->as_string();
  if (type.empty() && schema.find("properties")) type = "object";
  if (type.empty() && schema.find("items")) type = "array";
  if (type == "object") {
    const json::Value* props = schema.find("properties");
    if (!props || !props->is_object() || props->as_object().empty()) return "object";
    std::string out = "{";
    for (const json::Member& m : props->as_object()) {
      if (out.size() > 1) out += ", ";
      out += json::quote(m.key) + ": " + shape_of(m.value, depth + 1);
    }
    return out + "}";
  }
  if (type == "array") {
    std::string out = "[" + (schema.find("items") ? shape_of(*schema.find("items"), depth + 1) : "any") + "]";
    const json::Value* lo = schema.find("minItems");
    const json::Value* hi = schema.find("maxItems");
    if (lo || hi) {
      out += " (" + (lo ? json::serialize(*lo) : std::string("0")) + "-" + (hi ? json::serialize(*hi) : std::string("n")) +
             " items)";
    }
    return out;
  }
  if (type == "number" || type == "integer") {
    const json::Value* lo = schema.find("minimum");
    const json::Value* hi = schema.find("maximum");
    if (lo && hi) return type + " " + json::serialize(*lo) + ".." + json::serialize(*hi);
    return type;
  }
  if (type == "string") {
    if (const json::Value* max = schema.find("maxLength")) return "string (at most " + json::serialize(*max) + " chars)";
    return "string";
  }
  return type.empty() ? "any" : type;
}

// YAML double-quoted scalar.
std::string yaml_quote(std::string_view s) { return json::quote(s); }

// The line that marks a file as weld's (a YAML comment in the front
// matter): export overwrites such files, and refuses any other unless --force.
constexpr std::string_view kWrittenByWeld =
    "# Written by `weld agents export`: the next export replaces this file; your own edits belong in agents.json.";

bool written_by_weld(std::string_view text) {
  // In the front matter: "---\n" then the marker line.
  return text.substr(0, 4) == "---\n" && text.substr(4, kWrittenByWeld.size()) == kWrittenByWeld;
}

std::string agent_file(const proxy::Agent& agent, const std::string& base_model) {
  std::string shape = shape_of(agent.input_schema);
  std::string description = agent.description.empty() ? "Structured answer shaped as " + agent.name : agent.description;
  std::string out = "---\n";
  out += std::string(kWrittenByWeld) + "\n";
  out += "name: " + agent.name + "\n";
  out += "description: " + yaml_quote(description + " Returns JSON only: " + shape) + "\n";
  out += "model: " + yaml_quote(base_model + "__schema=" + agent.name) + "\n";
  if (agent.mode == proxy::Mode::Forced) out += "tools: []\n";
  out += "---\n\n";
  out += "You are the `" + agent.name + "` sub-agent. " + description + "\n\n";
  out += "Your reply is welded to this JSON shape by the weld proxy and validated against the agent's JSON Schema;\n";
  out += "answer the task directly and concisely, filling every field:\n\n";
  out += "```\n" + shape + "\n```\n";
  if (agent.mode == proxy::Mode::TwoPhase) {
    out += "\nYou may use your tools to investigate first; when you are done, report in the shape above.\n";
  }
  return out;
}

// How to export again with the same registry, folder and base model: the
// command the skill names must work as written (a bare `--claude-code DIR`
// fails without a base model).
struct ExportCommand {
  std::string registry;  // "" for the built-in one
  std::string folder;
  std::string base_model;
};

std::string shell_word(const std::string& text) {
  bool plain = !text.empty();
  for (char c : text) {
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || std::string_view("-_./=:@+,").find(c) != std::string_view::npos);
  }
  if (plain) return text;
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string skill_file(const proxy::Registry& registry, const std::string& base_model, const ExportCommand& again) {
  std::string out = "---\n";
  out += std::string(kWrittenByWeld) + "\n";
  out += "name: structured-dispatch\n";
  out += "description: " +
         yaml_quote("Dispatch a structured sub-agent when a sub-task only needs a decision, a classification, a choice "
                    "among candidates, options with confidence, or a fixed-field extraction. Agents: " +
                    [&] {
                      std::string names;
                      for (const auto& n : registry.names()) names += (names.empty() ? "" : ", ") + n;
                      return names;
                    }()) +
         "\n";
  out += "---\n\n# Structured dispatch\n\n";
  out += "Each sub-agent below answers with plain JSON text in a fixed shape: the weld proxy forces the shape,\n";
  out += "validates it (repairing and retrying when needed) and returns the JSON as ordinary text. Prefer one of\n";
  out += "them over free-form text whenever a sub-task only needs a decision, a choice or an extraction: the answer\n";
  out += "is short (far fewer output tokens) and can be read without guessing.\n\n";
  out += "| agent | use it when | shape |\n|---|---|---|\n";
  for (const proxy::Agent& agent : registry.agents()) {
    std::string when = agent.description;
    for (char& c : when) {
      if (c == '|' || c == '\n') c = ' ';
    }
    std::string shape = shape_of(agent.input_schema);
    std::string escaped;
    for (char c : shape) escaped += c == '|' ? std::string("\\|") : std::string(1, c);
    out += "| `" + agent.name + "` | " + when + " | `" + escaped + "` |\n";
  }
  out += "\n## How to dispatch\n\n";
  // Claude Code calls its sub-agent tool `Agent` (it was `Task` before 2.1).
  out += "- Use the Agent tool with `subagent_type` set to the agent's name (its file sets `model: " + base_model +
         "__schema=<agent>`).\n";
  out += "- Or, from your own harness, send the request with `model: <base>__schema=<agent>` or an `X-Agent-Name: <agent>` header.\n";
  out += "- The reply is the JSON document itself; parse it as JSON.\n\n";
  out += "## Adding or changing a shape\n\n";
  const bool built_in = again.registry.empty();
  const std::string registry_file = built_in ? std::string("agents.json") : again.registry;
  if (built_in) {
    out += "These are the proxy's built-in shapes. To change them, write an `agents.json` (one key per agent:\n";
    out += "`description`, `input_schema`, and optionally `max_retries`, `clamp`, `mode`), give it to the proxy with\n";
    out += "`--agents agents.json`, check it, and export again:\n\n";
  } else {
    out += "Edit the proxy's registry, `" + registry_file + "` (one key per agent: `description`, `input_schema`, and\n";
    out += "optionally `max_retries`, `clamp`, `mode`), check it, and export again:\n\n";
  }
  out += "```sh\n";
  out += "weld agents check " + shell_word(registry_file) + "\n";
  out += "weld agents export --claude-code " + shell_word(again.folder) + " --agents " + shell_word(registry_file) +
         " --base-model " + shell_word(again.base_model) + "\n";
  out += "```\n\n";
  out += "The export replaces the files it wrote (they say so in their first line) and refuses to replace any other\n";
  out += "(`--force` does). The proxy reloads the registry on change or on SIGHUP and keeps the old one if the new one\n";
  out += "is invalid.\n";
  return out;
}

int check(const std::string& file, bool as_json) {
  auto registry = load(file);
  if (!registry) {
    if (as_json) {
      std::cout << "{\"ok\":false,\"agent\":" << (registry.error().where.empty() ? "null" : json::quote(registry.error().where))
                << ",\"error\":" << json::quote(registry.error().message) << "}\n";
    } else {
      std::cerr << with_prefix("weld agents: ", registry.error().message) << "\n";
    }
    return 52;
  }
  for (const std::string& w : (*registry)->warnings()) std::cerr << with_prefix("weld agents: ", "warning: " + w) << "\n";
  std::string names;
  for (const auto& n : (*registry)->names()) names += (names.empty() ? "" : ", ") + n;
  if (as_json) {
    std::string list;
    for (const auto& n : (*registry)->names()) list += (list.empty() ? "" : ",") + json::quote(n);
    std::cout << "{\"ok\":true,\"agents\":[" << list << "]}\n";
  } else {
    std::cout << "ok: " << (*registry)->agents().size() << " agents (" << names << ")\n";
  }
  return 0;
}

// An error about `relative` beneath `root`, in the export's words.
Error export_error(const std::string& root, const std::string& relative, const Error& error) {
  const std::string shown = (std::filesystem::path(root) / relative).string();
  if (error.code == ErrorCode::Outside) {
    return Error{ErrorCode::Outside,
                 "weld agents export: " + shown + " leads out of " + root +
                     " through a symbolic link; nothing is written outside the target folder.",
                 shown};
  }
  return Error{error.code, "weld agents export: " + error.message, shown};
}

// Why the export must not replace `relative` beneath `root`, or nullopt: a
// link out of the folder (always), a file weld did not write (unless
// --force).
std::optional<Error> refusal(const std::string& root, const std::string& relative, bool force) {
  constexpr std::uint64_t kMaxExisting = 4u << 20;
  Result<std::optional<std::string>> existing = agent::read_beneath(root, relative, kMaxExisting);
  if (!existing) {
    if (existing.error().code == ErrorCode::Outside || !force) return export_error(root, relative, existing.error());
    return std::nullopt;
  }
  if (*existing && !written_by_weld(**existing) && !force) {
    const std::string shown = (std::filesystem::path(root) / relative).string();
    return Error{ErrorCode::Io,
                 "weld agents export: " + shown +
                     " exists and was not written by weld agents export; not replaced (pass --force to replace it).",
                 shown};
  }
  return std::nullopt;
}

int export_claude_code(const std::string& file, const std::string& dir, const std::string& base_model, bool force) {
  auto registry = load(file);
  if (!registry) {
    std::cerr << with_prefix("weld agents: ", registry.error().message) << "\n";
    return 52;
  }
  // The target folder itself is the user's choice (a link is followed);
  // below it, nothing leads out.
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    std::cerr << "weld agents export: cannot create " << dir << ": " << (ec ? ec.message() : "not a directory") << "\n";
    return 1;
  }
  // Every file is checked before any is written: a refusal leaves the
  // folder as it was.
  std::vector<std::pair<std::string, std::string>> files;
  for (const proxy::Agent& agent : (*registry)->agents())
    files.emplace_back("agents/" + agent.name + ".md", agent_file(agent, base_model));
  files.emplace_back("skills/structured-dispatch/SKILL.md",
                     skill_file(**registry, base_model, ExportCommand{file, dir, base_model}));
  for (const auto& [relative, text] : files) {
    if (std::optional<Error> refused = refusal(dir, relative, force)) {
      std::cerr << with_prefix("weld agents export: ", refused->message) << "\n";
      return 1;
    }
  }
  // Written atomically (a temporary file renamed over the entry), and
  // never through a link out of the folder (checked again as it is written).
  for (const auto& [relative, text] : files) {
    if (Status written = agent::write_beneath(dir, relative, text); !written) {
      std::cerr << with_prefix("weld agents export: ", export_error(dir, relative, written.error()).message) << "\n";
      return 1;
    }
    std::cout << (std::filesystem::path(dir) / relative).string() << "\n";
  }
  return 0;
}

}  // namespace

int agents_main(int argc, char** argv) {
  CLI::App app{"weld agents: check or export an agent registry", "weld agents"};
  app.require_subcommand(1);
  std::string check_file;
  bool as_json = false;
  CLI::App* check_cmd = app.add_subcommand("check", "Compile a registry strictly (default: the built-in one)");
  check_cmd->add_option("FILE", check_file, "agents.json");
  check_cmd->add_flag("--json", as_json, "Print the result as JSON");
  std::string export_file, export_dir;
  const char* env_model = std::getenv("ANTHROPIC_MODEL");
  std::string base_model = env_model != nullptr ? env_model : "";
  CLI::App* export_cmd = app.add_subcommand("export", "Write Claude Code sub-agents and a dispatch skill");
  export_cmd->add_option("--claude-code", export_dir, "Target folder, e.g. .claude")->required();
  export_cmd->add_option("--agents", export_file, "Registry (default: the built-in one)");
  export_cmd->add_option("--base-model", base_model, "Model the upstream serves (default: $ANTHROPIC_MODEL; one of them is required)");
  bool force = false;
  export_cmd->add_flag("--force", force, "Replace files in the folder that weld agents export did not write");
  if (std::optional<int> code = parse_command_line(app, argc, argv)) return *code;
  if (check_cmd->parsed()) return check(check_file, as_json);
  // Each sub-agent's `model` is what Claude Code sends, and weld
  // forwards it upstream without the suffix; a guessed base model would be
  // written silently and fail only at dispatch time.
  if (base_model.empty()) {
    std::cerr << "weld agents export: no base model: pass --base-model MODEL (the model your upstream serves, as "
                 "the sub-agents' `model: MODEL__schema=<agent>`) or set ANTHROPIC_MODEL.\n"
                 "Run 'weld agents export --help' for usage.\n";
    return 1;
  }
  return export_claude_code(export_file, export_dir, base_model, force);
}

}  // namespace weld::cli
