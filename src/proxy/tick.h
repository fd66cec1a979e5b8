#pragma once
// Timeouts without a timer per I/O operation: each connection keeps a
// `Deadline` (set before an operation, one clock read), and its worker's
// watchdog, ticking every `kTick`, cancels what is overdue. A timer per
// operation (Beast's tcp_stream) costs a timer-queue insert and removal, an
// allocation and often a timerfd_settime per read or write; the hot path
// now pays none of that. Timeouts fire up to one tick late. Private to
// src/proxy.

#include <chrono>
#include <unordered_set>

namespace weld::proxy {

/// The watchdog's period: the precision of every timeout.
inline constexpr std::chrono::milliseconds kTick{50};

/// When the operation in progress must end by.
class Deadline {
 public:
  using Clock = std::chrono::steady_clock;
  /// Starts a new operation that may take `timeout`.
  void arm(std::chrono::milliseconds timeout) {
    at_ = Clock::now() + timeout;
    expired_ = false;
  }
  void disarm() { at_ = Clock::time_point::max(); }
  /// True once the watchdog found the deadline passed (until the next arm).
  bool expired() const { return expired_; }
  /// For the watchdog: true (once) when `now` is past the deadline.
  bool check(Clock::time_point now) {
    if (now < at_) return false;
    at_ = Clock::time_point::max();
    expired_ = true;
    return true;
  }

 private:
  Clock::time_point at_ = Clock::time_point::max();
  bool expired_ = false;
};

/// Something the watchdog visits every tick.
class Ticking {
 public:
  virtual void on_tick(Deadline::Clock::time_point now) = 0;

 protected:
  ~Ticking() = default;
};

/// The objects a worker's watchdog visits (one per worker, one thread).
class TickList {
 public:
  void add(Ticking* item) { items_.insert(item); }
  void remove(Ticking* item) { items_.erase(item); }
  /// Visits every item; an item must not add or remove items from on_tick.
  void tick(Deadline::Clock::time_point now) {
    for (Ticking* item : items_) item->on_tick(now);
  }
  bool empty() const { return items_.empty(); }

 private:
  std::unordered_set<Ticking*> items_;
};

}  // namespace weld::proxy
