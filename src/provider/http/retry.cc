// The retry policy around one streaming request (issue 3, SPEC §4): retry
// 408/409/429/5xx and connection failures with exponential backoff and
// jitter, honour Retry-After (seconds or HTTP date, capped), never retry
// 401/403, and never retry once a 2xx body has started to reach the consumer
// (the observer has seen those events; a replay would duplicate them).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <ctime>
#include <random>
#include <thread>

#include "weld/base/ascii.h"
#include "weld/json/parse.h"
#include "weld/provider/http.h"

namespace weld::provider {
namespace {

using std::chrono::milliseconds;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool retryable_status(int status) {
  return status == 408 || status == 409 || status == 429 || status >= 500;
}

std::string reason_phrase(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Payload Too Large";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 529: return "Overloaded";
    default: return "";
  }
}

std::string seconds_text(milliseconds ms) {
  if (ms.count() % 1000 == 0) return std::to_string(ms.count() / 1000) + " s";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(ms.count()) / 1000.0);
  return buf;
}

// "64 MiB", "1500 bytes": a cap as people write it.
std::string byte_size_text(std::uint64_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

// Collects one attempt's response: a 2xx body goes to the consumer, any
// other body is kept (bounded) for the error message.
class AttemptSink : public ResponseSink {
 public:
  AttemptSink(const std::function<BodyConsumer&()>& new_consumer, std::uint64_t max_body)
      : new_consumer_(new_consumer), max_body_(max_body) {}

  void on_headers(int status, const HttpHeaders& headers) override {
    status_ = status;
    headers_ = headers;
    if (success()) {
      consumer_ = &new_consumer_();
      consumer_->on_start(headers);
      const std::string* type = find_header(headers, "content-type");
      event_stream_ = type != nullptr && type->find("event-stream") != std::string::npos;
    }
  }

  bool last_chunk_was_progress() const override { return progress_; }

  bool on_body(std::string_view chunk) override {
    if (!success()) {
      std::size_t room = kMaxErrorBody - std::min(kMaxErrorBody, error_body_.size());
      error_body_.append(chunk.substr(0, room));
      return true;
    }
    body_started_ = true;
    if (event_stream_) {
      // The SSE decoder tells field lines from comments; its events are
      // the parser's business, not ours.
      std::size_t before = keepalive_decoder_.field_line_count();
      keepalive_events_.clear();
      progress_ = !keepalive_decoder_.feed(chunk, keepalive_events_) || !keepalive_events_.empty() ||
                  keepalive_decoder_.field_line_count() > before || keepalive_decoder_.pending_field_line();
    }
    received_ += chunk.size();
    if (received_ > max_body_) {
      consumer_error_ = Error{ErrorCode::TooLarge,
                              "the server sent more than " + byte_size_text(max_body_) +
                                  " in one response (the cap, --max-response-bytes or WELD_MAX_RESPONSE_BYTES); stopped reading",
                              ""};
      return false;
    }
    Status st = consumer_->on_data(chunk);
    if (!st) {
      consumer_error_ = st.error();
      return false;
    }
    return true;
  }

  bool success() const { return status_ >= 200 && status_ < 300; }

  static constexpr std::size_t kMaxErrorBody = 64 * 1024;
  const std::function<BodyConsumer&()>& new_consumer_;
  std::uint64_t max_body_;
  std::uint64_t received_ = 0;
  bool event_stream_ = false;
  bool progress_ = true;
  SseDecoder keepalive_decoder_;
  std::vector<SseEvent> keepalive_events_;
  BodyConsumer* consumer_ = nullptr;
  int status_ = 0;
  HttpHeaders headers_;
  std::string error_body_;
  bool body_started_ = false;
  std::optional<Error> consumer_error_;
};

}  // namespace

std::vector<TransportOutcome> Transport::perform_all(const std::vector<HttpCall>& calls, CancelToken& cancel) {
  std::vector<TransportOutcome> outcomes;
  for (const HttpCall& call : calls) outcomes.push_back(perform(*call.request, *call.sink, cancel));
  return outcomes;
}

const std::string* find_header(const HttpHeaders& headers, std::string_view name) {
  for (const auto& [key, value] : headers)
    if (ascii_iequals(key, name)) return &value;
  return nullptr;
}

bool sleep_unless_cancelled(milliseconds duration, CancelToken& cancel) {
  auto deadline = std::chrono::steady_clock::now() + duration;
  while (!cancel.cancelled.load()) {
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return true;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(deadline - now, milliseconds(50)));
  }
  return false;
}

std::optional<milliseconds> parse_retry_after(std::string_view value,
                                              std::chrono::system_clock::time_point now) {
  value = trim(value);
  if (value.empty()) return std::nullopt;
  if (std::isdigit(static_cast<unsigned char>(value.front()))) {
    // delta-seconds; fractions are accepted (some servers send "1.5").
    double seconds = 0;
    std::size_t i = 0;
    while (i < value.size() && std::isdigit(static_cast<unsigned char>(value[i]))) {
      seconds = seconds * 10 + (value[i] - '0');
      if (seconds > 1e9) return std::nullopt;
      ++i;
    }
    if (i < value.size() && value[i] == '.') {
      double scale = 0.1;
      for (++i; i < value.size() && std::isdigit(static_cast<unsigned char>(value[i])); ++i) {
        seconds += (value[i] - '0') * scale;
        scale /= 10;
      }
    }
    if (i != value.size()) return std::nullopt;
    return milliseconds(static_cast<std::int64_t>(std::llround(seconds * 1000)));
  }
  // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT".
  std::tm tm{};
  char weekday[4] = {}, month[4] = {}, zone[4] = {};
  int day = 0, year = 0, hour = 0, minute = 0, second = 0;
  std::string text(value);
  if (std::sscanf(text.c_str(), "%3s, %d %3s %d %d:%d:%d %3s", weekday, &day, month, &year, &hour,
                  &minute, &second, zone) != 8)
    return std::nullopt;
  static constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  int mon = -1;
  for (int m = 0; m < 12; ++m)
    if (kMonths[m] == month) mon = m;
  if (mon < 0 || std::string_view(zone) != "GMT" || day < 1 || day > 31 || hour > 23 ||
      minute > 59 || second > 60 || year < 1970 || year > 9999)
    return std::nullopt;
  tm.tm_year = year - 1900;
  tm.tm_mon = mon;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  std::time_t when = timegm(&tm);
  auto target = std::chrono::system_clock::from_time_t(when);
  if (target <= now) return milliseconds(0);
  return std::chrono::duration_cast<milliseconds>(target - now);
}

std::string redact(std::string_view text, std::string_view secret) {
  std::string out(text);
  if (secret.size() < 4) return out;
  std::size_t pos = 0;
  while ((pos = out.find(secret, pos)) != std::string::npos) {
    out.replace(pos, secret.size(), "[REDACTED]");
    pos += 10;
  }
  return out;
}

std::string error_text_from_body(std::string_view body) {
  auto doc = json::parse(body);
  if (doc) {
    const json::Value* message = nullptr;
    std::string type;
    if (const auto* error = doc->find("error")) {
      if (error->is_string()) return error->as_string();
      message = error->find("message");
      if (const auto* t = error->find("type"); t && t->is_string()) type = t->as_string();
    }
    if (!message) message = doc->find("message");
    if (message && message->is_string()) {
      std::string text = message->as_string();
      if (!type.empty()) text += " (" + type + ")";
      return text;
    }
    if (const auto* detail = doc->find("detail"); detail && detail->is_string())
      return detail->as_string();
  }
  std::string_view text = trim(body);
  if (text.size() > 500) return std::string(text.substr(0, 500)) + "…";
  return std::string(text);
}

std::optional<milliseconds> retry_after_of(const HttpHeaders& headers, std::chrono::system_clock::time_point now) {
  if (const auto* ms = find_header(headers, "retry-after-ms")) {
    // parse_retry_after reads seconds; this header is in milliseconds.
    if (auto v = parse_retry_after(*ms, now)) return milliseconds(v->count() / 1000);
  }
  if (const auto* ra = find_header(headers, "retry-after")) return parse_retry_after(*ra, now);
  return std::nullopt;
}

Status send_with_retries(const SendContext& context, const HttpRequest& request,
                         const std::function<BodyConsumer&()>& new_consumer, CancelToken& cancel) {
  auto random = [&]() -> double {
    if (context.random) return context.random();
    // Seeded once per thread, and only when a retry needs a jitter: a
    // std::random_device per request cost weld batch 14% of its CPU
    // (docs/bench-batch.md).
    thread_local std::mt19937_64 engine{std::random_device{}()};
    return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
  };
  const std::string target = " (" + request.method + " " + request.url + ")";
  auto make_error = [&](ErrorCode code, std::string message, bool temporary = false) {
    return Error{.code = code,
                 .message = redact(message + target, context.secret),
                 .where = redact(request.method + " " + request.url, context.secret),
                 .temporary = temporary};
  };
  const int attempts_allowed = std::max(0, context.policy.max_retries) + 1;
  for (int attempt = 1;; ++attempt) {
    if (cancel.cancelled.load()) return make_error(ErrorCode::Cancelled, "the request was cancelled");
    AttemptSink sink(new_consumer, request.max_response_bytes);
    TransportOutcome outcome = context.transport->perform(request, sink, cancel);
    const bool can_retry = attempt < attempts_allowed;
    const std::string after = attempt > 1 ? " after " + std::to_string(attempt) + " attempts" : "";
    std::optional<milliseconds> retry_after;
    std::optional<Error> failure;
    bool retry = false;
    using Kind = TransportOutcome::Kind;
    switch (outcome.kind) {
      case Kind::Cancelled:
        return make_error(ErrorCode::Cancelled, "the request was cancelled");
      case Kind::Aborted:
        if (sink.consumer_error_) {
          if (sink.consumer_error_->code == ErrorCode::RetryableStream) {
            retry = can_retry;
            failure = Error{.code = ErrorCode::Http,
                            .message = sink.consumer_error_->message + after,
                            .where = {},
                            .http_status = 0,
                            .temporary = true};
          } else {
            return make_error(sink.consumer_error_->code, sink.consumer_error_->message);
          }
        } else {
          return make_error(ErrorCode::Network, "the transfer was aborted: " + outcome.detail);
        }
        break;
      case Kind::Complete: {
        int status = sink.status_;
        if (sink.success()) return Ok{};
        std::string phrase = reason_phrase(status);
        std::string head = "HTTP " + std::to_string(status) + (phrase.empty() ? "" : " " + phrase);
        std::string server = error_text_from_body(sink.error_body_);
        std::string text = head + after + (server.empty() ? "" : ": " + server);
        if (status == 401 || status == 403) {
          Error refused = make_error(ErrorCode::Auth, "the provider refused the credentials: " + text);
          refused.http_status = status;
          return refused;
        }
        const std::string* should_retry = find_header(sink.headers_, "x-should-retry");
        bool retryable = retryable_status(status);
        if (should_retry && ascii_iequals(trim(*should_retry), "false")) retryable = false;
        if (should_retry && ascii_iequals(trim(*should_retry), "true")) retryable = true;
        if (status < 200 && status != 0) retryable = false;
        retry = retryable && can_retry;
        // Temporary (exit 75) unless the server said the answer is final
        // (x-should-retry: false, as weld's own proxy does for a structured
        // output failure, SPEC §3.3).
        const bool final_answer = should_retry && ascii_iequals(trim(*should_retry), "false");
        failure = Error{.code = ErrorCode::Http,
                        .message = text,
                        .where = {},
                        .http_status = status,
                        .temporary = (status == 408 || status == 429 || status >= 500) && !final_answer};
        retry_after = retry_after_of(sink.headers_, std::chrono::system_clock::now());
        break;
      }
      case Kind::ConnectFailed:
        retry = can_retry;
        failure = Error{.code = ErrorCode::Network,
                        .message = "could not connect" + after + ": " + outcome.detail,
                        .where = {},
                        .http_status = 0,
                        .temporary = true};
        break;
      case Kind::ConnectTimeout:
        retry = can_retry;
        failure = Error{.code = ErrorCode::Timeout,
                        .message = "no connection within " + seconds_text(request.connect_timeout) +
                                   " (connect timeout)" + after,
                        .where = {},
                        .http_status = 0,
                        .temporary = true};
        break;
      case Kind::IdleTimeout:
        if (sink.body_started_)
          return make_error(ErrorCode::Timeout,
                            "no data received for " + seconds_text(request.idle_timeout) +
                                " (idle timeout); the response stream stalled",
                            true);
        retry = can_retry;
        failure = Error{.code = ErrorCode::Timeout,
                        .message = "no response for " + seconds_text(request.idle_timeout) + " (idle timeout)" + after,
                        .where = {},
                        .http_status = 0,
                        .temporary = true};
        break;
      case Kind::ConnectionLost:
        if (sink.body_started_)
          return make_error(ErrorCode::Protocol,
                            "the response stream ended early: the connection closed (" + outcome.detail + ")", true);
        retry = can_retry;
        failure = Error{.code = ErrorCode::Network,
                        .message = "the connection closed before a response" + after + ": " + outcome.detail,
                        .where = {},
                        .http_status = 0,
                        .temporary = true};
        break;
      case Kind::Tls:
        return make_error(ErrorCode::Network, "TLS failure: " + outcome.detail);
      case Kind::Other:
        return make_error(ErrorCode::Network, "request failed: " + outcome.detail);
    }
    if (!retry) {
      Error final_error = make_error(failure->code, failure->message, failure->temporary);
      final_error.http_status = failure->http_status;
      return final_error;
    }
    milliseconds delay;
    if (retry_after) {
      delay = std::min(*retry_after, context.policy.max_retry_after);
    } else {
      double base = static_cast<double>(context.policy.initial_backoff.count()) *
                    std::pow(2.0, static_cast<double>(attempt - 1));
      base = std::min(base, static_cast<double>(context.policy.max_backoff.count()));
      delay = milliseconds(static_cast<std::int64_t>(base * (0.5 + 0.5 * random())));
    }
    if (!context.sleep(delay, cancel)) return make_error(ErrorCode::Cancelled, "the request was cancelled");
  }
}

}  // namespace weld::provider
