// The libcurl transfers of every HTTP client of weld (CurlMulti,
// weld/provider/curl_multi.h): easy-handle setup, the callbacks into the
// ResponseSink, the idle clock, the outcome, and a pool of easy handles
// (reset between requests, so a request does not allocate libcurl's buffers
// anew). The multi handle lives as long as its owner, so its connection
// cache keeps connections alive between requests.
#include "weld/provider/curl_multi.h"

#include <curl/curl.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <string>

#include "weld/base/ascii.h"
#include "weld/provider/ca_bundle.h"

namespace weld::provider {
namespace {

using Clock = std::chrono::steady_clock;

void global_init_once() {
  // libcurl requires one curl_global_init before any handle; the flag is
  // function-local so there is no mutable global to reason about.
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// Whether the process ignores SIGPIPE (weld's run and batch do, before any
// transport exists). Then libcurl's own guard — two sigaction calls around
// every libcurl call, 12% of weld batch's CPU (docs/bench-batch.md) —
// protects nothing, and CURLOPT_NOSIGNAL turns it off. A program embedding
// libweld that keeps the default SIGPIPE action keeps the guard. Asked once
// per multi handle (once per request was a system call per row of weld batch).
bool sigpipe_ignored() {
  struct sigaction current {};
  return ::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_IGN;
}

struct Transfer {
  CURL* easy = nullptr;
  ResponseSink* sink = nullptr;
  HttpHeaders headers;
  bool headers_delivered = false;
  bool aborted = false;
  Clock::time_point last_activity{};  // set when the transfer starts

  void deliver_headers() {
    if (headers_delivered) return;
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    headers_delivered = true;
    sink->on_headers(static_cast<int>(status), headers);
  }
};

std::size_t on_header_line(char* data, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  std::size_t n = size * count;
  std::string_view line(data, n);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  // The idle clock restarts at a status line and at the end of the headers
  // (not at every line: fewer clock reads per request).
  if (line.empty()) transfer->last_activity = Clock::now();
  if (ascii_istarts_with(line, "http/")) {
    transfer->last_activity = Clock::now();
    // A new status line (after a 100 Continue or a proxy CONNECT): start over.
    transfer->headers.clear();
    return n;
  }
  std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  transfer->headers.emplace_back(std::string(line.substr(0, colon)), std::string(value));
  return n;
}

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  std::size_t n = size * count;
  transfer->deliver_headers();
  if (!transfer->sink->on_body(std::string_view(data, n))) {
    transfer->aborted = true;
    return 0;  // makes libcurl stop with CURLE_WRITE_ERROR
  }
  // Keep-alive bytes (SSE comments) are not progress: the idle clock runs on.
  if (transfer->sink->last_chunk_was_progress()) transfer->last_activity = Clock::now();
  return n;
}

// The outcome of a transfer that has left the multi handle.
// How far a transfer got.
struct PendingState {
  bool idle = false;
  bool finished = false;
  CURLcode result = CURLE_OK;
  const char* error_buffer = "";
};

TransportOutcome outcome_of(Transfer& transfer, const PendingState& pending, bool cancelled) {
  using Kind = TransportOutcome::Kind;
  if (!cancelled && !pending.idle && pending.finished && pending.result == CURLE_OK) transfer.deliver_headers();
  const bool got_headers = transfer.headers_delivered;
  curl_off_t connect_us = 0;
  curl_easy_getinfo(transfer.easy, CURLINFO_CONNECT_TIME_T, &connect_us);
  if (cancelled) return {Kind::Cancelled, "cancelled", got_headers};
  if (pending.idle) return {Kind::IdleTimeout, "idle timeout", got_headers};
  if (transfer.aborted) return {Kind::Aborted, "aborted", got_headers};
  if (!pending.finished) return {Kind::Other, "the transfer did not finish", got_headers};
  TransportOutcome outcome;
  outcome.got_headers = got_headers;
  outcome.detail = pending.error_buffer[0] ? std::string(pending.error_buffer) : curl_easy_strerror(pending.result);
  switch (pending.result) {
    case CURLE_OK:
      outcome.kind = Kind::Complete;
      break;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
      outcome.kind = Kind::ConnectFailed;
      break;
    case CURLE_OPERATION_TIMEDOUT:
      outcome.kind = connect_us > 0 ? Kind::IdleTimeout : Kind::ConnectTimeout;
      break;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CIPHER:
      outcome.kind = Kind::Tls;
      break;
    case CURLE_SSL_CONNECT_ERROR:
      outcome.kind = connect_us > 0 ? Kind::ConnectionLost : Kind::ConnectFailed;
      break;
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      outcome.kind = Kind::ConnectionLost;
      break;
    default:
      outcome.kind = Kind::Other;
      break;
  }
  return outcome;
}

}  // namespace

// One request in flight: its easy handle and what must outlive it.
struct CurlMulti::Pending {
  TransferId id = 0;
  Transfer transfer;
  curl_slist* header_list = nullptr;
  char error_buffer[CURL_ERROR_SIZE] = {};
  std::chrono::milliseconds idle_timeout{};
  PendingState state;
  Done done;

  Pending() = default;
  Pending(const Pending&) = delete;
  Pending& operator=(const Pending&) = delete;
  ~Pending() { curl_slist_free_all(header_list); }
};

namespace {

// Sets up `easy` for `request` into `pending`.
void prepare(CURL* easy, CurlMulti::Pending& pending, const HttpRequest& request, const NetworkSettings& settings,
             bool no_signal) {
  Transfer& transfer = pending.transfer;
  pending.idle_timeout = request.idle_timeout;

  for (const auto& [name, value] : request.headers)
    pending.header_list = curl_slist_append(pending.header_list, (name + ": " + value).c_str());
  // No "Expect: 100-continue" round trip for large bodies.
  pending.header_list = curl_slist_append(pending.header_list, "Expect:");

  curl_easy_setopt(easy, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  if (request.method == "POST" || !request.body.empty()) {
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    // libcurl sends a body through its upload buffer, 64 KB by default: a
    // larger body went in 64 KB sends, each a wake-up of the server and a
    // poll here. A buffer the body's size (libcurl caps it at 2 MB) sends it
    // at once (telemetry's batches are ~170 KB, one a quarter
    // second under load; large prompts gain the same).
    constexpr std::size_t kDefaultUploadBuffer = 64 * 1024, kMaxUploadBuffer = 2 * 1024 * 1024;
    if (request.body.size() > kDefaultUploadBuffer) {
      const std::size_t buffer = std::min(request.body.size(), kMaxUploadBuffer);
      curl_easy_setopt(easy, CURLOPT_UPLOAD_BUFFERSIZE, static_cast<long>(buffer));
    }
  }
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, pending.header_list);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header_line);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(easy, CURLOPT_PRIVATE, &pending);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, pending.error_buffer);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout.count()));
  if (request.total_timeout.count() > 0)
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(request.total_timeout.count()));
  curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  // libcurl guards each call with a pair of sigaction calls unless told that
  // SIGPIPE is already ignored (as the run and weld batch do).
  if (no_signal) curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  // Proxies come from NetworkSettings (resolved from the environment the
  // caller passed in); an empty string disables libcurl's own env lookup.
  bool https = ascii_istarts_with(request.url, "https:");
  const std::string& proxy = https ? settings.https_proxy : settings.http_proxy;
  curl_easy_setopt(easy, CURLOPT_PROXY, proxy.c_str());
  if (!settings.no_proxy.empty()) curl_easy_setopt(easy, CURLOPT_NOPROXY, settings.no_proxy.c_str());
  // SSL_CERT_FILE or CURL_CA_BUNDLE, else the system's bundle when libcurl
  // has no default of its own there (weld/provider/ca_bundle.h).
  const std::string& ca_bundle = settings.ca_bundle.empty() ? system_ca_bundle() : settings.ca_bundle;
  if (!ca_bundle.empty()) curl_easy_setopt(easy, CURLOPT_CAINFO, ca_bundle.c_str());
}

// The idle clocks are looked at this often (and a poll waits no longer
// while a transfer is in flight).
constexpr std::chrono::milliseconds kIdleCheck{50};

}  // namespace

CurlMulti::CurlMulti() : no_signal_(sigpipe_ignored()) {
  global_init_once();
  multi_ = curl_multi_init();
}

CurlMulti::~CurlMulti() {
  for (auto& pending : active_) {
    curl_multi_remove_handle(static_cast<CURLM*>(multi_), pending->transfer.easy);
    curl_easy_cleanup(pending->transfer.easy);
  }
  for (void* easy : idle_easy_) curl_easy_cleanup(static_cast<CURL*>(easy));
  if (multi_) curl_multi_cleanup(static_cast<CURLM*>(multi_));
}

CurlMulti::TransferId CurlMulti::start(const HttpRequest& request, ResponseSink& sink, const NetworkSettings& settings,
                                       Done done) {
  const TransferId id = next_id_++;
  CURL* easy = nullptr;
  if (!idle_easy_.empty()) {
    easy = static_cast<CURL*>(idle_easy_.back());
    idle_easy_.pop_back();
  } else if (multi_) {
    easy = curl_easy_init();
  }
  if (!easy) {
    done({TransportOutcome::Kind::Other, multi_ ? "curl_easy_init failed" : "curl_multi_init failed", false});
    return id;
  }
  auto pending = std::make_unique<Pending>();
  pending->id = id;
  pending->done = std::move(done);
  pending->transfer.sink = &sink;
  pending->transfer.easy = easy;
  pending->state.error_buffer = pending->error_buffer;
  prepare(easy, *pending, request, settings, no_signal_);
  pending->transfer.last_activity = Clock::now();
  curl_multi_add_handle(static_cast<CURLM*>(multi_), easy);
  active_.push_back(std::move(pending));
  return id;
}

void CurlMulti::finish(Pending& pending, TransportOutcome outcome) {
  CURL* easy = pending.transfer.easy;
  // Taken out of the active list before `done` runs: it may start another.
  auto at = std::find_if(active_.begin(), active_.end(), [&](const auto& p) { return p.get() == &pending; });
  std::unique_ptr<Pending> owned = std::move(*at);
  *at = std::move(active_.back());
  active_.pop_back();
  // Reset: it kept pointers to the request's header list, buffers and the
  // callbacks' data.
  curl_easy_reset(easy);
  idle_easy_.push_back(easy);
  owned->done(std::move(outcome));
}

void CurlMulti::cancel(TransferId id) {
  for (auto& pending : active_) {
    if (pending->id != id) continue;
    curl_multi_remove_handle(static_cast<CURLM*>(multi_), pending->transfer.easy);
    finish(*pending, outcome_of(pending->transfer, pending->state, true));
    return;
  }
}

void CurlMulti::check_idle() {
  // The idle clock of a transfer runs once it is connected: before that
  // the connect timeout applies.
  const auto now = Clock::now();
  if (now < next_idle_check_) return;
  next_idle_check_ = now + kIdleCheck;
  for (std::size_t i = 0; i < active_.size();) {
    Pending& p = *active_[i];
    curl_off_t connect_us = 0;
    curl_easy_getinfo(p.transfer.easy, CURLINFO_CONNECT_TIME_T, &connect_us);
    if (connect_us <= 0) {
      p.transfer.last_activity = now;
    } else if (now - p.transfer.last_activity >
               (p.transfer.sink->complete() ? std::min(p.idle_timeout, kAfterTerminalEvent) : p.idle_timeout)) {
      // A whole answer whose server keeps the connection open ends here
      // too; send_with_retries reads an idle end after a complete body as
      // the end of the response.
      curl_multi_remove_handle(static_cast<CURLM*>(multi_), p.transfer.easy);
      p.state.idle = true;
      finish(p, outcome_of(p.transfer, p.state, false));
      continue;  // active_[i] is now another transfer
    }
    ++i;
  }
}

void CurlMulti::poll(std::chrono::milliseconds timeout) {
  auto* multi = static_cast<CURLM*>(multi_);
  if (!multi) return;
  if (!active_.empty()) timeout = std::min(timeout, kIdleCheck);
  curl_multi_poll(multi, nullptr, 0, static_cast<int>(timeout.count()), nullptr);
  int running = 0;
  curl_multi_perform(multi, &running);
  int left = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
    if (msg->msg != CURLMSG_DONE) continue;
    Pending* pending = nullptr;
    curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&pending));
    const CURLcode result = msg->data.result;
    curl_multi_remove_handle(multi, msg->easy_handle);  // msg is invalid from here
    if (!pending) continue;
    pending->state.finished = true;
    pending->state.result = result;
    finish(*pending, outcome_of(pending->transfer, pending->state, false));
  }
  check_idle();
}

void CurlMulti::wakeup() {
  if (multi_) curl_multi_wakeup(static_cast<CURLM*>(multi_));
}

}  // namespace weld::provider
