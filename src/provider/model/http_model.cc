// The Model behind the three wire protocols: build the request, send it with
// retries, feed the body to the protocol's stream parser, and return the
// complete Response. Every error message is scrubbed of the API key
// (docs/design.md, "Privacy": the API key never appears in any output).
#include <memory>
#include <string>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/provider/anthropic.h"
#include "weld/provider/config.h"
#include "weld/provider/openai.h"
#include "weld/provider/responses.h"
#include "weld/provider/sampling.h"

namespace weld::provider {
namespace {

// Feeds an SSE body to the protocol's stream parser. A server that ignores
// `stream:true` and answers with plain JSON (some proxies and older
// compatible servers do) gets its body buffered and converted whole.
class ParserConsumer : public BodyConsumer {
 public:
  static constexpr std::size_t kMaxJsonBody = 64u << 20;

  void reset(StreamParser* parser) {
    parser_ = parser;
    json_mode_ = false;
    json_body_.clear();
    response_.reset();
  }
  void on_start(const HttpHeaders& headers) override {
    const std::string* type = find_header(headers, "content-type");
    json_mode_ = type && type->find("json") != std::string::npos &&
                 type->find("event-stream") == std::string::npos;
  }
  Status on_data(std::string_view chunk) override {
    if (!json_mode_) return parser_->feed(chunk);
    if (json_body_.size() + chunk.size() > kMaxJsonBody)
      return Error{ErrorCode::Protocol, "the JSON response is larger than 64 MiB", ""};
    json_body_.append(chunk);
    return Ok{};
  }
  // The stream is judged inside the retry loop, so that one cut before its
  // terminal event is sent again like after a 5xx (docs/protocols.md).
  Status on_end() override {
    if (json_mode_) return Ok{};
    response_.emplace(parser_->finish());
    if (!*response_) return response_->error();
    return Ok{};
  }
  bool complete() const override { return !json_mode_ && parser_ != nullptr && parser_->ended(); }
  bool json_mode() const { return json_mode_; }
  const std::string& json_body() const { return json_body_; }
  /// The stream's response once on_end ran.
  std::optional<Result<Response>>& response() { return response_; }

 private:
  StreamParser* parser_ = nullptr;
  bool json_mode_ = false;
  std::string json_body_;
  std::optional<Result<Response>> response_;
};

class HttpModel : public Model {
 public:
  HttpModel(Protocol protocol, ProviderConfig config, std::unique_ptr<Transport> transport, Sleeper sleep)
      : protocol_(protocol), config_(std::move(config)), transport_(std::move(transport)) {
    context_.transport = transport_.get();
    context_.policy = config_.retry;
    if (sleep) context_.sleep = std::move(sleep);
    context_.secret = config_.api_key;
  }

  std::string provider_name() const override { return std::string(provider::provider_name(config_.provider)); }
  std::optional<Protocol> protocol() const override { return protocol_; }

  std::vector<std::string> sampling_not_sent(const Sampling& sampling) const override {
    const bool compatible = protocol_ == Protocol::OpenAiChat && openai_dialect_for(config_.base_url).top_k;
    return provider::sampling_not_sent(sampling, sampling_names(protocol_, compatible));
  }

  Result<Response> complete(const Request& request, const StreamObserver& observer,
                            CancelToken& cancel) override {
    HttpRequest http = build(request);
    std::unique_ptr<StreamParser> parser;
    ParserConsumer consumer;
    // Counts the events this attempt showed the observer: when an attempt
    // that showed some is sent again, the observer is told to forget them.
    std::size_t events_shown = 0;
    StreamObserver counted = observer;
    counted.on_event = [&](const json::Value& event) {
      ++events_shown;
      if (observer.on_event) observer.on_event(event);
    };
    auto new_consumer = [&]() -> BodyConsumer& {
      if (events_shown > 0 && observer.on_restart) observer.on_restart();
      events_shown = 0;
      parser = make_stream_parser(protocol_, &counted);
      consumer.reset(parser.get());
      return consumer;
    };
    Status sent = send_with_retries(context_, http, new_consumer, cancel);
    if (!sent) return sent.error();
    if (!parser) return scrub(Error{ErrorCode::Protocol, "the server sent no response body", ""}, http);
    if (consumer.json_mode()) {
      auto body = json::parse(consumer.json_body());
      if (!body)
        return scrub(Error{ErrorCode::Protocol, "the JSON response is malformed: " + body.error().message + " at " +
                                           body.error().where, ""},
                     http);
      if (observer.on_event) observer.on_event(*body);
      Result<Response> response = response_from_json(protocol_, *body);
      if (!response) return scrub(response.error(), http);
      return response;
    }
    if (!consumer.response()) return scrub(Error{ErrorCode::Protocol, "the response stream was not read to its end", ""}, http);
    Result<Response> response = std::move(*consumer.response());
    if (!response) return scrub(response.error(), http);
    return response;
  }

 private:
  Error scrub(Error error, const HttpRequest& http) const {
    const std::string where = http.method + " " + url_for_messages(http.url);
    error.message = redact(error.message + " (" + where + ")", config_.api_key);
    error.where = redact(error.where.empty() ? where : error.where, config_.api_key);
    return error;
  }

  HttpRequest build(const Request& request) const {
    // A copy (schema and all) only when the request names no model.
    std::optional<Request> defaulted;
    if (request.model.empty()) {
      defaulted = request;
      defaulted->model = config_.model;
    }
    const Request& effective = defaulted ? *defaulted : request;
    HttpRequest http;
    http.connect_timeout = config_.connect_timeout;
    http.idle_timeout = config_.idle_timeout;
    http.max_response_bytes = config_.max_response_bytes;
    http.max_response_bytes_setting = config_.names.max_response_bytes;
    http.headers = {{"Content-Type", "application/json"},
                    {"Accept", "text/event-stream"},
                    {"User-Agent", "weld/0.1.0"}};
    if (protocol_ == Protocol::OpenAiResponses) {
      http.url = responses_url(config_.base_url);
      if (!config_.api_key.empty()) http.headers.emplace_back("Authorization", "Bearer " + config_.api_key);
      http.body = json::serialize(responses_request_body(effective));
    } else if (protocol_ == Protocol::OpenAiChat) {
      http.url = openai_chat_url(config_.base_url);
      if (!config_.api_key.empty()) http.headers.emplace_back("Authorization", "Bearer " + config_.api_key);
      http.body = json::serialize(openai_request_body(effective, openai_dialect_for(config_.base_url)));
    } else {
      http.url = anthropic_messages_url(config_.base_url);
      if (!config_.api_key.empty()) {
        if (config_.bearer_auth) http.headers.emplace_back("Authorization", "Bearer " + config_.api_key);
        else http.headers.emplace_back("x-api-key", config_.api_key);
      }
      http.headers.emplace_back("anthropic-version", config_.anthropic_version);
      http.body = json::serialize(anthropic_request_body(effective));
    }
    return http;
  }

  Protocol protocol_;
  ProviderConfig config_;
  std::unique_ptr<Transport> transport_;
  SendContext context_;
};

}  // namespace

Result<std::unique_ptr<Model>> make_model(const ProviderConfig& config, const ModelHooks& hooks) {
  const std::optional<Protocol> protocol = provider_protocol(config.provider);
  if (!protocol) {
    if (!hooks.offline)
      return Error{ErrorCode::Config, "the offline model is not available in this build",
                   std::string(config.names.provider)};
    return hooks.offline(config);
  }
  std::unique_ptr<Transport> transport =
      hooks.transport ? hooks.transport() : make_curl_transport(config.network);
  if (hooks.wrap_transport) transport = hooks.wrap_transport(std::move(transport));
  return std::unique_ptr<Model>(
      std::make_unique<HttpModel>(*protocol, config, std::move(transport), hooks.sleep));
}

}  // namespace weld::provider
