// The batch's fiber loop (weld/batch/fiber_loop.h). The context switch is
// Boost.Context's `fiber` (callcc-style: each resume hands back the context
// to return to); scheduling is ours and small: a ready list, and each
// waiting fiber says what it waits for (a transfer, a time, a wakeup). The
// loop runs the ready fibers, then waits in curl_multi_poll until a socket,
// a timer or a wakeup needs it.

#include "weld/batch/fiber_loop.h"

#include <boost/context/fiber.hpp>
#include <boost/context/preallocated.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#include <algorithm>
#include <thread>
#include <utility>

namespace weld::batch {
namespace {

namespace ctx = boost::context;
using Clock = std::chrono::steady_clock;

// The longest the loop waits without looking at the stop token (a signal
// sets it from another thread, without a wakeup).
constexpr std::chrono::milliseconds kStopCheck{100};

enum class Wait { None, Transfer, Timer, Parked };

// The loop running on this thread (inside FiberLoop::run), if any.
thread_local FiberLoop* t_running = nullptr;

// AddressSanitizer is told of each switch between stacks (else it takes a
// fiber's stack for the thread's, and may report false errors); nothing
// without it.
void switch_begin([[maybe_unused]] void** fake_stack, [[maybe_unused]] const void* bottom,
                  [[maybe_unused]] std::size_t size) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_start_switch_fiber(fake_stack, bottom, size);
#endif
}
void switch_end([[maybe_unused]] void* fake_stack, [[maybe_unused]] const void** from_bottom,
                [[maybe_unused]] std::size_t* from_size) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(fake_stack, from_bottom, from_size);
#endif
}

// Fiber stacks (mmap'd, with a guard page). Under AddressSanitizer each is
// unpoisoned before it is unmapped: a fiber's frames may leave their scopes
// poisoned, and whatever maps that address next — another allocator than
// AddressSanitizer's, Python's in the Python module — would read as
// stack-use-after-scope.
class Stacks {
 public:
  explicit Stacks(std::size_t size) : stacks_(size) {}
  ctx::stack_context allocate() { return stacks_.allocate(); }
  void deallocate(ctx::stack_context& stack) noexcept {
#if defined(__SANITIZE_ADDRESS__)
    ASAN_UNPOISON_MEMORY_REGION(static_cast<char*>(stack.sp) - stack.size, stack.size);
#endif
    stacks_.deallocate(stack);
  }

 private:
  ctx::protected_fixedsize_stack stacks_;
};

}  // namespace

struct FiberLoop::Task {
  ctx::fiber fiber;  // the task, while it is suspended
  ctx::fiber loop;   // the loop, while the task runs
  bool finished = false;
  bool suspended = false;
  Wait wait = Wait::None;
  provider::CancelToken* cancel = nullptr;
  provider::CurlMulti::TransferId transfer = 0;
  Clock::time_point due{};
  bool timer_fired = false;
  Clock::time_point deadline = Clock::time_point::max();
  // This fiber's stack, and the loop thread's (for AddressSanitizer).
  const void* stack_bottom = nullptr;
  std::size_t stack_size = 0;
  const void* loop_bottom = nullptr;
  std::size_t loop_size = 0;
  void* fake_stack = nullptr;
};

namespace {

// Sends on the loop running on the calling thread (a batch may run several,
// one per thread), else on `home` (before the batch starts).
class FiberTransport : public provider::Transport {
 public:
  explicit FiberTransport(FiberLoop& home) : home_(home) {}
  provider::TransportOutcome perform(const provider::HttpRequest& request, provider::ResponseSink& sink,
                                     provider::CancelToken& cancel) override {
    return FiberLoop::on_this_thread(home_).perform(request, sink, cancel);
  }

 private:
  FiberLoop& home_;
};

}  // namespace

FiberLoop::FiberLoop(provider::NetworkSettings network, std::size_t stack_bytes)
    : network_(std::move(network)), stack_bytes_(stack_bytes) {}

FiberLoop::~FiberLoop() = default;

void FiberLoop::spawn(std::function<void()> body) {
  auto owned = std::make_unique<Task>();
  Task* task = owned.get();
  Stacks stacks(stack_bytes_);
  ctx::stack_context stack = stacks.allocate();
  task->stack_bottom = static_cast<char*>(stack.sp) - stack.size;
  task->stack_size = stack.size;
  task->fiber = ctx::fiber(std::allocator_arg, ctx::preallocated(stack.sp, stack.size, stack), stacks,
                           [this, task, body = std::move(body)](ctx::fiber&& loop) mutable {
                             switch_end(nullptr, &task->loop_bottom, &task->loop_size);
                             task->loop = std::move(loop);
                             try {
                               body();
                             } catch (const ctx::detail::forced_unwind&) {
                               throw;
                             } catch (...) {
                               if (!error_) error_ = std::current_exception();
                             }
                             task->finished = true;
                             switch_begin(nullptr, task->loop_bottom, task->loop_size);
                             return std::move(task->loop);
                           });
  tasks_.push_back(std::move(owned));
  ready_.push_back(task);
  ++live_;
}

void FiberLoop::resume(Task& task) {
  current_ = &task;
  void* fake_stack = nullptr;
  switch_begin(&fake_stack, task.stack_bottom, task.stack_size);
  task.fiber = std::move(task.fiber).resume();
  switch_end(fake_stack, nullptr, nullptr);
  current_ = nullptr;
  if (task.finished) --live_;
}

void FiberLoop::suspend(Task& task) {
  task.suspended = true;
  while (task.wait != Wait::None) {
    switch_begin(&task.fake_stack, task.loop_bottom, task.loop_size);
    task.loop = std::move(task.loop).resume();
    switch_end(task.fake_stack, &task.loop_bottom, &task.loop_size);
  }
  task.suspended = false;
}

bool FiberLoop::stopping() const { return error_ || (stop_ != nullptr && stop_->cancelled.load()); }

FiberLoop& FiberLoop::on_this_thread(FiberLoop& otherwise) { return t_running != nullptr ? *t_running : otherwise; }

void FiberLoop::run(provider::CancelToken& stop) {
  stop_ = &stop;
  FiberLoop* const outer = std::exchange(t_running, this);
  std::vector<Task*> running;
  while (live_ > 0) {
    running.swap(ready_);
    for (Task* task : running) resume(*task);
    running.clear();
    if (live_ == 0) break;
    multi_.poll(next_wait());
    wake_waiters();
  }
  t_running = outer;
  stop_ = nullptr;
  tasks_.clear();
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

std::chrono::milliseconds FiberLoop::next_wait() const {
  if (!ready_.empty()) return std::chrono::milliseconds(0);
  Clock::duration wait = kStopCheck;
  const Clock::time_point now = Clock::now();
  for (const auto& task : tasks_) {
    if (task->wait == Wait::Timer) wait = std::min(wait, std::max(task->due - now, Clock::duration::zero()));
    if (task->wait != Wait::None && task->wait != Wait::Parked && task->deadline != Clock::time_point::max())
      wait = std::min(wait, std::max(task->deadline - now, Clock::duration::zero()));
  }
  // Rounded up: waking a little late beats spinning a little early.
  return std::chrono::ceil<std::chrono::milliseconds>(wait);
}

void FiberLoop::wake_waiters() {
  const bool stop = stopping();
  const bool woken = woken_.exchange(false);
  const Clock::time_point now = Clock::now();
  for (const auto& owned : tasks_) {
    Task& task = *owned;
    if (task.wait != Wait::None && task.wait != Wait::Parked && now >= task.deadline) task.cancel->cancelled = true;
    switch (task.wait) {
      case Wait::None: break;
      case Wait::Transfer:
        // Its Done callback makes it ready.
        if (stop || task.cancel->cancelled.load()) multi_.cancel(task.transfer);
        break;
      case Wait::Timer:
        if (stop || task.cancel->cancelled.load() || now >= task.due) {
          task.timer_fired = now >= task.due && !stop && !task.cancel->cancelled.load();
          task.wait = Wait::None;
          ready_.push_back(&task);
        }
        break;
      case Wait::Parked:
        if (stop || woken) {
          task.wait = Wait::None;
          ready_.push_back(&task);
        }
        break;
    }
  }
}

provider::TransportOutcome FiberLoop::perform(const provider::HttpRequest& request, provider::ResponseSink& sink,
                                              provider::CancelToken& cancel) {
  // What the transfer's Done callback fills in (one pointer for it to capture).
  struct Waiting {
    FiberLoop* loop;
    Task* task;
    provider::TransportOutcome outcome;
    bool done = false;
  } waiting{this, current_, {}, false};
  if (cancel.cancelled.load() || (current_ != nullptr && stopping()))
    return {provider::TransportOutcome::Kind::Cancelled, "cancelled", false};
  auto done = [w = &waiting](provider::TransportOutcome outcome) {
    w->outcome = std::move(outcome);
    w->done = true;
    if (w->task != nullptr && w->task->wait == Wait::Transfer) {
      w->task->wait = Wait::None;
      if (w->task->suspended) w->loop->ready_.push_back(w->task);
    }
  };
  if (current_ == nullptr) {
    // Not in a fiber (a look at the server before the batch starts): drive
    // the multi handle here, as the blocking transport does.
    const provider::CurlMulti::TransferId id = multi_.start(request, sink, network_, done);
    while (!waiting.done) {
      if (cancel.cancelled.load()) multi_.cancel(id);
      else multi_.poll(std::chrono::milliseconds(50));
    }
    return std::move(waiting.outcome);
  }
  Task& task = *current_;
  task.wait = Wait::Transfer;
  task.cancel = &cancel;
  task.transfer = multi_.start(request, sink, network_, done);
  if (!waiting.done) suspend(task);
  task.wait = Wait::None;
  return std::move(waiting.outcome);
}

void FiberLoop::set_deadline(Clock::time_point deadline) {
  if (current_ != nullptr) current_->deadline = deadline;
}

bool FiberLoop::sleep_for(std::chrono::milliseconds duration, provider::CancelToken& cancel) {
  if (current_ == nullptr) return provider::sleep_unless_cancelled(duration, cancel);
  if (cancel.cancelled.load() || stopping()) return false;
  Task& task = *current_;
  task.wait = Wait::Timer;
  task.cancel = &cancel;
  task.due = Clock::now() + duration;
  task.timer_fired = false;
  suspend(task);
  return task.timer_fired;
}

bool FiberLoop::park() {
  if (stopping()) return false;
  if (current_ == nullptr) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return true;
  }
  Task& task = *current_;
  task.wait = Wait::Parked;
  suspend(task);
  return !stopping();
}

void FiberLoop::wakeup() {
  woken_.store(true);
  multi_.wakeup();
}

std::unique_ptr<provider::Transport> FiberLoop::transport() { return std::make_unique<FiberTransport>(*this); }

provider::Sleeper FiberLoop::sleeper() {
  return [this](std::chrono::milliseconds duration, provider::CancelToken& cancel) {
    return on_this_thread(*this).sleep_for(duration, cancel);
  };
}

}  // namespace weld::batch
