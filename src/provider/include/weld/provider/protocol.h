#pragma once
/// \file
/// The wire protocols weld speaks (docs/protocols.md): one reader and one
/// writer each (`Codec`, codec.h).

#include <cstddef>

namespace weld::provider {

/// The wire protocols weld speaks.
enum class Protocol {
  OpenAiChat,         ///< POST /v1/chat/completions (OpenAI, vLLM, llama.cpp, Ollama, SGLang)
  AnthropicMessages,  ///< POST /v1/messages
  OpenAiResponses,    ///< POST /v1/responses
  /// POST /v1beta/models/{model}:streamGenerateContent (Google Gemini): a
  /// codec with its reader and writer, not yet offered by the run, the proxy
  /// or the batch.
  GeminiGenerateContent,
};

/// How many protocols there are (for tables indexed by protocol).
inline constexpr std::size_t kProtocolCount = 4;

}  // namespace weld::provider
