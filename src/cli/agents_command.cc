// `weld agents check [FILE]` and `weld agents export --claude-code DIR`
// (SPEC §3.5). check: compiles a registry strictly, exit 0 / 52. export:
// one Claude Code sub-agent file per agent (model: <base>__schema=<agent>)
// and a skill that lists the shapes and when to dispatch each.

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "usage.h"
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

Status write_file(const std::filesystem::path& path, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return Error{ErrorCode::Io, "cannot create " + path.parent_path().string() + ": " + ec.message(), path.string()};
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Error{ErrorCode::Io, "cannot write " + path.string(), path.string()};
  return Ok{};
}

std::string agent_file(const proxy::Agent& agent, const std::string& base_model) {
  std::string shape = shape_of(agent.input_schema);
  std::string description = agent.description.empty() ? "Structured answer shaped as " + agent.name : agent.description;
  std::string out = "---\n";
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

std::string skill_file(const proxy::Registry& registry, const std::string& base_model) {
  std::string out = "---\n";
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
  out += "Edit the proxy's `agents.json` (one key per agent: `description`, `input_schema`, and optionally `max_retries`,\n";
  out += "`clamp`, `mode`), check it with `weld agents check agents.json`, and re-run `weld agents export --claude-code DIR`.\n";
  out += "The proxy reloads the file on change or on SIGHUP and keeps the old registry if the new one is invalid.\n";
  return out;
}

int check(const std::string& file, bool as_json) {
  auto registry = load(file);
  if (!registry) {
    if (as_json) {
      std::cout << "{\"ok\":false,\"agent\":" << (registry.error().where.empty() ? "null" : json::quote(registry.error().where))
                << ",\"error\":" << json::quote(registry.error().message) << "}\n";
    } else {
      std::cerr << registry.error().message << "\n";
    }
    return 52;
  }
  for (const std::string& w : (*registry)->warnings()) std::cerr << "warning: " << w << "\n";
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

int export_claude_code(const std::string& file, const std::string& dir, const std::string& base_model) {
  auto registry = load(file);
  if (!registry) {
    std::cerr << registry.error().message << "\n";
    return 52;
  }
  std::filesystem::path root(dir);
  for (const proxy::Agent& agent : (*registry)->agents()) {
    std::filesystem::path path = root / "agents" / (agent.name + ".md");
    if (Status s = write_file(path, agent_file(agent, base_model)); !s) {
      std::cerr << s.error().message << "\n";
      return 1;
    }
    std::cout << path.string() << "\n";
  }
  std::filesystem::path skill = root / "skills" / "structured-dispatch" / "SKILL.md";
  if (Status s = write_file(skill, skill_file(**registry, base_model)); !s) {
    std::cerr << s.error().message << "\n";
    return 1;
  }
  std::cout << skill.string() << "\n";
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
  if (std::optional<int> code = parse_command_line(app, argc, argv)) return *code;
  if (check_cmd->parsed()) return check(check_file, as_json);
  // Issue 17: each sub-agent's `model` is what Claude Code sends, and weld
  // forwards it upstream without the suffix; a guessed base model would be
  // written silently and fail only at dispatch time.
  if (base_model.empty()) {
    std::cerr << "weld agents export: no base model: pass --base-model MODEL (the model your upstream serves, as "
                 "the sub-agents' `model: MODEL__schema=<agent>`) or set ANTHROPIC_MODEL.\n"
                 "Run 'weld agents export --help' for usage.\n";
    return 1;
  }
  return export_claude_code(export_file, export_dir, base_model);
}

}  // namespace weld::cli
