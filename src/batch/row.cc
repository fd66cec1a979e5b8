// One input line → one row (SPEC §7): its shape, its id, and the messages
// its run sends. Everything a line can get wrong is an errored result line
// naming the line and the field, never a stopped batch.

#include <string>

#include "weld/batch/input.h"
#include "weld/json/parse.h"

namespace weld::batch {
namespace {

// A thrown input error inside this file only: read_row turns it into the
// row's error (the message names the field).
struct BadRow {
  std::string message;
};

std::string trim(std::string_view text) {
  std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  std::size_t last = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(first, last - first + 1));
}

// An id from a field value: a non-empty string, or an integer as written.
std::optional<std::string> id_text(const json::Value* value) {
  if (value == nullptr) return std::nullopt;
  if (value->is_string() && !value->as_string().empty()) return value->as_string();
  if (value->is_integer()) return std::to_string(value->as_integer());
  return std::nullopt;
}

// Message content: a string, or an array of text parts/blocks
// ({"type":"text","text":…}), joined.
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
    if (type == nullptr || !type->is_string() || type->as_string() != "text" || part_text == nullptr ||
        !part_text->is_string()) {
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

// OpenAI `messages` or Anthropic `messages` → system, history, prompt.
void read_messages(const json::Value& request, const std::string& where, RowRequest& out) {
  const json::Value* messages = request.find("messages");
  if (messages == nullptr || !messages->is_array() || messages->as_array().empty())
    throw BadRow{where + ".messages: must be a non-empty array of messages"};
  std::size_t index = 0;
  std::vector<provider::Message> turns;
  for (const json::Value& message : messages->as_array()) {
    const std::string here = where + ".messages[" + std::to_string(index++) + "]";
    if (!message.is_object()) throw BadRow{here + ": must be an object"};
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
    throw BadRow{where + ".messages: the last message must be the user's"};
  out.prompt = std::move(turns.back().text);
  turns.pop_back();
  out.history = std::move(turns);
}

std::string model_of(const json::Value& request, const std::string& where) {
  const json::Value* model = request.find("model");
  if (model == nullptr) return {};
  if (!model->is_string()) throw BadRow{where + ".model: must be a string"};
  return model->as_string();
}

void read_openai(const json::Value& doc, RowRequest& out) {
  if (const json::Value* method = doc.find("method"); method != nullptr) {
    if (!method->is_string() || method->as_string() != "POST") throw BadRow{"method: must be \"POST\""};
  }
  if (const json::Value* url = doc.find("url"); url != nullptr) {
    if (!url->is_string() || (url->as_string() != "/v1/chat/completions" && url->as_string() != "/chat/completions"))
      throw BadRow{"url: weld batch runs \"/v1/chat/completions\" requests"};
  }
  const json::Value& body = *doc.find("body");
  if (!body.is_object()) throw BadRow{"body: must be an object (a chat completion request)"};
  out.model = model_of(body, "body");
  read_messages(body, "body", out);
}

void read_anthropic(const json::Value& doc, RowRequest& out) {
  const json::Value& params = *doc.find("params");
  if (!params.is_object()) throw BadRow{"params: must be an object (a Messages request)"};
  out.model = model_of(params, "params");
  if (const json::Value* system = params.find("system"); system != nullptr)
    append_system(out.system, content_text(system, "params.system"));
  read_messages(params, "params", out);
}

}  // namespace

std::string_view input_error_type(InputErrorKind kind) {
  return kind == InputErrorKind::DuplicateId ? "error_duplicate_id" : "error_invalid_input";
}

Row read_row(std::string_view text, std::uint64_t line_number, const InputOptions& options) {
  Row row;
  row.line = line_number;
  row.id = std::to_string(line_number);
  auto fail = [&](const std::string& message) {
    row.error = InputErrorKind::InvalidLine;
    row.error_message = "line " + std::to_string(line_number) + ": " + message;
    row.request = {};
    return row;
  };
  Result<json::Value> doc = json::parse(text);
  if (!doc)
    return fail("not valid JSON: " + doc.error().message +
                (doc.error().where.empty() ? std::string() : " (" + doc.error().where + ")"));
  if (!doc->is_object())
    return fail("expected a JSON object, got " + std::string(json::type_name(doc->type())));

  const json::Value* custom_id = doc->find("custom_id");
  if (custom_id != nullptr) {
    if (!custom_id->is_string() || custom_id->as_string().empty())
      return fail("custom_id: must be a non-empty string");
    row.id = custom_id->as_string();
  } else if (auto id = options.id_field.empty() ? std::nullopt : id_text(doc->find(options.id_field))) {
    row.id = std::move(*id);
  } else if (auto plain = id_text(doc->find("id"))) {
    row.id = std::move(*plain);
  }

  try {
    if (custom_id != nullptr && doc->find("body") != nullptr) {
      row.shape = RowShape::OpenAiBatch;
      read_openai(*doc, row.request);
    } else if (custom_id != nullptr && doc->find("params") != nullptr) {
      row.shape = RowShape::AnthropicBatch;
      read_anthropic(*doc, row.request);
    } else {
      // SPEC §7: a data row is sent as piped stdin is in a run (§2.1): the
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
