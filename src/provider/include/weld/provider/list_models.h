#pragma once
/// \file
/// `GET /v1/models`: the models a server says it serves. The run asks it
/// when a base URL is given without a model (docs/run.md, "Pointing weld at a model": a local vLLM or
/// llama.cpp serves one model, and guessing a hosted default gets a 404).
///
/// \code
///   weld::provider::CancelToken cancel;
///   auto ids = weld::provider::list_models(config, cancel);
///   if (ids && ids->size() == 1) config.model = ids->front();
/// \endcode

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "weld/base/result.h"
#include "weld/provider/config.h"
#include "weld/provider/http.h"

namespace weld::provider {

/// The models URL of a configuration: `{base}/models` for OpenAI-compatible
/// servers, `{host}/v1/models` for Anthropic's API.
std::string models_url(const ProviderConfig& config);

/// The `id`s of the `data` array of a models list body, in order. An Error
/// (code "protocol") when the body is not such a list.
Result<std::vector<std::string>> parse_models_list(std::string_view body);

/// Asks the server for its models (with the configuration's key, timeouts
/// and retries). `transport` replaces libcurl in tests. Errors are those of
/// send_with_retries, or "protocol" for a body that is not a models list.
Result<std::vector<std::string>> list_models(const ProviderConfig& config, CancelToken& cancel,
                                             std::unique_ptr<Transport> transport = nullptr);

}  // namespace weld::provider
