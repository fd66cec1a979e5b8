// Sampling fields per wire protocol (sampling.h): OpenAI Chat has them all
// but top_k (which OpenAI-compatible servers read too), Anthropic Messages
// has temperature, top_p, top_k and stop_sequences, the Responses API
// temperature and top_p. The token limit is not here: every protocol has
// one, and the request builders send it (Request::max_tokens).

#include "weld/provider/sampling.h"

namespace weld::provider {

SamplingNames sampling_names(Protocol protocol, bool openai_compatible_server) {
  switch (protocol) {
    case Protocol::OpenAiChat:
      return {.temperature = "temperature",
              .top_p = "top_p",
              .top_k = openai_compatible_server ? "top_k" : "",
              .seed = "seed",
              .stop = "stop",
              .presence_penalty = "presence_penalty",
              .frequency_penalty = "frequency_penalty"};
    case Protocol::AnthropicMessages:
      return {.temperature = "temperature", .top_p = "top_p", .top_k = "top_k", .stop = "stop_sequences"};
    case Protocol::OpenAiResponses: return {.temperature = "temperature", .top_p = "top_p"};
    // In `generationConfig`.
    case Protocol::GeminiGenerateContent:
      return {.temperature = "temperature",
              .top_p = "topP",
              .top_k = "topK",
              .seed = "seed",
              .stop = "stopSequences",
              .presence_penalty = "presencePenalty",
              .frequency_penalty = "frequencyPenalty"};
  }
  return {};
}

namespace {

// Calls `visit(neutral name, body name, value)` for each set field.
template <typename Visit>
void each_set(const Sampling& s, const SamplingNames& names, Visit visit) {
  if (s.temperature) visit("temperature", names.temperature, json::Value(*s.temperature));
  if (s.top_p) visit("top_p", names.top_p, json::Value(*s.top_p));
  if (s.top_k) visit("top_k", names.top_k, json::Value(*s.top_k));
  if (s.seed) visit("seed", names.seed, json::Value(*s.seed));
  if (!s.stop.empty()) {
    json::Array stop;
    for (const std::string& text : s.stop) stop.emplace_back(text);
    visit("stop", names.stop, json::Value(std::move(stop)));
  }
  if (s.presence_penalty) visit("presence_penalty", names.presence_penalty, json::Value(*s.presence_penalty));
  if (s.frequency_penalty) visit("frequency_penalty", names.frequency_penalty, json::Value(*s.frequency_penalty));
}

}  // namespace

void put_sampling(json::Value& body, const Sampling& sampling, const SamplingNames& names) {
  each_set(sampling, names, [&](std::string_view, std::string_view name, json::Value value) {
    if (!name.empty()) body.set(name, std::move(value));
  });
}

Sampling overlay(Sampling base, const Sampling& over) {
  if (over.temperature) base.temperature = over.temperature;
  if (over.top_p) base.top_p = over.top_p;
  if (over.top_k) base.top_k = over.top_k;
  if (over.seed) base.seed = over.seed;
  if (!over.stop.empty()) base.stop = over.stop;
  if (over.presence_penalty) base.presence_penalty = over.presence_penalty;
  if (over.frequency_penalty) base.frequency_penalty = over.frequency_penalty;
  return base;
}

std::vector<std::string> sampling_not_sent(const Sampling& sampling, const SamplingNames& names) {
  std::vector<std::string> out;
  each_set(sampling, names, [&](std::string_view neutral, std::string_view name, const json::Value&) {
    if (name.empty()) out.emplace_back(neutral);
  });
  return out;
}

}  // namespace weld::provider
