// MCP over Streamable HTTP (MCP 2025-06-18 "Transports"; docs/run.md, "MCP servers"): every
// JSON-RPC message is POSTed to the server's one endpoint with
// `Accept: application/json, text/event-stream`; the server answers a
// request with one JSON body or with an SSE stream that carries the response
// (and may carry its own requests and notifications first), and a
// notification with 202. `Mcp-Session-Id` from the initialize answer and
// `MCP-Protocol-Version` go with every later message; stop() ends the
// session with DELETE. The bytes travel through the provider's HTTP
// transport and SSE decoder (no second HTTP client or SSE reader in weld).

#include <atomic>
#include <functional>
#include <mutex>

#include "connection.h"
#include "weld/agent/subprocess.h"
#include "weld/base/ascii.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/provider/http.h"
#include "weld/provider/sse.h"

namespace weld::agent {
namespace {

constexpr std::size_t kMaxBody = 64u << 20;
// Most requests of its own a server may make while answering one call
// (pings): each is answered as it comes, and a server that keeps asking
// (100,000 pings) has its call abandoned instead of holding the run.
constexpr std::size_t kMaxServerRequests = 256;

// What a reader does with a request the server makes inside its answer.
using ServerRequestHandler = std::function<Status(const JsonRpcMessage&)>;

// Reads one POST's answer: a JSON body, or an SSE stream of JSON-RPC
// messages. Keeps the response to `id`; hands each server request to
// `on_request` as it arrives (an error stops the transfer).
class AnswerReader : public provider::BodyConsumer {
 public:
  AnswerReader(std::optional<std::int64_t> id, McpConnection::Clock::time_point deadline,
               ServerRequestHandler on_request = {})
      : id_(id), deadline_(deadline), on_request_(std::move(on_request)) {}

  void on_start(const provider::HttpHeaders& headers) override {
    const std::string* type = provider::find_header(headers, "content-type");
    sse_ = type != nullptr && ascii_lower(*type).find("text/event-stream") != std::string::npos;
    if (const std::string* session = provider::find_header(headers, "mcp-session-id")) session_id_ = *session;
  }

  Status on_data(std::string_view chunk) override {
    if (McpConnection::Clock::now() >= deadline_) return Error{ErrorCode::Timeout, "timed out", ""};
    if (!sse_) {
      if (body_.size() + chunk.size() > kMaxBody) return Error{ErrorCode::Mcp, "sent an answer larger than 64 MiB", ""};
      body_.append(chunk);
      return Ok{};
    }
    events_.clear();
    if (Status fed = decoder_.feed(chunk, events_); !fed) return Error{ErrorCode::Mcp, fed.error().message, ""};
    for (const provider::SseEvent& event : events_) {
      if (event.data.empty()) continue;
      take(parse_jsonrpc_message(event.data));
      if (failed_) return *failed_;
      if (response_) return Error{ErrorCode::Answered, "", ""};
    }
    return Ok{};
  }

  /// After the transfer: the JSON body (if not SSE) is read here.
  Status finish() {
    if (sse_ || body_.empty()) return Ok{};
    take(parse_jsonrpc_message(body_));
    if (failed_) return *failed_;
    return Ok{};
  }

  std::optional<JsonRpcMessage> response_;
  std::string session_id_;
  std::string invalid_;

 private:
  void take(JsonRpcMessage message) {
    switch (message.kind) {
      case JsonRpcMessage::Kind::Response:
        if (id_ && message.id.is_integer() && message.id.as_integer() == *id_) response_ = std::move(message);
        break;
      case JsonRpcMessage::Kind::Request:
        if (on_request_ && !failed_) {
          if (Status answered = on_request_(message); !answered) failed_ = answered.error();
        }
        break;
      case JsonRpcMessage::Kind::Notification:
        break;  // progress, logging, list_changed: nothing a run needs
      case JsonRpcMessage::Kind::Invalid:
        invalid_ = message.problem;
        break;
    }
  }

  std::optional<std::int64_t> id_;
  McpConnection::Clock::time_point deadline_;
  ServerRequestHandler on_request_;
  std::optional<Error> failed_;
  bool sse_ = false;
  std::string body_;
  provider::SseDecoder decoder_;
  std::vector<provider::SseEvent> events_;
};

class McpHttpClient : public McpConnection {
 public:
  explicit McpHttpClient(McpServerConfig config)
      : config_(std::move(config)), transport_(provider::make_curl_transport({})) {
    // The value of an Authorization header is the secret to keep out of
    // messages (the transport's own error texts may quote the request), of
    // tool results and of children, in any letter case.
    for (const auto& [key, value] : config_.headers) {
      if (ascii_iequals(key, "authorization")) secret_ = value.substr(value.find(' ') == std::string::npos ? 0 : value.find(' ') + 1);
    }
    protect_secret(secret_);
  }
  ~McpHttpClient() override { stop(); }

  const McpServerConfig& config() const override { return config_; }

  Result<json::Value> request(const std::string& method, json::Value params, Clock::time_point deadline,
                              const provider::CancelToken* cancel) override {
    std::lock_guard lock(mutex_);  // one exchange at a time over one transport
    if (stopped_) return Error{ErrorCode::Mcp, "the connection was closed", ""};
    const std::int64_t id = next_id_++;
    json::Value message = json::Object{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
    Result<std::optional<JsonRpcMessage>> answer = post(message, id, deadline, cancel);
    if (!answer) return answer.error();
    Result<json::Value> result = response_result(std::move(**answer), method);
    if (result && method == "initialize") {
      if (const json::Value* version = result->find("protocolVersion"); version && version->is_string())
        protocol_version_ = version->as_string();
    }
    return result;
  }

  Status notify(const std::string& method) override {
    std::lock_guard lock(mutex_);
    if (stopped_) return Error{ErrorCode::Mcp, "the connection was closed", ""};
    Result<std::optional<JsonRpcMessage>> sent =
        post(json::Object{{"jsonrpc", "2.0"}, {"method", method}}, std::nullopt,
             Clock::now() + config_.startup_timeout, nullptr);
    if (!sent) return sent.error();
    return Ok{};
  }

  void stop() override {
    if (stopped_.exchange(true)) return;
    // A request in flight holds the lock and ends with the run's cancel
    // token; the session then simply expires (never block a signal's exit).
    std::unique_lock lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock() || session_id_.empty()) return;
    // Ends the session (the server may answer 405: it keeps sessions until
    // they expire). Best effort, briefly.
    provider::HttpRequest request = base_request("DELETE", Clock::now() + std::chrono::seconds(2));
    AnswerReader ignored(std::nullopt, Clock::now() + std::chrono::seconds(2));
    provider::SendContext context = send_context();
    provider::CancelToken never;
    (void)provider::send_with_retries(context, request, [&]() -> provider::BodyConsumer& { return ignored; }, never);
  }

 private:
  provider::SendContext send_context() const {
    provider::SendContext context;
    context.transport = transport_.get();
    context.policy.max_retries = 0;  // a tools/call is not idempotent
    context.secret = secret_;
    return context;
  }

  provider::HttpRequest base_request(std::string method, Clock::time_point deadline) const {
    provider::HttpRequest request;
    request.method = std::move(method);
    request.url = config_.url;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left < std::chrono::milliseconds(1)) left = std::chrono::milliseconds(1);
    request.connect_timeout = std::min(left, std::chrono::milliseconds(10'000));
    request.idle_timeout = left;
    request.headers = {{"Accept", "application/json, text/event-stream"}, {"User-Agent", "weld/0.1.0"}};
    for (const auto& header : config_.headers) request.headers.push_back(header);
    if (!session_id_.empty()) request.headers.emplace_back("Mcp-Session-Id", session_id_);
    if (!protocol_version_.empty()) request.headers.emplace_back("MCP-Protocol-Version", protocol_version_);
    return request;
  }

  // POSTs `message`; with an `id`, returns the response to it (nullopt when
  // the server answered without one, e.g. 202 to a request).
  Result<std::optional<JsonRpcMessage>> post(const json::Value& message, std::optional<std::int64_t> id,
                                             Clock::time_point deadline, const provider::CancelToken* cancel) {
    provider::HttpRequest request = base_request("POST", deadline);
    request.headers.emplace_back("Content-Type", "application/json");
    request.body = json::serialize(message);
    provider::CancelToken local;
    // The transport only reads the flag; the run's token is not const.
    provider::CancelToken& token = cancel != nullptr ? const_cast<provider::CancelToken&>(*cancel) : local;
    // Requests the server makes while answering (ping) are answered as they
    // come, over a second connection, within the call's deadline: a server
    // that waits for the answer before it goes on must get it now, not
    // after a response that would never come.
    std::size_t server_requests = 0;
    const AnswerReader* reading = nullptr;
    auto answer = [&](const JsonRpcMessage& server_request) -> Status {
      if (reading != nullptr && !reading->session_id_.empty()) session_id_ = reading->session_id_;
      if (++server_requests > kMaxServerRequests) {
        return Error{ErrorCode::Mcp,
                     "made more than " + std::to_string(kMaxServerRequests) +
                         " requests of its own while answering one call; the call was abandoned",
                     ""};
      }
      if (Clock::now() >= deadline) return Error{ErrorCode::Timeout, "timed out", ""};
      provider::HttpRequest reply = base_request("POST", deadline);
      reply.headers.emplace_back("Content-Type", "application/json");
      reply.body = json::serialize(reply_to_server_request(server_request));
      if (!replies_) replies_ = provider::make_curl_transport({});
      provider::SendContext context = send_context();
      context.transport = replies_.get();
      AnswerReader ignored(std::nullopt, deadline);
      (void)provider::send_with_retries(context, reply, [&]() -> provider::BodyConsumer& { return ignored; }, token);
      return Ok{};
    };
    AnswerReader reader(id, deadline, answer);
    reading = &reader;
    Status sent = provider::send_with_retries(
        send_context(), request, [&]() -> provider::BodyConsumer& { return reader; }, token);
    if (!sent && sent.error().code != ErrorCode::Answered) return failure(sent.error());
    if (Status read = reader.finish(); !read) return failure(read.error());
    if (!reader.session_id_.empty()) session_id_ = reader.session_id_;
    if (reader.response_ || !id) return std::move(reader.response_);
    if (!reader.invalid_.empty()) return Error{ErrorCode::Mcp, "sent a message that is not JSON-RPC: " + reader.invalid_, ""};
    // The spec lets a server answer on a later stream, which weld does not
    // open (no GET stream): say so rather than wait.
    return Error{ErrorCode::Mcp, "ended its answer without the JSON-RPC response", ""};
  }

  Error failure(const Error& error) const {
    if (error.code == ErrorCode::Cancelled) return Error{ErrorCode::Cancelled, "Operation cancelled.", ""};
    if (error.code == ErrorCode::Timeout) return Error{ErrorCode::Timeout, error.message, ""};
    std::string text = error.message;
    // send_with_retries words a 401/403 for model providers.
    const std::string provider_words = "the provider refused the credentials: ";
    if (text.rfind(provider_words, 0) == 0) text = "the server refused the credentials: " + text.substr(provider_words.size());
    return Error{ErrorCode::Mcp, text, ""};
  }

  McpServerConfig config_;
  std::unique_ptr<provider::Transport> transport_;
  // Replies to the server's own requests, sent while `transport_` streams.
  std::unique_ptr<provider::Transport> replies_;
  std::string secret_;
  std::mutex mutex_;
  std::atomic<bool> stopped_{false};
  std::int64_t next_id_ = 1;
  std::string session_id_;
  std::string protocol_version_;
};

}  // namespace

std::shared_ptr<McpConnection> make_http_connection(McpServerConfig config) {
  return std::make_shared<McpHttpClient>(std::move(config));
}

}  // namespace weld::agent
