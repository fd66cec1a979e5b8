// The batch's request gate (docs/batch.md, "Concurrency, rate limits,
// retries": a 429's Retry-After pause starts when weld receives the 429,
// and no request of the batch starts before it has passed). It sits in the transport, below the provider's own retries, so
// retried attempts wait like first attempts and every wire protocol is
// covered without reading any of them.

#include "weld/batch/gate.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace weld::batch {
namespace {

constexpr std::chrono::milliseconds kDefaultPause{1000};
constexpr std::chrono::milliseconds kMaxPause{60'000};

class GateSink : public provider::ResponseSink {
 public:
  GateSink(provider::ResponseSink& inner, RequestGate& gate) : inner_(inner), gate_(gate) {}
  void on_headers(int status, const provider::HttpHeaders& headers) override {
    if (auto pause = pause_for_response(status, headers)) gate_.pause_for(*pause);
    inner_.on_headers(status, headers);
  }
  bool on_body(std::string_view chunk) override { return inner_.on_body(chunk); }
  // What the transport asks of the sink passes through: keep-alive bytes are
  // not progress, and a whole answer ends the response (docs/protocols.md,
  // "End of stream").
  bool last_chunk_was_progress() const override { return inner_.last_chunk_was_progress(); }
  bool complete() const override { return inner_.complete(); }

 private:
  provider::ResponseSink& inner_;
  RequestGate& gate_;
};

class GatedTransport : public provider::Transport {
 public:
  GatedTransport(std::unique_ptr<provider::Transport> inner, RequestGate& gate)
      : inner_(std::move(inner)), gate_(gate) {}
  provider::TransportOutcome perform(const provider::HttpRequest& request, provider::ResponseSink& sink,
                                     provider::CancelToken& cancel) override {
    if (!gate_.wait_turn(cancel)) return {provider::TransportOutcome::Kind::Cancelled, "cancelled", false};
    GateSink gated(sink, gate_);
    return inner_->perform(request, gated, cancel);
  }

 private:
  std::unique_ptr<provider::Transport> inner_;
  RequestGate& gate_;
};

}  // namespace

RequestGate::RequestGate(double max_rps, provider::Sleeper sleep) : sleep_(std::move(sleep)) {
  if (!sleep_) sleep_ = provider::sleep_unless_cancelled;
  if (max_rps > 0)
    interval_ = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / max_rps));
}

bool RequestGate::wait_turn(provider::CancelToken& cancel) {
  for (;;) {
    if (cancel.cancelled.load()) return false;
    Clock::time_point wake;
    {
      std::lock_guard lock(mutex_);
      const Clock::time_point now = Clock::now();
      if (now >= paused_until_ && now >= next_start_) {
        if (interval_.count() > 0) next_start_ = now + interval_;
        return true;
      }
      wake = std::max(paused_until_, next_start_);
    }
    // Slices of at most 50 ms: a longer pause that arrives meanwhile is
    // honoured. The sleeper returns early on a cancel (SIGINT).
    const auto slice = std::min<Clock::duration>(wake - Clock::now(), std::chrono::milliseconds(50));
    if (!sleep_(std::chrono::ceil<std::chrono::milliseconds>(std::max(slice, Clock::duration::zero())), cancel))
      return false;
  }
}

void RequestGate::pause_for(std::chrono::milliseconds delay) {
  std::lock_guard lock(mutex_);
  paused_until_ = std::max(paused_until_, Clock::now() + delay);
  pauses_.fetch_add(1);
}

std::optional<std::chrono::milliseconds> pause_for_response(int status, const provider::HttpHeaders& headers) {
  if (status != 429 && status != 503) return std::nullopt;
  std::optional<std::chrono::milliseconds> asked = provider::retry_after_of(headers, std::chrono::system_clock::now());
  if (!asked) {
    if (status == 503) return std::nullopt;
    asked = kDefaultPause;
  }
  return std::clamp(*asked, std::chrono::milliseconds(0), kMaxPause);
}

std::unique_ptr<provider::Transport> gate_transport(std::unique_ptr<provider::Transport> inner, RequestGate& gate) {
  return std::make_unique<GatedTransport>(std::move(inner), gate);
}

}  // namespace weld::batch
