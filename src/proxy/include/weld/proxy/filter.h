#pragma once
/// \file
/// The filter chain a tagged request runs through (docs/design.md,
/// "Conventions": one transform per filter, after Envoy's, scaled down). The server core
/// creates one `Filter` object per request from factories registered by name,
/// and drives them; it knows none of them. Untagged requests never see a
/// filter: they are relayed byte-for-byte.
///
/// Order of calls for one request:
///   on_request (each filter, in order)            -> Continue | Reply | Passthrough
///   then per upstream attempt (the core reads the answer with the
///   provider's reader of the API's protocol, streamed or whole):
///     on_response_end (the answer was read)        -> Continue | Retry | Reply
///     or on_error (connect/timeout/HTTP status, an
///       error event or a malformed or cut stream)  -> Continue | Reply
///
/// \code
///   FilterChain chain = FilterChain::create({"agent_route", "schema_injection", ...});
///   Exchange ex{...};
///   FilterStatus s = chain.on_request(ex);
/// \endcode

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weld/base/result.h"
#include "weld/json/value.h"
#include "weld/proxy/outcome.h"
#include "weld/proxy/partial_stream.h"
#include "weld/proxy/registry.h"
#include "weld/proxy/weld.h"

namespace weld::proxy {

/// A local answer to the client, produced by a filter.
struct Reply {
  /// HTTP status when nothing has been sent to the client yet.
  int status = 200;
  /// Body sent with `status` when the client did not ask for a stream, or
  /// when it did but the answer is an error sent before the stream started.
  std::string body;
  std::string content_type = "application/json";
  /// For a streaming client: complete SSE frames. Sent with status 200 as
  /// text/event-stream when the stream has not started; appended to the
  /// stream when it has (then errors must be SSE error frames here).
  std::string stream_frames;
  /// weld's own final answer (is_final): sent with `x-should-retry: false`.
  bool final = false;
};

/// What a filter tells the core.
enum class FilterAction {
  Continue,     ///< go on with the next filter / the next step
  Reply,        ///< stop and send `Exchange::reply`
  Retry,        ///< send `Exchange::upstream_body` upstream again
  Passthrough,  ///< not tagged after all: relay the original request unchanged
};

/// Everything one tagged request carries through the chain. Filters read and
/// write it; the core reads `upstream_body`, `reply`, `keepalive`.
struct Exchange {
  // Set by the core before on_request.
  Protocol api = Protocol::AnthropicMessages;
  /// The client's body as received; valid during on_request only (the core
  /// releases it once the request is welded).
  std::string_view raw_body;
  std::string_view agent_header;       ///< X-Agent-Name ("" when absent)
  RegistryPtr registry;                ///< snapshot for this request

  // Set by filters.
  bool client_stream = false;          ///< the client asked for SSE
  bool client_usage_chunk = false;     ///< the client set stream_options.include_usage
  std::string client_model;            ///< `model` as the client sent it
  std::string base_model;              ///< without the suffix
  const Agent* agent = nullptr;        ///< resolved agent (owned by registry, or `auto_agent`)
  /// `mechanism: auto`: the agent with the mechanism the probe chose (the
  /// core sets `agent` to it).
  std::optional<Agent> auto_agent;
  /// The next attempt's request body. agent_route parses the client's
  /// body into it; schema_injection welds the agent onto it in place (the
  /// client's conversation is held once, not copied); retries append to it.
  json::Value upstream_body;
  std::string keepalive;               ///< frame to send while waiting ("" = none)
  bool forced_followup = false;        ///< two-phase: the forced ask was sent
  /// The last attempt's answer, read by the provider's reader (the core
  /// sets `candidate.response`, streamed or whole), and the agent's call in
  /// it (tool_call_extraction sets `candidate.agent_call`).
  Candidate candidate;
  Usage usage;                         ///< summed over attempts
  Verdict verdict;                     ///< last check
  bool pass_back = false;              ///< two-phase: hand client-tool calls back
  std::string last_errors;             ///< last validation messages
  /// stream_partial (set by response_render for a streaming client of such
  /// an agent): the answer streamed as it is generated. The core feeds it
  /// the attempts' fragments and voids it on a retry; filters end it.
  std::optional<PartialStream> partial;
  Reply reply;

  // Set by the core during an attempt.
  int attempts = 0;                    ///< upstream attempts started
  int upstream_status = 0;             ///< HTTP status of the last attempt

  // Counters for metrics (filters add to them).
  int validation_failures = 0;
  int retries = 0;
  int repairs = 0;
  Outcome outcome = Outcome::Ok;       ///< how it ended (set with every reply)
  /// Set with FilterAction::Passthrough when the agent's passthrough_when
  /// let the request through: the condition met. The core then relays
  /// `upstream_body` (the client's body with the tag removed from `model`).
  std::string passthrough_reason;
};

/// One object per request; configuration is shared read-only by the factory.
class Filter {
 public:
  virtual ~Filter() = default;
  /// Before the first upstream attempt.
  virtual FilterAction on_request(Exchange& ex) { return FilterAction::Continue; }
  /// The upstream answer is complete and read (`ex.candidate.response`).
  virtual FilterAction on_response_end(Exchange& ex) { return FilterAction::Continue; }
  /// The attempt failed: `error.code` is `Connect`, `Timeout`, `Truncated`,
  /// `UpstreamStatus` (with `ex.upstream_status`), `Cancelled`, `Protocol`
  /// (a malformed or cut answer) or `Http` (an error the upstream sent in
  /// its answer).
  virtual FilterAction on_error(Exchange& ex, const Error& error) { return FilterAction::Continue; }
};

/// Makes a fresh filter for one request.
using FilterFactory = std::function<std::unique_ptr<Filter>()>;

/// Factories by name. The built-in filters register themselves in
/// `builtin_filters()`; tests or embedders may add their own.
class FilterRegistry {
 public:
  void add(std::string name, FilterFactory factory);
  /// nullptr when unknown.
  const FilterFactory* find(std::string_view name) const;
  std::vector<std::string> names() const;

 private:
  std::vector<std::pair<std::string, FilterFactory>> factories_;
};

/// The built-in filters: agent_route, schema_injection, tool_call_extraction,
/// response_validation, response_render.
FilterRegistry builtin_filters();

/// The default chain for tagged requests, in order.
std::vector<std::string> default_chain();

/// An instantiated chain for one request.
class FilterChain {
 public:
  /// Fails naming the first unknown filter.
  static Result<std::vector<const FilterFactory*>> resolve(const FilterRegistry& registry,
                                                           const std::vector<std::string>& names);
  explicit FilterChain(const std::vector<const FilterFactory*>& factories);

  FilterAction on_request(Exchange& ex);
  FilterAction on_response_end(Exchange& ex);
  FilterAction on_error(Exchange& ex, const Error& error);

 private:
  std::vector<std::unique_ptr<Filter>> filters_;
};

}  // namespace weld::proxy
