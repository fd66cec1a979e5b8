// A client connection's request loop: read, dispatch, log.

#include "session.h"

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/proxy/tag_scan.h"
#include "weld/proxy/weld.h"

namespace weld::proxy {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Removes `__schema=<agent>` from the top-level model of a JSON body, in
// place; leaves anything else (and unparsable bodies) untouched.
void strip_model_suffix(ClientRequest& req) {
  Result<json::Value> body = json::parse(req.body());
  if (!body || !body->is_object()) return;
  json::Value* model = body->find("model");
  if (model == nullptr || !model->is_string()) return;
  auto tag = parse_model_tag(model->as_string());
  if (!tag) return;
  *model = json::Value(tag->base_model);
  req.body() = json::serialize(*body);
}

}  // namespace

Session::Session(Worker& worker, tcp::socket socket)
    : worker_(worker), shared_(worker.shared), trace_(shared_.config.telemetry), client_(worker, std::move(socket)),
      upstream_(worker, client_, trace_), local_(shared_, client_, upstream_),
      relay_(shared_, client_, upstream_, trace_), tagged_(worker, client_, upstream_, relay_, trace_) {
  worker_.sessions.insert(this);
}

Session::~Session() { worker_.sessions.erase(this); }

awaitable<void> Session::run() {
  bool refused = false;
  for (;;) {
    if (!co_await client_.wait_for_request()) break;
    path_.clear();
    RequestLog log;
    ClientRequest req;
    const ClientConnection::ReadResult read = co_await client_.read_request(req, log);
    if (read == ClientConnection::ReadResult::Gone) break;
    if (read == ClientConnection::ReadResult::Refused) {
      write_log(log);
      refused = true;
      break;
    }
    path_ = log.path;
    current_log_ = &log;
    shared_.metrics.request_started();
    if (trace_.active()) trace_.start(req.method_string(), log.path, req["traceparent"]);
    try {
      co_await handle(req, log);
    } catch (const std::exception& e) {
      // Never reached by design (the data plane returns errors as values);
      // a bug must cost one request, not the worker.
      client_.end_keep_alive();
      shared_.log(json::serialize(json::Object{{"event", "internal_error"}, {"error", e.what()}}));
    }
    current_log_ = nullptr;
    shared_.metrics.request_finished();
    write_log(log);
    trace_.finish(log);
    if (!client_.keep_alive() || worker_.stopping || !client_.is_open()) break;
  }
  if (refused) co_await client_.linger();
  client_.close();
}

awaitable<void> Session::handle(ClientRequest& req, RequestLog& log) {
  const http::verb method = req.method();
  if (std::optional<LocalEndpoints::Endpoint> local = LocalEndpoints::match(method, log.path)) {
    co_await local_.serve(*local, log);
    co_return;
  }
  if (method == http::verb::post) {
    const std::optional<Protocol> api = provider::protocol_of_path(log.path);
    if (api) {
      std::string_view agent_header = req["X-Agent-Name"];
      if (!agent_header.empty() || may_be_suffix_tagged(req.body())) {
        co_await tagged_.run(req, *api, agent_header, log);
        co_return;
      }
    } else if (may_be_suffix_tagged(req.body())) {
      // Other model calls of a tagged client (e.g. /v1/messages/count_tokens
      // from Claude Code): the upstream must not see the suffix (docs/proxy.md, "Tagging a request").
      strip_model_suffix(req);
    }
  }
  co_await relay_.run(req, log);
}

void Session::abandon() {
  if (client_.idle() || client_.gone() || !client_.is_open()) return;
  if (client_.abandon(path_) && current_log_ != nullptr) {
    current_log_->status = 503;
    current_log_->outcome = Outcome::ShuttingDown;
  }
  // The request's coroutine never resumes: its log line is written here.
  if (current_log_ != nullptr) write_log(*current_log_);
  current_log_ = nullptr;
}

void Session::write_log(const RequestLog& log) {
  double total = seconds_since(log.start);
  if (log.attempts > 0) {
    shared_.metrics.observe_upstream(log.upstream_seconds);
    shared_.metrics.observe_added(std::max(0.0, total - log.upstream_seconds));
  }
  shared_.metrics.record_request(log.agent, log.outcome);
  if (!shared_.config.log || !shared_.config.access_log) return;
  std::string line;
  line.reserve(256);
  line += "{\"time\":\"";
  line += utc_timestamp();
  line += "\",\"method\":";
  json::write_string(line, log.method);
  line += ",\"path\":";
  json::write_string(line, log.path);
  line += ",\"agent\":";
  if (log.agent.empty()) {
    line += "null";
  } else {
    json::write_string(line, log.agent);
  }
  line += ",\"status\":" + std::to_string(log.status);
  line += ",\"outcome\":";
  json::write_string(line, outcome_name(log.outcome));
  line += ",\"attempts\":" + std::to_string(log.attempts);
  char numbers[96];
  std::snprintf(numbers, sizeof numbers, ",\"upstream_ms\":%.3f,\"total_ms\":%.3f}", log.upstream_seconds * 1e3,
                total * 1e3);
  line += numbers;
  worker_.log(line);
}

}  // namespace weld::proxy
