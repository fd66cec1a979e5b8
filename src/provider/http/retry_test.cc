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
TEST(SendWithRetries, a_response_over_the_cap_stops_the_transfer_and_is_not_retried) {
  Scripted endless{TransportOutcome::Kind::Complete, 200, {}, std::vector<std::string>(2000, std::string(1024, 'x')), ""};
  Harness h({endless, status(200, {}, "never")});
  h.request.max_response_bytes = 1 << 20;
  Status st = h.send();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::TooLarge);
  EXPECT_EQ(st.error().message,
            "the server sent more than 1 MiB in one response (the cap, max_response_bytes or WELD_MAX_RESPONSE_BYTES); stopped reading "
            "(POST http://h/v1/chat/completions)");
  EXPECT_EQ(h.consumer.body.size(), 1u << 20);  // what fitted, and not a byte more
  EXPECT_EQ(h.transport.calls, 1);
}

// The cap's setting as the caller names it (the CLI: its flag).
TEST(SendWithRetries, the_cap_is_named_as_the_caller_names_it) {
  Scripted endless{TransportOutcome::Kind::Complete, 200, {}, std::vector<std::string>(3, std::string(1024, 'x')), ""};
  Harness h({endless});
  h.request.max_response_bytes = 2048;
  h.request.max_response_bytes_setting = "--max-response-bytes";
  Status st = h.send();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message,
            "the server sent more than 2 KiB in one response (the cap, --max-response-bytes or WELD_MAX_RESPONSE_BYTES); stopped reading "
            "(POST http://h/v1/chat/completions)");
}

TEST(SendWithRetries, sse_comments_are_not_progress_for_the_idle_clock) {
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

// A date past 2262 does not fit system_clock's nanoseconds: converting it
// wrapped into the past, and the run and the batch retried at once instead
// of waiting the cap.
TEST(SendWithRetries, RetryAfterDatesFarInTheFutureWaitTheCap) {
  auto now = std::chrono::system_clock::from_time_t(1700000000);  // 2023
  for (const char* date : {"Fri, 01 Jan 2300 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT",
                           "Sat, 12 Apr 2262 00:00:00 GMT"}) {
    SCOPED_TRACE(date);
    std::optional<milliseconds> wait = parse_retry_after(date, now);
    ASSERT_TRUE(wait);
    EXPECT_EQ(*wait, milliseconds(std::int64_t{1'000'000'000} * 1000));  // the longest wait read
  }
  Harness h({status(429, {{"Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT"}}), status(200)});
  ASSERT_TRUE(h.send());
  EXPECT_EQ(h.sleeps, (std::vector<milliseconds>{20000ms}));  // the cap
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

// docs/design.md, "Exit codes": 75 when the same request may well succeed later.
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
  // FastAPI's validation errors (vLLM answers 422 with them).
  EXPECT_EQ(error_text_from_body(
                R"({"detail":[{"type":"missing","loc":["body","messages",0],"msg":"Field required","input":null},)"
                R"({"loc":["body","model"],"msg":"Input should be a valid string"}]})"),
            "body.messages.0: Field required; body.model: Input should be a valid string");
  EXPECT_EQ(error_text_from_body(R"({"error":{"message":"m","type":"t"}})", /*with_type=*/false), "m");
  EXPECT_EQ(error_text_from_body(std::string(600, 'x')), std::string(300, 'x') + "…");
}

// An error body is cut to one line of its text: a load balancer's HTML page
// was printed whole on stderr (14 lines).
TEST(ErrorTextFromBody, OneLineAndNeverAnHtmlPage) {
  const std::string page =
      "<!DOCTYPE html>\n<html>\n<head>\n  <title>502 Bad Gateway</title>\n</head>\n<body>\n"
      "<center><h1>502 Bad Gateway</h1></center>\n<hr><center>nginx/1.22.1</center>\n</body>\n</html>\n";
  EXPECT_EQ(error_text_from_body(page), "an HTML page: 502 Bad Gateway");
  EXPECT_EQ(error_text_from_body("<html><body><p>oops</p></body></html>"), "an HTML page of 37 bytes");
  EXPECT_EQ(error_text_from_body("  upstream connect error\r\nreset reason: overflow\n"), "upstream connect error …");
  EXPECT_EQ(error_text_from_body(R"({"object":"error","message":"1 validation error:\n  field required\n","code":400})"),
            "1 validation error: field required");
  // Cut at a character boundary, never inside one.
  std::string accents;
  for (int i = 0; i < 200; ++i) accents += "é";
  EXPECT_EQ(error_text_from_body(accents), std::string(accents, 0, 300) + "…");
  EXPECT_EQ(error_text_from_body("x" + accents), "x" + std::string(accents, 0, 298) + "…");
  EXPECT_EQ(error_text_from_body(""), "");
}

TEST(SendWithRetries, AnHtmlErrorPageIsNamedByItsTitle) {
  Harness h({status(505, {{"Content-Type", "text/html"}},
                    "<html>\n<head><title>505 HTTP Version Not Supported</title></head>\n<body>\n<h1>no</h1>\n</body>\n</html>")});
  Status st = h.send();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message,
            "HTTP 505 HTTP Version Not Supported: an HTML page: 505 HTTP Version Not Supported (POST "
            "http://h/v1/chat/completions)");
}

// One rule says what is retried, and what is retried is exactly what ends
// as temporary (exit 75): 409 was retried and then final, 501 retried four
// times though permanent.
TEST(SendWithRetries, OneVerdictPerStatusDecidesRetryAndExit) {
  for (int code : {408, 429, 500, 502, 503, 504, 529}) {
    SCOPED_TRACE(code);
    EXPECT_EQ(judge_status(code), StatusVerdict::Temporary);
    Harness h({status(code), status(code), status(code), status(code)});
    Status st = h.send();
    ASSERT_FALSE(st);
    EXPECT_TRUE(st.error().temporary);
    EXPECT_EQ(h.transport.calls, 4);
  }
  for (int code : {400, 404, 409, 413, 422, 501, 505}) {
    SCOPED_TRACE(code);
    EXPECT_EQ(judge_status(code), StatusVerdict::Final);
    Harness h({status(code), status(200)});
    Status st = h.send();
    ASSERT_FALSE(st);
    EXPECT_FALSE(st.error().temporary);
    EXPECT_EQ(st.error().http_status, code);
    EXPECT_EQ(h.transport.calls, 1);
    EXPECT_TRUE(h.sleeps.empty());
  }
  EXPECT_EQ(judge_status(401), StatusVerdict::Refused);
  EXPECT_EQ(judge_status(403, {{"x-should-retry", "true"}}), StatusVerdict::Refused);
  EXPECT_EQ(judge_status(204), StatusVerdict::Success);
  EXPECT_EQ(judge_status(409, {{"X-Should-Retry", " true "}}), StatusVerdict::Temporary);
  EXPECT_EQ(judge_status(503, {{"x-should-retry", "false"}}), StatusVerdict::Final);
  Harness told({status(409, {{"x-should-retry", "true"}}), status(200, {}, "ok")});
  ASSERT_TRUE(told.send());
  EXPECT_EQ(told.transport.calls, 2);
}

// A stream that ends without its terminal event is sent again like after a
// 5xx, and is temporary once the retries are spent.
class EndChecked : public BodyConsumer {
 public:
  Status on_data(std::string_view chunk) override {
    body += chunk;
    return Ok{};
  }
  Status on_end() override {
    if (body.find("END") != std::string::npos) return Ok{};
    return Error{.code = ErrorCode::Protocol, .message = "the response stream ended early", .where = {}, .http_status = 0, .temporary = true};
  }
  bool complete() const override { return body.find("END") != std::string::npos; }
  std::string body;
};

TEST(SendWithRetries, AStreamCutBeforeItsTerminalEventIsRetriedThenTemporary) {
  Harness h({status(200, {}, "part"), status(200, {}, "part"), status(200, {}, "whole END")});
  EndChecked consumer;
  CancelToken cancel;
  int attempts = 0;
  auto send = [&] {
    return send_with_retries(h.context, h.request, [&]() -> BodyConsumer& {
      ++attempts;
      consumer = EndChecked{};
      return consumer;
    }, cancel);
  };
  ASSERT_TRUE(send());
  EXPECT_EQ(attempts, 3);
  EXPECT_EQ(consumer.body, "whole END");
  EXPECT_EQ(h.sleeps, (std::vector<milliseconds>{750ms, 1500ms}));

  Harness cut({status(200, {}, "a"), status(200, {}, "b")});
  cut.context.policy.max_retries = 1;
  Status st = send_with_retries(cut.context, cut.request, [&]() -> BodyConsumer& {
    consumer = EndChecked{};
    return consumer;
  }, cancel);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::Protocol);
  EXPECT_TRUE(st.error().temporary);
  EXPECT_EQ(st.error().message, "the response stream ended early after 2 attempts (POST http://h/v1/chat/completions)");
  EXPECT_EQ(cut.transport.calls, 2);

  // Cut by the connection mid-answer: the same.
  Scripted lost{TransportOutcome::Kind::ConnectionLost, 200, {}, {"data: x"}, "reset"};
  Harness reset({lost, status(200, {}, "END")});
  st = send_with_retries(reset.context, reset.request, [&]() -> BodyConsumer& {
    consumer = EndChecked{};
    return consumer;
  }, cancel);
  ASSERT_TRUE(st);
  EXPECT_EQ(reset.transport.calls, 2);
}

// A whole answer followed by a connection that never closes (or breaks) is
// an answer, not a stall.
TEST(SendWithRetries, AWholeAnswerEndsTheResponseWhateverTheConnectionDoesAfter) {
  for (auto kind : {TransportOutcome::Kind::IdleTimeout, TransportOutcome::Kind::ConnectionLost}) {
    Harness h({Scripted{kind, 200, {}, {"answer END"}, "after"}});
    EndChecked consumer;
    CancelToken cancel;
    Status st = send_with_retries(h.context, h.request, [&]() -> BodyConsumer& { return consumer; }, cancel);
    ASSERT_TRUE(st) << st.error().message;
    EXPECT_EQ(h.transport.calls, 1);
  }
}

// A gateway that takes its key in the query: the API path went after the
// query, and messages printed it.
TEST(Urls, APathGoesBeforeTheQueryAndMessagesNeverShowIt) {
  EXPECT_EQ(url_with_path("https://gw/v1?api-key=k", "chat/completions"), "https://gw/v1/chat/completions?api-key=k");
  EXPECT_EQ(url_with_path("https://gw/v1/?api-key=k#f", "/models"), "https://gw/v1/models?api-key=k#f");
  EXPECT_EQ(url_with_path("http://h:8000/v1/", "chat/completions"), "http://h:8000/v1/chat/completions");
  EXPECT_EQ(url_with_path("http://h:4318", "v1/traces"), "http://h:4318/v1/traces");
  EXPECT_EQ(url_with_path("http://h:4318?k=v", "v1/traces"), "http://h:4318/v1/traces?k=v");
  EXPECT_EQ(url_for_messages("https://gw/v1/chat/completions?api-key=k"), "https://gw/v1/chat/completions?…");
  EXPECT_EQ(url_for_messages("https://user:pw@gw/v1"), "https://gw/v1");
  EXPECT_EQ(url_for_messages("http://h:8000/v1/models"), "http://h:8000/v1/models");
  EXPECT_EQ(url_for_messages("http://h?k"), "http://h?…");
}

TEST(SendWithRetries, AQueryInTheUrlIsNeverInAMessage) {
  Harness h({status(404, {}, R"({"error":{"message":"no such route"}})")});
  h.request.url = "http://h/v1/chat/completions?key=gw-SECRET";
  Status st = h.send();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message, "HTTP 404 Not Found: no such route (POST http://h/v1/chat/completions?…)");
  EXPECT_EQ(st.error().where, "POST http://h/v1/chat/completions?…");
}

TEST(Redact, ReplacesEveryOccurrenceOfLongSecrets) {
  EXPECT_EQ(redact("a sk-1234 b sk-1234", "sk-1234"), "a [REDACTED] b [REDACTED]");
  // In any case: a server echoing the token upper-cased leaked it.
  EXPECT_EQ(redact("token MCP-SECRET-T0K3N rejected; mcp-secret-t0k3n", "mcp-secret-T0k3n"),
            "token [REDACTED] rejected; [REDACTED]");
  EXPECT_EQ(redact("aaaa", "aa" "aa"), "[REDACTED]");
  EXPECT_EQ(redact("héllo SK-ABCD é", "sk-abcd"), "héllo [REDACTED] é");
  EXPECT_EQ(redact("abc", ""), "abc");
  EXPECT_EQ(redact("xyz", "xy"), "xyz");
}

}  // namespace
}  // namespace weld::provider
