#pragma once
// A stand-in for a model server in unit tests of the run loop: answers each
// request with the next scripted response and records what it was sent.
// (The model is outside our control; the loop is what is tested.)

#include <functional>
#include <utility>
#include <vector>

#include "weld/provider/model.h"

namespace weld::agent::testing {

inline provider::ToolCall call(std::string id, std::string name, std::string arguments) {
  return {std::move(id), std::move(name), std::move(arguments)};
}

inline provider::Response answer(std::string text, std::vector<provider::ToolCall> calls = {}) {
  provider::Response r;
  r.message.role = provider::Role::Assistant;
  r.message.text = std::move(text);
  r.message.tool_calls = std::move(calls);
  r.stop_reason = r.message.tool_calls.empty() ? "end_turn" : "tool_use";
  r.usage.input_tokens = 10;
  r.usage.output_tokens = 5;
  r.id = "msg_test";
  return r;
}

class ScriptedModel : public provider::Model {
 public:
  using Step = std::function<Result<provider::Response>(const provider::Request&, provider::CancelToken&)>;

  void push(provider::Response response) {
    steps_.push_back([response](const provider::Request&, provider::CancelToken&) -> Result<provider::Response> {
      return response;
    });
  }
  void push_error(ErrorCode code, std::string message) {
    steps_.push_back([code, message](const provider::Request&, provider::CancelToken&) -> Result<provider::Response> {
      return Error{code, message, ""};
    });
  }
  void push_step(Step step) { steps_.push_back(std::move(step)); }
  /// Repeat the last step forever.
  void repeat_last() { repeat_ = true; }

  Result<provider::Response> complete(const provider::Request& request, const provider::StreamObserver& observer,
                                      provider::CancelToken& cancel) override {
    requests.push_back(request);
    if (observer.on_event) observer.on_event(json::Object{{"type", "ping"}});
    if (next_ >= steps_.size()) {
      if (repeat_ && !steps_.empty()) return steps_.back()(request, cancel);
      return Error{ErrorCode::Http, "script exhausted", ""};
    }
    return steps_[next_++](request, cancel);
  }
  std::string provider_name() const override { return "scripted"; }

  std::vector<provider::Request> requests;

 private:
  std::vector<Step> steps_;
  std::size_t next_ = 0;
  bool repeat_ = false;
};

}  // namespace weld::agent::testing
