#pragma once
/// \file
/// The `native` mechanism's subset rewrite (docs/run.md, "Mechanisms"): the user's
/// schema rewritten into OpenAI's strict structured-output subset, so the
/// strongest constraint the server accepts is sent, while weld still
/// validates the answer against the full schema. One implementation for the
/// run and the proxy.

#include <optional>
#include <string>
#include <vector>

#include "weld/json/value.h"

namespace weld::provider {

/// One constraint the rewrite relaxed (the server no longer enforces it;
/// weld's own validation still does), for the run's `init` message.
struct Relaxation {
  /// JSON Pointer into the user's schema.
  std::string path;
  /// What changed: "optional property made required and nullable",
  /// "maxLength moved into description", …
  std::string change;
};

/// The rewritten schema and what it relaxed.
struct StrictSchema {
  json::Value schema;
  std::vector<Relaxation> relaxed;
  /// True when some optional property was made nullable: an answer may carry
  /// a `null` the user's schema refuses, repaired back by dropping it.
  bool nullable_added = false;
};

/// Rewrites `schema` into OpenAI's strict subset: every object lists all its
/// properties in `required` (the optional ones made nullable) and sets
/// `additionalProperties: false`; keywords outside the subset (minLength,
/// maxLength, uniqueItems, patternProperties, allOf, oneOf, not, if/then/else,
/// default, unsupported formats, …) are removed and written into the
/// `description`. Nullopt when the schema cannot be expressed at all (a root
/// that is not an object, an object whose properties are open-ended such as
/// a map, a `$ref` weld does not follow): `native` then sends the schema as
/// is with `strict: false`.
///
/// \code
///   auto strict = weld::provider::openai_strict_schema(user_schema);
///   format.strict = strict.has_value();
///   format.schema = strict ? strict->schema : user_schema;
/// \endcode
std::optional<StrictSchema> openai_strict_schema(const json::Value& schema);

/// What an OpenAI request (Chat `response_format.json_schema`, Responses
/// `text.format`) sends for a native format: decided here once for the run
/// and the proxy.
struct SentFormat {
  json::Value schema;
  bool strict = false;
};

/// With `want_strict`, the strict rewrite of `schema` and `strict: true`
/// when it can be expressed; otherwise `schema` as is (a boolean schema as
/// {}) and `strict: false`.
SentFormat openai_sent_format(const json::Value& schema, bool want_strict);

}  // namespace weld::provider
