// The retry policy, with an in-memory transport (the network is outside our
// control; the wire-level behaviour is covered by tests/provider over real
// HTTP) and a recording sleeper instead of the wall clock.
#include <gtest/gtest.h>

#include <deque>

#include "weld/provider/http.h"

namespace weld::provider {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

struct Scripted {
  TransportOutcome::Kind kind = TransportOutcome::Kind::Complete;
  int status = 200;
  HttpHeaders headers;
  std::vector<std::string> body;
  std::string detail;
};

class FakeTransport : public Transport {
 public:
  explicit FakeTransport(std::deque<Scripted> script) : script_(std::move(script)) {}
  TransportOutcome perform(const HttpRequest& request, ResponseSink& sink, CancelToken&) override {
    ++calls;
    if (script_.empty()) return {TransportOutcome::Kind::ConnectFailed, "script exhausted", false};
    Scripted s = script_.front();
    script_.pop_front();
    TransportOutcome outcome{s.kind, s.detail, false};
    if (s.status == 0) return outcome;
    sink.on_headers(s.status, s.headers);
    outcome.got_headers = true;
    for (const std::string& chunk : s.body) {
      if (!sink.on_body(chunk)) return {TransportOutcome::Kind::Aborted, "aborted", true};
      progress.push_back(sink.last_chunk_was_progress());
    }
    return outcome;
  }
  int calls = 0;
  std::vector<bool> progress;  // last_chunk_was_progress() after each chunk

 private:
  std::deque<Scripted> script_;
};

class Collect : public BodyConsumer {
 public:
  Status on_data(std::string_view chunk) override {
    body += chunk;
    if (fail_with) return *fail_with;
    return Ok{};
  }
  std::string body;
  std::optional<Error> fail_with;
};

struct Harness {
  explicit Harness(std::deque<Scripted> script) : transport(std::move(script)) {
    context.transport = &transport;
    context.policy.max_retries = 3;
    context.policy.initial_backoff = 1000ms;
    context.policy.max_backoff = 3000ms;
    context.policy.max_retry_after = 20000ms;
    context.random = [] { return 0.5; };  // jitter factor 0.75
    context.sleep = [this](milliseconds d, CancelToken&) {
      sleeps.push_back(d);
      return true;
    };
    context.secret = "sk-SECRET-KEY";
    request.url = "http://h/v1/chat/completions";
  }
  Status send() {
    CancelToken cancel;
    return send_with_retries(context, request, [this]() -> BodyConsumer& {
      ++attempts_with_body;
      consumer = Collect{};
      consumer.fail_with = fail_with;
      return consumer;
    }, cancel);
  }
  FakeTransport transport;
  SendContext context;
  HttpRequest request;
  Collect consumer;
  std::optional<Error> fail_with;
  int attempts_with_body = 0;
  std::vector<milliseconds> sleeps;
};

Scripted status(int code, HttpHeaders headers = {}, std::string body = "") {
  return Scripted{TransportOutcome::Kind::Complete, code, std::move(headers), {std::move(body)}, ""};
}

TEST(SendWithRetries, ExponentialBackoffWithJitterThenSuccess) {
  Harness h({status(500), status(502), status(503), status(200, {}, "data")});
  ASSERT_TRUE(h.send());
  EXPECT_EQ(h.consumer.body, "data");
  EXPECT_EQ(h.sleeps, (std::vector<milliseconds>{750ms, 1500ms, 2250ms}));  // 1000, 2000, 3000 (cap) × 0.75
}

// The adversarial pass: an endless tool-call argument stream grew the run's
// memory without limit.
TEST(SendWithRetries, issue_13_a_response_over_the_cap_stops_the_transfer_and_is_not_retried) {
  Scripted endless{TransportOutcome::Kind::Complete, 200, {}, std::vector<std::string>(2000, std::string(1024, 'x')), ""};
  Harness h({endless, status(200, {}, "never")});
  h.request.max_response_bytes = 1 << 20;
  Status st = h.send();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::TooLarge);
  EXPECT_EQ(st.error().message,
            "the server sent more than 1 MiB in one response (the cap, --max-response-bytes or WELD_MAX_RESPONSE_BYTES); stopped reading "
            "(POST http://h/v1/chat/completions)");
  EXPECT_EQ(h.consumer.body.size(), 1u << 20);  // what fitted, and not a byte more
  EXPECT_EQ(h.transport.calls, 1);
}

TEST(SendWithRetries, issue_13_sse_comments_are_not_progress_for_the_idle_clock) {
  Scripted stream{TransportOutcome::Kind::Complete, 200, {{"Content-Type", "text/event-stream"}},
                  {": ping\n\n", "data: {\"a\"", ":", "ke", "ep\n", "\n", "1}\n\n", ": x\n", "event: e\n"}, ""};
  Harness h({stream});
  ASSERT_TRUE(h.send());
  EXPECT_EQ(h.transport.progress, (std::vector<bool>{false, true, true, true, true, true, true, false, true}));
  Harness plain({status(200, {{"Content-Type", "application/json"}}, ": not sse")});
  ASSERT_TRUE(plain.send());
  EXPECT_EQ(plain.transport.progress, (std::vector<bool>{true}));
}

TEST(SendWithRetries, RetryAfterSecondsIsHonouredAndCapped) {
  Harness h({status(429, {{"Retry-After", "7"}}), status(429, {{"retry-after", "3600"}}),
             status(429, {{"retry-after-ms", "250"}}), status(200)});
  ASSERT_TRUE(h.send());
  EXPECT_EQ(h.sleeps, (std::vector<milliseconds>{7000ms, 20000ms, 250ms}));
}

TEST(SendWithRetries, RetryAfterHttpDate) {
  auto now = std::chrono::system_clock::from_time_t(784111777);  // Sun, 06 Nov 1994 08:49:37 GMT
  auto d = parse_retry_after("Sun, 06 Nov 1994 08:49:42 GMT", now);
  ASSERT_TRUE(d);
  EXPECT_EQ(*d, 5000ms);
  EXPECT_EQ(*parse_retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now), 0ms);  // in the past
  EXPECT_EQ(*parse_retry_after(" 1.5 ", now), 1500ms);
  EXPECT_FALSE(parse_retry_after("soon", now));
  EXPECT_FALSE(parse_retry_after("5s", now));
  EXPECT_FALSE(parse_retry_after("", now));
  EXPECT_FALSE(parse_retry_after("Sun, 06 Foo 1994 08:49:42 GMT", now));
}

TEST(SendWithRetries, UnauthorizedIsNeverRetried) {
  Harness h({status(401, {}, R"({"error":{"message":"Invalid key sk-SECRET-KEY","type":"authentication_error"}})"),
             status(200)});
  Status st = h.send();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::Auth);
  EXPECT_EQ(st.error().message,
            "the provider refused the credentials: HTTP 401 Unauthorized: Invalid key [REDACTED] "
            "(authentication_error) (POST http://h/v1/chat/completions)");
  EXPECT_EQ(st.error().where, "POST http://h/v1/chat/completions");
  EXPECT_EQ(h.transport.calls, 1);
  EXPECT_TRUE(h.sleeps.empty());
}

TEST(SendWithRetries, ShouldRetryHeaderOverridesTheStatus) {
  Harness h({status(500, {{"x-should-retry", "false"}}, "boom")});
  Status st = h.send();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message, "HTTP 500 Internal Server Error: boom (POST http://h/v1/chat/completions)");
  EXPECT_EQ(h.transport.calls, 1);
}

TEST(SendWithRetries, ConnectionFailuresAreRetriedThenReported) {
  Scripted refused{TransportOutcome::Kind::ConnectFailed, 0, {}, {}, "Connection refused"};
  Harness h({refused, refused, refused, refused});
  Status st = h.send();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::Network);
  EXPECT_EQ(st.error().message,
            "could not connect after 4 attempts: Connection refused (POST http://h/v1/chat/completions)");
  EXPECT_EQ(h.transport.calls, 4);
  EXPECT_EQ(h.sleeps.size(), 3u);
}

TEST(SendWithRetries, MaxRetriesZeroMeansOneAttempt) {
  Harness h({status(503)});
  h.context.policy.max_retries = 0;
  Status st = h.send();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message, "HTTP 503 Service Unavailable (POST http://h/v1/chat/completions)");
  EXPECT_EQ(h.transport.calls, 1);
}

TEST(SendWithRetries, ConsumerErrorsStopAndAreReturnedRedacted) {
  Harness h({status(200, {}, "x")});
  h.fail_with = Error{ErrorCode::Protocol, "bad frame near sk-SECRET-KEY", ""};
  Status st = h.send();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::Protocol);
  EXPECT_EQ(st.error().message, "bad frame near [REDACTED] (POST http://h/v1/chat/completions)");
  EXPECT_EQ(h.transport.calls, 1);
}

TEST(SendWithRetries, RetryableConsumerErrorIsRetried) {
  Harness h({status(200, {}, "x"), status(200, {}, "y")});
  h.fail_with = Error{ErrorCode::RetryableStream, "overloaded", ""};
  h.context.policy.max_retries = 1;
  Status st = h.send();
  ASSERT_FALSE(st);  // the consumer fails every time in this harness
  EXPECT_EQ(h.transport.calls, 2);
  EXPECT_EQ(st.error().code, ErrorCode::Http);
  EXPECT_EQ(st.error().message, "overloaded after 2 attempts (POST http://h/v1/chat/completions)");
}

TEST(SendWithRetries, StallBeforeTheBodyIsRetriedButNotAfter) {
  Scripted stall_early{TransportOutcome::Kind::IdleTimeout, 0, {}, {}, ""};
  Scripted stall_late{TransportOutcome::Kind::IdleTimeout, 200, {}, {"data: partial"}, ""};
  Harness h({stall_early, stall_late});
  h.request.idle_timeout = 30s;
  Status st = h.send();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::Timeout);
  EXPECT_EQ(st.error().message,
            "no data received for 30 s (idle timeout); the response stream stalled (POST "
            "http://h/v1/chat/completions)");
  EXPECT_EQ(h.transport.calls, 2);
}

TEST(SendWithRetries, CancelledDuringBackoff) {
  Harness h({status(500), status(200)});
  h.context.sleep = [](milliseconds, CancelToken&) { return false; };
  Status st = h.send();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::Cancelled);
  EXPECT_EQ(st.error().message, "the request was cancelled (POST http://h/v1/chat/completions)");
}

// SPEC §2.5: exit 75 when the same request may well succeed later.
TEST(SendWithRetries, TemporaryMarksWhatOutlastedTheRetries) {
  auto failure = [](std::deque<Scripted> script) {
    Harness h(std::move(script));
    h.context.policy.max_retries = 0;
    Status st = h.send();
    EXPECT_FALSE(st);
    return st.error();
  };
  EXPECT_TRUE(failure({status(503)}).temporary);
  EXPECT_TRUE(failure({status(429)}).temporary);
  EXPECT_TRUE(failure({status(408)}).temporary);
  EXPECT_TRUE(failure({Scripted{TransportOutcome::Kind::ConnectFailed, 0, {}, {}, "refused"}}).temporary);
  EXPECT_TRUE(failure({Scripted{TransportOutcome::Kind::ConnectionLost, 200, {}, {"data: x"}, "reset"}}).temporary);
  EXPECT_FALSE(failure({status(400)}).temporary);
  EXPECT_FALSE(failure({status(409)}).temporary);
  EXPECT_FALSE(failure({status(404)}).temporary);
  EXPECT_FALSE(failure({status(401)}).temporary);
  EXPECT_FALSE(failure({status(502, {{"x-should-retry", "false"}})}).temporary);  // a final answer (weld's proxy)
  EXPECT_FALSE(failure({Scripted{TransportOutcome::Kind::Tls, 0, {}, {}, "bad certificate"}}).temporary);
}

TEST(ErrorTextFromBody, KnownShapes) {
  EXPECT_EQ(error_text_from_body(R"({"error":{"message":"m","type":"t"}})"), "m (t)");
  EXPECT_EQ(error_text_from_body(R"({"type":"error","error":{"type":"not_found_error","message":"model: x"}})"),
            "model: x (not_found_error)");
  EXPECT_EQ(error_text_from_body(R"({"object":"error","message":"vllm says","type":"BadRequestError","code":400})"),
            "vllm says");
  EXPECT_EQ(error_text_from_body(R"({"error":"ollama says"})"), "ollama says");
  EXPECT_EQ(error_text_from_body(R"({"detail":"Not Found"})"), "Not Found");
  EXPECT_EQ(error_text_from_body("  <html>gateway</html>\n"), "<html>gateway</html>");
  EXPECT_EQ(error_text_from_body(std::string(600, 'x')), std::string(500, 'x') + "…");
}

TEST(Redact, ReplacesEveryOccurrenceOfLongSecrets) {
  EXPECT_EQ(redact("a sk-1234 b sk-1234", "sk-1234"), "a [REDACTED] b [REDACTED]");
  EXPECT_EQ(redact("abc", ""), "abc");
  EXPECT_EQ(redact("xyz", "xy"), "xyz");
}

}  // namespace
}  // namespace weld::provider
