// check_arguments: repair before retry (docs/design.md, "Repairs").
//
// Order: the text as strict JSON (empty → {}); if it validates it is returned
// untouched with no repairs (identity on correct answers). Otherwise the
// allowed repairs are tried — lenient parse when the strict parse failed,
// then schema-aligned coercion and clamping — and the result is kept only if
// the compiled schema accepts it.

#include "weld/repair/repair.h"

#include "coerce.h"
#include "lenient_parse.h"
#include "weld/json/parse.h"

namespace weld::repair {
namespace {

bool only_whitespace(std::string_view text) {
  for (char c : text) {
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return false;
  }
  return true;
}

schema::ValidationResult parse_failure(const Error& error) {
  schema::Violation violation;
  violation.keyword = "parse";
  violation.params = json::Object{{"error", json::Value(error.message)}, {"where", json::Value(error.where)}};
  violation.message = "must be valid JSON (" + error.message + (error.where.empty() ? "" : " at " + error.where) + ")";
  schema::ValidationResult result;
  result.valid = false;
  result.violations.push_back(std::move(violation));
  return result;
}

}  // namespace

Checked check_arguments(std::string_view text, const schema::Schema& schema, const Options& options) {
  Checked out;
  std::vector<Repair> parse_repairs;
  if (only_whitespace(text)) {
    // An empty argument text is {} (what a model sends for a
    // tool without parameters). A rule, not a repair: never reported, and
    // applied under --no-repair too.
    out.value = json::Object{};
  } else if (auto strict = json::parse(text)) {
    out.value = std::move(*strict);
  } else if (options.parse) {
    auto lenient = lenient_parse(text);
    if (!lenient) {
      // The strict parser's error, or why the text could not be read as
      // one answer (two JSON documents in prose).
      out.validation = parse_failure(lenient.error());
      return out;
    }
    out.value = std::move(lenient->value);
    parse_repairs = std::move(lenient->repairs);
  } else {
    out.validation = parse_failure(strict.error());
    return out;
  }
  out.parsed = true;
  if (options.lowering != nullptr) {
    // The answer to a lowered schema, in the original's shape first.
    std::vector<schema::Change> done;
    out.value = options.lowering->map_back(std::move(out.value), &done);
    for (schema::Change& change : done) {
      parse_repairs.push_back(Repair{std::move(change.change), std::move(change.pointer), std::move(change.reason)});
    }
  }

  out.validation = schema.validate(out.value);
  if (out.validation.valid) {
    // Not a repair (the same numbers): 36.0 where the schema asks for an
    // integer is written 36, which typed decoders read.
    schema.write_integers(out.value);
    out.valid = true;
    out.repairs = std::move(parse_repairs);
    return out;
  }

  CoerceOptions coerce_options;
  coerce_options.coerce = options.coerce;
  coerce_options.clamp = options.clamp;
  coerce_options.lenient_strings = options.parse;
  json::Value candidate = out.value;
  std::vector<Repair> schema_repairs = coerce_to_schema(candidate, schema.source(), coerce_options);
  if (schema_repairs.empty()) return out;
  schema::ValidationResult repaired = schema.validate(candidate);
  if (!repaired.valid) return out;  // repairs are all-or-nothing

  schema.write_integers(candidate);
  out.valid = true;
  out.value = std::move(candidate);
  out.validation = std::move(repaired);
  out.repairs = std::move(parse_repairs);
  for (auto& repair : schema_repairs) out.repairs.push_back(std::move(repair));
  return out;
}

json::Value to_json(const Repair& repair) {
  return json::Object{{"kind", json::Value(repair.kind)},
                      {"path", json::Value(repair.path)},
                      {"detail", json::Value(repair.detail)}};
}

}  // namespace weld::repair
