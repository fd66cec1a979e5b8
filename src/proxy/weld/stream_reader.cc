// Accumulating a streamed upstream answer (SPEC §3.3 "Streaming"). Each event
// is the JSON payload of one SSE data line. Both wire protocols are read the
// way the official SDKs accumulate them: Anthropic blocks by `index`, OpenAI
// tool-call fragments by `tool_calls[].index` with the name replaced and the
// arguments appended.

#include <map>

#include "response_build.h"
#include "weld/json/serialize.h"
#include "weld/proxy/weld.h"
#include "wire.h"

namespace weld::proxy {
namespace {

struct AnthropicBlock {
  std::string type;
  std::string id;
  std::string name;
  std::string text;
  std::string partial_json;
  /// tool_use: the start's `input`; other types: the whole block, updated by
  /// thinking/signature deltas.
  json::Value start;
};

struct OpenAICall {
  std::string id;
  std::string name;
  std::string arguments;
};

}  // namespace

struct StreamReader::State {
  Api api;
  std::string agent_tool;
  std::string error;
  bool failed = false;
  bool started = false;
  bool finished = false;
  std::string id;
  std::string model;
  std::int64_t created = 0;
  Usage usage;
  // Anthropic
  std::map<std::int64_t, AnthropicBlock> blocks;
  // OpenAI
  std::string text;
  bool has_text = false;
  std::map<std::int64_t, OpenAICall> calls;
  std::int64_t last_call = -1;

  bool fail(std::string message) {
    failed = true;
    error = "upstream stream: " + std::move(message);
    return false;
  }
  bool feed_anthropic(const json::Value& event);
  bool feed_openai(const json::Value& event);
  bool openai_tool_call(const json::Value& fragment);
};

namespace {

std::string upstream_error_message(const json::Value& error) {
  if (error.is_string()) return error.as_string();
  std::string out;
  if (const std::string* type = wire::find_string(error, "type")) out = *type;
  if (const std::string* message = wire::find_string(error, "message")) {
    out += out.empty() ? *message : ": " + *message;
  }
  return out.empty() ? json::serialize(error) : out;
}

}  // namespace

bool StreamReader::State::feed_anthropic(const json::Value& event) {
  const std::string* type = wire::find_string(event, "type");
  if (type == nullptr) return fail("event without a \"type\"");
  if (*type == "ping") return true;
  if (*type == "error") {
    const json::Value* error = event.find("error");
    return fail("upstream error: " + (error != nullptr ? upstream_error_message(*error) : std::string("unknown")));
  }
  if (finished) return fail("event \"" + *type + "\" after message_stop");
  if (*type == "message_start") {
    if (started) return fail("second message_start");
    const json::Value* message = wire::find_object(event, "message");
    if (message == nullptr) return fail("message_start without a \"message\" object");
    started = true;
    if (const std::string* v = wire::find_string(*message, "id")) id = *v;
    if (const std::string* v = wire::find_string(*message, "model")) model = *v;
    if (const json::Value* u = wire::find_object(*message, "usage")) {
      usage.input_tokens = wire::find_int(*u, "input_tokens").value_or(0);
      usage.output_tokens = wire::find_int(*u, "output_tokens").value_or(0);
    }
    return true;
  }
  if (!started) return fail("\"" + *type + "\" before message_start");
  if (*type == "content_block_start") {
    auto index = wire::find_int(event, "index");
    if (!index) return fail("content_block_start without an integer \"index\"");
    const json::Value* block = wire::find_object(event, "content_block");
    if (block == nullptr) return fail("content_block_start without a \"content_block\" object");
    const std::string* block_type = wire::find_string(*block, "type");
    if (block_type == nullptr) return fail("content_block_start block without a \"type\"");
    if (blocks.count(*index) != 0) return fail("second content_block_start for index " + std::to_string(*index));
    AnthropicBlock& b = blocks[*index];
    b.type = *block_type;
    if (b.type == "text") {
      if (const std::string* text = wire::find_string(*block, "text")) b.text = *text;
    } else if (b.type == "tool_use") {
      if (const std::string* v = wire::find_string(*block, "id")) b.id = *v;
      if (const std::string* v = wire::find_string(*block, "name")) b.name = *v;
      if (const json::Value* input = block->find("input")) b.start = *input;
    } else {
      b.start = *block;
    }
    return true;
  }
  if (*type == "content_block_delta") {
    auto index = wire::find_int(event, "index");
    if (!index) return fail("content_block_delta without an integer \"index\"");
    auto it = blocks.find(*index);
    if (it == blocks.end()) return fail("content_block_delta for unknown block index " + std::to_string(*index));
    const json::Value* delta = wire::find_object(event, "delta");
    if (delta == nullptr) return fail("content_block_delta without a \"delta\" object");
    const std::string* delta_type = wire::find_string(*delta, "type");
    if (delta_type == nullptr) return fail("content_block_delta delta without a \"type\"");
    AnthropicBlock& b = it->second;
    if (*delta_type == "text_delta") {
      const std::string* text = wire::find_string(*delta, "text");
      if (text == nullptr) return fail("text_delta without a string \"text\"");
      if (b.type != "text") return fail("text_delta for a " + b.type + " block");
      b.text += *text;
    } else if (*delta_type == "input_json_delta") {
      const std::string* partial = wire::find_string(*delta, "partial_json");
      if (partial == nullptr) return fail("input_json_delta without a string \"partial_json\"");
      if (b.type != "tool_use") return fail("input_json_delta for a " + b.type + " block");
      b.partial_json += *partial;
    } else if (*delta_type == "thinking_delta" || *delta_type == "signature_delta") {
      const char* key = *delta_type == "thinking_delta" ? "thinking" : "signature";
      const std::string* piece = wire::find_string(*delta, key);
      if (piece == nullptr) return fail(*delta_type + " without a string \"" + key + "\"");
      if (!b.start.is_object()) return fail(*delta_type + " for a " + b.type + " block");
      const std::string* before = wire::find_string(b.start, key);
      std::string joined = (before != nullptr && *delta_type == "thinking_delta") ? *before + *piece : *piece;
      b.start.set(key, std::move(joined));
    }
    // Other delta kinds (citations…) do not touch the answer.
    return true;
  }
  if (*type == "content_block_stop") {
    auto index = wire::find_int(event, "index");
    if (!index) return fail("content_block_stop without an integer \"index\"");
    if (blocks.count(*index) == 0) return fail("content_block_stop for unknown block index " + std::to_string(*index));
    return true;
  }
  if (*type == "message_delta") {
    // Usage here is cumulative: it replaces what message_start said.
    if (const json::Value* u = wire::find_object(event, "usage")) {
      if (auto v = wire::find_int(*u, "output_tokens")) usage.output_tokens = *v;
      if (auto v = wire::find_int(*u, "input_tokens")) usage.input_tokens = *v;
    }
    return true;
  }
  if (*type == "message_stop") {
    finished = true;
    return true;
  }
  return true;  // new event types may be added (Anthropic's versioning policy)
}

bool StreamReader::State::openai_tool_call(const json::Value& fragment) {
  if (!fragment.is_object()) return fail("tool_calls entry is not an object");
  const json::Value* index_value = fragment.find("index");
  const std::string* call_id = wire::find_string(fragment, "id");
  std::int64_t index;
  if (auto i = wire::find_int(fragment, "index")) {
    index = *i;
  } else if (index_value != nullptr && !index_value->is_null()) {
    return fail("tool_calls entry with a non-integer \"index\"");
  } else if (call_id != nullptr && !call_id->empty()) {
    // Servers that omit `index`: a fragment with a new id opens a call…
    index = calls.empty() ? 0 : calls.rbegin()->first + 1;
    for (const auto& [i, call] : calls) {
      if (call.id == *call_id) index = i;
    }
  } else {
    // …and one without continues the last.
    index = last_call >= 0 ? last_call : 0;
  }
  OpenAICall& call = calls[index];
  last_call = index;
  if (call_id != nullptr && !call_id->empty()) call.id = *call_id;
  if (const json::Value* function = fragment.find("function"); function != nullptr && !function->is_null()) {
    if (!function->is_object()) return fail("tool_calls entry with a non-object \"function\"");
    if (const json::Value* name = function->find("name"); name != nullptr && !name->is_null()) {
      if (!name->is_string()) return fail("tool call \"name\" is not a string");
      if (!name->as_string().empty()) call.name = name->as_string();
    }
    if (const json::Value* args = function->find("arguments"); args != nullptr && !args->is_null()) {
      if (args->is_string()) {
        call.arguments += args->as_string();
      } else if (args->is_object()) {
        call.arguments += json::serialize(*args);
      } else {
        return fail("tool call \"arguments\" is not a string");
      }
    }
  }
  return true;
}

bool StreamReader::State::feed_openai(const json::Value& event) {
  if (const json::Value* error = event.find("error"); error != nullptr && !error->is_null()) {
    return fail("upstream error: " + upstream_error_message(*error));
  }
  started = true;
  if (id.empty()) {
    if (const std::string* v = wire::find_string(event, "id")) id = *v;
  }
  if (model.empty()) {
    if (const std::string* v = wire::find_string(event, "model")) model = *v;
  }
  if (created == 0) created = wire::find_int(event, "created").value_or(0);
  if (const json::Value* u = wire::find_object(event, "usage")) {
    usage.input_tokens = wire::find_int(*u, "prompt_tokens").value_or(usage.input_tokens);
    usage.output_tokens = wire::find_int(*u, "completion_tokens").value_or(usage.output_tokens);
  }
  const json::Value* choices = event.find("choices");
  if (choices == nullptr || choices->is_null()) return true;
  if (!choices->is_array()) return fail("\"choices\" is not an array");
  for (const json::Value& choice : choices->as_array()) {
    if (!choice.is_object()) return fail("a choice is not an object");
    if (wire::find_int(choice, "index").value_or(0) != 0) continue;  // n > 1: choice 0 answers
    if (const json::Value* delta = choice.find("delta"); delta != nullptr && !delta->is_null()) {
      if (!delta->is_object()) return fail("\"delta\" is not an object");
      if (const json::Value* content = delta->find("content"); content != nullptr && !content->is_null()) {
        if (!content->is_string()) return fail("\"delta.content\" is not a string");
        text += content->as_string();
        has_text = true;
      }
      if (const json::Value* tool_calls = delta->find("tool_calls"); tool_calls != nullptr && !tool_calls->is_null()) {
        if (!tool_calls->is_array()) return fail("\"delta.tool_calls\" is not an array");
        for (const json::Value& fragment : tool_calls->as_array()) {
          if (!openai_tool_call(fragment)) return false;
        }
      }
    }
    if (const json::Value* reason = choice.find("finish_reason"); reason != nullptr && !reason->is_null()) {
      if (!reason->is_string()) return fail("\"finish_reason\" is not a string");
      finished = true;
    }
  }
  return true;
}

StreamReader::StreamReader(Api api, std::string agent_tool) : state_(std::make_shared<State>()) {
  state_->api = api;
  state_->agent_tool = std::move(agent_tool);
}

bool StreamReader::feed(const json::Value& event) {
  State& s = *state_;
  if (s.failed) return false;
  if (!event.is_object()) return s.fail("event is not a JSON object");
  return s.api == Api::Anthropic ? s.feed_anthropic(event) : s.feed_openai(event);
}

bool StreamReader::finished() const { return state_->finished; }

const std::string& StreamReader::error() const { return state_->error; }

Candidate StreamReader::candidate() const {
  const State& s = *state_;
  Candidate c;
  c.id = s.id;
  c.model = s.model;
  c.created = s.created;
  c.usage = s.usage;
  if (s.api == Api::Anthropic) {
    AnthropicBuilder builder(s.agent_tool);
    for (const auto& [index, b] : s.blocks) {
      if (b.type == "text") {
        builder.add_text(b.text);
      } else if (b.type == "tool_use") {
        // Deltas carry the input; a server that put it whole in the start
        // (and sent no delta text) is read from there, so an empty input
        // reads "{}" as in a whole body.
        if (!b.partial_json.empty() || !b.start.is_object()) {
          builder.add_tool_use(b.id, b.name, b.partial_json);
        } else {
          builder.add_tool_use(b.id, b.name, json::serialize(b.start), &b.start);
        }
      } else {
        builder.add_other(b.start);
      }
    }
    builder.finish(c);
    return c;
  }
  OpenAIBuilder builder(s.agent_tool);
  if (s.has_text) builder.add_text(s.text);
  for (const auto& [index, call] : s.calls) builder.add_tool_call(call.id, call.name, call.arguments);
  builder.finish(c);
  return c;
}

}  // namespace weld::proxy
