// The Model behind both wire protocols: build the request, send it with
// retries, feed the body to the protocol's stream parser, and return the
// complete Response. Every error message is scrubbed of the API key
// (SPEC §2.6, issue 3: "the API key never appears in any output").
#include <memory>
#include <string>

#include "weld/json/serialize.h"
#include "weld/provider/anthropic.h"
#include "weld/provider/config.h"
#include "weld/provider/openai.h"

namespace weld::provider {
namespace {

enum class Wire { OpenAi, Anthropic };

class ParserConsumer : public BodyConsumer {
 public:
  explicit ParserConsumer(StreamParser** parser) : parser_(parser) {}
  Status on_data(std::string_view chunk) override { return (*parser_)->feed(chunk); }

 private:
  StreamParser** parser_;
};

class HttpModel : public Model {
 public:
  HttpModel(Wire wire, ProviderConfig config, std::unique_ptr<Transport> transport, Sleeper sleep)
      : wire_(wire), config_(std::move(config)), transport_(std::move(transport)) {
    context_.transport = transport_.get();
    context_.policy = config_.retry;
    if (sleep) context_.sleep = std::move(sleep);
    context_.secret = config_.api_key;
  }

  std::string provider_name() const override {
    return wire_ == Wire::OpenAi ? "openai" : "anthropic";
  }

  Result<Response> complete(const Request& request, const StreamObserver& observer,
                            CancelToken& cancel) override {
    HttpRequest http = build(request);
    std::unique_ptr<StreamParser> parser;
    StreamParser* current = nullptr;
    ParserConsumer consumer(&current);
    auto new_consumer = [&]() -> BodyConsumer& {
      if (wire_ == Wire::OpenAi) parser = std::make_unique<OpenAiStreamParser>(&observer);
      else parser = std::make_unique<AnthropicStreamParser>(&observer);
      current = parser.get();
      return consumer;
    };
    Status sent = send_with_retries(context_, http, new_consumer, cancel);
    if (!sent) return sent.error();
    if (!parser) return scrub(Error{"protocol", "the server sent no response body", ""}, http);
    Result<Response> response = parser->finish();
    if (!response) return scrub(response.error(), http);
    return response;
  }

 private:
  Error scrub(Error error, const HttpRequest& http) const {
    error.message = redact(error.message + " (" + http.method + " " + http.url + ")", config_.api_key);
    error.where = redact(error.where.empty() ? http.method + " " + http.url : error.where, config_.api_key);
    return error;
  }

  HttpRequest build(const Request& request) const {
    Request effective = request;
    if (effective.model.empty()) effective.model = config_.model;
    HttpRequest http;
    http.connect_timeout = config_.connect_timeout;
    http.idle_timeout = config_.idle_timeout;
    http.headers = {{"Content-Type", "application/json"},
                    {"Accept", "text/event-stream"},
                    {"User-Agent", "weld/0.1.0"}};
    if (wire_ == Wire::OpenAi) {
      http.url = openai_chat_url(config_.base_url);
      if (!config_.api_key.empty()) http.headers.emplace_back("Authorization", "Bearer " + config_.api_key);
      http.body = json::serialize(openai_request_body(effective));
    } else {
      http.url = anthropic_messages_url(config_.base_url);
      if (!config_.api_key.empty()) http.headers.emplace_back("x-api-key", config_.api_key);
      http.headers.emplace_back("anthropic-version", config_.anthropic_version);
      http.body = json::serialize(anthropic_request_body(effective));
    }
    return http;
  }

  Wire wire_;
  ProviderConfig config_;
  std::unique_ptr<Transport> transport_;
  SendContext context_;
};

}  // namespace

Result<std::unique_ptr<Model>> make_model(const ProviderConfig& config, const ModelHooks& hooks) {
  if (config.provider == "offline") {
    if (!hooks.offline)
      return Error{"config", "the offline model is not available in this build", "--provider"};
    return hooks.offline(config);
  }
  Wire wire;
  if (config.provider == "openai") wire = Wire::OpenAi;
  else if (config.provider == "anthropic") wire = Wire::Anthropic;
  else
    return Error{"config",
                 "unknown provider \"" + config.provider + "\" (expected openai, anthropic or offline)",
                 "--provider"};
  std::unique_ptr<Transport> transport =
      hooks.transport ? hooks.transport() : make_curl_transport(config.network);
  return std::unique_ptr<Model>(
      std::make_unique<HttpModel>(wire, config, std::move(transport), hooks.sleep));
}

}  // namespace weld::provider
