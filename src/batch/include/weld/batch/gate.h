#pragma once
/// \file
/// The batch's one gate in front of every model request (docs/batch.md, "Concurrency, rate limits, retries"): a 429
/// (or a 503 with Retry-After) pauses the whole batch — no request of any
/// row starts before the pause has passed, counted from the moment weld
/// received the answer — and `--max-rps` spaces request starts.
///
/// \code
///   weld::batch::RequestGate gate(/*max_rps=*/50);
///   hooks.wrap_transport = [&](auto inner) { return weld::batch::gate_transport(std::move(inner), gate); };
/// \endcode

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

#include "weld/provider/http.h"

namespace weld::batch {

/// Shared by every row of one batch. Thread-safe.
class RequestGate {
 public:
  using Clock = std::chrono::steady_clock;

  /// `max_rps` <= 0: no rate cap. `sleep` waits for the gate to open
  /// (default: the thread sleeps; `weld batch` passes its fiber loop's).
  explicit RequestGate(double max_rps = 0, provider::Sleeper sleep = {});

  /// Blocks until a request may start; false when `cancel` was set first.
  bool wait_turn(provider::CancelToken& cancel);
  /// No request starts before `now + delay` (longer pauses win).
  void pause_for(std::chrono::milliseconds delay);
  /// Pauses so far (for the summary).
  std::uint64_t pauses() const { return pauses_.load(); }

 private:
  provider::Sleeper sleep_;
  std::mutex mutex_;
  Clock::duration interval_{};
  Clock::time_point paused_until_{};
  Clock::time_point next_start_{};
  std::atomic<std::uint64_t> pauses_{0};
};

/// The pause a response asks for: 429 → its `retry-after-ms` / `Retry-After`
/// (at most 60 s), else 1 s; 503 with one of those headers → that; anything
/// else → none.
std::optional<std::chrono::milliseconds> pause_for_response(int status, const provider::HttpHeaders& headers);

/// `inner` behind `gate`: each request waits its turn, and each answer
/// that asks for a pause pauses the gate as soon as its headers arrive.
std::unique_ptr<provider::Transport> gate_transport(std::unique_ptr<provider::Transport> inner, RequestGate& gate);

}  // namespace weld::batch
