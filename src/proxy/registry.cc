// The agent registry (docs/proxy.md, "The registry"). Loading is strict: any problem names the
// agent and stops the start (or, on reload, keeps the old registry).

#include "weld/proxy/registry.h"

#include <cstdint>

#include "weld/base/read_file.h"
#include "weld/json/parse.h"
#include "weld/schema/load.h"
#include "weld/schema/schema.h"

namespace weld::proxy {
namespace {

constexpr std::uint64_t kMaxRegistryBytes = 16ull << 20;

Error registry_error(std::string_view origin, std::string_view agent, std::string message) {
  std::string text(origin);
  text += ": ";
  if (!agent.empty()) {
    text += "agent \"";
    text += agent;
    text += "\": ";
  }
  text += message;
  return Error{ErrorCode::Registry, std::move(text), std::string(agent)};
}

// Fields an agent entry may have; anything else is a typo we refuse.
constexpr std::string_view kKnownFields[] = {"description", "input_schema", "max_retries",          "clamp",
                                             "mode",        "mechanism",    "chat_template_kwargs", "passthrough_when",
                                             "stream_partial", "strict"};

}  // namespace

bool is_valid_agent_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

const Agent* Registry::find(std::string_view name) const {
  for (const Agent& agent : agents_) {
    if (agent.name == name) return &agent;
  }
  return nullptr;
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  out.reserve(agents_.size());
  for (const Agent& agent : agents_) out.push_back(agent.name);
  return out;
}

Result<RegistryPtr> load_registry(std::string_view text, std::string_view origin) {
  Result<json::Value> doc = json::parse(text);
  if (!doc) {
    return registry_error(origin, "", "not valid JSON: " + doc.error().message + " at " + doc.error().where);
  }
  if (!doc->is_object()) {
    return registry_error(origin, "", "must be a JSON object mapping agent names to {\"description\", \"input_schema\"}");
  }
  auto registry = std::make_shared<Registry>();
  registry->origin_ = std::string(origin);
  for (const json::Member& member : doc->as_object()) {
    const std::string& name = member.key;
    if (!is_valid_agent_name(name)) {
      return registry_error(origin, name, "invalid agent name (use 1-64 characters of A-Z a-z 0-9 _ -)");
    }
    const json::Value& entry = member.value;
    if (!entry.is_object()) return registry_error(origin, name, "must be an object");
    for (const json::Member& field : entry.as_object()) {
      bool known = false;
      for (std::string_view k : kKnownFields) known = known || field.key == k;
      if (!known) {
        return registry_error(origin, name,
                              "unknown field \"" + field.key +
                                  "\" (known: description, input_schema, max_retries, clamp, mode, mechanism, "
                                  "chat_template_kwargs, passthrough_when, stream_partial, strict)");
      }
    }
    Agent agent;
    agent.name = name;
    if (const json::Value* d = entry.find("description")) {
      if (!d->is_string()) return registry_error(origin, name, "description must be a string");
      agent.description = d->as_string();
    }
    const json::Value* input_schema = entry.find("input_schema");
    if (input_schema == nullptr) return registry_error(origin, name, "input_schema is missing");
    if (!input_schema->is_object()) {
      return registry_error(origin, name, "input_schema must be a JSON object describing a schema");
    }
    if (const json::Value* r = entry.find("max_retries")) {
      if (!r->is_integer() || r->as_integer() < 0 || r->as_integer() > 10) {
        return registry_error(origin, name, "max_retries must be an integer from 0 to 10");
      }
      agent.max_retries = static_cast<int>(r->as_integer());
    }
    if (const json::Value* c = entry.find("clamp")) {
      if (!c->is_bool()) return registry_error(origin, name, "clamp must be true or false");
      agent.clamp = c->as_bool();
    }
    if (const json::Value* m = entry.find("mode")) {
      if (m->is_string() && m->as_string() == "forced") {
        agent.mode = Mode::Forced;
      } else if (m->is_string() && m->as_string() == "two_phase") {
        agent.mode = Mode::TwoPhase;
      } else {
        return registry_error(origin, name, "mode must be \"forced\" or \"two_phase\"");
      }
    }
    if (const json::Value* m = entry.find("mechanism")) {
      std::string_view v = m->is_string() ? std::string_view(m->as_string()) : std::string_view();
      if (v == "tool") {
        agent.mechanism = Mechanism::Tool;
      } else if (v == "native") {
        agent.mechanism = Mechanism::Native;
      } else if (v == "auto") {
        agent.mechanism = Mechanism::Auto;
      } else {
        return registry_error(origin, name, "mechanism must be \"tool\", \"native\" or \"auto\"");
      }
    }
    if (const json::Value* k = entry.find("chat_template_kwargs")) {
      if (k->is_object()) {
        agent.template_kwargs = *k;
      } else if (k->is_bool() && !k->as_bool()) {
        agent.chat_template_kwargs = false;
      } else {
        return registry_error(origin, name,
                              "chat_template_kwargs must be an object (passed to an OpenAI-compatible upstream's "
                              "chat template, e.g. {\"enable_thinking\": false}) or false (send none)");
      }
    }
    if (const json::Value* rule = entry.find("passthrough_when")) {
      Result<PassthroughRule> parsed = parse_passthrough_rule(*rule);
      if (!parsed) return registry_error(origin, name, parsed.error().message);
      agent.passthrough = std::move(*parsed);
    }
    if (const json::Value* p = entry.find("stream_partial")) {
      if (!p->is_bool()) return registry_error(origin, name, "stream_partial must be true or false");
      agent.stream_partial = p->as_bool();
      if (agent.stream_partial && agent.mode == Mode::TwoPhase) {
        // A two-phase answer may turn out to be calls of the client's tools
        // after a streamed attempt was voided: not supported yet.
        return registry_error(origin, name, "stream_partial needs mode \"forced\" (two_phase answers are not streamed)");
      }
    }
    bool strict = true;
    if (const json::Value* s = entry.find("strict")) {
      if (!s->is_bool()) return registry_error(origin, name, "strict must be true or false");
      strict = s->as_bool();
    }
    try {
      schema::CompileOptions options;
      options.strict = strict;
      auto compiled = std::make_shared<schema::Schema>(schema::Schema::compile(*input_schema, options));
      for (const schema::Warning& w : compiled->warnings()) {
        registry->warnings_.push_back("agent \"" + name + "\": " + w.message +
                                      (w.pointer.empty() ? "" : " at " + w.pointer));
      }
      agent.schema = std::move(compiled);
    } catch (const schema::SchemaError& e) {
      return registry_error(origin, name, std::string("input_schema is not a valid JSON Schema: ") + e.what());
    } catch (const std::exception& e) {
      // The compiler documents SchemaError only; anything else is still a
      // refusal of this registry, never a crash of the proxy.
      return registry_error(origin, name, std::string("input_schema could not be compiled: ") + e.what());
    }
    // After the compile, as for --json-schema (docs/schema.md, "Reading --json-schema VALUE"): a schema that is not
    // one is told so first.
    if (auto problem = schema::check_root_accepts_object(*input_schema, "input_schema")) {
      return registry_error(origin, name, *problem);
    }
    agent.input_schema = *input_schema;
    prepare_agent(agent);
    registry->agents_.push_back(std::move(agent));
  }
  if (registry->agents_.empty()) return registry_error(origin, "", "defines no agents");
  return RegistryPtr(std::move(registry));
}

Result<RegistryPtr> load_registry_file(const std::string& path) {
  // The one bounded reader (weld/base/read_file.h): a regular file only, never more
  // than the cap even when the file grows after it was checked.
  Result<std::string> text = read_regular_file(path, kMaxRegistryBytes);
  if (!text) {
    const Error& error = text.error();
    if (error.code == ErrorCode::NotRegular) return Error{ErrorCode::Registry, path + ": not a regular file", ""};
    if (error.code == ErrorCode::TooLarge) return Error{ErrorCode::Registry, path + ": larger than 16 MiB", ""};
    return Error{ErrorCode::Registry, path + ": cannot read: " + error.message.substr(error.message.rfind(": ") + 2), ""};
  }
  return load_registry(*text, path);
}

}  // namespace weld::proxy
