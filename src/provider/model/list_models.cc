// GET /v1/models (docs/run.md, "Pointing weld at a model"): both OpenAI-compatible servers
// (vLLM, llama.cpp, Ollama, SGLang, OpenAI) and Anthropic's API answer
// {"data":[{"id":…},…]}; only the ids are read.

#include "weld/provider/list_models.h"

#include "weld/json/parse.h"
#include "weld/provider/anthropic.h"

namespace weld::provider {
namespace {

// Collects a 2xx body, bounded: a models list is small.
class BodyCollector : public BodyConsumer {
 public:
  static constexpr std::size_t kMaxBody = 4u << 20;

  Status on_data(std::string_view chunk) override {
    if (body_.size() + chunk.size() > kMaxBody)
      return Error{ErrorCode::Protocol, "the models list is larger than 4 MiB", ""};
    body_.append(chunk);
    return Ok{};
  }
  std::string body_;
};

}  // namespace

std::string models_url(const ProviderConfig& config) {
  if (config.provider == Provider::Anthropic) return anthropic_url(config.base_url, "models");
  return url_with_path(config.base_url, "models");
}

Result<std::vector<std::string>> parse_models_list(std::string_view body) {
  Result<json::Value> doc = json::parse(body);
  const json::Value* data = doc ? doc->find("data") : nullptr;
  if (data == nullptr || !data->is_array())
    return Error{ErrorCode::Protocol, "the answer is not a models list (no \"data\" array)", ""};
  std::vector<std::string> ids;
  for (const json::Value& entry : data->as_array()) {
    const json::Value* id = entry.find("id");
    if (id == nullptr || !id->is_string())
      return Error{ErrorCode::Protocol, "the answer is not a models list (an entry has no string \"id\")", ""};
    ids.push_back(id->as_string());
  }
  return ids;
}

Result<std::vector<std::string>> list_models(const ProviderConfig& config, CancelToken& cancel,
                                             std::unique_ptr<Transport> transport) {
  if (!transport) transport = make_curl_transport(config.network);
  SendContext context;
  context.transport = transport.get();
  context.policy = config.retry;
  context.secret = config.api_key;
  HttpRequest request;
  request.method = "GET";
  request.url = models_url(config);
  request.connect_timeout = config.connect_timeout;
  request.idle_timeout = config.idle_timeout;
  request.headers = {{"Accept", "application/json"}, {"User-Agent", "weld/0.1.0"}};
  if (config.provider == Provider::Anthropic && !config.bearer_auth) {
    if (!config.api_key.empty()) request.headers.emplace_back("x-api-key", config.api_key);
    request.headers.emplace_back("anthropic-version", config.anthropic_version);
  } else {
    if (!config.api_key.empty()) request.headers.emplace_back("Authorization", "Bearer " + config.api_key);
    if (config.provider == Provider::Anthropic) request.headers.emplace_back("anthropic-version", config.anthropic_version);
  }
  BodyCollector collector;
  Status sent = send_with_retries(
      context, request, [&]() -> BodyConsumer& { collector = {}; return collector; }, cancel);
  if (!sent) return sent.error();
  Result<std::vector<std::string>> ids = parse_models_list(collector.body_);
  const std::string shown = "GET " + url_for_messages(request.url);
  if (!ids) return Error{ErrorCode::Protocol, ids.error().message + " (" + shown + ")", shown};
  return ids;
}

}  // namespace weld::provider
