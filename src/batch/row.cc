// One input line → one row (docs/batch.md, "Input"): its shape, its id, the
// messages its run sends and the request's own sampling fields. Everything
// a line can get wrong — a field of the wrong type, a request weld cannot
// send, a response format or tools that conflict with --json-schema — is an
// errored result line naming the line and the field, never a stopped batch.

#include <initializer_list>
#include <string>

#include "weld/batch/input.h"
#include "weld/json/parse.h"
#include "weld/base/text.h"

namespace weld::batch {
namespace {

// A thrown input error inside this file only: read_row turns it into the
// row's error (the message names the field).
struct BadRow {
  std::string message;
};

// An id from a field value: a non-empty string, or an integer as written
// (so `"id":1` and `"id":"1"` are one id).
std::optional<std::string> id_text(const json::Value* value) {
  if (value == nullptr) return std::nullopt;
  if (value->is_string() && !value->as_string().empty()) return value->as_string();
  if (value->is_integer()) return std::to_string(value->as_integer());
  return std::nullopt;
}

bool one_of(std::string_view text, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names)
    if (text == name) return true;
  return false;
}

// Message content: a string, or an array of text parts/blocks
// ({"type":"text"|"input_text"|"output_text","text":…}), joined.
std::string content_text(const json::Value* content, const std::string& where) {
  if (content == nullptr) throw BadRow{where + ": missing"};
  if (content->is_string()) return content->as_string();
  if (!content->is_array()) throw BadRow{where + ": must be a string or an array of text parts"};
  std::string text;
  std::size_t index = 0;
  for (const json::Value& part : content->as_array()) {
    const std::string here = where + "[" + std::to_string(index++) + "]";
    const json::Value* type = part.find("type");
    const json::Value* part_text = part.find("text");
    if (type == nullptr || !type->is_string() || !one_of(type->as_string(), {"text", "input_text", "output_text"}) ||
        part_text == nullptr || !part_text->is_string()) {
      throw BadRow{here + ": only text content is supported"};
    }
    text += part_text->as_string();
  }
  return text;
}

void append_system(std::string& system, std::string text) {
  if (text.empty()) return;
  if (!system.empty()) system += "\n\n";
  system += text;
}

// Messages (OpenAI `messages`, Anthropic `messages`, Responses `input`
// items) → system, history, prompt.
void read_message_list(const json::Array& messages, const std::string& where, RowRequest& out) {
  std::size_t index = 0;
  std::vector<provider::Message> turns;
  for (const json::Value& message : messages) {
    const std::string here = where + "[" + std::to_string(index++) + "]";
    if (!message.is_object()) throw BadRow{here + ": must be an object"};
    if (const json::Value* type = message.find("type"); type != nullptr && !(type->is_string() && type->as_string() == "message"))
      throw BadRow{here + ".type: only messages are supported (a row is one request of text messages)"};
    const json::Value* role = message.find("role");
    if (role == nullptr || !role->is_string()) throw BadRow{here + ".role: must be a string"};
    const std::string& name = role->as_string();
    std::string text = content_text(message.find("content"), here + ".content");
    if (name == "system" || name == "developer") {
      append_system(out.system, std::move(text));
    } else if (name == "user" || name == "assistant") {
      provider::Message turn;
      turn.role = name == "user" ? provider::Role::User : provider::Role::Assistant;
      turn.text = std::move(text);
      turns.push_back(std::move(turn));
    } else {
      throw BadRow{here + ".role: \"" + name + "\" is not supported (a row is one request of text messages)"};
    }
  }
  if (turns.empty() || turns.back().role != provider::Role::User)
    throw BadRow{where + ": the last message must be the user's"};
  out.prompt = std::move(turns.back().text);
  turns.pop_back();
  out.history = std::move(turns);
}

void read_messages(const json::Value& request, const std::string& where, RowRequest& out) {
  const json::Value* messages = request.find("messages");
  if (messages == nullptr || !messages->is_array() || messages->as_array().empty())
    throw BadRow{where + ".messages: must be a non-empty array of messages"};
  read_message_list(messages->as_array(), where + ".messages", out);
}

std::string model_of(const json::Value& request, const std::string& where) {
  const json::Value* model = request.find("model");
  if (model == nullptr) return {};
  if (!model->is_string()) throw BadRow{where + ".model: must be a string"};
  return model->as_string();
}

// The fields of one request object, read by name: what is sent, what is
// weld's to set (checked for conflicts), and the rest (not sent, named for
// a warning).
class Fields {
 public:
  Fields(std::string where, const InputOptions& options, RowRequest& out)
      : where_(std::move(where)), options_(options), out_(out) {}

  std::string at(std::string_view name) const { return where_ + "." + std::string(name); }

  double number(std::string_view name, const json::Value& value) const {
    if (!value.is_number()) throw BadRow{at(name) + ": must be a number"};
    return value.as_double();
  }
  std::int64_t whole(std::string_view name, const json::Value& value, std::int64_t min) const {
    if (!value.is_integer() || value.as_integer() < min)
      throw BadRow{at(name) + ": must be a whole number of at least " + std::to_string(min)};
    return value.as_integer();
  }

  // A sampling field or token limit of the request.
  void sampling(std::string_view name, const json::Value& value) {
    provider::Sampling& s = out_.sampling;
    if (name == "temperature") s.temperature = number(name, value);
    else if (name == "top_p") s.top_p = number(name, value);
    else if (name == "top_k") s.top_k = whole(name, value, 0);
    else if (name == "seed") {
      if (!value.is_integer()) throw BadRow{at(name) + ": must be a whole number"};
      s.seed = value.as_integer();
    } else if (name == "presence_penalty") s.presence_penalty = number(name, value);
    else if (name == "frequency_penalty") s.frequency_penalty = number(name, value);
    else if (name == "stop" || name == "stop_sequences") {
      s.stop.clear();
      if (value.is_null()) return;
      if (value.is_string()) {
        s.stop.push_back(value.as_string());
        return;
      }
      if (!value.is_array()) throw BadRow{at(name) + ": must be a string or an array of strings"};
      for (const json::Value& item : value.as_array()) {
        if (!item.is_string()) throw BadRow{at(name) + ": must be a string or an array of strings"};
        s.stop.push_back(item.as_string());
      }
    } else if (one_of(name, {"max_tokens", "max_completion_tokens", "max_output_tokens"})) {
      // max_completion_tokens replaced max_tokens in OpenAI Chat; the newer
      // name wins when a line has both.
      const std::int64_t limit = whole(name, value, 1);
      if (name != "max_tokens" || !out_.max_tokens) out_.max_tokens = limit;
    }
  }

  std::string schema_setting() const { return std::string(options_.names.json_schema); }

  // A response format asking for a JSON schema: it must be the batch's.
  void same_schema(std::string_view name, const json::Value* schema) const {
    if (options_.schema == nullptr) return;
    if (schema == nullptr || !(*schema == *options_.schema))
      throw BadRow{at(name) + ": asks for another JSON schema than " + schema_setting() +
                   "; weld batch answers every row with " + schema_setting() +
                   "'s (remove it from the line, or make it the same schema)"};
  }

  // OpenAI `response_format` / Responses `text.format` /
  // Anthropic `output_config.format`: text, json_object, or the same schema.
  void format(std::string_view name, const json::Value& value, bool nested_schema) const {
    if (value.is_null()) return;
    const json::Value* type = value.is_object() ? value.find("type") : nullptr;
    if (type == nullptr || !type->is_string()) throw BadRow{at(name) + ": must be an object with a \"type\""};
    if (one_of(type->as_string(), {"text", "json_object"})) return;
    if (type->as_string() != "json_schema")
      throw BadRow{at(name) + ".type: \"" + type->as_string() + "\" conflicts with " + schema_setting()};
    const json::Value* holder = nested_schema ? value.find("json_schema") : &value;
    same_schema(name, holder != nullptr && holder->is_object() ? holder->find("schema") : nullptr);
  }

  // An object holding a `format` (Responses `text`, Anthropic
  // `output_config`): the format is checked, its other members not sent.
  void format_holder(std::string_view name, const json::Value& value) {
    if (!value.is_object()) throw BadRow{at(name) + ": must be an object"};
    for (const json::Member& inner : value.as_object()) {
      if (inner.value.is_null()) continue;
      const std::string member = std::string(name) + "." + inner.key;
      if (inner.key == "format") format(member, inner.value, false);
      else unsent(member);
    }
  }

  void no_tools(std::string_view name, const json::Value& value) const {
    if (value.is_null() || (value.is_array() && value.as_array().empty())) return;
    const std::string_view core_tools = options_.names.core_tools;
    throw BadRow{at(name) + ": the line offers tools of its own, which weld batch does not run (each row gets the "
                            "structured_output contract" +
                 (core_tools.empty() ? std::string() : " and " + std::string(core_tools)) +
                 " only); remove them from the line"};
  }

  // tool_choice: letting the model choose, or requiring a tool, leaves
  // weld's contract in place; "none" or a named tool conflicts with it.
  void tool_choice(std::string_view name, const json::Value& value) const {
    if (value.is_null()) return;
    const json::Value* type = value.is_object() ? value.find("type") : &value;
    if (type != nullptr && type->is_string() && one_of(type->as_string(), {"auto", "required", "any"})) return;
    throw BadRow{at(name) + ": conflicts with " + schema_setting() + " (weld batch chooses the tool: structured_output)"};
  }

  void one_answer(std::string_view name, const json::Value& value) const {
    if (value.is_null() || (value.is_integer() && value.as_integer() == 1)) return;
    throw BadRow{at(name) + ": weld batch gives one answer per row (n must be 1)"};
  }

  // Not sent; named once per batch in a warning.
  void unsent(std::string_view name) { out_.unsent.push_back(at(name)); }

 private:
  std::string where_;
  const InputOptions& options_;
  RowRequest& out_;
};

// An OpenAI Chat Completions body.
void read_chat_body(const json::Value& body, const InputOptions& options, RowRequest& out) {
  out.model = model_of(body, "body");
  read_messages(body, "body", out);
  Fields fields("body", options, out);
  for (const json::Member& member : body.as_object()) {
    const std::string& name = member.key;
    if (member.value.is_null()) continue;  // a field set to null is a field not set
    if (one_of(name, {"model", "messages", "stream", "stream_options", "parallel_tool_calls"})) continue;
    if (one_of(name, {"temperature", "top_p", "top_k", "seed", "stop", "presence_penalty", "frequency_penalty",
                      "max_tokens", "max_completion_tokens"}))
      fields.sampling(name, member.value);
    else if (name == "response_format") fields.format(name, member.value, true);
    else if (name == "tools" || name == "functions") fields.no_tools(name, member.value);
    else if (name == "tool_choice" || name == "function_call") fields.tool_choice(name, member.value);
    else if (name == "n") fields.one_answer(name, member.value);
    else fields.unsent(name);
  }
}

// An OpenAI Responses body: `instructions`, `input` (a string or message
// items).
void read_responses_body(const json::Value& body, const InputOptions& options, RowRequest& out) {
  out.model = model_of(body, "body");
  if (const json::Value* instructions = body.find("instructions"); instructions != nullptr && !instructions->is_null()) {
    if (!instructions->is_string()) throw BadRow{"body.instructions: must be a string"};
    append_system(out.system, instructions->as_string());
  }
  const json::Value* input = body.find("input");
  if (input != nullptr && input->is_string() && !input->as_string().empty()) {
    out.prompt = input->as_string();
  } else if (input != nullptr && input->is_array() && !input->as_array().empty()) {
    read_message_list(input->as_array(), "body.input", out);
  } else {
    throw BadRow{"body.input: must be a non-empty string or array of messages"};
  }
  Fields fields("body", options, out);
  for (const json::Member& member : body.as_object()) {
    const std::string& name = member.key;
    if (member.value.is_null()) continue;  // a field set to null is a field not set
    if (one_of(name, {"model", "input", "instructions", "stream", "store", "parallel_tool_calls"})) continue;
    if (one_of(name, {"temperature", "top_p", "max_output_tokens"})) fields.sampling(name, member.value);
    else if (name == "text") fields.format_holder(name, member.value);
    else if (name == "tools") fields.no_tools(name, member.value);
    else if (name == "tool_choice") fields.tool_choice(name, member.value);
    else fields.unsent(name);
  }
}

void read_openai(const json::Value& doc, const InputOptions& options, RowRequest& out) {
  if (const json::Value* method = doc.find("method"); method != nullptr) {
    if (!method->is_string() || method->as_string() != "POST") throw BadRow{"method: must be \"POST\""};
  }
  bool responses = false;
  if (const json::Value* url = doc.find("url"); url != nullptr) {
    const bool chat = url->is_string() && one_of(url->as_string(), {"/v1/chat/completions", "/chat/completions"});
    responses = url->is_string() && one_of(url->as_string(), {"/v1/responses", "/responses"});
    if (!chat && !responses)
      throw BadRow{"url: weld batch runs \"/v1/chat/completions\" and \"/v1/responses\" requests"};
  }
  const json::Value& body = *doc.find("body");
  if (!body.is_object())
    throw BadRow{std::string("body: must be an object (a ") + (responses ? "Responses" : "chat completion") +
                 " request)"};
  if (responses) read_responses_body(body, options, out);
  else read_chat_body(body, options, out);
}

void read_anthropic(const json::Value& doc, const InputOptions& options, RowRequest& out) {
  const json::Value& params = *doc.find("params");
  if (!params.is_object()) throw BadRow{"params: must be an object (a Messages request)"};
  out.model = model_of(params, "params");
  if (const json::Value* system = params.find("system"); system != nullptr)
    append_system(out.system, content_text(system, "params.system"));
  read_messages(params, "params", out);
  Fields fields("params", options, out);
  for (const json::Member& member : params.as_object()) {
    const std::string& name = member.key;
    if (member.value.is_null()) continue;  // a field set to null is a field not set
    if (one_of(name, {"model", "messages", "system", "stream"})) continue;
    if (one_of(name, {"temperature", "top_p", "top_k", "stop_sequences", "max_tokens"})) fields.sampling(name, member.value);
    else if (name == "output_config") fields.format_holder(name, member.value);
    else if (name == "output_format") fields.format(name, member.value, false);
    else if (name == "tools") fields.no_tools(name, member.value);
    else if (name == "tool_choice") fields.tool_choice(name, member.value);
    else fields.unsent(name);
  }
}

}  // namespace

std::string_view input_error_type(InputErrorKind kind) {
  return kind == InputErrorKind::DuplicateId ? "error_duplicate_id" : "error_invalid_input";
}

Row line_row(std::uint64_t line_number) {
  Row row;
  row.line = line_number;
  row.id_from_line = true;
  return row;
}

RowKey key_of_row(const Row& row) { return row.id_from_line ? key_of_line(row.line) : key_of_id(row.id); }

Row read_row(std::string_view text, std::uint64_t line_number, const InputOptions& options) {
  Row row = line_row(line_number);
  auto fail = [&](const std::string& message) {
    row.error = InputErrorKind::InvalidLine;
    row.error_message = "line " + std::to_string(line_number) + ": " + message;
    row.request = {};
    return row;
  };
  Result<json::Value> doc = json::parse(text);
  if (!doc) {
    // The parser's place is within the text: "line 1 column 7" is the
    // line's column 7 (its line number is the input's, said first).
    std::string where = doc.error().where;
    if (where.rfind("line 1 column ", 0) == 0) where.erase(0, 7);
    return fail("not valid JSON: " + doc.error().message + (where.empty() ? std::string() : " (" + where + ")"));
  }
  if (!doc->is_object())
    return fail("expected a JSON object, got " + std::string(json::type_name(doc->type())));

  // The id: custom_id, else --id-field (which the row must then carry in a
  // usable form, when it has the field), else `id`, else the line.
  auto use_id = [&](std::string id) {
    row.id = std::move(id);
    row.id_from_line = false;
  };
  const json::Value* custom_id = doc->find("custom_id");
  const json::Value* named = options.id_field.empty() ? nullptr : doc->find(options.id_field);
  if (custom_id != nullptr) {
    if (!custom_id->is_string() || custom_id->as_string().empty())
      return fail("custom_id: must be a non-empty string");
    use_id(custom_id->as_string());
  } else if (named != nullptr) {
    std::optional<std::string> id = id_text(named);
    if (!id)
      return fail(options.id_field + ": must be a non-empty string or a whole number (the " +
                  std::string(options.names.id_field) + ")");
    use_id(std::move(*id));
  } else if (auto plain = id_text(doc->find("id"))) {
    use_id(std::move(*plain));
  }

  try {
    if (custom_id != nullptr && doc->find("body") != nullptr) {
      row.shape = RowShape::OpenAiBatch;
      read_openai(*doc, options, row.request);
    } else if (custom_id != nullptr && doc->find("params") != nullptr) {
      row.shape = RowShape::AnthropicBatch;
      read_anthropic(*doc, options, row.request);
    } else {
      // A data row is sent as piped stdin is in a run (docs/run.md): the
      // row's JSON as written, a blank line, then the prompt.
      row.shape = RowShape::Data;
      row.request.prompt = trim(text);
      if (!options.prompt.empty()) row.request.prompt += "\n\n" + options.prompt;
    }
  } catch (const BadRow& bad) {
    return fail(bad.message);
  }
  return row;
}

}  // namespace weld::batch
