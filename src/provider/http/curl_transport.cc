// The libcurl transport. It drives one easy handle through a multi handle so
// that it can wake up every 50 ms to check the CancelToken (a SIGINT must end
// a request in flight within a second, SPEC §2.3) and the idle timer (no byte
// for N seconds ends the transfer: a stalled stream must not hang weld).
// The multi handle lives as long as the transport, so its connection cache
// keeps connections alive between turns; so does the easy handle (reset
// between requests), so a request does not allocate libcurl's buffers anew.
#include <curl/curl.h>
#include <signal.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "weld/base/ascii.h"
#include "weld/provider/http.h"

namespace weld::provider {
namespace {

using Clock = std::chrono::steady_clock;

void global_init_once() {
  // libcurl requires one curl_global_init before any handle; the flag is
  // function-local so there is no mutable global to reason about.
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// Whether the process ignores SIGPIPE (weld's run and batch do). Then
// libcurl's own guard — two sigaction calls around every libcurl call, 12%
// of weld batch's CPU (docs/bench-batch.md) — protects nothing, and
// CURLOPT_NOSIGNAL turns it off. A program embedding libweld that keeps the
// default SIGPIPE action keeps the guard.
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
  Clock::time_point last_activity = Clock::now();

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
  transfer->last_activity = Clock::now();
  std::string_view line(data, n);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (ascii_istarts_with(line, "http/")) {
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

// One request in flight: its easy handle and what must outlive it.
struct Pending {
  Transfer transfer;
  curl_slist* header_list = nullptr;
  char error_buffer[CURL_ERROR_SIZE] = {};
  std::chrono::milliseconds idle_timeout{};
  bool idle = false;
  bool finished = false;
  CURLcode result = CURLE_OK;

  Pending() = default;
  Pending(const Pending&) = delete;
  Pending& operator=(const Pending&) = delete;
  ~Pending() { curl_slist_free_all(header_list); }
};

// The outcome of a transfer that has left the multi handle.
TransportOutcome outcome_of(Pending& pending, bool cancelled) {
  using Kind = TransportOutcome::Kind;
  Transfer& transfer = pending.transfer;
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

class CurlTransport : public Transport {
 public:
  explicit CurlTransport(NetworkSettings settings) : settings_(std::move(settings)) {
    global_init_once();
    multi_ = curl_multi_init();
  }
  ~CurlTransport() override {
    for (CURL* easy : idle_) curl_easy_cleanup(easy);
    if (multi_) curl_multi_cleanup(multi_);
  }
  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;

  TransportOutcome perform(const HttpRequest& request, ResponseSink& sink, CancelToken& cancel) override {
    return perform_all({HttpCall{&request, &sink}}, cancel).front();
  }
  std::vector<TransportOutcome> perform_all(const std::vector<HttpCall>& calls, CancelToken& cancel) override;

 private:
  // Sets up `pending`'s easy handle for `call`; false when libcurl cannot.
  bool prepare(Pending& pending, const HttpCall& call);

  // An easy handle for the next request: a reused one (reset after its
  // last request, so libcurl's buffers are not allocated anew), or a new one.
  CURL* take_easy();
  // Resets `easy` (it kept pointers to the request's header list, buffers
  // and callbacks' data) and keeps it for the next request.
  void give_back(CURL* easy);

  NetworkSettings settings_;
  CURLM* multi_ = nullptr;
  std::vector<CURL*> idle_;  // easy handles between requests
};

CURL* CurlTransport::take_easy() {
  if (idle_.empty()) return curl_easy_init();
  CURL* easy = idle_.back();
  idle_.pop_back();
  return easy;
}

void CurlTransport::give_back(CURL* easy) {
  if (easy == nullptr) return;
  curl_easy_reset(easy);
  idle_.push_back(easy);
}

bool CurlTransport::prepare(Pending& pending, const HttpCall& call) {
  const HttpRequest& request = *call.request;
  Transfer& transfer = pending.transfer;
  transfer.sink = call.sink;
  transfer.easy = take_easy();
  if (!transfer.easy) return false;
  CURL* easy = transfer.easy;
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
  }
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, pending.header_list);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header_line);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &transfer);
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
  if (sigpipe_ignored()) curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  // Proxies come from NetworkSettings (resolved from the environment the
  // caller passed in); an empty string disables libcurl's own env lookup.
  bool https = ascii_istarts_with(request.url, "https:");
  const std::string& proxy = https ? settings_.https_proxy : settings_.http_proxy;
  curl_easy_setopt(easy, CURLOPT_PROXY, proxy.c_str());
  if (!settings_.no_proxy.empty()) curl_easy_setopt(easy, CURLOPT_NOPROXY, settings_.no_proxy.c_str());
  if (!settings_.ca_bundle.empty()) curl_easy_setopt(easy, CURLOPT_CAINFO, settings_.ca_bundle.c_str());
  return true;
}

std::vector<TransportOutcome> CurlTransport::perform_all(const std::vector<HttpCall>& calls, CancelToken& cancel) {
  std::vector<TransportOutcome> outcomes(calls.size());
  if (!multi_) {
    for (auto& outcome : outcomes) outcome = {TransportOutcome::Kind::Other, "curl_multi_init failed", false};
    return outcomes;
  }
  std::vector<std::unique_ptr<Pending>> pending(calls.size());
  std::size_t in_flight = 0;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    pending[i] = std::make_unique<Pending>();
    if (!prepare(*pending[i], calls[i])) {
      outcomes[i] = {TransportOutcome::Kind::Other, "curl_easy_init failed", false};
      pending[i].reset();
      continue;
    }
    pending[i]->transfer.last_activity = Clock::now();
    curl_multi_add_handle(multi_, pending[i]->transfer.easy);
    ++in_flight;
  }

  // Marks the transfers libcurl reports done (and takes them off the multi handle).
  auto collect_done = [&] {
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi_, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      for (auto& p : pending) {
        if (p && p->transfer.easy == msg->easy_handle && !p->finished) {
          p->finished = true;
          p->result = msg->data.result;
          curl_multi_remove_handle(multi_, p->transfer.easy);
          --in_flight;
        }
      }
    }
  };

  bool cancelled = false;
  while (in_flight > 0) {
    int running = 0;
    CURLMcode mc = curl_multi_perform(multi_, &running);
    collect_done();
    if (mc != CURLM_OK || in_flight == 0) break;
    if (cancel.cancelled.load()) {
      cancelled = true;
      break;
    }
    // The idle clock of a transfer runs once it is connected: before that
    // the connect timeout applies.
    auto now = Clock::now();
    for (auto& p : pending) {
      if (!p || p->finished || p->idle) continue;
      curl_off_t connect_us = 0;
      curl_easy_getinfo(p->transfer.easy, CURLINFO_CONNECT_TIME_T, &connect_us);
      if (connect_us <= 0) {
        p->transfer.last_activity = now;
      } else if (now - p->transfer.last_activity > p->idle_timeout) {
        p->idle = true;
        curl_multi_remove_handle(multi_, p->transfer.easy);
        --in_flight;
      }
    }
    if (in_flight == 0) break;
    curl_multi_poll(multi_, nullptr, 0, 50, nullptr);
  }

  for (std::size_t i = 0; i < pending.size(); ++i) {
    if (!pending[i]) continue;
    Pending& p = *pending[i];
    if (!p.finished && !p.idle) curl_multi_remove_handle(multi_, p.transfer.easy);
    outcomes[i] = outcome_of(p, cancelled && !p.finished && !p.idle);
    give_back(p.transfer.easy);
    p.transfer.easy = nullptr;
  }
  return outcomes;
}

}  // namespace

std::unique_ptr<Transport> make_curl_transport(const NetworkSettings& settings) {
  return std::make_unique<CurlTransport>(settings);
}

}  // namespace weld::provider
