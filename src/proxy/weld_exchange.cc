// Tagged requests (docs/proxy.md, "What a tagged request goes through"): the exchange drives the filter chain.
// The upstream attempts run in their own coroutine while this one keeps a
// streaming client alive with keep-alive frames; a client that disconnects
// closes the upstream connection, which cancels the attempt.

#include <algorithm>
#include <cstring>
#include <vector>

#include "http_write.h"
#include "weld_exchange.h"

#include "client_connection.h"
#include "filters/reply.h"
#include "relay.h"
#include "upstream_client.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/json/utf8.h"
#include "weld/provider/http.h"
#include "weld/provider/native_probe.h"
#include "weld/provider/stream_parser.h"

namespace weld::proxy {
namespace {

// Bounds the retry loop whatever the filters ask (max_retries is at most 10,
// plus one two-phase follow-up).
constexpr int kMaxAttempts = 12;

// "the upstream stalled: nothing received for 2.5 s"
std::string stalled_message(std::chrono::milliseconds timeout, std::string_view what = "nothing received") {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(timeout.count()) / 1000.0);
  return "the upstream stalled: " + std::string(what) + " for " + buf + " s";
}

// "the upstream's answer is over 16777216 bytes (--max-response-bytes)"
Error too_large(std::uint64_t limit) {
  return Error{ErrorCode::TooLarge, "the upstream's answer is over " + std::to_string(limit) + " bytes (--max-response-bytes)",
               ""};
}

// `data` as one chunk of a chunked body.
std::string chunk(std::string_view data) {
  std::string out;
  http_write::chunk(out, data);
  return out;
}

// "upstream answered HTTP 500: <its error text>" (the run's reading of an
// error body: one line, an HTML page by its title).
std::string upstream_status_message(int status, std::string_view body) {
  std::string message = "upstream answered HTTP " + std::to_string(status);
  std::string text = provider::error_text_from_body(body, /*with_type=*/false);
  if (!text.empty()) message += ": " + text;
  return message;
}

// What happened to a welded request, for the client (docs/proxy.md, "What the client is told"): the agent,
// the upstream attempts and the repairs applied. Header lines.
std::string weld_headers(const Exchange& ex, bool outcome_known) {
  if (ex.agent == nullptr) return {};
  std::string out = "x-weld-agent: " + ex.agent->name + "\r\n";
  if (outcome_known) {
    out += "x-weld-attempts: " + std::to_string(ex.attempts) + "\r\n";
    out += "x-weld-repairs: " + std::to_string(ex.repairs) + "\r\n";
  }
  return out;
}

// An answer the reader refused: an error the upstream sent in it ("http"),
// or a malformed or cut one ("protocol"), with the reader's message.
Error upstream_answer_error(const Error& error) {
  const ErrorCode code = error.code == ErrorCode::Protocol ? ErrorCode::Protocol : ErrorCode::Http;
  return Error{code, "the upstream's answer: " + error.message, ""};
}

}  // namespace

awaitable<void> TaggedExchange::run(ClientRequest& req, Protocol api, std::string_view agent_header, RequestLog& log) {
  Exchange ex;
  ex.api = api;
  ex.raw_body = req.body();
  ex.agent_header = agent_header;
  ex.registry = shared_.registry();
  FilterChain chain(shared_.chain);
  FilterAction action = chain.on_request(ex);
  if (action == FilterAction::Passthrough) {
    if (!ex.passthrough_reason.empty()) {
      // passthrough_when (docs/proxy.md, "Side requests with the same tagged model"): the body without the tag, else untouched.
      req.body() = json::serialize(ex.upstream_body);
      log.agent = ex.agent->name;
      log.outcome = ex.outcome;
    }
    co_await relay_.run(req, log);
    co_return;
  }
  // From here on the request lives in ex.upstream_body: the text is not
  // needed again, and an open stream should not hold a long conversation
  // twice.
  ex.raw_body = {};
  std::string().swap(req.body());
  if (ex.agent != nullptr) log.agent = ex.agent->name;
  bool stream_started = false;
  if (action == FilterAction::Continue && ex.keepalive.empty()) {
    // Nothing to send while waiting: the attempts run in this coroutine. The
    // disconnect monitor still closes the upstream connection of a client
    // that leaves.
    log.outcome = Outcome::Ok;
    client_.start_monitor();
    std::exception_ptr failure;
    try {
      co_await run_attempts(req, ex, chain, log);
    } catch (const std::exception&) {
      failure = std::current_exception();
    }
    co_await client_.stop_monitor();
    if (failure) internal_error(failure, ex);
  } else if (action == FilterAction::Continue) {
    log.outcome = Outcome::Ok;
    client_.start_monitor();
    attempts_done_ = false;
    attempts_exception_ = nullptr;
    queued_frames_.clear();
    asio::co_spawn(worker_.io, run_attempts(req, ex, chain, log), [this](std::exception_ptr e) {
      attempts_exception_ = e;
      attempts_done_ = true;
      client_.waiter().cancel();
    });
    const auto interval = ex.keepalive.empty() ? std::chrono::milliseconds(std::chrono::hours(24))
                                               : shared_.config.keepalive_interval;
    while (!attempts_done_) {
      std::string frames;
      if (!queued_frames_.empty() && !client_.gone()) {
        // stream_partial: the answer as it is generated.
        frames = std::move(queued_frames_);
        queued_frames_.clear();
      } else {
        error_code ec;
        client_.waiter().expires_after(interval);
        co_await client_.waiter().async_wait(asio::redirect_error(asio::use_awaitable, ec));
        // Woken early (ec): the attempts ended or queued frames.
        if (attempts_done_ || client_.gone() || ec || ex.keepalive.empty()) continue;
        // Keep the streaming client alive while the upstream generates.
        frames = ex.keepalive;
      }
      std::string out = stream_started ? std::string() : stream_head(ex, log);
      stream_started = true;
      out += client_.is_http10() ? frames : chunk(frames);
      if (!co_await client_.write(out) && client_.in_flight() != nullptr) client_.in_flight()->close();
    }
    co_await client_.stop_monitor();
    if (attempts_exception_) internal_error(attempts_exception_, ex);
  }
  log.attempts = ex.attempts;
  log.outcome = ex.outcome;
  shared_.metrics.add_validation_failures(log.agent, ex.validation_failures);
  shared_.metrics.add_retries(log.agent, ex.attempts > 1 ? ex.attempts - 1 : 0);
  shared_.metrics.add_repairs(log.agent, ex.repairs);
  trace_.welded(ex);
  if (client_.gone()) {
    log.outcome = Outcome::Cancelled;
    client_.end_keep_alive();
    co_return;
  }
  Reply& reply = ex.reply;
  if (!queued_frames_.empty()) {
    // stream_partial frames the attempts queued as they ended: they come
    // before the end of the answer (or are dropped with a whole error).
    reply.stream_frames.insert(0, queued_frames_);
    std::string().swap(queued_frames_);
  }
  if (stream_started) {
    // Already 200 text/event-stream: the answer (or an error event) follows.
    std::string out = client_.is_http10() ? reply.stream_frames : chunk(reply.stream_frames);
    if (!client_.is_http10()) out += http_write::kLastChunk;
    co_await client_.write(out);
    co_return;
  }
  if (ex.client_stream && reply.status == 200 && !reply.stream_frames.empty()) {
    const bool http10 = client_.is_http10();
    if (http10) client_.end_keep_alive();  // before client_.connection_header(): the body ends with the connection
    const std::string fields = weld_headers(ex, true);
    std::string out;
    http_write::head(out, {.content_type = "text/event-stream",
                           .no_cache = true,
                           .content_length = http10 ? std::nullopt : std::optional<std::size_t>(reply.stream_frames.size()),
                           .fields = fields,
                           .connection = client_.connection_header()});
    out += reply.stream_frames;
    log.status = 200;
    co_await client_.write(out);
    co_return;
  }
  co_await client_.send_simple(reply.status, reply.content_type, reply.body, log,
                       weld_headers(ex, true) + std::string(reply.final ? kFinalAnswer : ""));
}

std::string TaggedExchange::stream_head(const Exchange& ex, RequestLog& log) {
  if (client_.is_http10()) client_.end_keep_alive();  // before client_.connection_header(): the body ends with the connection
  // Sent before the answer exists: the agent only (docs/proxy.md).
  const std::string fields = weld_headers(ex, false);
  std::string out;
  http_write::head(out, {.content_type = "text/event-stream",
                         .no_cache = true,
                         .fields = fields,
                         .chunked = !client_.is_http10(),
                         .connection = client_.connection_header()});
  log.status = 200;
  return out;
}

void TaggedExchange::queue_frames(std::string_view frames) {
  if (frames.empty()) return;
  queued_frames_ += frames;
  client_.waiter().cancel();
}

void TaggedExchange::internal_error(std::exception_ptr failure, Exchange& ex) {
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    shared_.log(json::serialize(json::Object{{"event", "internal_error"}, {"error", e.what()}}));
  }
  filters::reply_error(ex, Outcome::InternalError, 500, "api_error", "internal error in the proxy");
}

awaitable<void> TaggedExchange::resolve_auto(ClientRequest& req, Exchange& ex, FilterChain& chain) {
  std::optional<bool> native = shared_.probed_native(ex.base_model);
  if (!native) {
    // The probe goes upstream with the client's own credentials, in the
    // client's API shape; the welded request waits for the verdict.
    json::Value welded = std::move(ex.upstream_body);
    ex.upstream_body = provider::request_body(ex.api, provider::native_probe_request(ex.base_model));
    FilterAction ignored = FilterAction::Continue;
    std::optional<Error> error = co_await attempt(req, ex, chain, ignored, /*partial=*/false);
    ex.upstream_body = std::move(welded);
    if (client_.gone()) co_return;
    if (!error) ex.usage += ex.candidate.response.usage;
    // The run's verdict (provider/native_probe.h): a final 4xx refusing the
    // field is "not native"; a probe that said nothing (network, 5xx,
    // credentials, 429) leaves this request on the tool, and the next one
    // probes again.
    Error status_error{ErrorCode::Http, error ? error->message : std::string(), ""};
    status_error.http_status = error && error->code == ErrorCode::UpstreamStatus ? ex.upstream_status : 0;
    const provider::ProbeVerdict verdict = provider::judge_probe(
        error ? Result<provider::Response>(std::move(status_error))
              : Result<provider::Response>(std::move(ex.candidate.response)));  // judged, not a candidate
    if (verdict != provider::ProbeVerdict::Unknown) native = verdict == provider::ProbeVerdict::Native;
    if (native) shared_.remember_probe(ex.base_model, *native);
    shared_.log(json::serialize(json::Object{{"event", "mechanism_probe"},
                                             {"model", ex.base_model},
                                             {"native", native ? json::Value(*native) : json::Value()}}));
  }
  ex.auto_agent = *ex.agent;
  ex.auto_agent->mechanism = native.value_or(false) ? Mechanism::Native : Mechanism::Tool;
  ex.agent = &*ex.auto_agent;
  if (ex.agent->mechanism == Mechanism::Native) {
    // schema_injection welded it for the tool; the rewrite is idempotent
    // and swaps the tool for the native format.
    ex.upstream_body = build_upstream_request(ex.api, std::move(ex.upstream_body), *ex.agent, ex.base_model,
                                              /*upstream_stream=*/true, /*force_agent_tool=*/false);
  }
}

awaitable<void> TaggedExchange::run_attempts(ClientRequest& req, Exchange& ex, FilterChain& chain, RequestLog& log) {
  if (ex.agent->mechanism == Mechanism::Auto && ex.agent->mode == Mode::Forced) {
    co_await resolve_auto(req, ex, chain);
    if (client_.gone()) {
      ex.outcome = Outcome::Cancelled;
      co_return;
    }
  }
  for (;;) {
    FilterAction action = FilterAction::Continue;
    if (ex.attempts >= kMaxAttempts) {
      filters::reply_error(ex, Outcome::InternalError, 500, "api_error", "too many upstream attempts");
      co_return;
    }
    ++ex.attempts;
    const auto start = std::chrono::steady_clock::now();
    telemetry::Span upstream = trace_.attempt(ex.attempts, "POST", shared_.upstream.host_header);
    std::optional<Error> error = co_await attempt(req, ex, chain, action);
    RequestTrace::attempt_ended(upstream, ex.upstream_status, error ? &*error : nullptr);
    log.upstream_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (client_.gone()) {
      ex.outcome = Outcome::Cancelled;
      co_return;
    }
    if (error) {
      action = chain.on_error(ex, *error);
      if (action != FilterAction::Reply) {
        filters::reply_error(ex, Outcome::UpstreamError, 502, "api_error", error->message);
      }
      co_return;
    }
    if (action == FilterAction::Reply) co_return;  // decided while streaming
    action = chain.on_response_end(ex);
    if (action == FilterAction::Retry) {
      // What this attempt streamed is void (stream_partial).
      if (ex.partial) queue_frames(ex.partial->discard("invalid", ex.last_errors));
      continue;
    }
    if (action != FilterAction::Reply) {
      filters::reply_error(ex, Outcome::InternalError, 500, "api_error", "no filter produced an answer");
    }
    co_return;
  }
}

awaitable<std::optional<Error>> TaggedExchange::attempt(ClientRequest& req, Exchange& ex, FilterChain& chain,
                                                 FilterAction& action, bool partial) {
  const ServerConfig& config = shared_.config;
  if (partial && ex.partial) ex.partial->start_attempt(ex.attempts);
  std::string body = json::serialize(ex.upstream_body);
  std::string head = upstream_.head(req, /*tagged=*/true, body.size());
  std::optional<UpstreamParser> parser;
  std::unique_ptr<UpstreamConnection> connection;
  std::optional<Error> error = co_await upstream_.open(head, body, parser, connection, false, config.connect_timeout,
                                                      config.upstream_timeout);
  // The upstream has the request (or will not get it): while it generates,
  // only ex.upstream_body is kept, from which a retry is serialized again.
  std::string().swap(body);
  if (error) co_return error;
  ex.upstream_status = parser->status();
  std::string_view content_type = parser->content_type();
  if (ex.upstream_status < 200 || ex.upstream_status >= 300) {
    std::string text;
    error_code ec = co_await upstream_.read_body(*connection, *parser, text, 1u << 20, config.upstream_timeout);
    if (client_.gone()) co_return Error{ErrorCode::Cancelled, "the client went away", ""};
    if (!ec) upstream_.release(std::move(connection), *parser);
    co_return Error{ErrorCode::UpstreamStatus, upstream_status_message(ex.upstream_status, text), ""};
  }
  const provider::Protocol protocol = ex.api;
  if (content_type.substr(0, 17) != "text/event-stream") {
    std::string text;
    error_code ec =
        co_await upstream_.read_body(*connection, *parser, text, config.max_response_bytes, config.upstream_timeout);
    if (client_.gone()) co_return Error{ErrorCode::Cancelled, "the client went away", ""};
    if (ec == http::error::body_limit) co_return too_large(config.max_response_bytes);
    if (ec == beast::error::timeout) {
      co_return Error{ErrorCode::Timeout, stalled_message(config.upstream_timeout), ""};
    }
    if (ec) co_return Error{ErrorCode::Truncated, "the upstream's answer was cut off: " + ec.message(), ""};
    upstream_.release(std::move(connection), *parser);
    Result<json::Value> doc = json::parse(text);
    if (!doc) co_return Error{ErrorCode::Protocol, "the upstream answered with a body that is not JSON", ""};
    Result<provider::Response> response = provider::response_from_json(protocol, *doc);
    if (!response) co_return upstream_answer_error(response.error());
    ex.candidate = Candidate{std::move(*response), std::nullopt};
    co_return std::nullopt;
  }
  // The provider's reader of the protocol: the run reads the same stream
  // the same way (docs/protocols.md). Its observer marks progress: the stall
  // timeout runs from the last event, not the last byte (an upstream that
  // sends only comments or blank lines makes no progress).
  bool event_seen = false;
  provider::StreamObserver progress;
  progress.on_event = [&event_seen](const json::Value&) { event_seen = true; };
  if (partial && ex.partial) {
    // stream_partial: the answer's JSON to the client as it arrives: the
    // first call of the agent's tool, or a native answer's text.
    const bool native = ex.agent->mode == Mode::Forced && ex.agent->mechanism == Mechanism::Native;
    if (native) {
      progress.on_text = [this, &ex](std::string_view fragment) { queue_frames(ex.partial->feed(fragment)); };
    } else {
      // A call is streamed only when its name is known by its first
      // fragment: one whose name completes later would start mid-text.
      progress.on_tool_arguments = [this, &ex, call = std::optional<std::size_t>(), seen = std::vector<std::size_t>()](
                                       std::size_t index, std::string_view name, std::string_view fragment) mutable {
        if (std::find(seen.begin(), seen.end(), index) == seen.end()) {
          seen.push_back(index);
          if (!call && name == ex.agent->name) call = index;
        }
        if (call == index) queue_frames(ex.partial->feed(fragment));
      };
    }
  }
  std::unique_ptr<provider::StreamParser> reader = provider::make_stream_parser(protocol, &progress);
  std::optional<Error> bad_stream;
  // On the heap (an array would enlarge every attempt's coroutine frame),
  // and small while the model is slow: an open stream mostly waits. A read
  // that fills it doubles it, up to kMaxStreamPiece.
  constexpr std::size_t kMaxStreamPiece = 16384;
  std::string buffer(1024, '\0');
  error_code ec;
  client_.set_in_flight(connection.get());
  auto last_event = std::chrono::steady_clock::now();
  bool only_comments = false;  // bytes arrived since the last event, none of them an event
  std::uint64_t received = 0;
  // Once the reader has the terminal event the answer is whole: the end of
  // the response is waited for only kAfterTerminalEvent more (an upstream
  // that keeps the connection open must not cost the stall timeout).
  std::optional<std::chrono::steady_clock::time_point> ended_at;
  while (!parser->is_done()) {
    const auto now = std::chrono::steady_clock::now();
    const auto silence = std::chrono::duration_cast<std::chrono::milliseconds>(now - last_event);
    if (silence >= config.upstream_timeout) {
      ec = beast::error::timeout;
      break;
    }
    std::chrono::milliseconds wait = config.upstream_timeout - silence;
    if (reader->ended()) {
      if (!ended_at) ended_at = now;
      const auto since = std::chrono::duration_cast<std::chrono::milliseconds>(now - *ended_at);
      if (since >= provider::kAfterTerminalEvent) break;
      wait = std::min(wait, provider::kAfterTerminalEvent - since);
    }
    parser->body().data = buffer.data();
    parser->body().size = buffer.size();
    ec = co_await connection->read_some(*parser, wait);
    const std::size_t n = buffer.size() - parser->body().size;
    received += n;
    if (received > config.max_response_bytes) break;
    if (n > 0 && !client_.gone()) {
      event_seen = false;
      if (Status st = reader->feed(std::string_view(buffer.data(), n)); !st) {
        bad_stream = st.error();
        break;
      }
      only_comments = !event_seen;
      if (event_seen) last_event = std::chrono::steady_clock::now();
    }
    if (ec || client_.gone()) break;
    if (n == buffer.size() && buffer.size() < kMaxStreamPiece) buffer.resize(buffer.size() * 2);
  }
  client_.set_in_flight(nullptr);
  if (client_.gone()) co_return Error{ErrorCode::Cancelled, "the client went away", ""};
  if (received > config.max_response_bytes) co_return too_large(config.max_response_bytes);
  // A bad stream: dropping the connection cancels the rest.
  if (bad_stream) co_return upstream_answer_error(*bad_stream);
  // A whole answer: how the connection then ended (or did not) is no matter.
  const bool whole = reader->ended();
  if (ec == beast::error::timeout && !whole) {
    if (only_comments) {
      co_return Error{ErrorCode::Timeout, stalled_message(config.upstream_timeout, "nothing but SSE comments"), ""};
    }
    co_return Error{ErrorCode::Timeout, stalled_message(config.upstream_timeout), ""};
  }
  if (ec && !whole) co_return Error{ErrorCode::Truncated, "the upstream closed the stream before the answer was complete", ""};
  Result<provider::Response> response = reader->finish();
  if (!response) co_return upstream_answer_error(response.error());
  // Only a response read to its end leaves its connection reusable.
  if (parser->is_done() && !ec) upstream_.release(std::move(connection), *parser);
  ex.candidate = Candidate{std::move(*response), std::nullopt};
  co_return std::nullopt;
}

}  // namespace weld::proxy
