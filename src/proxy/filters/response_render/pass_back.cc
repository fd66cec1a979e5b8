// Two-phase pass-back rendering (SPEC §3.4).

#include "filters/response_render/pass_back.h"

#include <chrono>

#include "weld/json/serialize.h"
#include "weld/responses_api.h"  // src/proxy/weld/responses_api.h

namespace weld::proxy::filters {

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

namespace {

void append_event(std::string& out, std::string_view name, const json::Value& data) {
  out += "event: ";
  out += name;
  out += "\ndata: ";
  json::serialize_to(out, data);
  out += "\n\n";
}

void append_data(std::string& out, const json::Value& data) {
  out += "data: ";
  json::serialize_to(out, data);
  out += "\n\n";
}

json::Value anthropic_content(const Candidate& candidate) {
  if (const json::Value* content = candidate.assistant_message.find("content"); content && content->is_array()) {
    return *content;
  }
  json::Array blocks;
  if (!candidate.text.empty()) blocks.push_back(json::Object{{"type", "text"}, {"text", candidate.text}});
  return blocks;
}

json::Value openai_message(const Candidate& candidate) {
  if (candidate.assistant_message.is_object()) return candidate.assistant_message;
  return json::Object{{"role", "assistant"}, {"content", candidate.text}};
}

}  // namespace

json::Value render_pass_back(Api api, const Candidate& candidate, const Usage& usage, std::string_view client_model) {
  if (api == Api::Responses) return responses_api::render_pass_back(candidate, usage, client_model);
  if (api == Api::Anthropic) {
    return json::Object{{"id", candidate.id.empty() ? std::string("msg_weld") : candidate.id},
                        {"type", "message"},
                        {"role", "assistant"},
                        {"model", client_model},
                        {"content", anthropic_content(candidate)},
                        {"stop_reason", "tool_use"},
                        {"stop_sequence", nullptr},
                        {"usage", json::Object{{"input_tokens", usage.input_tokens},
                                               {"output_tokens", usage.output_tokens}}}};
  }
  return json::Object{
      {"id", candidate.id.empty() ? std::string("chatcmpl-weld") : candidate.id},
      {"object", "chat.completion"},
      {"created", unix_now()},
      {"model", client_model},
      {"choices", json::Array{json::Object{{"index", 0},
                                           {"message", openai_message(candidate)},
                                           {"logprobs", nullptr},
                                           {"finish_reason", "tool_calls"}}}},
      {"usage", json::Object{{"prompt_tokens", usage.input_tokens},
                             {"completion_tokens", usage.output_tokens},
                             {"total_tokens", usage.total()}}}};
}

std::string render_pass_back_stream(Api api, const Candidate& candidate, const Usage& usage,
                                    std::string_view client_model, bool include_usage) {
  if (api == Api::Responses) return responses_api::render_pass_back_stream(candidate, usage, client_model);
  std::string out;
  if (api == Api::Anthropic) {
    std::string id = candidate.id.empty() ? std::string("msg_weld") : candidate.id;
    append_event(out, "message_start",
                 json::Object{{"type", "message_start"},
                              {"message", json::Object{{"id", id},
                                                       {"type", "message"},
                                                       {"role", "assistant"},
                                                       {"model", client_model},
                                                       {"content", json::Array{}},
                                                       {"stop_reason", nullptr},
                                                       {"stop_sequence", nullptr},
                                                       {"usage", json::Object{{"input_tokens", usage.input_tokens},
                                                                              {"output_tokens", 0}}}}}});
    json::Value content = anthropic_content(candidate);
    std::int64_t index = 0;
    for (const json::Value& block : content.as_array()) {
      const json::Value* type = block.find("type");
      bool is_tool = type && type->is_string() && type->as_string() == "tool_use";
      json::Value start = block;
      json::Value delta;
      if (is_tool) {
        const json::Value* input = block.find("input");
        start.set("input", json::Object{});
        delta = json::Object{{"type", "input_json_delta"},
                             {"partial_json", input ? json::serialize(*input) : std::string("{}")}};
      } else {
        const json::Value* text = block.find("text");
        start.set("text", "");
        delta = json::Object{{"type", "text_delta"},
                             {"text", text && text->is_string() ? text->as_string() : std::string()}};
      }
      append_event(out, "content_block_start",
                   json::Object{{"type", "content_block_start"}, {"index", index}, {"content_block", start}});
      append_event(out, "content_block_delta",
                   json::Object{{"type", "content_block_delta"}, {"index", index}, {"delta", delta}});
      append_event(out, "content_block_stop", json::Object{{"type", "content_block_stop"}, {"index", index}});
      ++index;
    }
    append_event(out, "message_delta",
                 json::Object{{"type", "message_delta"},
                              {"delta", json::Object{{"stop_reason", "tool_use"}, {"stop_sequence", nullptr}}},
                              {"usage", json::Object{{"output_tokens", usage.output_tokens}}}});
    append_event(out, "message_stop", json::Object{{"type", "message_stop"}});
    return out;
  }
  std::string id = candidate.id.empty() ? std::string("chatcmpl-weld") : candidate.id;
  std::int64_t created = unix_now();
  auto chunk = [&](json::Value delta, json::Value finish) {
    return json::Object{{"id", id},
                        {"object", "chat.completion.chunk"},
                        {"created", created},
                        {"model", client_model},
                        {"choices", json::Array{json::Object{{"index", 0},
                                                             {"delta", std::move(delta)},
                                                             {"logprobs", nullptr},
                                                             {"finish_reason", std::move(finish)}}}}};
  };
  json::Value message = openai_message(candidate);
  json::Value first = json::Object{{"role", "assistant"}};
  const json::Value* text = message.find("content");
  first.set("content", text && text->is_string() ? *text : json::Value(""));
  append_data(out, chunk(std::move(first), nullptr));
  if (const json::Value* calls = message.find("tool_calls"); calls && calls->is_array()) {
    json::Array indexed;
    std::int64_t index = 0;
    for (const json::Value& call : calls->as_array()) {
      json::Value c = call;
      c.set("index", index++);
      indexed.push_back(std::move(c));
    }
    append_data(out, chunk(json::Object{{"tool_calls", std::move(indexed)}}, nullptr));
  }
  append_data(out, chunk(json::Object{}, "tool_calls"));
  if (include_usage) {
    append_data(out, json::Object{{"id", id},
                                  {"object", "chat.completion.chunk"},
                                  {"created", created},
                                  {"model", client_model},
                                  {"choices", json::Array{}},
                                  {"usage", json::Object{{"prompt_tokens", usage.input_tokens},
                                                         {"completion_tokens", usage.output_tokens},
                                                         {"total_tokens", usage.total()}}}});
  }
  out += "data: [DONE]\n\n";
  return out;
}

}  // namespace weld::proxy::filters
