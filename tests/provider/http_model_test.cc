// End-to-end tests of the provider HTTP path: make_model → libcurl → a real
// HTTP server on 127.0.0.1 speaking the providers' wire protocols, including
// the failures a network produces (issue 3).
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

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
  config.provider = provider;
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
  Result<Response> result = Error{"unset", "", ""};
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

}  // namespace
}  // namespace weld::provider
