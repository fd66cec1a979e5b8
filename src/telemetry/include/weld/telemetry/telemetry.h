#pragma once
/// \file
/// The telemetry runtime (docs/telemetry.md): spans and metrics recorded by the run,
/// the proxy and the batch, exported over OTLP/HTTP (and/or written to
/// `--telemetry-file`) by one background thread. Recording never blocks on
/// the network: spans go to a bounded queue (full: the span is dropped and
/// counted), the sender has a timeout, and `shutdown` waits a bounded time.
/// When nothing is configured there is no `Telemetry` at all, and a null
/// `Telemetry*` makes every `Span` a no-op.
///
/// \code
///   std::unique_ptr<Telemetry> telemetry = Telemetry::start(config, "0.1.0");
///   Span run = start_span(telemetry.get(), "invoke_agent weld", SpanKind::Internal, nullptr);
///   run.set("weld.attempts", std::int64_t{2});
///   run.end();
///   Telemetry::Report report = telemetry->shutdown(std::chrono::milliseconds(1000));
/// \endcode

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include "weld/provider/http.h"
#include "weld/telemetry/config.h"
#include "weld/telemetry/metrics.h"
#include "weld/telemetry/span.h"
#include "weld/telemetry/trace_context.h"

namespace weld::telemetry {
namespace detail {
class SpanQueue;
struct ThreadSpans;
}

class Telemetry;
class Span;

/// Starts a span under `parent` (nullptr or invalid: a new trace). Returns a
/// no-op span when `telemetry` is null.
Span start_span(Telemetry* telemetry, std::string_view name, SpanKind kind, const SpanContext* parent);

/// A span being recorded; exported when it ends (`end()` or destruction).
/// A default-constructed Span (telemetry off) records nothing and costs
/// nothing. Move-only; use from one thread at a time.
class Span {
 public:
  Span() = default;
  Span(Span&& other) noexcept;
  Span& operator=(Span&& other) noexcept;
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;
  ~Span() { end(); }

  /// True when attributes set on it will be exported.
  bool recording() const { return owner_ != nullptr; }
  /// This span's context, for children and `traceparent` (invalid when off).
  const SpanContext& context() const { return context_; }
  /// Sets (adds) an attribute. Only counts, names, ids and outcomes: never a
  /// prompt, payload, schema or key (docs/design.md, "Privacy"). Integers are recorded as
  /// int64, strings (std::string, string_view, literals) as strings, copied
  /// into the span's own store (no allocation for a span's usual text).
  template <typename T>
  void set(AttributeKey key, T&& value) {
    if (owner_ == nullptr) return;
    using V = std::remove_cvref_t<T>;
    if constexpr (std::is_same_v<V, bool>) {
      data_->set(key, static_cast<bool>(value));
    } else if constexpr (std::is_integral_v<V>) {
      data_->set(key, static_cast<std::int64_t>(value));
    } else if constexpr (std::is_floating_point_v<V>) {
      data_->set(key, static_cast<double>(value));
    } else if constexpr (std::is_convertible_v<const V&, std::string_view>) {
      data_->set(key, std::string_view(value));
    } else {
      data_->set(key, std::span<const std::string>(value));
    }
  }
  /// Marks the span failed: status ERROR with `error_type` as its message
  /// and as the `error.type` attribute (a fixed code, never free text).
  void set_error(std::string_view error_type);
  /// Ends the span and hands it to the exporter (once; later calls do nothing).
  void end();
  /// Ends the span without exporting it (e.g. a health check).
  void discard() { owner_ = nullptr; }

 private:
  friend class Telemetry;
  friend Span start_span(Telemetry* telemetry, std::string_view name, SpanKind kind, const SpanContext* parent);
  Telemetry* owner_ = nullptr;
  /// A copy of the record's context: the record goes to the queue when the
  /// span ends, and children and `traceparent` may still ask for it.
  SpanContext context_;
  /// Allocated when the span starts, handed to the exporter's queue when it ends.
  std::unique_ptr<SpanData> data_;
};

/// The recorder and exporter. Thread-safe.
class Telemetry {
  using Clock = std::chrono::steady_clock;

 public:
  /// What happened to the exported data, for one line on stderr at exit.
  struct Report {
    std::uint64_t spans_exported = 0;
    /// Spans lost: the queue was full, an export failed, or the exit flush ran out of time.
    std::uint64_t spans_dropped = 0;
    /// Metric exports that failed.
    std::uint64_t metric_exports_failed = 0;
    /// The last failure ("POST http://host:4318/v1/traces: connection refused"), or "".
    std::string last_error;
  };

  /// Starts the exporter (its thread at once or when needed, as
  /// `config.sender` says), or returns nullptr when `config` exports
  /// nothing (zero cost). `transport` defaults to libcurl. Problems opening
  /// `config.file` end up in `warnings()`.
  static std::unique_ptr<Telemetry> start(Config config, std::string version,
                                          std::unique_ptr<provider::Transport> transport = nullptr);
  ~Telemetry();
  Telemetry(const Telemetry&) = delete;
  Telemetry& operator=(const Telemetry&) = delete;

  /// Instruments to record into (exported every metric interval and at shutdown).
  MetricsRecorder& metrics() { return metrics_; }
  /// Adds metrics read at each export (e.g. the proxy's counters, kept by
  /// the proxy for /metrics): `source` appends to the snapshot. Called on the
  /// sender thread; it must stay valid until `shutdown` returns.
  void add_metric_source(std::function<void(MetricsSnapshot&)> source);
  /// Problems found at start (unusable file, bad variables), to print once.
  const std::vector<std::string>& warnings() const { return config_.warnings; }

  /// Stops the background sender without waiting for it (it finishes an
  /// export in flight, then ends); spans keep queueing for `shutdown`. A
  /// command calls it as soon as its last span has ended, so that the
  /// thread's ending overlaps the command's own.
  void begin_shutdown();
  /// The final export: waits for an export in flight, then sends what is
  /// queued and the metrics from the calling thread (no hand-off to a thread
  /// that must first be scheduled: on a loaded machine that costs more than
  /// the round trip), together, and returns as soon as the collector has
  /// answered — or after at most `budget` (plus 50 ms), abandoning the rest
  /// (counted as dropped). Idempotent.
  Report shutdown(std::chrono::milliseconds budget);

 private:
  friend class Span;
  friend Span start_span(Telemetry*, std::string_view, SpanKind, const SpanContext*);
  Telemetry(Config config, std::string version, std::unique_ptr<provider::Transport> transport);

  /// One POST to the collector: a batch of spans or the metrics.
  struct Export {
    provider::HttpRequest request;
    /// Spans it carries (0: the metrics).
    std::size_t spans = 0;
  };

  void submit(std::unique_ptr<SpanData> span);
  /// Adds an ended span to `spans` in the queue's form: encoded, its record
  /// freed on this thread (`encode_when_ended_`), or the record itself.
  void stage(std::unique_ptr<SpanData>& span, detail::SpanQueue& spans) const;
  /// Adds `span` to this thread's spans, and hands them to the queue once
  /// they make a chunk. False (the span left in place) when the exporter
  /// has flushed and the span must take submit's own path.
  bool gather(std::unique_ptr<SpanData>& span);
  /// This thread's spans for this exporter (registered on first use).
  detail::ThreadSpans& thread_spans();
  /// Moves every thread's gathered spans to the queue (those past
  /// `max_queue` dropped) and forgets the threads that have retired; with
  /// `close`, every thread's later spans take submit's own path. Called
  /// with `mutex_` held.
  void collect_threads(bool close);
  /// Starts the sender thread; called with `mutex_` held, once.
  void start_sender();
  void run_sender();
  /// Encodes `spans` (wraps those encoded when they ended) in batches of at
  /// most `max_batch` (to the file at once) and adds their POSTs to
  /// `exports`; without a traces URL the spans count as exported.
  void add_spans(const detail::SpanQueue& spans, std::vector<Export>& exports);
  /// Keeps a sent traces body's allocation for the next one.
  void recycle(std::vector<Export>& exports);
  /// The same for a snapshot of the metrics.
  void add_metrics(std::vector<Export>& exports);
  /// Adds a POST of `body` to `endpoint` (its headers and timeout).
  Export& add_post(std::vector<Export>& exports, const SignalEndpoint& endpoint, std::string body);
  /// Sends `exports` together (one round trip) and counts what was lost;
  /// with a `deadline` (the exit flush), nothing takes longer than it.
  void send(std::vector<Export>& exports, std::optional<Clock::time_point> deadline = std::nullopt);
  void append_file(const std::string& line);

  Config config_;
  std::string version_;
  /// When the exporter started: the first span export is due at
  /// `started_ + schedule_delay`, the first metrics at `started_ + metric_interval`.
  Clock::time_point started_ = Clock::now();
  std::unique_ptr<provider::Transport> transport_;
  MetricsRecorder metrics_;
  std::FILE* file_ = nullptr;
  std::vector<std::function<void(MetricsSnapshot&)>> metric_sources_;  // guarded by mutex_

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable finished_;
  /// Ended spans waiting for export (at most `max_queue`): encoded by the
  /// thread that ended them when `encode_when_ended_`, else their records.
  /// The sender takes them into its own emptied queue (storage swapped, so
  /// that neither allocates once both have grown).
  std::unique_ptr<detail::SpanQueue> queue_;
  /// Traces go out as protobuf only (no JSON, no file): a span is encoded
  /// when it ends, on the thread that ended it.
  bool encode_when_ended_ = false;
  /// This exporter's number, unique in the process: a thread's cached
  /// ThreadSpans says which exporter it belongs to.
  std::uint64_t id_;
  /// Spans a thread gathers before it hands them to `queue_` (1: each goes
  /// at once; small queues and batches keep their exact bounds).
  std::size_t chunk_ = 1;
  /// Spans in `queue_` that wake the sender: two batches, sent together,
  /// while threads gather and the queue holds four; else one.
  std::size_t wake_at_ = 1;
  /// Threads gather their spans (the sender runs and collects them on its
  /// schedule); before, each span goes to `queue_` as it ends.
  std::atomic<bool> gathering_{false};
  /// Each thread's gathered spans (guarded by mutex_): at most `chunk_ - 1`
  /// each, collected by the sender's scheduled export and by `shutdown`.
  std::vector<std::shared_ptr<detail::ThreadSpans>> threads_;
  /// A sent traces body whose allocation the next encoding writes over; used
  /// by the one thread that exports (the sender, then `shutdown`).
  std::string spare_body_;
  bool stopping_ = false;
  /// The sender has work in hand (taken from the queue, not yet sent).
  bool exporting_ = false;
  /// `shutdown` has taken the queue: later spans are dropped.
  bool flushed_ = false;
  Report report_;
  provider::CancelToken cancel_;
  /// Started once (guarded by mutex_); not at all by a `WhenNeeded`
  /// exporter that shuts down first.
  std::thread sender_;
};

}  // namespace weld::telemetry
