// The replies `TaggedExchange::run_attempts` (weld_exchange.cc) makes itself when no
// filter answered: "no filter produced an answer" (500), an upstream error
// (502 with the error's message), "too many upstream attempts" (500). The
// default chain answers all of these first, so each test runs the real server
// (in-process, `Server`) with a chain that leaves the case to the core,
// against the fake model server (tests/fake_model) over real HTTP, and checks
// the client's status and body in its API's shape and the access-log line.

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "fake_model_process.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/provider/http.h"
#include "weld/proxy/filter.h"
#include "weld/proxy/server.h"

namespace weld::proxy {
namespace {

using namespace std::chrono_literals;
using weld::testing::FakeModelServer;

// The default chain without response_render: nothing turns an upstream
// answer or error into the client's reply.
ServerConfig without_render(const std::string& upstream) {
  ServerConfig config;
  config.upstream = upstream;
  config.chain = {"agent_route", "schema_injection", "tool_call_extraction", "response_validation"};
  return config;
}

const char* const kRouterCall = R"({"responses":[{"tool_calls":[{"name":"router","arguments":{"action":"search"}}]}],
                                     "repeat_last":true})";

struct HttpReply {
  int status = 0;
  std::string content_type;
  std::string body;
  std::string transport_error;  // empty when the whole response arrived
};

// Collects one response from the libcurl transport.
class Collect final : public provider::ResponseSink {
 public:
  explicit Collect(HttpReply& reply) : reply_(reply) {}
  void on_headers(int status, const provider::HttpHeaders& headers) override {
    reply_.status = status;
    if (const std::string* type = provider::find_header(headers, "content-type")) reply_.content_type = *type;
  }
  bool on_body(std::string_view chunk) override {
    reply_.body += chunk;
    return true;
  }

 private:
  HttpReply& reply_;
};

// A port nothing listens on (bound, then closed).
int unused_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

// The real proxy on 127.0.0.1 port 0, one worker, serving on its own thread;
// keeps the log lines it writes.
class RunningProxy {
 public:
  explicit RunningProxy(ServerConfig config) {
    config.listen = "127.0.0.1:0";
    config.threads = 1;
    config.handle_signals = false;
    config.reload_poll = 0ms;
    config.shutdown_timeout = 2s;
    config.log = [this](std::string_view batch) {
      std::lock_guard lock(mutex_);
      std::size_t start = 0;
      while (start <= batch.size()) {
        std::size_t end = std::min(batch.find('\n', start), batch.size());
        lines_.emplace_back(batch.substr(start, end - start));
        start = end + 1;
      }
      changed_.notify_all();
    };
    Result<std::unique_ptr<Server>> server = Server::create(config);
    if (!server) {
      error_ = server.error().message;
      return;
    }
    server_ = std::move(*server);
    thread_ = std::thread([this] { server_->run(); });
  }
  ~RunningProxy() {
    if (server_) server_->stop();
    if (thread_.joinable()) thread_.join();
  }

  const std::string& error() const { return error_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(server_ ? server_->port() : 0); }

  HttpReply post(const std::string& path, const json::Value& body) {
    provider::HttpRequest request;
    request.url = url() + path;
    request.headers = {{"Content-Type", "application/json"}, {"Connection", "close"}};
    request.body = json::serialize(body);
    request.connect_timeout = 5s;
    request.idle_timeout = 20s;
    HttpReply reply;
    Collect sink(reply);
    provider::CancelToken cancel;
    provider::TransportOutcome outcome = provider::make_curl_transport({})->perform(request, sink, cancel);
    if (outcome.kind != provider::TransportOutcome::Kind::Complete) {
      reply.transport_error = outcome.detail.empty() ? "incomplete transfer" : outcome.detail;
    }
    return reply;
  }

  // The first access-log line (the one with an "outcome"), waiting up to 5 s
  // for the worker to flush it; null when none came.
  json::Value access_line() {
    std::unique_lock lock(mutex_);
    json::Value found;
    changed_.wait_for(lock, 5s, [&] {
      for (const std::string& line : lines_) {
        Result<json::Value> doc = json::parse(line);
        if (doc && doc->find("outcome") != nullptr) {
          found = std::move(*doc);
          return true;
        }
      }
      return false;
    });
    return found;
  }

 private:
  std::string error_;
  std::unique_ptr<Server> server_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> lines_;
};

// The fields of an access-log line the tests check.
std::string summary(const json::Value& line) {
  if (line.find("outcome") == nullptr) return "no access-log line";
  std::string out;
  for (const char* name : {"status", "outcome", "attempts", "agent"}) {
    const json::Value* field = line.find(name);
    out += (out.empty() ? "" : " ") + std::string(name) + "=" + (field ? json::serialize(*field) : "(missing)");
  }
  return out;
}

class AttemptFallback : public ::testing::TestWithParam<Protocol> {
 protected:
  bool anthropic() const { return GetParam() == Protocol::AnthropicMessages; }
  std::string path() const { return anthropic() ? "/v1/messages" : "/v1/chat/completions"; }

  json::Value request(const std::string& model, bool stream = false) const {
    json::Value body = json::Object{{"model", model},
                                    {"messages", json::Array{json::Object{{"role", "user"}, {"content", "go"}}}}};
    if (anthropic()) body.set("max_tokens", 64);
    if (stream) body.set("stream", true);
    return body;
  }

  // The error body filters::reply_error writes, in the client's shape (docs/proxy.md, "Errors and timeouts").
  std::string error_body(std::string_view type, std::string_view message) const {
    json::Value error = anthropic()
                            ? json::Value(json::Object{{"type", "error"},
                                                       {"error", json::Object{{"type", type}, {"message", message}}}})
                            : json::Value(json::Object{{"error", json::Object{{"message", message},
                                                                              {"type", type},
                                                                              {"param", nullptr},
                                                                              {"code", nullptr}}}});
    return json::serialize(error);
  }
};

#define REQUIRE_UP(fake, proxy)                                                     \
  if ((fake).port() == 0) GTEST_FAIL() << "the fake model server did not start"; \
  if (!(proxy).error().empty()) GTEST_FAIL() << (proxy).error()

TEST_P(AttemptFallback, NoFilterProducedAnAnswerIs500) {
  // A streaming client too: without response_render there are no keep-alive
  // frames either, so its stream never started and it gets the plain 500.
  for (bool stream : {false, true}) {
    SCOPED_TRACE(stream ? "streaming client" : "plain client");
    FakeModelServer fake(kRouterCall);
    RunningProxy proxy(without_render(fake.url()));
    REQUIRE_UP(fake, proxy);

    HttpReply reply = proxy.post(path(), request("m__schema=router", stream));
    EXPECT_EQ("", reply.transport_error);
    EXPECT_EQ(500, reply.status);
    EXPECT_EQ("application/json", reply.content_type);
    EXPECT_EQ(error_body("api_error", "no filter produced an answer"), reply.body);
    EXPECT_EQ("status=500 outcome=\"internal_error\" attempts=1 agent=\"router\"", summary(proxy.access_line()));
    EXPECT_EQ(1u, fake.requests().size());  // a valid answer: no retry
  }
}

TEST_P(AttemptFallback, UpstreamStatusNoFilterAnsweredIs502WithTheUpstreamsMessage) {
  // The render filter would pass a 4xx through as is (here 429); unanswered,
  // every upstream error is a 502 carrying the upstream's own message.
  for (int status : {500, 429}) {
    SCOPED_TRACE(status);
    FakeModelServer fake(R"({"responses":[{"status":)" + std::to_string(status) + R"(,
        "error":{"type":"overloaded_error","message":"the model is busy, try later"}}]})");
    RunningProxy proxy(without_render(fake.url()));
    REQUIRE_UP(fake, proxy);

    HttpReply reply = proxy.post(path(), request("m__schema=router"));
    EXPECT_EQ(502, reply.status);
    EXPECT_EQ("application/json", reply.content_type);
    EXPECT_EQ(error_body("api_error", "upstream answered HTTP " + std::to_string(status) +
                                          ": the model is busy, try later"),
              reply.body);
    EXPECT_EQ("status=502 outcome=\"upstream_error\" attempts=1 agent=\"router\"", summary(proxy.access_line()));
    EXPECT_EQ(1u, fake.requests().size());
  }
}

TEST_P(AttemptFallback, UnreachableUpstreamNoFilterAnsweredIs502) {
  const int port = unused_port();
  ASSERT_NE(0, port);
  RunningProxy proxy(without_render("http://127.0.0.1:" + std::to_string(port)));
  ASSERT_EQ("", proxy.error());

  HttpReply reply = proxy.post(path(), request("m__schema=router"));
  EXPECT_EQ(502, reply.status);
  EXPECT_EQ(error_body("api_error", "could not connect to the upstream 127.0.0.1:" + std::to_string(port) +
                                        ": Connection refused"),
            reply.body);
  EXPECT_EQ("status=502 outcome=\"upstream_error\" attempts=1 agent=\"router\"", summary(proxy.access_line()));
}

TEST_P(AttemptFallback, UpstreamTimeoutNoFilterAnsweredIs502NotTheRenderFilters504) {
  FakeModelServer fake(R"({"responses":[{"hang":true}]})");
  ServerConfig config = without_render(fake.url());
  config.upstream_timeout = 300ms;
  RunningProxy proxy(config);
  REQUIRE_UP(fake, proxy);

  HttpReply reply = proxy.post(path(), request("m__schema=router"));
  EXPECT_EQ(502, reply.status);
  EXPECT_EQ(error_body("api_error", "the upstream did not answer within 300 ms"), reply.body);
  EXPECT_EQ("status=502 outcome=\"upstream_error\" attempts=1 agent=\"router\"", summary(proxy.access_line()));
}

// Asks for another attempt after every answer, whatever it was. No built-in
// filter can make the loop reach its bound (see BoundLeavesRoomFor...), so the
// test registers this one beside them.
class AlwaysRetry final : public Filter {
 public:
  FilterAction on_response_end(Exchange&) override { return FilterAction::Retry; }
};

ServerConfig always_retry_config(const std::string& upstream) {
  ServerConfig config;
  config.upstream = upstream;
  config.filters.add("always_retry", [] { return std::make_unique<AlwaysRetry>(); });
  config.chain = {"agent_route", "schema_injection", "tool_call_extraction", "always_retry", "response_render"};
  return config;
}

TEST_P(AttemptFallback, TooManyUpstreamAttemptsIs500AfterTwelve) {
  FakeModelServer fake(kRouterCall);
  RunningProxy proxy(always_retry_config(fake.url()));
  REQUIRE_UP(fake, proxy);

  HttpReply reply = proxy.post(path(), request("m__schema=router"));
  EXPECT_EQ(500, reply.status);
  EXPECT_EQ("application/json", reply.content_type);
  EXPECT_EQ(error_body("api_error", "too many upstream attempts"), reply.body);
  EXPECT_EQ("status=500 outcome=\"internal_error\" attempts=12 agent=\"router\"", summary(proxy.access_line()));
  EXPECT_EQ(12u, fake.requests().size());
}

TEST_P(AttemptFallback, TooManyUpstreamAttemptsEndsAStartedStreamWithAnErrorEvent) {
  // Slow answers and frequent keep-alives: the client's stream has started
  // (200, text/event-stream) before the loop gives up, so the error comes as
  // the API's SSE error event at its end.
  FakeModelServer fake(R"({"responses":[{"tool_calls":[{"name":"router","arguments":{"action":"search"}}],
                           "delay_ms":30}],"repeat_last":true})");
  ServerConfig config = always_retry_config(fake.url());
  config.keepalive_interval = 5ms;
  RunningProxy proxy(config);
  REQUIRE_UP(fake, proxy);

  HttpReply reply = proxy.post(path(), request("m__schema=router", /*stream=*/true));
  EXPECT_EQ("", reply.transport_error);
  EXPECT_EQ(200, reply.status);
  EXPECT_EQ("text/event-stream", reply.content_type);
  const std::string frame = std::string(anthropic() ? "event: error\ndata: " : "data: ") +
                            error_body("api_error", "too many upstream attempts") + "\n\n";
  ASSERT_GT(reply.body.size(), frame.size()) << reply.body;
  EXPECT_EQ(frame, reply.body.substr(reply.body.size() - frame.size())) << reply.body;
  // Before it: keep-alive frames only (no answer was rendered).
  const std::string keepalive = anthropic() ? "event: ping\ndata: {\"type\": \"ping\"}\n\n" : ": keep-alive\n\n";
  std::string before = reply.body.substr(0, reply.body.size() - frame.size());
  EXPECT_FALSE(before.empty());
  while (before.size() >= keepalive.size() && before.compare(0, keepalive.size(), keepalive) == 0) {
    before.erase(0, keepalive.size());
  }
  EXPECT_EQ("", before) << reply.body;
  EXPECT_EQ("status=200 outcome=\"internal_error\" attempts=12 agent=\"router\"", summary(proxy.access_line()));
  EXPECT_EQ(12u, fake.requests().size());
}

TEST_P(AttemptFallback, BoundLeavesRoomForEveryAttemptTheBuiltinFiltersAskFor) {
  // The most the built-in filters ask for: a two-phase agent whose model
  // answers in text (one forced follow-up), then invalid calls through
  // max_retries = 10: 12 attempts, ending in the filters' own 502, not the
  // core's "too many upstream attempts".
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("weld-fallback-" + std::to_string(::getpid()) + "-" +
                                     std::to_string(static_cast<int>(GetParam())));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "agents.json") << R"({"picker":{"description":"Pick one.","mode":"two_phase","max_retries":10,
      "input_schema":{"type":"object","properties":{"action":{"type":"string","enum":["search","refund"]}},
                      "required":["action"]}}})";
  FakeModelServer fake(R"({"responses":[{"text":"Let me think."},
      {"tool_calls":[{"name":"picker","arguments":{"action":"fly"}}]}],"repeat_last":true})");
  ServerConfig config;
  config.upstream = fake.url();
  config.agents_path = (dir / "agents.json").string();
  RunningProxy proxy(config);
  REQUIRE_UP(fake, proxy);

  HttpReply reply = proxy.post(path(), request("m__schema=picker"));
  std::filesystem::remove_all(dir);
  EXPECT_EQ(502, reply.status);
  Result<json::Value> body = json::parse(reply.body);
  ASSERT_TRUE(body) << reply.body;
  const json::Value* error = body->find("error");
  ASSERT_NE(nullptr, error) << reply.body;
  const json::Value* type = error->find("type");
  const json::Value* message = error->find("message");
  const json::Value* candidate = error->find("candidate");
  ASSERT_TRUE(type != nullptr && message != nullptr && candidate != nullptr) << reply.body;
  EXPECT_EQ("structured_output_error", type->as_string());
  EXPECT_EQ(0u, message->as_string().find(
                    "the model's answer does not match the schema of agent \"picker\" after 12 attempts: "))
      << reply.body;
  EXPECT_EQ(R"({"action":"fly"})", json::serialize(*candidate));
  EXPECT_EQ("status=502 outcome=\"invalid\" attempts=12 agent=\"picker\"", summary(proxy.access_line()));
  EXPECT_EQ(12u, fake.requests().size());
}

// "proxy/…" so that `ctest -R proxy` selects these.
INSTANTIATE_TEST_SUITE_P(proxy, AttemptFallback, ::testing::Values(Protocol::AnthropicMessages, Protocol::OpenAiChat),
                         [](const ::testing::TestParamInfo<Protocol>& info) {
                           return info.param == Protocol::AnthropicMessages ? "Anthropic" : "OpenAI";
                         });

}  // namespace
}  // namespace weld::proxy
