#pragma once
/// \file
/// An agent's `passthrough_when` rule (docs/proxy.md, "Side requests with the same tagged model"): the requests a client sends
/// beside its main one with the same tagged model — Qwen Code's follow-up
/// checks, a title or memory request — are relayed untouched (only the
/// model's `__schema=` suffix removed) instead of being forced into the
/// agent's shape. Any condition that holds lets the request through:
///
/// \code
///   "passthrough_when": {"system_contains": ["next speaker"], "max_tokens_below": 256,
///                        "response_format": true}
/// \endcode

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "weld/base/result.h"
#include "weld/json/value.h"

namespace weld::proxy {

/// The rule; empty: every tagged request is welded.
struct PassthroughRule {
  /// The system prompt (Anthropic `system`; OpenAI `system`/`developer`
  /// messages; Responses `instructions`) contains one of these.
  std::vector<std::string> system_contains;
  /// The request's output limit (`max_tokens`, `max_completion_tokens`,
  /// `max_output_tokens`) is below this.
  std::optional<std::int64_t> max_tokens_below;
  /// The request asks for its own structured output (OpenAI
  /// `response_format` other than text, Anthropic `output_config.format`,
  /// Responses `text.format` other than text).
  bool response_format = false;

  bool empty() const { return system_contains.empty() && !max_tokens_below && !response_format; }
};

/// Reads a registry `passthrough_when` value. Errors name the field
/// ("passthrough_when.max_tokens_below must be a positive integer").
Result<PassthroughRule> parse_passthrough_rule(const json::Value& value);

/// The condition of `rule` that `body` meets, as text for the log
/// ("system_contains \"next speaker\""), or nullopt when none does.
std::optional<std::string> passthrough_match(const PassthroughRule& rule, const json::Value& body);

}  // namespace weld::proxy
