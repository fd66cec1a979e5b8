#pragma once
/// \file
/// Lowering a schema for a provider's own structured output (docs/schema.md,
/// "Lowering"): the strongest schema the target accepts, what was changed and
/// why, and the way back from an answer to that schema to the original's
/// shape. The answer is always validated against the original schema; the
/// lowered one only steers the model.
///
/// \code
///   weld::schema::Lowering lowered = weld::schema::Lowering::lower(user_schema, weld::schema::Target::OpenAIStrict);
///   send(lowered.schema());                                  // response_format, strict: true
///   weld::json::Value answer = lowered.map_back(parsed_answer);   // nulls dropped, entries made maps…
///   compiled.validate(answer);                               // against the user's schema
/// \endcode

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weld/json/value.h"

namespace weld::schema {

/// What a lowering is for.
enum class Target {
  /// OpenAI structured outputs with `strict: true` (Chat `response_format`,
  /// Responses `text.format`, strict function tools).
  OpenAIStrict,
  /// Anthropic structured outputs (`output_config.format`).
  Anthropic,
  /// Gemini `responseSchema` (its OpenAPI 3.0 subset).
  Gemini,
  /// vLLM's guided decoding (xgrammar, llguidance).
  Vllm,
  /// A forced tool call's parameters (OpenAI functions, Anthropic tools).
  Tool,
};

/// "openai-strict", "anthropic", "gemini", "vllm", "tool"; nullopt otherwise.
std::optional<Target> parse_target(std::string_view name);
/// The name `parse_target` reads.
std::string_view target_name(Target target);

/// One change a lowering made.
struct Change {
  /// JSON Pointer into the original schema ("" for the root).
  std::string pointer;
  /// What changed, e.g. "minLength moved into the description".
  std::string change;
  /// Why, e.g. "openai-strict has no minLength".
  std::string reason;
};

/// Options of a lowering.
struct LowerOptions {
  /// Objects that allow properties beyond `properties` (the JSON Schema
  /// default) are closed for targets that need `additionalProperties:
  /// false`, as the providers' SDKs do: an answer then has only the listed
  /// properties, which the original accepts. With `keep_open`, the other
  /// properties get a place of their own instead (a member holding them as
  /// [{"key","value"}] entries), so every instance of the original has a
  /// lowered form.
  bool keep_open = false;
};

/// A lowered schema: what to send, what changed, and the mapping between
/// answers to it and instances of the original.
class Lowering {
 public:
  /// Lowers `schema` (any JSON Schema the engine compiles; format and strict
  /// rules do not matter here) for `target`. Never fails for a schema that
  /// compiles: what the target cannot express is moved into descriptions,
  /// written as [{"key","value"}] entries (maps) or asked for as JSON text
  /// (a value the target cannot describe at all). Throws SchemaError when
  /// the schema does not compile.
  static Lowering lower(const json::Value& schema, Target target, const LowerOptions& options = {});

  /// The schema to send.
  const json::Value& schema() const;
  /// What was changed, and why, in the original's order.
  const std::vector<Change>& changes() const;
  /// The target.
  Target target() const;
  /// True when answers need `map_back` (a wrapped root, properties made
  /// nullable, entries, JSON text); false when an answer is already an
  /// instance of the original.
  bool maps() const;
  /// An answer to `schema()` in the original's shape: the root unwrapped,
  /// `null`s of properties only the lowering made nullable dropped, entries
  /// made objects again, JSON text parsed. A value already in the
  /// original's shape is left as it is. `done`, when given, receives what
  /// was changed: `pointer` into the answer, `change` one of "drop_null",
  /// "entries", "json_text", "tuple", "unwrap", `reason` in words.
  json::Value map_back(json::Value answer, std::vector<Change>* done = nullptr) const;
  /// The inverse: an instance of the original in the lowered shape (what a
  /// model answering `schema()` would write for it).
  json::Value map_forward(json::Value instance) const;

  Lowering(Lowering&&) noexcept;
  Lowering& operator=(Lowering&&) noexcept;
  ~Lowering();

  /// Internal: what the lowering decided (src/schema/lower/state.h).
  struct State;

 private:
  explicit Lowering(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// A change as JSON: {"pointer","change","reason"}.
json::Value to_json(const Change& change);

}  // namespace weld::schema
