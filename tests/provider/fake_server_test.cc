// The provider models against the fake model server (tests/fake_model), over
// both APIs: the same scripted behaviours the end-to-end runs of `weld` use,
// checked here at the library boundary.

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "fake_model_process.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/provider/config.h"

namespace weld::provider {
namespace {

using namespace std::chrono_literals;

constexpr const char* kKey = "sk-fake-SECRET-9f8e7d6c5b4a";

using weld::testing::FakeModelServer;

struct Outcome {
  Result<Response> result = Error{ErrorCode::Io, "unset", ""};
  std::size_t events = 0;
  std::chrono::milliseconds elapsed{0};
};

class FakeServerTest : public ::testing::TestWithParam<std::string> {
 protected:
  std::string api() const { return GetParam(); }

  ProviderConfig config(const FakeModelServer& server) const {
    ProviderConfig c;
    c.provider = *parse_provider(api());
    c.model = "fake-model";
    c.base_url = api() == "openai" ? server.url() + "/v1" : server.url();
    c.api_key = kKey;
    c.connect_timeout = 2s;
    c.idle_timeout = 3s;
    c.retry.max_retries = 2;
    c.retry.initial_backoff = 10ms;
    return c;
  }

  Outcome run(const ProviderConfig& c, CancelToken* external = nullptr) {
    auto model = make_model(c);
    EXPECT_TRUE(model) << model.error().message;
    Request request;
    request.system = "Answer with structured_output.";
    request.messages.push_back(Message{Role::User, "Summarise.", {}, {}});
    request.tools.push_back(ToolSpec{"structured_output", "The final answer.",
                                     *json::parse(R"({"type":"object","properties":{"summary":{"type":"string"}}})")});
    request.forced_tool = "structured_output";
    Outcome outcome;
    StreamObserver observer;
    observer.on_event = [&](const json::Value&) { ++outcome.events; };
    CancelToken local;
    auto start = std::chrono::steady_clock::now();
    outcome.result = (*model)->complete(request, observer, external ? *external : local);
    outcome.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    if (!outcome.result) {
      EXPECT_EQ(outcome.result.error().message.find("SECRET"), std::string::npos);
    }
    return outcome;
  }
};

#define REQUIRE_SERVER(server) \
  if ((server).port() == 0) GTEST_FAIL() << "the fake model server did not start"

TEST_P(FakeServerTest, TextAndToolCallsInSmallFragmentsAndSplitUtf8) {
  FakeModelServer server(R"({"responses":[{"text":"Zoë checks ✓ 🌍 first.",
    "tool_calls":[{"name":"structured_output","id":"call_A","arguments":"{\"summary\":\"naïve café — 😀 \\\"quoted\\\"\"}"},
                  {"name":"read_file","id":"call_B","arguments":{"path":"README.md"}}],
    "usage":{"input_tokens":123,"output_tokens":45},"fragment_size":2,"chunk_bytes":3}]})");
  REQUIRE_SERVER(server);
  Outcome r = run(config(server));
  ASSERT_TRUE(r.result) << r.result.error().message;
  EXPECT_EQ(r.result->message.text, "Zoë checks ✓ 🌍 first.");
  ASSERT_EQ(r.result->message.tool_calls.size(), 2u);
  EXPECT_EQ(r.result->message.tool_calls[0].id, "call_A");
  EXPECT_EQ(r.result->message.tool_calls[0].name, "structured_output");
  EXPECT_EQ(r.result->message.tool_calls[0].arguments, "{\"summary\":\"naïve café — 😀 \\\"quoted\\\"\"}");
  EXPECT_EQ(r.result->message.tool_calls[1].arguments, R"({"path":"README.md"})");
  EXPECT_EQ(r.result->usage.input_tokens, 123);
  EXPECT_EQ(r.result->usage.output_tokens, 45);
  EXPECT_EQ(r.result->stop_reason, api() == "openai" ? "tool_calls" : "tool_use");
  EXPECT_GT(r.events, 10u);

  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  const json::Value& body = *requests[0].find("body");
  const json::Value& headers = *requests[0].find("headers");
  EXPECT_TRUE(body.find("stream")->as_bool());
  if (api() == "openai") {
    EXPECT_EQ(requests[0].find("path")->as_string(), "/v1/chat/completions");
    EXPECT_EQ(headers.find("authorization")->as_string(), std::string("Bearer ") + kKey);
    EXPECT_EQ(json::serialize(*body.find("tool_choice")),
              R"({"type":"function","function":{"name":"structured_output"}})");
    EXPECT_EQ(body.find("messages")->as_array()[0].find("role")->as_string(), "system");
  } else {
    EXPECT_EQ(requests[0].find("path")->as_string(), "/v1/messages");
    EXPECT_EQ(headers.find("x-api-key")->as_string(), kKey);
    EXPECT_EQ(headers.find("anthropic-version")->as_string(), "2023-06-01");
    EXPECT_EQ(json::serialize(*body.find("tool_choice")), R"({"type":"tool","name":"structured_output"})");
    EXPECT_EQ(body.find("system")->as_string(), "Answer with structured_output.");
  }
}

TEST_P(FakeServerTest, TooManyRequestsWithRetryAfterThenSuccess) {
  FakeModelServer server(R"({"responses":[{"status":429,"headers":{"retry-after":"1"}},
    {"tool_calls":[{"name":"structured_output","arguments":"{}"}]}]})");
  REQUIRE_SERVER(server);
  Outcome r = run(config(server));
  ASSERT_TRUE(r.result) << r.result.error().message;
  EXPECT_EQ(r.result->message.tool_calls[0].arguments, "{}");
  EXPECT_EQ(server.requests().size(), 2u);
  EXPECT_GE(r.elapsed, 950ms);
}

TEST_P(FakeServerTest, ServerErrorThenSuccess) {
  FakeModelServer server(R"({"responses":[{"status":500},{"text":"fine"}]})");
  REQUIRE_SERVER(server);
  Outcome r = run(config(server));
  ASSERT_TRUE(r.result) << r.result.error().message;
  EXPECT_EQ(r.result->message.text, "fine");
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST_P(FakeServerTest, UnauthorizedIsAuthWithoutRetry) {
  FakeModelServer server(R"({"responses":[{"status":401},{"text":"never"}]})");
  REQUIRE_SERVER(server);
  Outcome r = run(config(server));
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Auth);
  std::string type = api() == "openai" ? "invalid_request_error" : "authentication_error";
  std::string path = api() == "openai" ? "/v1/chat/completions" : "/v1/messages";
  EXPECT_EQ(r.result.error().message, "the provider refused the credentials: HTTP 401 Unauthorized: fake error 401 (" +
                                          type + ") (POST " + server.url() + path + ")");
  EXPECT_EQ(server.requests().size(), 1u);
}

// A connection closed mid-answer is sent again like after a 5xx, and is a
// temporary failure (exit 75) when every attempt is cut.
TEST_P(FakeServerTest, ATruncatedStreamIsSentAgain) {
  FakeModelServer server(R"({"responses":[{"tool_calls":[{"name":"structured_output","arguments":"{\"summary\":\"abcdefghijklmnop\"}"}],
    "fragment_size":3,"truncate_after":5},{"text":"whole"}]})");
  REQUIRE_SERVER(server);
  Outcome r = run(config(server));
  ASSERT_TRUE(r.result) << r.result.error().message;
  EXPECT_EQ(r.result->message.text, "whole");
  EXPECT_EQ(server.requests().size(), 2u);

  FakeModelServer cut(R"({"responses":[{"text":"abcdefghijklmnop","fragment_size":3,"truncate_after":5}],"repeat_last":true})");
  REQUIRE_SERVER(cut);
  r = run(config(cut));
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Protocol);
  EXPECT_TRUE(r.result.error().temporary);
  EXPECT_EQ(r.result.error().message.rfind("the response stream ended early: the connection closed after 3 attempts", 0), 0u)
      << r.result.error().message;
  EXPECT_EQ(cut.requests().size(), 3u);
}

TEST_P(FakeServerTest, StallIsAnIdleTimeout) {
  FakeModelServer server(R"({"responses":[{"text":"slow answer","stall_after":3,"stall_ms":20000}]})");
  REQUIRE_SERVER(server);
  ProviderConfig c = config(server);
  c.idle_timeout = 600ms;
  Outcome r = run(c);
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Timeout);
  EXPECT_EQ(r.result.error().message.rfind("no data received for 0.6 s (idle timeout); the response stream stalled", 0), 0u)
      << r.result.error().message;
  EXPECT_LT(r.elapsed, 5s);
}

TEST_P(FakeServerTest, HangBeforeAnyByteIsRetriedThenTimesOut) {
  FakeModelServer server(R"({"responses":[{"hang":true},{"hang":true}]})");
  REQUIRE_SERVER(server);
  ProviderConfig c = config(server);
  c.idle_timeout = 300ms;
  c.retry.max_retries = 1;
  Outcome r = run(c);
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Timeout);
  EXPECT_EQ(r.result.error().message.rfind("no response for 0.3 s (idle timeout) after 2 attempts", 0), 0u)
      << r.result.error().message;
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST_P(FakeServerTest, CancelWhileTheServerHangsEndsWithinASecond) {
  FakeModelServer server(R"({"responses":[{"hang":true}]})");
  REQUIRE_SERVER(server);
  ProviderConfig c = config(server);
  c.idle_timeout = 60s;
  CancelToken cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(400ms);
    cancel.cancelled.store(true);
  });
  Outcome r = run(c, &cancel);
  canceller.join();
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Cancelled);
  EXPECT_LT(r.elapsed, 1400ms);
}

TEST_P(FakeServerTest, ErrorInsideTheStreamAfterContent) {
  FakeModelServer server(R"({"responses":[{"text":"partial","stream_error":{"type":"api_error","message":"Internal server error"}}]})");
  REQUIRE_SERVER(server);
  Outcome r = run(config(server));
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Http);
  std::string suffix = api() == "anthropic" ? " (api_error)" : "";
  std::string path = api() == "openai" ? "/v1/chat/completions" : "/v1/messages";
  EXPECT_EQ(r.result.error().message, "the server sent an error in the stream: Internal server error" + suffix +
                                          " (POST " + server.url() + path + ")");
}

TEST_P(FakeServerTest, ConsecutiveRequestsReuseTheModel) {
  FakeModelServer server(R"({"responses":[{"text":"one"},{"text":"two"},{"text":"three"}]})");
  REQUIRE_SERVER(server);
  auto model = make_model(config(server));
  ASSERT_TRUE(model);
  Request request;
  request.messages.push_back(Message{Role::User, "hi", {}, {}});
  for (const char* expected : {"one", "two", "three"}) {
    CancelToken cancel;
    auto r = (*model)->complete(request, {}, cancel);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->message.text, expected);
    request.messages.push_back(r->message);
    request.messages.push_back(Message{Role::User, "again", {}, {}});
  }
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[2].find("body")->find("messages")->size(), api() == "openai" ? 5u : 5u);
}

INSTANTIATE_TEST_SUITE_P(BothApis, FakeServerTest, ::testing::Values("openai", "anthropic"),
                         [](const auto& info) { return info.param; });

// Where a response ends, in the three protocols (docs/protocols.md, "End of
// stream"): at its terminal event, whatever the connection does after it;
// a stream that ended without it is sent again like after a 5xx.
class StreamEnd : public ::testing::TestWithParam<std::string> {
 protected:
  ProviderConfig config(const FakeModelServer& server) const {
    ProviderConfig c;
    c.provider = *parse_provider(GetParam());
    c.model = "fake-model";
    c.base_url = GetParam() == "anthropic" ? server.url() : server.url() + "/v1";
    c.api_key = kKey;
    c.connect_timeout = 2s;
    c.idle_timeout = 20s;
    c.retry.max_retries = 2;
    c.retry.initial_backoff = 10ms;
    return c;
  }
  struct Run {
    Result<Response> result = Error{ErrorCode::Io, "unset", ""};
    int restarts = 0;
    std::chrono::milliseconds elapsed{0};
  };
  Run run(const FakeModelServer& server) {
    auto model = make_model(config(server));
    EXPECT_TRUE(model) << model.error().message;
    Request request;
    request.messages.push_back(Message{Role::User, "Summarise.", {}, {}});
    Run out;
    StreamObserver observer;
    observer.on_restart = [&] { ++out.restarts; };
    CancelToken cancel;
    auto start = std::chrono::steady_clock::now();
    out.result = (*model)->complete(request, observer, cancel);
    out.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    return out;
  }
};

TEST_P(StreamEnd, AStreamEndedBeforeItsTerminalEventIsSentAgain) {
  FakeModelServer server(R"({"responses":[{"text":"half an answer","end_after":3},{"text":"the whole answer"}]})");
  REQUIRE_SERVER(server);
  Run r = run(server);
  ASSERT_TRUE(r.result) << r.result.error().message;
  EXPECT_EQ(r.result->message.text, "the whole answer");
  EXPECT_EQ(r.restarts, 1);  // the observer was told to forget the first attempt's events
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST_P(StreamEnd, AStreamEndedBeforeItsTerminalEventIsTemporaryOnceTheRetriesAreSpent) {
  FakeModelServer server(R"({"responses":[{"text":"half an answer","end_after":3}],"repeat_last":true})");
  REQUIRE_SERVER(server);
  Run r = run(server);
  ASSERT_FALSE(r.result);
  EXPECT_EQ(r.result.error().code, ErrorCode::Protocol);
  EXPECT_TRUE(r.result.error().temporary);  // exit 75, as after a 5xx
  EXPECT_EQ(r.result.error().message.rfind("the response stream ended early: ", 0), 0u) << r.result.error().message;
  EXPECT_NE(r.result.error().message.find(" after 3 attempts (POST " + server.url()), std::string::npos)
      << r.result.error().message;
  EXPECT_EQ(server.requests().size(), 3u);
}

TEST_P(StreamEnd, AWholeAnswerOnAConnectionThatStaysOpenIsTheAnswer) {
  FakeModelServer server(R"({"responses":[{"tool_calls":[{"name":"structured_output","arguments":"{\"a\":1}"}],"hold_open":true}]})");
  REQUIRE_SERVER(server);
  Run r = run(server);
  ASSERT_TRUE(r.result) << r.result.error().message;
  ASSERT_EQ(r.result->message.tool_calls.size(), 1u);
  EXPECT_EQ(r.result->message.tool_calls[0].arguments, "{\"a\":1}");
  EXPECT_LT(r.elapsed, 5s);  // not the 20 s idle timeout
  EXPECT_EQ(server.requests().size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(ThreeProtocols, StreamEnd, ::testing::Values("openai", "anthropic", "openai-responses"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

}  // namespace
}  // namespace weld::provider
