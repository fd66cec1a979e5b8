// End-to-end tests of the provider HTTP path: make_model → libcurl → a real
// HTTP server on 127.0.0.1 speaking the providers' wire protocols, including
// the failures a network produces.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <stdlib.h>

#include "child_process.h"
#include "loopback_server.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/provider/config.h"

namespace weld::provider {
namespace {

using namespace std::chrono_literals;
using testing::LoopbackServer;
using testing::ScriptedResponse;

std::string transcript(const std::string& name) {
  std::ifstream in(std::string(WELD_SOURCE_DIR) + "/tests/provider/transcripts/" + name,
                   std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_FALSE(ss.str().empty()) << name;
  return ss.str();
}

std::vector<std::string> split(const std::string& text, std::size_t size) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size(); i += size) out.push_back(text.substr(i, size));
  return out;
}

ProviderConfig config_for(const std::string& provider, const LoopbackServer& server,
                          const std::string& key = "sk-test-SECRET-0123456789") {
  ProviderConfig config;
  config.provider = *parse_provider(provider);
  config.model = provider == "openai" ? "gpt-4o-mini" : "claude-sonnet-4-5";
  config.base_url = provider == "openai" ? server.url() + "/v1" : server.url();
  config.api_key = key;
  config.connect_timeout = 2s;
  config.idle_timeout = 2s;
  config.retry.max_retries = 3;
  config.retry.initial_backoff = 10ms;
  config.retry.max_backoff = 40ms;
  return config;
}

Request simple_request() {
  Request request;
  request.system = "Be brief.";
  request.messages.push_back(Message{Role::User, "Summarise README.md", {}, {}});
  request.tools.push_back(ToolSpec{"structured_output", "Deliver the final answer.",
                                   *json::parse(R"({"type":"object","properties":{"summary":{"type":"string"}}})")});
  request.forced_tool = "structured_output";
  request.max_tokens = 1024;
  return request;
}

struct Outcome {
  Result<Response> result = Error{ErrorCode::Io, "unset", ""};
  std::vector<std::string> events;
  std::chrono::milliseconds elapsed{0};
};

Outcome run(Model& model, const Request& request, CancelToken& cancel) {
  Outcome r;
  StreamObserver observer;
  observer.on_event = [&](const json::Value& event) { r.events.push_back(json::serialize(event)); };
  auto start = std::chrono::steady_clock::now();
  r.result = model.complete(request, observer, cancel);
  r.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  return r;
}

Outcome run(Model& model, const Request& request) {
  CancelToken cancel;
  return run(model, request, cancel);
}

std::unique_ptr<Model> model_for(const ProviderConfig& config) {
  auto model = make_model(config);
  EXPECT_TRUE(model) << model.error().message;
  return std::move(*model);
}

TEST(HttpModelOpenAi, StreamsToolCallsOverRealHttpInSmallChunks) {
  LoopbackServer server({testing::sse_response(split(transcript("openai_two_tool_calls.sse"), 7))});
  auto model = model_for(config_for("openai", server));
  Outcome r = run(*model, simple_request());
  ASSERT_TRUE(r.result) << r.result.error().message;
  const Response& response = *r.result;
  ASSERT_EQ(response.message.tool_calls.size(), 2u);
  EXPECT_EQ(response.message.tool_calls[0].id, "call_kR3fCw0TYb1nUJ3K0wH4n8Xz");
  EXPECT_EQ(response.message.tool_calls[0].name, "read_file");
  EXPECT_EQ(response.message.tool_calls[0].arguments, R"({"path": "README.md"})");
  EXPECT_EQ(response.message.tool_calls[1].name, "structured_output");
  EXPECT_EQ(response.message.tool_calls[1].arguments,
            "{\"summary\": \"caf\xC3\xA9 \xE2\x80\x93 ok\", \"risk_level\": \"low\"}");
  EXPECT_EQ(response.stop_reason, "tool_calls");
  EXPECT_EQ(response.usage.input_tokens, 312);
  EXPECT_EQ(response.usage.output_tokens, 58);
  EXPECT_EQ(response.usage.cache_read_input_tokens, 128);
  EXPECT_EQ(response.id, "chatcmpl-BxQ7kd2Yl0");
  EXPECT_EQ(r.events.size(), 9u);  // every chunk but [DONE]

  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].target, "/v1/chat/completions");
  EXPECT_EQ(requests[0].header("authorization"), "Bearer sk-test-SECRET-0123456789");
  EXPECT_EQ(requests[0].header("content-type"), "application/json");
  EXPECT_EQ(requests[0].header("accept"), "text/event-stream");
  auto body = json::parse(requests[0].body);
  ASSERT_TRUE(body);
  EXPECT_EQ(body->find("model")->as_string(), "gpt-4o-mini");
  EXPECT_TRUE(body->find("stream")->as_bool());
}

TEST(HttpModelOpenAi, NoKeyMeansNoAuthorizationHeader) {
  LoopbackServer server({testing::sse_response({transcript("llamacpp_tool_call.sse")})});
  auto model = model_for(config_for("openai", server, ""));
  Outcome r = run(*model, simple_request());
  ASSERT_TRUE(r.result) << r.result.error().message;
  EXPECT_EQ(r.result->message.tool_calls[0].arguments, R"({"count": 3})");
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].header("authorization"), "");
}

TEST(HttpModelAnthropic, StreamsTextAndToolUseOverRealHttp) {
  LoopbackServer server({testing::sse_response(split(transcript("anthropic_text_and_tools.sse"), 5))});
  auto model = model_for(config_for("anthropic", server));
  Outcome r = run(*model, simple_request());
  ASSERT_TRUE(r.result) << r.result.error().message;
  const Response& response = *r.result;
  EXPECT_EQ(response.message.text, "I'll record the answer \xE2\x80\x94 \xE2\x9C\x93.");
  ASSERT_EQ(response.message.tool_calls.size(), 2u);
  EXPECT_EQ(response.message.tool_calls[0].id, "toolu_01T1x1fJ34qAmk2tNTrN7Up6");
  EXPECT_EQ(response.message.tool_calls[0].arguments,
            "{\"summary\": \"Caf\xC3\xA9 menu \\\"special\\\"\", \"risk_level\": \"low\"}");
  EXPECT_EQ(response.message.tool_calls[1].name, "list_directory");
  EXPECT_EQ(response.message.tool_calls[1].arguments, "");
  EXPECT_EQ(response.stop_reason, "tool_use");
  EXPECT_EQ(response.usage.input_tokens, 472);
  EXPECT_EQ(response.usage.output_tokens, 89);
  EXPECT_EQ(response.usage.cache_read_input_tokens, 256);
  EXPECT_EQ(response.id, "msg_01XFDUDYJgAACzvnptvVoYEL");

  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].target, "/v1/messages");
  EXPECT_EQ(requests[0].header("x-api-key"), "sk-test-SECRET-0123456789");
  EXPECT_EQ(requests[0].header("anthropic-version"), "2023-06-01");
  EXPECT_EQ(requests[0].header("authorization"), "");
}


const char* kOpenAiDone = "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";

TEST(HttpModelRetries, TooManyRequestsWithRetryAfterThenSuccess) {
  LoopbackServer server({
      testing::plain_response(429, "application/json",
                              R"({"error":{"message":"Rate limit reached for gpt-4o-mini","type":"requests","param":null,"code":"rate_limit_exceeded"}})",
                              {{"Retry-After", "1"}}),
      testing::sse_response({kOpenAiDone}),
  });
  auto model = model_for(config_for("openai", server));
  Outcome r = run(*model, simple_request());
  ASSERT_TRUE(r.result) << r.result.error().message;
  EXPECT_EQ(r.result->message.text, "ok");
  EXPECT_EQ(server.requests().size(), 2u);
  // Retry-After: 1 was honoured (the policy's own backoff is 10-40 ms).
  EXPECT_GE(r.elapsed, 950ms);
}

TEST(HttpModelRetries, ServerErrorThenSuccess) {
  LoopbackServer server({
      testing::plain_response(500, "application/json",
                              R"({"error":{"message":"The server had an error","type":"server_error"}})"),
      testing::plain_response(503, "text/html", "<html>busy</html>"),
      testing::sse_response({kOpenAiDone}),
  });
  auto model = model_for(config_for("openai", server));
  Outcome r = run(*model, simple_request());
  ASSERT_TRUE(r.result) << r.result.error().message;
  EXPECT_EQ(server.requests().size(), 3u);
}

TEST(HttpModelRetries, RetriesExhaustedReportsTheLastStatusAndServerMessage) {
  std::vector<ScriptedResponse> script;
  for (int i = 0; i < 4; ++i)
    script.push_back(testing::plain_response(529, "application/json",
                                             R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"));
  LoopbackServer server(script);
  auto config = config_for("anthropic", server);
  auto model = model_for(config);
  Outcome r = run(*model, simple_request());
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Http);
  EXPECT_EQ(r.result.error().message,
            "HTTP 529 Overloaded after 4 attempts: Overloaded (overloaded_error) (POST " + server.url() +
                "/v1/messages)");
  EXPECT_EQ(server.requests().size(), 4u);
}

TEST(HttpModelRetries, UnauthorizedIsAuthAndNotRetried) {
  LoopbackServer server({
      testing::plain_response(401, "application/json",
                              R"({"error":{"message":"Incorrect API key provided: sk-test-SECRET-0123456789. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}})"),
      testing::sse_response({kOpenAiDone}),
  });
  auto model = model_for(config_for("openai", server));
  Outcome r = run(*model, simple_request());
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Auth);
  EXPECT_EQ(r.result.error().message,
            "the provider refused the credentials: HTTP 401 Unauthorized: Incorrect API key provided: "
            "[REDACTED]. You can find your API key at https://platform.openai.com/account/api-keys. "
            "(invalid_request_error) (POST " + server.url() + "/v1/chat/completions)");
  EXPECT_EQ(r.result.error().message.find("SECRET"), std::string::npos);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(HttpModelRetries, ForbiddenIsAuth) {
  LoopbackServer server({testing::plain_response(
      403, "application/json",
      R"({"type":"error","error":{"type":"permission_error","message":"Your API key does not have permission to use the specified resource."}})")});
  auto model = model_for(config_for("anthropic", server));
  Outcome r = run(*model, simple_request());
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Auth);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(HttpModelRetries, BadRequestIsNotRetried) {
  LoopbackServer server({testing::plain_response(
      400, "application/json",
      R"({"error":{"message":"Invalid schema for function 'structured_output'","type":"invalid_request_error","param":"tools[0].function.parameters","code":"invalid_function_parameters"}})")});
  auto model = model_for(config_for("openai", server));
  Outcome r = run(*model, simple_request());
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Http);
  EXPECT_EQ(r.result.error().message,
            "HTTP 400 Bad Request: Invalid schema for function 'structured_output' "
            "(invalid_request_error) (POST " + server.url() + "/v1/chat/completions)");
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(HttpModelNetwork, ConnectionRefusedIsRetriedThenNetworkError) {
  ProviderConfig config;
  config.provider = Provider::OpenAi;
  config.model = "m";
  int port = testing::unused_port();
  config.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  config.retry.max_retries = 2;
  config.retry.initial_backoff = 5ms;
  auto model = model_for(config);
  Outcome r = run(*model, simple_request());
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Network);
  EXPECT_EQ(r.result.error().message.rfind("could not connect after 3 attempts: ", 0), 0u)
      << r.result.error().message;
  EXPECT_NE(r.result.error().message.find("(POST http://127.0.0.1:" + std::to_string(port) +
                                          "/v1/chat/completions)"),
            std::string::npos);
}

// A stream cut before its terminal event is sent again like after a 5xx
// (the observer is told to forget what it saw), and is a temporary failure
// (exit 75) once the retries are spent.
TEST(HttpModelNetwork, ATruncatedStreamIsSentAgain) {
  std::string text = transcript("openai_two_tool_calls.sse");
  std::string cut = text.substr(0, text.find("\"index\":1,"));  // ends inside an event
  LoopbackServer server({testing::sse_response({cut}, 0ms, /*terminate=*/false), testing::sse_response({text})});
  auto model = model_for(config_for("openai", server));
  int restarts = 0;
  StreamObserver observer;
  observer.on_restart = [&] { ++restarts; };
  CancelToken cancel;
  Result<Response> r = model->complete(simple_request(), observer, cancel);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->message.tool_calls.size(), 2u);
  EXPECT_EQ(restarts, 1);
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST(HttpModelNetwork, CleanlyClosedStreamWithoutTerminatorIsRetriedThenTemporary) {
  std::string text = transcript("anthropic_text_and_tools.sse");
  std::string cut = text.substr(0, text.find("event: message_delta"));
  std::vector<ScriptedResponse> script(4, testing::sse_response({cut}));  // chunked body properly ended
  LoopbackServer server(script);
  auto model = model_for(config_for("anthropic", server));
  Outcome r = run(*model, simple_request());
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Protocol);
  EXPECT_TRUE(r.result.error().temporary);
  EXPECT_EQ(r.result.error().message,
            "the response stream ended early: no `message_stop` event after 4 attempts (POST " + server.url() +
                "/v1/messages)");
  EXPECT_EQ(server.requests().size(), 4u);
}

// A whole answer whose server keeps the connection open: the terminal event
// ends the response (it used to be thrown away after the idle timeout).
TEST(HttpModelNetwork, AWholeAnswerOnAConnectionThatStaysOpenIsTheAnswer) {
  for (const char* name : {"openai_two_tool_calls.sse", "anthropic_text_and_tools.sse"}) {
    SCOPED_TRACE(name);
    ScriptedResponse open = testing::sse_response({transcript(name)}, 0ms, /*terminate=*/false);
    open.actions.push_back({testing::Action::Kind::Pause, "", 30s});
    LoopbackServer server({open});
    auto config = config_for(std::string(name).rfind("openai", 0) == 0 ? "openai" : "anthropic", server);
    config.idle_timeout = 20s;
    auto model = model_for(config);
    Outcome r = run(*model, simple_request());
    ASSERT_TRUE(r.result) << r.result.error().message;
    EXPECT_FALSE(r.result->message.tool_calls.empty());
    EXPECT_LT(r.elapsed, 5s);
    EXPECT_EQ(server.requests().size(), 1u);
  }
}

TEST(HttpModelNetwork, StallIsAnIdleTimeout) {
  std::string text = transcript("openai_text.sse");
  std::size_t half = text.find("data:", 10);
  LoopbackServer server({testing::sse_response({text.substr(0, half), text.substr(half)}, 30s)});
  auto config = config_for("openai", server);
  config.idle_timeout = 500ms;
  auto model = model_for(config);
  Outcome r = run(*model, simple_request());
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Timeout);
  EXPECT_EQ(r.result.error().message,
            "no data received for 0.5 s (idle timeout); the response stream stalled (POST " +
                server.url() + "/v1/chat/completions)");
  EXPECT_LT(r.elapsed, 5s);
}

// The adversarial pass: a server sending only SSE comments kept a run alive
// forever, each comment restarting the idle clock.
TEST(HttpModelNetwork, an_endless_stream_of_sse_comments_is_an_idle_timeout) {
  std::string text = transcript("openai_text.sse");
  std::size_t half = text.find("data:", 10);
  std::vector<std::string> chunks{text.substr(0, half)};
  for (int i = 0; i < 100; ++i) chunks.push_back(": keep-alive\n\n");
  LoopbackServer server({testing::sse_response(chunks, 100ms, false)});
  auto config = config_for("openai", server);
  config.idle_timeout = 500ms;
  auto model = model_for(config);
  Outcome r = run(*model, simple_request());
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Timeout) << r.result.error().message;
}

TEST(HttpModelNetwork, CancelMidStreamEndsWithinASecond) {
  std::string text = transcript("anthropic_text_and_tools.sse");
  LoopbackServer server({testing::sse_response(split(text, 200), 20s)});
  auto config = config_for("anthropic", server);
  config.idle_timeout = 60s;
  auto model = model_for(config);
  CancelToken cancel;
  std::thread canceller([&] {
    server.wait_for_requests(1, 5s);
    std::this_thread::sleep_for(300ms);
    cancel.cancelled.store(true);
  });
  Outcome r = run(*model, simple_request(), cancel);
  canceller.join();
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Cancelled);
  EXPECT_LT(r.elapsed, 1500ms);
}

TEST(HttpModelNetwork, CancelDuringRetryBackoffEndsPromptly) {
  LoopbackServer server({testing::plain_response(429, "application/json", "{}", {{"Retry-After", "30"}})});
  auto model = model_for(config_for("openai", server));
  CancelToken cancel;
  std::thread canceller([&] {
    server.wait_for_requests(1, 5s);
    std::this_thread::sleep_for(200ms);
    cancel.cancelled.store(true);
  });
  Outcome r = run(*model, simple_request(), cancel);
  canceller.join();
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Cancelled);
  EXPECT_LT(r.elapsed, 1500ms);
}

TEST(HttpModelNetwork, MalformedJsonInADataLineIsAProtocolError) {
  LoopbackServer server({testing::sse_response({"data: {\"id\":\"x\",\"choices\":[{\"index\":0,\n\n"})});
  auto model = model_for(config_for("openai", server));
  Outcome r = run(*model, simple_request());
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Protocol);
  EXPECT_EQ(r.result.error().message.rfind("malformed JSON in stream chunk 1 (", 0), 0u)
      << r.result.error().message;
}

TEST(HttpModelAnthropic, OverloadedErrorEventBeforeContentIsRetried) {
  LoopbackServer server({
      testing::sse_response({transcript("anthropic_overloaded.sse")}),
      testing::sse_response({transcript("anthropic_compat_whole_input.sse")}),
  });
  auto model = model_for(config_for("anthropic", server));
  Outcome r = run(*model, simple_request());
  ASSERT_TRUE(r.result) << r.result.error().message;
  ASSERT_EQ(r.result->message.tool_calls.size(), 1u);
  EXPECT_EQ(r.result->message.tool_calls[0].arguments, R"({"n":1})");
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST(HttpModelAnthropic, OverloadedErrorEventWhenRetriesRunOut) {
  auto config_script = std::vector<ScriptedResponse>{testing::sse_response({transcript("anthropic_overloaded.sse")})};
  LoopbackServer server(config_script);
  auto config = config_for("anthropic", server);
  config.retry.max_retries = 0;
  auto model = model_for(config);
  Outcome r = run(*model, simple_request());
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Http);
  EXPECT_EQ(r.result.error().message,
            "the server sent an error in the stream: Overloaded (overloaded_error) (POST " +
                server.url() + "/v1/messages)");
}

TEST(HttpModelProxy, HttpProxyFromTheEnvironmentIsUsed) {
  // The "proxy" is our loopback server: a proxied request arrives with an
  // absolute URL as its target.
  LoopbackServer proxy({testing::sse_response({kOpenAiDone})});
  Environment env = {{"WELD_PROVIDER", "openai"},
                     {"WELD_BASE_URL", "http://model.invalid:8000/v1"},
                     {"WELD_MODEL", "m"},
                     {"HTTP_PROXY", proxy.url()}};
  auto config = resolve_provider_config({}, env);
  ASSERT_TRUE(config) << config.error().message;
  auto model = model_for(*config);
  Outcome r = run(*model, simple_request());
  ASSERT_TRUE(r.result) << r.result.error().message;
  auto requests = proxy.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].target, "http://model.invalid:8000/v1/chat/completions");
}

TEST(HttpModelProxy, NoProxyBypassesTheProxy) {
  LoopbackServer direct({testing::sse_response({kOpenAiDone})});
  Environment env = {{"WELD_PROVIDER", "openai"},
                     {"WELD_BASE_URL", direct.url() + "/v1"},
                     {"WELD_MODEL", "m"},
                     {"http_proxy", "http://127.0.0.1:" + std::to_string(testing::unused_port())},
                     {"NO_PROXY", "localhost,127.0.0.1"}};
  auto config = resolve_provider_config({}, env);
  ASSERT_TRUE(config) << config.error().message;
  auto model = model_for(*config);
  Outcome r = run(*model, simple_request());
  ASSERT_TRUE(r.result) << r.result.error().message;
  auto requests = direct.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].target, "/v1/chat/completions");
}

TEST(HttpModelFallback, PlainJsonAnswerToAStreamingRequest) {
  LoopbackServer server({
      testing::plain_response(200, "application/json",
                              R"({"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_9","type":"function","function":{"name":"structured_output","arguments":"{\"a\":1}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}})"),
      testing::plain_response(200, "application/json; charset=utf-8",
                              R"({"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Sure."},{"type":"tool_use","id":"toolu_9","name":"structured_output","input":{"b":2}}],"stop_reason":"tool_use","usage":{"input_tokens":7,"output_tokens":4}})"),
  });
  auto model = model_for(config_for("openai", server));
  Outcome r = run(*model, simple_request());
  ASSERT_TRUE(r.result) << r.result.error().message;
  ASSERT_EQ(r.result->message.tool_calls.size(), 1u);
  EXPECT_EQ(r.result->message.tool_calls[0].id, "call_9");
  EXPECT_EQ(r.result->message.tool_calls[0].arguments, R"({"a":1})");
  EXPECT_EQ(r.result->usage.input_tokens, 5);
  EXPECT_EQ(r.result->stop_reason, "tool_calls");

  auto anthropic = model_for(config_for("anthropic", server));
  r = run(*anthropic, simple_request());
  ASSERT_TRUE(r.result) << r.result.error().message;
  EXPECT_EQ(r.result->message.text, "Sure.");
  ASSERT_EQ(r.result->message.tool_calls.size(), 1u);
  EXPECT_EQ(r.result->message.tool_calls[0].arguments, R"({"b":2})");
  EXPECT_EQ(r.result->usage.output_tokens, 4);
}

TEST(HttpModelFallback, MalformedPlainJsonIsAProtocolError) {
  LoopbackServer server({testing::plain_response(200, "application/json", R"({"choices":[)")});
  auto model = model_for(config_for("openai", server));
  Outcome r = run(*model, simple_request());
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Protocol);
  EXPECT_EQ(r.result.error().message.rfind("the JSON response is malformed: ", 0), 0u) << r.result.error().message;
}

// A TLS server whose certificate the system store does not trust: the
// failure is reported as TLS, at once, without retries.
class SelfSignedTlsServer {
 public:
  SelfSignedTlsServer() {
    char dir_template[] = "/tmp/weld-tls-XXXXXX";
    dir_ = mkdtemp(dir_template);
    weld::testing::ChildRun gen = weld::testing::run_child(
        {"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-addext",
         "subjectAltName=IP:127.0.0.1", "-days", "1", "-keyout", dir_ + "/k.pem", "-out", dir_ + "/c.pem"});
    available_ = gen.start_error.empty();  // no openssl: the tests skip
    if (gen.exit_code != 0) return;
    // Its output stays piped to us until it is stopped (s_server writes on
    // every connection and would die of SIGPIPE once a reader is gone).
    server_ = weld::testing::start_child({"openssl", "s_server", "-accept", "127.0.0.1:0", "-cert", dir_ + "/c.pem",
                                          "-key", dir_ + "/k.pem", "-naccept", "4", "-www"});
    if (!server_) return;
    // "ACCEPT 127.0.0.1:PORT" (bounded: 10 s).
    std::string line = weld::testing::wait_for_line(*server_, "ACCEPT ", 10s);
    std::size_t colon = line.rfind(':');
    if (colon != std::string::npos) port_ = std::atoi(line.c_str() + colon + 1);
  }
  ~SelfSignedTlsServer() {
    server_.reset();  // stopped before its files go
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  /// False when there is no openssl to run.
  bool available() const { return available_; }
  int port() const { return port_; }
  std::string cert() const { return dir_ + "/c.pem"; }

 private:
  std::string dir_;
  std::unique_ptr<weld::agent::Subprocess> server_;
  bool available_ = false;
  int port_ = 0;
};

TEST(HttpModelTls, UntrustedCertificateIsATlsErrorWithoutRetries) {
  SelfSignedTlsServer server;
  if (!server.available()) GTEST_SKIP() << "openssl is not available";
  ASSERT_NE(server.port(), 0) << "openssl s_server did not start";
  ProviderConfig config;
  config.provider = Provider::OpenAi;
  config.model = "m";
  config.base_url = "https://127.0.0.1:" + std::to_string(server.port()) + "/v1";
  config.retry.initial_backoff = 5ms;
  auto model = model_for(config);
  Outcome r = run(*model, simple_request());
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Network);
  EXPECT_EQ(r.result.error().message.rfind("TLS failure: ", 0), 0u) << r.result.error().message;
}

TEST(HttpModelTls, ACaBundleFromTheEnvironmentIsTrusted) {
  SelfSignedTlsServer server;
  if (!server.available()) GTEST_SKIP() << "openssl is not available";
  ASSERT_NE(server.port(), 0) << "openssl s_server did not start";
  Environment env = {{"WELD_PROVIDER", "openai"},
                     {"WELD_MODEL", "m"},
                     {"WELD_BASE_URL", "https://127.0.0.1:" + std::to_string(server.port()) + "/v1"},
                     {"SSL_CERT_FILE", server.cert()},
                     {"WELD_IDLE_TIMEOUT", "0.3"},
                     {"WELD_MAX_RETRIES", "0"}};
  auto config = resolve_provider_config({}, env);
  ASSERT_TRUE(config) << config.error().message;
  auto model = model_for(*config);
  Outcome r = run(*model, simple_request());
  // The handshake succeeds; s_server then never answers the POST, so the
  // request ends on the idle timeout instead of a TLS error.
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Timeout) << r.result.error().message;
}

}  // namespace
}  // namespace weld::provider
