#pragma once
/// \file
/// `weld batch`'s engine: rows in flight as fibers on a thread, over one
/// libcurl multi handle (`provider::CurlMulti`) driven by `curl_multi_poll`
/// (a batch runs one loop per thread it is given, `--threads`).
/// The run loop (`agent::run`) runs unchanged inside a fiber; what would
/// block under it waits on this loop instead: the model's HTTP requests
/// (`transport()`), the retry back-off and the request gate (`sleeper()`),
/// and the wait for the next row (`park()` + `wakeup()`).
///
/// \code
///   weld::batch::FiberLoop loop(network);
///   hooks.transport = [&] { return loop.transport(); };
///   hooks.sleep = loop.sleeper();
///   loop.spawn([&] { … agent::run(model, …) … });
///   loop.run(cancel);
/// \endcode

#include <atomic>
#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <vector>

#include "weld/provider/curl_multi.h"
#include "weld/provider/http.h"

namespace weld::batch {

/// Fibers with protected fixed-size stacks (a guard page below each) on the
/// thread that calls `run`, and the one multi handle their requests share.
/// Everything but `wakeup` is called from that thread.
class FiberLoop {
 public:
  /// Stack of each fiber. The deepest recursion under the run loop is the
  /// JSON parser and the schema validator, both bounded by
  /// json::ParseOptions::max_depth (512); batch's fiber_loop_test runs
  /// them at that depth on a stack of this size. Only the pages a fiber
  /// touches take memory. AddressSanitizer's frames are several times
  /// larger (redzones around every local), so its builds give more.
#if defined(__SANITIZE_ADDRESS__)
  static constexpr std::size_t kDefaultStackBytes = 8u << 20;
#else
  static constexpr std::size_t kDefaultStackBytes = 1u << 20;
#endif

  /// `network`: proxy and CA settings of every request.
  explicit FiberLoop(provider::NetworkSettings network, std::size_t stack_bytes = kDefaultStackBytes);
  ~FiberLoop();
  FiberLoop(const FiberLoop&) = delete;
  FiberLoop& operator=(const FiberLoop&) = delete;

  /// Adds a fiber running `body`; it starts when `run` runs.
  void spawn(std::function<void()> body);
  /// Runs the fibers until every one has returned. Once `stop` is set,
  /// every wait (request, sleep, park) ends at once, as cancelled; it is
  /// looked at at least every 100 ms. Rethrows the first exception a fiber
  /// let escape (the others are stopped as by `stop`).
  void run(provider::CancelToken& stop);

  /// From a fiber: sends `request` on the shared multi handle and suspends
  /// until it ends (a `provider::Transport::perform`). Outside a fiber (and
  /// only while the loop is not running) it drives the multi handle itself
  /// until the transfer ends.
  provider::TransportOutcome perform(const provider::HttpRequest& request, provider::ResponseSink& sink,
                                     provider::CancelToken& cancel);
  /// From a fiber: suspends for `duration` on the loop's clock; false when
  /// `cancel` (or the loop's stop) was set first. Outside a fiber it sleeps.
  bool sleep_for(std::chrono::milliseconds duration, provider::CancelToken& cancel);
  /// From a fiber: suspends until the next `wakeup`; the caller then checks
  /// again what it waits for. False (at once) when the loop is stopping.
  bool park();
  /// From a fiber: from `deadline` on, the fiber's waits end as cancelled
  /// and set the token they were given (a row's --max-wall-time, without a
  /// thread to watch it). `time_point::max()` clears it.
  void set_deadline(std::chrono::steady_clock::time_point deadline);
  /// Ends the loop's current wait and resumes the parked fibers. Any thread.
  void wakeup();

  /// A transport whose `perform` is that of the loop running on the calling
  /// thread, else this one's (one transport per model; a batch may run a
  /// loop per thread, and a model's requests go where its fiber runs).
  std::unique_ptr<provider::Transport> transport();
  /// A `provider::Sleeper`: `sleep_for` of the loop running on the calling
  /// thread, else this one's.
  provider::Sleeper sleeper();
  /// The loop running (in `run`) on the calling thread, else `otherwise`.
  static FiberLoop& on_this_thread(FiberLoop& otherwise);

  /// (Defined in fiber_loop.cc.)
  struct Task;

 private:
  void suspend(Task& task);
  void resume(Task& task);
  void wake_waiters();
  std::chrono::milliseconds next_wait() const;
  bool stopping() const;

  provider::NetworkSettings network_;
  std::size_t stack_bytes_;
  provider::CurlMulti multi_;
  std::vector<std::unique_ptr<Task>> tasks_;
  std::vector<Task*> ready_;
  std::size_t live_ = 0;
  Task* current_ = nullptr;
  provider::CancelToken* stop_ = nullptr;
  std::exception_ptr error_;
  std::atomic<bool> woken_{false};
};

}  // namespace weld::batch
