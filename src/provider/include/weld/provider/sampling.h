#pragma once
/// \file
/// Sampling settings (`Sampling`, model.h) in each wire protocol's request
/// body: one table of names per protocol, one writer. A field the protocol
/// has no name for is not sent; `sampling_not_sent` lists those, so that a
/// caller can say so (weld batch warns once per field).
///
/// \code
///   const auto names = weld::provider::sampling_names(weld::provider::Protocol::AnthropicMessages);
///   weld::provider::put_sampling(body, request.sampling, names);   // temperature, top_p, top_k, stop_sequences
/// \endcode

#include <string>
#include <string_view>
#include <vector>

#include "weld/json/value.h"
#include "weld/provider/model.h"
#include "weld/provider/stream_parser.h"

namespace weld::provider {

/// The body member each `Sampling` field is sent as; "" when the protocol
/// has no such field.
struct SamplingNames {
  std::string_view temperature;
  std::string_view top_p;
  std::string_view top_k;
  std::string_view seed;
  std::string_view stop;
  std::string_view presence_penalty;
  std::string_view frequency_penalty;
};

/// The names of `protocol`. `openai_compatible_server`: an OpenAI Chat
/// server other than api.openai.com (vLLM, llama.cpp, SGLang, Ollama), which
/// also reads `top_k`.
SamplingNames sampling_names(Protocol protocol, bool openai_compatible_server = false);

/// Adds the set fields of `sampling` that have a name to `body` (an object).
void put_sampling(json::Value& body, const Sampling& sampling, const SamplingNames& names);

/// `over`'s set fields over `base`'s (a batch line's own over the flags').
Sampling overlay(Sampling base, const Sampling& over);

/// The set fields of `sampling` without a name in `names`, by their
/// neutral names ("seed", "presence_penalty", …).
std::vector<std::string> sampling_not_sent(const Sampling& sampling, const SamplingNames& names);

}  // namespace weld::provider
