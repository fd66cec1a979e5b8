// The telemetry runtime (docs/telemetry.md, "Never slower, never failing"): a bounded span queue and one sender
// thread, so that a slow, hanging or absent collector never slows or fails
// the work being observed.

#include "weld/telemetry/telemetry.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "span_queue.h"
#include "weld/telemetry/otlp.h"

namespace weld::telemetry {
namespace {

// Collects the response status and discards the body (an OTLP
// ExportServiceResponse, of no use to us).
class StatusSink : public provider::ResponseSink {
 public:
  void on_headers(int status, const provider::HttpHeaders&) override { status_ = status; }
  bool on_body(std::string_view) override { return true; }
  int status() const { return status_; }

 private:
  int status_ = 0;
};

}  // namespace

// --- Span ------------------------------------------------------------------

Span::Span(Span&& other) noexcept
    : owner_(other.owner_), context_(other.context_), data_(std::move(other.data_)) {
  other.owner_ = nullptr;
}

Span& Span::operator=(Span&& other) noexcept {
  if (this != &other) {
    end();
    owner_ = other.owner_;
    context_ = other.context_;
    data_ = std::move(other.data_);
    other.owner_ = nullptr;
  }
  return *this;
}

void Span::set_error(std::string_view error_type) {
  if (owner_ == nullptr) return;
  data_->status = StatusCode::Error;
  data_->set_status_message(error_type);
  data_->set("error.type", error_type);
}

void Span::end() {
  if (owner_ == nullptr) return;
  data_->end_unix_nano = unix_nano_now();
  Telemetry* owner = owner_;
  owner_ = nullptr;
  // An unsampled trace is propagated but not exported (W3C trace-flags).
  if (data_->context.sampled) owner->submit(std::move(data_));
  data_.reset();
}

Span start_span(Telemetry* telemetry, std::string_view name, SpanKind kind, const SpanContext* parent) {
  Span span;
  if (telemetry == nullptr) return span;
  span.owner_ = telemetry;
  // Default-initialised: the in-place attribute slots and bytes (1.3 KB) are
  // written as they are used, not zeroed first.
  span.data_ = std::make_unique_for_overwrite<SpanData>();
  SpanData& data = *span.data_;
  if (parent != nullptr && parent->valid()) {
    data.context.trace_id = parent->trace_id;
    data.context.sampled = parent->sampled;
    data.parent_span_id = parent->span_id;
  } else {
    data.context.trace_id = new_trace_id();
  }
  data.context.span_id = new_span_id();
  data.set_name(name);
  data.kind = kind;
  data.start_unix_nano = unix_nano_now();
  span.context_ = data.context;
  return span;
}

// --- Telemetry -------------------------------------------------------------

std::unique_ptr<Telemetry> Telemetry::start(Config config, std::string version,
                                            std::unique_ptr<provider::Transport> transport) {
  if (!config.enabled()) return nullptr;
  if (!transport && (!config.traces.url.empty() || !config.metrics.url.empty())) {
    transport = provider::make_curl_transport({});
  }
  return std::unique_ptr<Telemetry>(new Telemetry(std::move(config), std::move(version), std::move(transport)));
}

Telemetry::Telemetry(Config config, std::string version, std::unique_ptr<provider::Transport> transport)
    : config_(std::move(config)),
      version_(std::move(version)),
      transport_(std::move(transport)),
      queue_(std::make_unique<detail::SpanQueue>()) {
  static std::atomic<std::uint64_t> exporters{0};
  id_ = ++exporters;
  // A chunk is an eighth of the smaller bound, at most 64 spans (~20 KB encoded).
  chunk_ = std::clamp<std::size_t>(std::min(config_.max_batch, config_.max_queue) / 8, 1, 64);
  // Gathering threads wake the sender for two batches when the queue has
  // room for four: each wake-up of the sender, and each request to the
  // collector, cost the proxy more than the bytes they carry.
  wake_at_ = chunk_ > 1 && config_.max_queue >= 4 * config_.max_batch ? 2 * config_.max_batch : config_.max_batch;
  if (!config_.file.empty()) {
    file_ = std::fopen(config_.file.c_str(), "a");
    if (file_ == nullptr) {
      config_.warnings.push_back("--telemetry-file " + config_.file + ": cannot open for appending (" +
                                 std::strerror(errno) + ")");
    }
  }
  encode_when_ended_ =
      file_ == nullptr && !config_.traces.url.empty() && config_.traces.protocol == Protocol::HttpProtobuf;
  if (config_.sender == Config::Sender::AtStart) {
    std::lock_guard lock(mutex_);
    start_sender();
  }
}

void Telemetry::start_sender() {
  sender_ = std::thread([this] { run_sender(); });
  gathering_.store(chunk_ > 1, std::memory_order_relaxed);
}

Telemetry::~Telemetry() { shutdown(std::chrono::milliseconds(0)); }

void Telemetry::submit(std::unique_ptr<SpanData> span) {
  // While the sender runs, each thread gathers its spans and takes the
  // shared lock once a chunk; else (no sender yet, or after the flush) a
  // span goes to the queue as it ends.
  if (gathering_.load(std::memory_order_relaxed) && gather(span)) return;
  // The span on its way to the queue (kept between spans for its allocations).
  thread_local detail::SpanQueue one;
  stage(span, one);
  {
    std::lock_guard lock(mutex_);
    if (queue_->append(one, flushed_ ? 0 : config_.max_queue) > 0) {
      ++report_.spans_dropped;
      return;
    }
    if (!sender_.joinable()) {
      // A WhenNeeded sender: started once `wake_at_` spans wait or the
      // first export is due, unless the exit flush is coming; the thread's
      // first turn exports what waits.
      const bool due = queue_->size() >= wake_at_ || Clock::now() >= started_ + config_.schedule_delay;
      if (due && !stopping_) start_sender();
      return;
    }
    if (queue_->size() < wake_at_) return;
  }
  wake_.notify_one();
}

void Telemetry::stage(std::unique_ptr<SpanData>& span, detail::SpanQueue& spans) const {
  if (encode_when_ended_) {
    spans.push_encoded_with([&](std::string& out) { append_span_field(*span, out); });
    span.reset();  // freed by the thread that allocated it, while its cache holds it
  } else {
    spans.push(std::move(span));
  }
}

bool Telemetry::gather(std::unique_ptr<SpanData>& span) {
  detail::ThreadSpans& mine = thread_spans();
  // A chunk on its way to the queue (kept between chunks for its allocations).
  thread_local detail::SpanQueue chunk;
  {
    std::lock_guard lock(mine.mutex);
    if (mine.closed) return false;
    stage(span, mine.spans);
    if (mine.spans.size() < chunk_) return true;
    mine.spans.take_front(mine.spans.size(), chunk);
  }
  {
    std::lock_guard lock(mutex_);
    report_.spans_dropped += queue_->append(chunk, flushed_ ? 0 : config_.max_queue);
    if (queue_->size() < wake_at_) return true;
  }
  wake_.notify_one();
  return true;
}

detail::ThreadSpans& Telemetry::thread_spans() {
  // This thread's spans for the exporter it last ended a span for; retired
  // when the thread ends or moves on to another exporter. Shared, so that
  // neither the thread nor the exporter outlives what the other holds.
  struct Mine {
    std::uint64_t exporter = 0;
    std::shared_ptr<detail::ThreadSpans> spans;
    Mine() = default;
    Mine(const Mine&) = delete;
    Mine& operator=(const Mine&) = delete;
    ~Mine() { retire(); }
    void retire() {
      if (!spans) return;
      std::lock_guard lock(spans->mutex);
      spans->retired = true;
    }
  };
  thread_local Mine mine;
  if (mine.exporter != id_) [[unlikely]] {
    mine.retire();
    auto spans = std::make_shared<detail::ThreadSpans>();
    {
      std::lock_guard lock(mutex_);
      spans->closed = flushed_;  // no lock needed: no other thread has it yet
      threads_.push_back(spans);
    }
    mine.spans = std::move(spans);
    mine.exporter = id_;
  }
  return *mine.spans;
}

void Telemetry::collect_threads(bool close) {
  std::erase_if(threads_, [&](const std::shared_ptr<detail::ThreadSpans>& thread) {
    std::lock_guard lock(thread->mutex);
    report_.spans_dropped += queue_->append(thread->spans, config_.max_queue);
    if (close) thread->closed = true;
    return close || thread->retired;
  });
}

void Telemetry::run_sender() {
  const bool send_metrics = !config_.metrics.url.empty() || file_ != nullptr;
  Clock::time_point next_metrics = started_ + config_.metric_interval;
  Clock::time_point next_spans = started_ + config_.schedule_delay;
  detail::SpanQueue taken;  // the spans in hand
  std::vector<Export> exports;
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait_until(lock, std::min(next_spans, next_metrics),
                     [this] { return stopping_ || queue_->size() >= wake_at_; });
    if (stopping_) break;  // the final export is shutdown's
    const Clock::time_point now = Clock::now();
    // Full batches go once `wake_at_` spans wait (one or two batches); what
    // is left waits for the schedule (or the exit flush), so that a steady
    // stream of spans makes few large requests, not one small request per
    // export's duration.
    const bool scheduled = now >= next_spans;
    const bool metrics_due = send_metrics && now >= next_metrics;
    if (scheduled) collect_threads(false);
    const std::size_t take = scheduled ? queue_->size() : queue_->size() / config_.max_batch * config_.max_batch;
    // The partial batch beyond `take` stays to wait for the schedule.
    if (take > 0) queue_->take_front(take, taken);
    if (scheduled) next_spans = now + config_.schedule_delay;
    if (metrics_due) next_metrics = now + config_.metric_interval;
    if (taken.empty() && !metrics_due) continue;
    exporting_ = true;
    lock.unlock();
    add_spans(taken, exports);
    if (metrics_due) add_metrics(exports);
    send(exports);
    recycle(exports);
    exports.clear();
    taken.clear();  // records (JSON, file) are freed here, off the request threads
    lock.lock();
    exporting_ = false;
    finished_.notify_all();  // shutdown may be waiting for this export
  }
}

void Telemetry::add_spans(const detail::SpanQueue& spans, std::vector<Export>& exports) {
  std::vector<const SpanData*> pointers;
  pointers.reserve(spans.records().size());
  for (const auto& span : spans.records()) pointers.push_back(span.get());
  for (std::size_t at = 0; at < pointers.size(); at += config_.max_batch) {
    const std::span<const SpanData* const> batch =
        std::span<const SpanData* const>(pointers).subspan(at, std::min(config_.max_batch, pointers.size() - at));
    if (file_ != nullptr) append_file(encode_traces(batch, config_.resource, Protocol::HttpJson, version_));
    if (config_.traces.url.empty()) {
      std::lock_guard lock(mutex_);
      report_.spans_exported += batch.size();
      continue;
    }
    add_post(exports, config_.traces,
             encode_traces(batch, config_.resource, config_.traces.protocol, version_, std::move(spare_body_)))
        .spans = batch.size();
  }
  // Spans encoded when they ended: only wrapped.
  for (std::size_t at = 0; at < spans.encoded_count(); at += config_.max_batch) {
    const std::size_t end = std::min(at + config_.max_batch, spans.encoded_count());
    add_post(exports, config_.traces,
             encode_traces_proto(spans.encoded(at, end), config_.resource, version_, std::move(spare_body_)))
        .spans = end - at;
  }
}

void Telemetry::recycle(std::vector<Export>& exports) {
  for (Export& e : exports) {
    if (e.spans > 0 && e.request.body.capacity() > spare_body_.capacity()) spare_body_ = std::move(e.request.body);
  }
}

void Telemetry::add_metric_source(std::function<void(MetricsSnapshot&)> source) {
  std::lock_guard lock(mutex_);
  metric_sources_.push_back(std::move(source));
}

void Telemetry::add_metrics(std::vector<Export>& exports) {
  MetricsSnapshot snapshot = metrics_.snapshot();
  {
    std::lock_guard lock(mutex_);
    for (const auto& source : metric_sources_) source(snapshot);
  }
  if (snapshot.metrics.empty()) return;
  if (file_ != nullptr) append_file(encode_metrics(snapshot, config_.resource, Protocol::HttpJson, version_));
  if (config_.metrics.url.empty()) return;
  add_post(exports, config_.metrics, encode_metrics(snapshot, config_.resource, config_.metrics.protocol, version_));
}

Telemetry::Export& Telemetry::add_post(std::vector<Export>& exports, const SignalEndpoint& endpoint, std::string body) {
  Export& out = exports.emplace_back();
  out.request.url = endpoint.url;
  out.request.headers = endpoint.headers;
  out.request.headers.emplace_back("Content-Type", std::string(content_type(endpoint.protocol)));
  out.request.body = std::move(body);
  out.request.connect_timeout = endpoint.timeout;
  out.request.idle_timeout = endpoint.timeout;
  return out;
}

void Telemetry::send(std::vector<Export>& exports, std::optional<Clock::time_point> deadline) {
  if (exports.empty()) return;
  using Kind = provider::TransportOutcome::Kind;
  std::vector<StatusSink> sinks(exports.size());
  std::vector<provider::HttpCall> calls;
  bool out_of_time = cancel_.cancelled.load();
  // Exports whose own timeouts are longer than the exit flush's budget: a
  // timeout is the budget running out.
  std::vector<bool> budget_bound(exports.size(), false);
  if (deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now());
    out_of_time = out_of_time || left.count() <= 0;
    for (std::size_t i = 0; i < exports.size(); ++i) {
      Export& e = exports[i];
      budget_bound[i] = left < std::min(e.request.connect_timeout, e.request.idle_timeout);
      e.request.total_timeout = left;
      e.request.connect_timeout = std::min(e.request.connect_timeout, left);
      e.request.idle_timeout = std::min(e.request.idle_timeout, left);
    }
  }
  for (std::size_t i = 0; i < exports.size(); ++i) calls.push_back({&exports[i].request, &sinks[i]});
  // Out of time: nothing more is sent.
  std::vector<provider::TransportOutcome> outcomes =
      out_of_time ? std::vector<provider::TransportOutcome>(exports.size(), {Kind::Cancelled, "", false})
                  : transport_->perform_all(calls, cancel_);
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < exports.size(); ++i) {
    const std::string where = "POST " + provider::url_for_messages(exports[i].request.url) + ": ";
    std::string error;
    switch (outcomes[i].kind) {
      case Kind::Complete:
        if (sinks[i].status() < 200 || sinks[i].status() >= 300) error = where + "HTTP " + std::to_string(sinks[i].status());
        break;
      case Kind::Cancelled: error = where + "abandoned when the exit flush ran out of time"; break;
      case Kind::ConnectTimeout:
      case Kind::IdleTimeout:
        error = where + (budget_bound[i] ? "abandoned when the exit flush ran out of time" : "timed out");
        break;
      default: error = where + (outcomes[i].detail.empty() ? std::string("failed") : outcomes[i].detail);
    }
    if (error.empty()) {
      report_.spans_exported += exports[i].spans;
      continue;
    }
    if (exports[i].spans > 0) {
      report_.spans_dropped += exports[i].spans;
    } else {
      ++report_.metric_exports_failed;
    }
    report_.last_error = std::move(error);
  }
}

void Telemetry::append_file(const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fputc('\n', file_);
  std::fflush(file_);
}

void Telemetry::begin_shutdown() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
}

Telemetry::Report Telemetry::shutdown(std::chrono::milliseconds budget) {
  const Clock::time_point deadline = Clock::now() + budget;
  begin_shutdown();
  std::unique_lock lock(mutex_);
  if (!flushed_) {
    // The sender's export in flight, if any, ends first (one transport,
    // one exchange at a time); out of time, it is abandoned (the transport
    // returns within 50 ms of the cancel).
    if (!finished_.wait_until(lock, deadline, [this] { return !exporting_; })) {
      cancel_.cancelled = true;
      finished_.wait(lock, [this] { return !exporting_; });
    }
    collect_threads(true);
    flushed_ = true;
    detail::SpanQueue rest;
    queue_->take_front(queue_->size(), rest);
    lock.unlock();
    std::vector<Export> exports;
    add_spans(rest, exports);
    if (!config_.metrics.url.empty() || file_ != nullptr) add_metrics(exports);
    send(exports, deadline);
    lock.lock();
  }
  // No thread starts once stopping_ is set (a WhenNeeded sender is only
  // started by submit, which checks it).
  const bool started = sender_.joinable();
  lock.unlock();
  if (started) sender_.join();
  lock.lock();
  if (file_ != nullptr) {
    std::fclose(file_);
    file_ = nullptr;
  }
  return report_;
}

}  // namespace weld::telemetry
