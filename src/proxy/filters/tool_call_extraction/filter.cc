// tool_call_extraction (SPEC §3.3 step 3).

#include "filters/tool_call_extraction/filter.h"

#include <optional>

#include "filters/reply.h"

namespace weld::proxy::filters {
namespace {

// The message of an in-stream error event, if `event` is one:
// Anthropic {"type":"error","error":{…}}, OpenAI {"error":{…}}.
std::optional<std::string> stream_error_message(const json::Value& event) {
  const json::Value* error = event.find("error");
  if (error == nullptr) return std::nullopt;
  const json::Value* type = event.find("type");
  if (type != nullptr && !(type->is_string() && type->as_string() == "error")) return std::nullopt;
  if (const json::Value* message = error->find("message"); message != nullptr && message->is_string()) {
    return message->as_string();
  }
  return std::string("upstream sent an error event");
}

class ToolCallExtraction final : public Filter {
 public:
  FilterAction on_response_event(Exchange& ex, const json::Value& event) override {
    if (!reader_ || reader_attempt_ != ex.attempts) {
      reader_.emplace(ex.api, ex.agent->name);
      reader_attempt_ = ex.attempts;
    }
    if (auto message = stream_error_message(event)) {
      return reply_error(ex, Outcome::UpstreamError, 502, upstream_error_type(ex.api), "upstream error: " + *message);
    }
    if (!reader_->feed(event)) {
      return reply_error(ex, Outcome::UpstreamError, 502, upstream_error_type(ex.api),
                         "upstream sent a malformed stream event: " + reader_->error());
    }
    return FilterAction::Continue;
  }

  FilterAction on_response_end(Exchange& ex) override {
    if (ex.upstream_sse) {
      if (!reader_ || reader_attempt_ != ex.attempts || !reader_->finished()) {
        return reply_error(ex, Outcome::UpstreamError, 502, upstream_error_type(ex.api),
                           "upstream stream ended before the answer was complete");
      }
      ex.candidate = reader_->candidate();
    } else {
      if (auto message = stream_error_message(ex.upstream_json)) {
        return reply_error(ex, Outcome::UpstreamError, 502, upstream_error_type(ex.api), "upstream error: " + *message);
      }
      ex.candidate = read_response(ex.api, ex.upstream_json, ex.agent->name);
    }
    ex.usage.add(ex.candidate.usage);  // saturating: summed over attempts
    return FilterAction::Continue;
  }

 private:
  std::optional<StreamReader> reader_;
  int reader_attempt_ = -1;
};

}  // namespace

std::unique_ptr<Filter> make_tool_call_extraction() { return std::make_unique<ToolCallExtraction>(); }

}  // namespace weld::proxy::filters
