// The retry policy around one streaming request (docs/protocols.md, "Errors
// and retries"): `judge_status` is the one rule that says which statuses are
// retried (and so end as temporary failures, exit 75) and which are final;
// connection failures are retried; backoff is exponential with jitter and
// honours Retry-After (seconds or HTTP date, capped). A stream that ends
// without its terminal event is retried like a 5xx (its consumer says so).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <ctime>
#include <random>
#include <thread>

#include "weld/base/ascii.h"
#include "weld/base/random.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/provider/http.h"
#include "weld/base/text.h"

namespace weld::provider {
namespace {

using std::chrono::milliseconds;

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
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
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
  AttemptSink(const std::function<BodyConsumer&()>& new_consumer, std::uint64_t max_body, std::string_view max_body_setting)
      : new_consumer_(new_consumer), max_body_(max_body), max_body_setting_(max_body_setting) {}

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
                                  " in one response (the cap, " + std::string(max_body_setting_) +
                                  " or WELD_MAX_RESPONSE_BYTES); stopped reading",
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
  bool complete() const override { return consumer_ != nullptr && consumer_->complete(); }

  static constexpr std::size_t kMaxErrorBody = 64 * 1024;
  const std::function<BodyConsumer&()>& new_consumer_;
  std::uint64_t max_body_;
  std::string_view max_body_setting_;
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

StatusVerdict judge_status(int status, const HttpHeaders& headers) {
  if (status >= 200 && status < 300) return StatusVerdict::Success;
  if (status == 401 || status == 403) return StatusVerdict::Refused;
  // The server's own word (the header the official OpenAI and Anthropic SDKs
  // obey; weld's proxy sends "false" on the answers it decides itself).
  if (const std::string* should_retry = find_header(headers, "x-should-retry")) {
    if (ascii_iequals(trim(*should_retry), "false")) return StatusVerdict::Final;
    if (ascii_iequals(trim(*should_retry), "true")) return StatusVerdict::Temporary;
  }
  switch (status) {
    case 408:  // Request Timeout
    case 429:  // Too Many Requests
    case 500:  // Internal Server Error
    case 502:  // Bad Gateway
    case 503:  // Service Unavailable
    case 504:  // Gateway Timeout
    case 520: case 521: case 522: case 523: case 524:  // a CDN that could not reach the server
    case 529:  // Anthropic: overloaded
      return StatusVerdict::Temporary;
    default:
      // Other 4xx (the request itself is wrong: sending it again gets the
      // same answer), 501/505 (the server does not do this at all), and any
      // other status.
      return StatusVerdict::Final;
  }
}

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
  // Compared in whole seconds of time_t, never as a time_point: a date past
  // 2262 does not fit system_clock's nanoseconds, and converting it would
  // wrap into the past (no wait at all). A wait longer than the longest
  // delta-seconds accepted above is that (the caller caps it anyway).
  const std::time_t when = timegm(&tm);
  const std::time_t now_seconds = std::chrono::system_clock::to_time_t(now);
  if (when <= now_seconds) return milliseconds(0);
  constexpr std::time_t kLongest = 1'000'000'000;
  if (when - now_seconds > kLongest) return milliseconds(std::int64_t{kLongest} * 1000);
  auto target = std::chrono::system_clock::from_time_t(when);
  if (target <= now) return milliseconds(0);
  return std::chrono::duration_cast<milliseconds>(target - now);
}

std::string redact(std::string_view text, std::string_view secret) {
  if (secret.size() < 4) return std::string(text);
  // In any letter case: a server that echoes a token upper-cased (or a
  // header value lower-cased) must not leak it. ASCII folding keeps every
  // byte where it was, so positions in the folded text are positions in
  // the original.
  const std::string folded_text = ascii_lower(std::string(text));
  const std::string folded_secret = ascii_lower(std::string(secret));
  std::string out;
  out.reserve(text.size());
  std::size_t from = 0;
  for (std::size_t pos = folded_text.find(folded_secret); pos != std::string::npos;
       pos = folded_text.find(folded_secret, pos + secret.size())) {
    out.append(text.substr(from, pos - from));
    out += "[REDACTED]";
    from = pos + secret.size();
  }
  out.append(text.substr(from));
  return out;
}

namespace {

// `text` on one line: every run of white space (line ends included) one
// space, cut to about `max_bytes` at a character boundary.
std::string one_line(std::string_view text, std::size_t max_bytes) {
  std::string out;
  bool space = false;
  for (char c : trim(text)) {
    if (std::isspace(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) < 0x20) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
    if (out.size() > max_bytes + 4) break;
  }
  if (out.size() <= max_bytes) return out;
  std::size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  out.resize(cut);
  return out + "…";
}

// The text between <title> and </title> (any case), or "".
std::string_view html_title(std::string_view page) {
  std::string lower = ascii_lower(std::string(page.substr(0, 64 * 1024)));
  std::size_t open = lower.find("<title");
  if (open == std::string::npos) return {};
  open = lower.find('>', open);
  std::size_t close = open == std::string::npos ? open : lower.find("</title", open);
  if (close == std::string::npos) return {};
  return page.substr(open + 1, close - open - 1);
}

}  // namespace

std::string error_text_from_body(std::string_view body, bool with_type) {
  constexpr std::size_t kMaxText = 300;
  auto doc = json::parse(body);
  if (doc) {
    const json::Value* message = nullptr;
    std::string type;
    if (const auto* error = doc->find("error")) {
      if (error->is_string()) return one_line(error->as_string(), kMaxText);
      message = error->find("message");
      if (const auto* t = error->find("type"); t && t->is_string()) type = t->as_string();
    }
    if (!message) message = doc->find("message");
    if (message && message->is_string()) {
      std::string text = one_line(message->as_string(), kMaxText);
      if (with_type && !type.empty()) text += " (" + one_line(type, 60) + ")";
      return text;
    }
    if (const auto* detail = doc->find("detail"); detail && detail->is_string())
      return one_line(detail->as_string(), kMaxText);
    if (const auto* detail = doc->find("detail"); detail && detail->is_array()) {
      // FastAPI's validation errors (vLLM's 422): each `loc` and `msg`,
      // "body.messages: Field required; …".
      std::string text;
      for (const json::Value& item : detail->as_array()) {
        const json::Value* msg = item.is_object() ? item.find("msg") : nullptr;
        if (msg == nullptr || !msg->is_string()) continue;
        if (!text.empty()) text += "; ";
        if (const json::Value* loc = item.find("loc"); loc != nullptr && loc->is_array()) {
          std::string path;
          for (const json::Value& part : loc->as_array()) {
            if (!path.empty()) path += '.';
            path += part.is_string() ? part.as_string() : json::serialize(part);
          }
          if (!path.empty()) text += path + ": ";
        }
        text += msg->as_string();
      }
      if (!text.empty()) return one_line(text, kMaxText);
    }
  }
  std::string_view text = trim(body);
  if (text.empty()) return {};
  if (text.front() == '<') {
    // An HTML error page (a load balancer's, a CDN's): its title says it all;
    // the page itself would fill the terminal.
    std::string title = one_line(html_title(text), kMaxText);
    if (!title.empty()) return "an HTML page: " + title;
    return "an HTML page of " + std::to_string(body.size()) + " bytes";
  }
  // Plain text: its first line.
  std::size_t end = text.find_first_of("\r\n");
  std::string line = one_line(text.substr(0, end), kMaxText);
  if (end != std::string_view::npos && line.size() <= kMaxText) line += " …";
  return line;
}

std::optional<milliseconds> retry_after_of(const HttpHeaders& headers, std::chrono::system_clock::time_point now) {
  if (const auto* ms = find_header(headers, "retry-after-ms")) {
    // parse_retry_after reads seconds; this header is in milliseconds.
    if (auto v = parse_retry_after(*ms, now)) return milliseconds(v->count() / 1000);
  }
  if (const auto* ra = find_header(headers, "retry-after")) return parse_retry_after(*ra, now);
  return std::nullopt;
}

namespace {

// Whether a consumer's error asks for the request to be sent again: an
// in-stream error the server calls transient, or a stream cut before its
// terminal event (a temporary error).
bool asks_for_retry(const Error& error) { return error.code == ErrorCode::RetryableStream || error.temporary; }

// That error as the attempt's failure (temporary: exit 75 once the retries
// are spent; a transient in-stream error reads as an HTTP failure).
Error retried_consumer_error(const Error& error, const std::string& after) {
  return Error{.code = error.code == ErrorCode::RetryableStream ? ErrorCode::Http : error.code,
               .message = error.message + after,
               .where = {},
               .http_status = 0,
               .temporary = true};
}

}  // namespace

namespace {

// An error before the request's target is added to its message.
Error plain_error(ErrorCode code, std::string message, bool temporary = false) {
  return Error{.code = code, .message = std::move(message), .where = {}, .http_status = 0, .temporary = temporary};
}

// What one attempt came to: no error (the consumer has the whole answer), or
// the error, whether sending the request again may help, and how long the
// server asked to wait first.
struct AttemptResult {
  std::optional<Error> error;
  bool retryable = false;
  std::optional<milliseconds> retry_after;
};

AttemptResult final_result(Error error) { return {std::move(error), false, std::nullopt}; }
AttemptResult retryable_result(Error error) { return {std::move(error), true, std::nullopt}; }

// The consumer's error as it stands (sent again only when it asks for it
// and `may_retry`).
AttemptResult consumer_result(const Error& error, const std::string& after, bool may_retry) {
  if (may_retry && asks_for_retry(error)) return retryable_result(retried_consumer_error(error, after));
  return final_result(plain_error(error.code, error.message, error.temporary));
}

// The answer was whole; the consumer says whether it holds together.
AttemptResult whole_body(AttemptSink& sink, const std::string& after, bool may_retry) {
  Status ended = sink.consumer_ ? sink.consumer_->on_end() : Status(Ok{});
  if (ended) return {};
  return consumer_result(ended.error(), after, may_retry);
}

// A response with an error status: refused credentials end the request
// (exit 41); one verdict decides both the rest's retry and its exit, what is
// retried is temporary (exit 75 once the retries are spent), what is not is
// final (exit 1).
AttemptResult error_status(AttemptSink& sink, const std::string& after) {
  const int status = sink.status_;
  const std::string phrase = reason_phrase(status);
  const std::string head = "HTTP " + std::to_string(status) + (phrase.empty() ? "" : " " + phrase);
  const std::string server = error_text_from_body(sink.error_body_);
  const std::string text = head + after + (server.empty() ? "" : ": " + server);
  const StatusVerdict verdict = judge_status(status, sink.headers_);
  if (verdict == StatusVerdict::Refused) {
    Error refused = plain_error(ErrorCode::Auth, "the provider refused the credentials: " + text);
    refused.http_status = status;
    return final_result(std::move(refused));
  }
  const bool temporary = verdict == StatusVerdict::Temporary;
  AttemptResult result{Error{.code = ErrorCode::Http, .message = text, .where = {}, .http_status = status,
                             .temporary = temporary},
                       temporary, std::nullopt};
  result.retry_after = retry_after_of(sink.headers_, std::chrono::system_clock::now());
  return result;
}

// Judges one attempt from the transport's outcome and what the sink saw;
// `after` (" after N attempts", or "") goes into the messages of the errors
// a retry could have followed.
AttemptResult judge_attempt(const TransportOutcome& outcome, AttemptSink& sink, const HttpRequest& request,
                            const std::string& after) {
  using Kind = TransportOutcome::Kind;
  switch (outcome.kind) {
    case Kind::Cancelled:
      return final_result(plain_error(ErrorCode::Cancelled, "the request was cancelled"));
    case Kind::Aborted:
      if (!sink.consumer_error_) return final_result(plain_error(ErrorCode::Network, "the transfer was aborted: " + outcome.detail));
      return consumer_result(*sink.consumer_error_, after, true);
    case Kind::Complete:
      // A stream that ended without its terminal event asks for a retry
      // like a 5xx.
      if (sink.success()) return whole_body(sink, after, true);
      return error_status(sink, after);
    case Kind::ConnectFailed:
      return retryable_result(plain_error(ErrorCode::Network, "could not connect" + after + ": " + outcome.detail, true));
    case Kind::ConnectTimeout:
      return retryable_result(plain_error(
          ErrorCode::Timeout, "no connection within " + seconds_text(request.connect_timeout) + " (connect timeout)" + after,
          true));
    case Kind::IdleTimeout:
      // The answer was whole; only the end of the response never came.
      if (sink.complete()) return whole_body(sink, after, false);
      if (sink.body_started_)
        return final_result(plain_error(ErrorCode::Timeout,
                                        "no data received for " + seconds_text(request.idle_timeout) +
                                            " (idle timeout); the response stream stalled",
                                        true));
      return retryable_result(plain_error(
          ErrorCode::Timeout, "no response for " + seconds_text(request.idle_timeout) + " (idle timeout)" + after, true));
    case Kind::ConnectionLost:
      if (sink.body_started_) {
        // A whole answer whose connection then broke is still whole.
        if (sink.complete()) return whole_body(sink, after, false);
        // Cut mid-answer: sent again, like after a 5xx.
        return retryable_result(plain_error(ErrorCode::Protocol,
                                            "the response stream ended early: the connection closed" + after + " (" +
                                                outcome.detail + ")",
                                            true));
      }
      return retryable_result(plain_error(
          ErrorCode::Network, "the connection closed before a response" + after + ": " + outcome.detail, true));
    case Kind::Tls:
      return final_result(plain_error(ErrorCode::Network, "TLS failure: " + outcome.detail));
    case Kind::Other:
      return final_result(plain_error(ErrorCode::Network, "request failed: " + outcome.detail));
  }
  return final_result(plain_error(ErrorCode::Network, "request failed: " + outcome.detail));
}

// How long to wait before attempt `attempt` + 1: the server's Retry-After
// (capped), else exponential backoff with jitter (`random` in [0, 1)).
milliseconds retry_delay(const RetryPolicy& policy, int attempt, const std::optional<milliseconds>& retry_after,
                         const std::function<double()>& random) {
  if (retry_after) return std::min(*retry_after, policy.max_retry_after);
  double base = static_cast<double>(policy.initial_backoff.count()) * std::pow(2.0, static_cast<double>(attempt - 1));
  base = std::min(base, static_cast<double>(policy.max_backoff.count()));
  return milliseconds(static_cast<std::int64_t>(base * (0.5 + 0.5 * random())));
}

}  // namespace

Status send_with_retries(const SendContext& context, const HttpRequest& request,
                         const std::function<BodyConsumer&()>& new_consumer, CancelToken& cancel) {
  const std::function<double()> random = [&]() -> double {
    if (context.random) return context.random();
    // Seeded once per thread (weld/base/random.h), and only when a retry
    // needs a jitter.
    return std::uniform_real_distribution<double>(0.0, 1.0)(thread_random());
  };
  // The URL as messages show it: never its query (a gateway's key may be there).
  const std::string where = request.method + " " + url_for_messages(request.url);
  auto with_target = [&](const Error& error) {
    return Error{.code = error.code,
                 .message = redact(error.message + " (" + where + ")", context.secret),
                 .where = redact(where, context.secret),
                 .http_status = error.http_status,
                 .temporary = error.temporary};
  };
  const int attempts_allowed = std::max(0, context.policy.max_retries) + 1;
  for (int attempt = 1;; ++attempt) {
    if (cancel.cancelled.load()) return with_target(plain_error(ErrorCode::Cancelled, "the request was cancelled"));
    AttemptSink sink(new_consumer, request.max_response_bytes, request.max_response_bytes_setting);
    const TransportOutcome outcome = context.transport->perform(request, sink, cancel);
    const std::string after = attempt > 1 ? " after " + std::to_string(attempt) + " attempts" : "";
    AttemptResult result = judge_attempt(outcome, sink, request, after);
    if (!result.error) return Ok{};
    if (!result.retryable || attempt >= attempts_allowed) return with_target(*result.error);
    if (!context.sleep(retry_delay(context.policy, attempt, result.retry_after, random), cancel))
      return with_target(plain_error(ErrorCode::Cancelled, "the request was cancelled"));
  }
}

}  // namespace weld::provider
