#pragma once
/// \file
/// Many HTTP transfers over one libcurl multi handle: the one place that sets
/// up a libcurl transfer (easy handle options, the callbacks into the
/// `ResponseSink`, the idle timeout, the outcome). The blocking transport
/// (`make_curl_transport`) drives one with its own requests; `weld batch`
/// drives one for every row in flight from its fiber loop.
///
/// \code
///   weld::provider::CurlMulti multi;
///   weld::provider::TransportOutcome outcome;
///   bool done = false;
///   multi.start(request, sink, settings, [&](weld::provider::TransportOutcome o) { outcome = std::move(o); done = true; });
///   while (!done) multi.poll(std::chrono::milliseconds(50));
/// \endcode

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "weld/provider/http.h"

namespace weld::provider {

/// One libcurl multi handle (one connection cache) and its transfers. All
/// calls but `wakeup` come from one thread at a time. When the process
/// ignores SIGPIPE as it is made, libcurl's SIGPIPE guard (two sigaction
/// calls around each libcurl call) is turned off for its transfers.
class CurlMulti {
 public:
  /// Called once when a transfer ends, from `poll` or `cancel`.
  using Done = std::function<void(TransportOutcome)>;
  /// Names a started transfer (never 0).
  using TransferId = std::uint64_t;

  CurlMulti();
  ~CurlMulti();
  CurlMulti(const CurlMulti&) = delete;
  CurlMulti& operator=(const CurlMulti&) = delete;

  /// Starts `request`; `request`, `sink` and `settings` must outlive the
  /// transfer. When libcurl cannot take it, `done` is called at once.
  TransferId start(const HttpRequest& request, ResponseSink& sink, const NetworkSettings& settings, Done done);
  /// Ends transfer `id` now as Cancelled (nothing when it has ended).
  void cancel(TransferId id);
  /// Waits at most `timeout` for network activity (or `wakeup`), lets libcurl
  /// work, and ends the transfers that finished or stayed silent longer
  /// than their idle timeout, calling their `done`.
  void poll(std::chrono::milliseconds timeout);
  /// Ends a `poll` now, or the next one at once. Any thread.
  void wakeup();
  /// Transfers started and not yet ended.
  std::size_t active() const { return active_.size(); }

  /// One transfer in flight (defined in curl_multi.cc).
  struct Pending;

 private:
  void finish(Pending& pending, TransportOutcome outcome);
  void check_idle();

  bool no_signal_;  // the process ignored SIGPIPE when this was made: CURLOPT_NOSIGNAL
  void* multi_ = nullptr;  // CURLM*
  std::vector<void*> idle_easy_;  // CURL* handles between requests, reset
  std::vector<std::unique_ptr<Pending>> active_;
  TransferId next_id_ = 1;
  std::chrono::steady_clock::time_point next_idle_check_{};
};

}  // namespace weld::provider
