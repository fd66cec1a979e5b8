// SIGINT/SIGTERM → cancellation, and a hard deadline so that a run ends with
// 130 within a second even if something in flight is slow to notice
// (docs/run.md, "Limits"). Signals are blocked in every thread and taken synchronously
// with sigwait on one thread, so no handler and no global state is needed.

#include <pthread.h>
#include <signal.h>

#include "run_support.h"

namespace weld::cli {

SignalGuard::SignalGuard(provider::CancelToken& cancel, std::function<void()> force_end,
                         std::chrono::milliseconds grace)
    : cancel_(cancel), force_end_(std::move(force_end)), grace_(grace) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGUSR1);  // our own wake-up at the end of the run
  ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
  // An ignored signal is discarded before sigwait can take it, and weld may
  // have inherited SIGINT ignored (a job started in the background by a
  // script): both must still end the run with 130. Blocked,
  // the default disposition cannot kill us.
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  thread_ = std::thread([this] { wait_for_signals(); });
}

SignalGuard::~SignalGuard() {
  run_ended();
  ::pthread_kill(thread_.native_handle(), SIGUSR1);
  thread_.join();
}

void SignalGuard::run_ended() {
  std::lock_guard lock(mutex_);
  ended_ = true;
  cv_.notify_all();
}

void SignalGuard::wait_for_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGUSR1);
  for (;;) {
    int signal_number = 0;
    if (::sigwait(&set, &signal_number) != 0) continue;
    if (signal_number == SIGUSR1) {
      std::lock_guard lock(mutex_);
      if (ended_) return;
      continue;
    }
    bool second = signalled_.exchange(true);
    cancel_.cancelled = true;
    std::unique_lock lock(mutex_);
    if (ended_) return;
    if (second || !cv_.wait_for(lock, grace_, [this] { return ended_; })) {
      lock.unlock();
      force_end_();  // does not return
      return;
    }
    return;
  }
}

}  // namespace weld::cli
