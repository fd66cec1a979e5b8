#pragma once
/// \file
/// The schema engine's public API: compile a JSON Schema once, validate many
/// instances, from several threads, with no global state (docs/schema.md).
///
/// \code
///   weld::schema::Schema schema = weld::schema::Schema::compile(schema_json);  // throws SchemaError
///   weld::schema::ValidationResult result = schema.validate(instance);
///   if (!result.valid) std::cerr << weld::schema::describe(result.violations, "params");
/// \endcode

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "weld/json/tape.h"
#include "weld/json/value.h"

namespace weld::schema {

/// The JSON Schema dialects weld understands. V1 is JSON Schema's first
/// stable release (`https://json-schema.org/v1`, `…/v1/2026`): 2020-12's
/// keywords without `definitions`, `dependencies` and `$vocabulary`, and
/// unknown keywords are errors by the dialect's own rule (`x-` ones allowed).
enum class Dialect { Draft4, Draft6, Draft7, Draft2019_09, Draft2020_12, V1 };

/// Parses "draft4", "draft6", "draft7", "2019-09", "2020-12", "v1"; nullopt otherwise.
std::optional<Dialect> parse_dialect_name(std::string_view name);

/// The name `parse_dialect_name` reads: "draft4" … "2020-12", "v1".
std::string_view dialect_name(Dialect dialect);

/// Supplies documents for URIs that are not inside the schema (e.g. the test
/// suite's remotes). Returns nullptr when it does not know the URI; the
/// compiler then fails naming the URI. Dialect meta-schemas are built in.
using Resolver = std::function<std::optional<json::Value>(std::string_view uri)>;

/// Options for `Schema::compile`.
struct CompileOptions {
  /// Dialect used when the schema has no `$schema`. nullopt: docs/schema.md,
  /// "Dialects" (2020-12, or draft-07 when the schema uses a draft-07-only form).
  std::optional<Dialect> default_dialect;
  /// Ajv-style `strictSchema` checks (docs/schema.md, "Strict mode"). Off: only what is
  /// needed to compile (meta-schema validation is still done).
  bool strict = true;
  /// Assert `format` (the list in docs/schema.md, "What validates"). On by default.
  bool assert_formats = true;
  /// Remote documents; unset means no remote `$ref` resolves.
  Resolver resolver;
  /// At most this many documents are asked of `resolver` for one schema,
  /// and at most `max_remote_bytes` of them in total (their JSON size): a
  /// resolver that makes up a new document for every URI (each referring to
  /// the next) fails the compile instead of running until memory runs out.
  std::size_t max_remote_documents = 1000;
  std::size_t max_remote_bytes = std::size_t{64} << 20;
  /// The work bound of one validation, in subschema evaluations: this many
  /// plus 1024 per value of the instance. A schema whose references fan out
  /// past it (2^depth evaluations) fails the validation with a message that
  /// says so, instead of running for hours; repeated (subschema, value)
  /// pairs are remembered first, so most such schemas never reach it. Real
  /// schemas need under 64 per value.
  std::uint64_t validation_budget = std::uint64_t{1} << 20;
};

/// A schema that does not compile. `pointer` is the JSON Pointer of the
/// offending keyword inside the schema, `message` names the keyword.
class SchemaError : public std::runtime_error {
 public:
  SchemaError(std::string pointer, std::string message)
      : std::runtime_error(message + (pointer.empty() ? "" : " at " + pointer)),
        pointer_(std::move(pointer)), message_(std::move(message)) {}
  /// JSON Pointer into the schema ("" for the root).
  const std::string& pointer() const { return pointer_; }
  /// Message without the location.
  const std::string& message() const { return message_; }

 private:
  std::string pointer_;
  std::string message_;
};

/// A non-fatal remark from compilation (unknown format, tuple without
/// bounds…), printed by the CLI on stderr.
struct Warning {
  std::string pointer;
  std::string message;
};

/// One failed assertion, shaped like an Ajv error object.
struct Violation {
  /// JSON Pointer into the instance, e.g. "/risk_level".
  std::string instance_path;
  /// Schema location as Ajv writes it, e.g. "#/properties/risk_level/enum".
  std::string schema_path;
  /// The keyword that failed, e.g. "enum".
  std::string keyword;
  /// Keyword parameters as Ajv gives them, e.g. {"allowedValues":[…]}.
  json::Value params;
  /// Ajv's message, e.g. "must be equal to one of the allowed values".
  std::string message;
};

/// How many violations to collect.
enum class Collect { First, All };

/// The outcome of validating one instance.
struct ValidationResult {
  bool valid = true;
  std::vector<Violation> violations;
};

class Program;  // compiled form; plain data, printable as JSON
class Schema;
/// Internal: compiles a built-in meta-schema (no meta-validation, no strict
/// rules, formats not asserted). Not for general use.
Schema compile_meta_schema(const json::Value& schema);

/// A compiled schema. Immutable after `compile`; `validate` and `is_valid`
/// may be called concurrently from many threads.
class Schema {
 public:
  /// Compiles `schema`. Throws `SchemaError` when it is invalid.
  static Schema compile(const json::Value& schema, const CompileOptions& options = {});

  /// The verdict only; stops at the first failure.
  bool is_valid(const json::Value& instance) const;
  /// The same verdict for an instance written into a Tape (read in place,
  /// nothing converted: the Python module's objects). The tape must not be
  /// empty.
  bool is_valid(const json::Tape& instance) const;
  /// The verdict and the violations (all of them, or the first).
  ValidationResult validate(const json::Value& instance, Collect collect = Collect::All) const;

  /// The verdict of the subschema at `pointer` (a JSON Pointer into the
  /// schema document, "" for the root, "/$defs/item", "/anyOf/1"), as a
  /// `$ref` to it would give; nullopt when nothing was compiled there (a
  /// keyword that is not a subschema, or a subschema no keyword reaches).
  std::optional<bool> is_valid_at(std::string_view pointer, const json::Value& instance) const;

  /// For an instance this schema accepts: rewrites every integer-valued real
  /// (`36.0`, `36.0000000000000001`) that a subschema applying to it types
  /// as `integer` into an integer of the same value (`36`), so that typed
  /// decoders (Go, serde, Jackson) read it. Other values are left as they
  /// are; an instance without an integral real is not walked.
  void write_integers(json::Value& instance) const;

  /// The dialect the root was compiled as.
  Dialect dialect() const;
  /// Warnings produced while compiling.
  const std::vector<Warning>& warnings() const;
  /// The source schema as given.
  const json::Value& source() const;

  Schema(Schema&&) noexcept;
  Schema& operator=(Schema&&) noexcept;
  ~Schema();

 private:
  friend Schema compile_meta_schema(const json::Value& schema);
  explicit Schema(std::shared_ptr<const Program> program);
  // shared: a compiled program is immutable and may be shared by copies of
  // registries across reloads (proxy) without recompiling.
  std::shared_ptr<const Program> program_;
};

/// One line of text for a violation, Ajv's `errorsText` wording with
/// `data_var` as the root name:
/// `params/risk_level must be equal to one of the allowed values`.
std::string describe(const Violation& violation, std::string_view data_var = "params");

/// All violations, one per line (joined with "\n").
std::string describe(const std::vector<Violation>& violations, std::string_view data_var = "params");

/// The violations as the model (and the user) is told them: describe()'s
/// wording, kept for scripts that match on it, then what was allowed and
/// the value found, each cut short:
/// `params/risk_level must be equal to one of the allowed values: "low",
/// "medium", "high" (got "urgent")`. `instance` is the value validated.
/// Values are cut to kDescribedValueChars, lists to kDescribedListItems, the
/// text to kDescribedViolations lines and kDescribedTextBytes bytes (a retry
/// turn stays small however large the schema; a long line — a pattern of
/// hundreds of characters — is cut, and the violations left out are counted).
std::string describe_for_model(const std::vector<Violation>& violations, const json::Value& instance,
                               std::string_view data_var = "params");
inline constexpr std::size_t kDescribedValueChars = 40;
inline constexpr std::size_t kDescribedListItems = 10;
inline constexpr std::size_t kDescribedViolations = 10;
inline constexpr std::size_t kDescribedTextBytes = 2048;

/// A violation as an Ajv-shaped JSON object
/// {"instancePath","schemaPath","keyword","params","message"}.
json::Value to_json(const Violation& violation);

}  // namespace weld::schema
