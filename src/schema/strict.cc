// Strict compile (docs/schema.md, "Strict mode"; Ajv's `strictSchema`) and validation of
// every schema against its dialect's meta-schema.
#include <algorithm>
#include <array>
#include <mutex>

#include "compiler.h"
#include "metaschemas.h"
#include "weld/json/parse.h"
#include "weld/json/pointer.h"
#include "weld/json/serialize.h"

namespace weld::schema {
namespace {

template <std::size_t N>
bool in(const std::array<std::string_view, N>& set, std::string_view k) {
  for (std::string_view s : set) {
    if (s == k) return true;
  }
  return false;
}

// Keywords every dialect accepts: assertions/applicators common to all, and
// annotations Ajv tolerates in strict mode.
constexpr std::array<std::string_view, 40> kCommon = {
    "type", "enum", "properties", "patternProperties", "additionalProperties", "required", "items",
    "additionalItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
    "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties", "allOf",
    "anyOf", "oneOf", "not", "format", "$ref", "definitions", "$defs", "title", "description", "default",
    "examples", "$comment", "deprecated", "readOnly", "writeOnly", "$schema", "dependencies", "contentMediaType"};
constexpr std::array<std::string_view, 2> kCommon2 = {"contentEncoding", "contentSchema"};
constexpr std::array<std::string_view, 3> kDraft6 = {"$id", "const", "contains"};
constexpr std::array<std::string_view, 4> kDraft6b = {"propertyNames", "if", "then", "else"};
constexpr std::array<std::string_view, 9> kDraft2019 = {
    "$anchor", "$vocabulary", "dependentSchemas", "dependentRequired", "unevaluatedProperties", "unevaluatedItems",
    "minContains", "maxContains", "$id"};
constexpr std::array<std::string_view, 3> kDraft2020 = {"prefixItems", "$dynamicRef", "$dynamicAnchor"};
constexpr std::array<std::string_view, 2> kDraft2019Only = {"$recursiveRef", "$recursiveAnchor"};

// Keywords of the vocabularies LLM schemas carry, annotations to weld: the
// OpenAPI 3.1 Schema Object's additions (pydantic writes `discriminator`
// for every tagged union, and `example`), and what zod-to-json-schema adds
// on request (`markdownDescription`, `errorMessage`). Any `x-` keyword is an
// annotation too (OpenAPI's and JSON Schema v1's extension prefix).
constexpr std::array<std::string_view, 6> kLlmAnnotations = {
    "discriminator", "example", "xml", "externalDocs", "markdownDescription", "errorMessage"};

/// Optimal string alignment distance (edits, adjacent transpositions),
/// case-insensitive; gives up past `limit` (returns limit + 1).
std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t limit) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  if (a.size() > b.size() + limit || b.size() > a.size() + limit) return limit + 1;
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    std::size_t row_min = current[0];
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1])) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
      row_min = std::min(row_min, current[j]);
    }
    if (row_min > limit) return limit + 1;
    before.swap(previous);
    previous.swap(current);
  }
  return previous[b.size()];
}

/// Every keyword `d` knows, in a fixed order (for suggestions).
std::vector<std::string_view> known_keywords(Dialect d) {
  std::vector<std::string_view> out;
  auto add = [&](auto list) {
    for (std::string_view k : list) {
      if (is_known_keyword(k, d) && std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
    }
  };
  add(kCommon);
  add(kCommon2);
  add(std::array<std::string_view, 1>{"id"});
  add(kDraft6);
  add(kDraft6b);
  add(kDraft2019);
  add(kDraft2020);
  add(kDraft2019Only);
  add(kLlmAnnotations);
  return out;
}

std::string unknown_keyword_message(std::string_view keyword, Dialect d, std::string_view prefix = "strict mode: ") {
  std::string message = std::string(prefix) + "unknown keyword: " + json::quote(keyword);
  if (keyword == "nullable") {
    // OpenAPI 3.0's way of allowing null means nothing in JSON Schema: the
    // author expects nulls to pass and they would not.
    return message + " (OpenAPI 3.0: JSON Schema ignores it and still refuses null; allow null with "
                     "\"type\": [\"…\", \"null\"] or \"anyOf\": [{…}, {\"type\": \"null\"}])";
  }
  // Keywords of other dialects, under their name in this one.
  static constexpr std::pair<std::string_view, std::string_view> kRenamed[] = {
      {"definitions", "$defs"}, {"$defs", "definitions"}, {"$recursiveRef", "$dynamicRef"},
      {"$recursiveAnchor", "$dynamicAnchor"}, {"$dynamicRef", "$recursiveRef"}, {"$dynamicAnchor", "$recursiveAnchor"},
      {"prefixItems", "items"}};
  for (const auto& [old_name, new_name] : kRenamed) {
    if (keyword == old_name && is_known_keyword(new_name, d)) return message + " (did you mean " + json::quote(new_name) + "?)";
  }
  if (keyword == "dependencies" && is_known_keyword("dependentSchemas", d)) {
    return message + " (did you mean \"dependentRequired\" or \"dependentSchemas\"?)";
  }
  // The closest known keyword: at most 1 edit for short names, 2 from 5
  // characters, 3 from 12 (propertees -> properties, requried -> required,
  // additionalProperty -> additionalProperties, minlength -> minLength).
  const std::size_t limit = keyword.size() >= 12 ? 3 : keyword.size() >= 5 ? 2 : 1;
  std::string_view best;
  std::size_t best_distance = limit + 1;
  for (std::string_view candidate : known_keywords(d)) {
    std::size_t distance = edit_distance(keyword, candidate, limit);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  if (!best.empty()) return message + " (did you mean " + json::quote(best) + "?)";
  return message + " (an annotation of your own: name it \"x-" + std::string(keyword) + "\")";
}

}  // namespace

bool is_known_keyword(std::string_view k, Dialect d) {
  if (k.starts_with("x-")) return true;
  if (d == Dialect::V1) {
    // 2020-12's keywords without the ones v1 dropped; no other vocabulary.
    if (k == "definitions" || k == "dependencies" || k == "$vocabulary") return false;
    return in(kCommon, k) || in(kCommon2, k) || in(kDraft6, k) || in(kDraft6b, k) || in(kDraft2019, k) ||
           in(kDraft2020, k);
  }
  if (in(kLlmAnnotations, k)) return true;
  if (in(kCommon, k) || in(kCommon2, k)) return true;
  if (d == Dialect::Draft4) return k == "id";
  if (in(kDraft6, k)) return true;
  if (d == Dialect::Draft6) return k == "propertyNames";
  if (in(kDraft6b, k)) return true;
  if (d == Dialect::Draft7) return false;
  if (in(kDraft2019, k)) return true;
  if (d == Dialect::Draft2019_09) return in(kDraft2019Only, k);
  return in(kDraft2020, k);
}

void Compiler::check_v1_keywords(const json::Value& v, const SubInfo& info) {
  if (!v.is_object()) return;
  for (const json::Member& m : v.as_object()) {
    if (is_known_keyword(m.key, Dialect::V1)) continue;
    std::string p = info.pointer;
    json::append_pointer(p, m.key);
    throw SchemaError(p, unknown_keyword_message(m.key, Dialect::V1, "the v1 dialect allows only its own keywords and x- ones: "));
  }
}

void Compiler::check_strict(const json::Value& v, const SubInfo& info) {
  if (!v.is_object()) return;
  auto where = [&](std::string_view kw) {
    std::string p = info.pointer;
    json::append_pointer(p, kw);
    return p;
  };
  bool legacy = info.dialect == Dialect::Draft4 || info.dialect == Dialect::Draft6 || info.dialect == Dialect::Draft7;
  for (const json::Member& m : v.as_object()) {
    if (!is_known_keyword(m.key, info.dialect)) {
      throw SchemaError(where(m.key), unknown_keyword_message(m.key, info.dialect));
    }
  }
  const json::Value* items = v.find("items");
  bool items_array = items && items->is_array();
  if (v.find("additionalItems") && !items_array) {
    throw SchemaError(where("additionalItems"),
                      "strict mode: \"additionalItems\" is ignored when \"items\" is not an array of schemas");
  }
  if (!legacy || info.dialect == Dialect::Draft7) {
    bool has_if = v.find("if"), has_then = v.find("then"), has_else = v.find("else");
    if (has_if && !has_then && !has_else) throw SchemaError(where("if"), "strict mode: \"if\" without \"then\" and \"else\" is ignored");
    if (!has_if && has_then) throw SchemaError(where("then"), "strict mode: \"then\" without \"if\" is ignored");
    if (!has_if && has_else) throw SchemaError(where("else"), "strict mode: \"else\" without \"if\" is ignored");
  }
  if (!legacy && !v.find("contains")) {
    for (std::string_view kw : {"minContains", "maxContains"}) {
      if (v.find(kw)) throw SchemaError(where(kw), "strict mode: \"" + std::string(kw) + "\" without \"contains\" is ignored");
    }
  }
  const json::Value* props = v.find("properties");
  const json::Value* patterns = v.find("patternProperties");
  if (props && patterns && props->is_object() && patterns->is_object()) {
    for (const json::Member& pattern : patterns->as_object()) {
      std::string p = where("patternProperties");
      json::append_pointer(p, pattern.key);
      const Regex& re = program_.regexes[regex_for(pattern.key, p)];
      for (const json::Member& prop : props->as_object()) {
        if (re.search(prop.key) == Regex::Match::Yes) {
          throw SchemaError(p, "strict mode: property " + json::quote(prop.key) + " matches pattern " +
                                   json::quote(pattern.key) + " of \"patternProperties\"");
        }
      }
    }
  }
  // Tuples: warn when the array length is left open (Ajv strictTuples).
  const json::Value* tuple = nullptr;
  std::string tuple_kw, rest_kw;
  if (is_2020_or_later(info.dialect)) {
    tuple = v.find("prefixItems");
    tuple_kw = "prefixItems";
    rest_kw = "items";
  } else if (items_array) {
    tuple = items;
    tuple_kw = "items";
    rest_kw = "additionalItems";
  }
  if (tuple && tuple->is_array()) {
    double len = static_cast<double>(tuple->as_array().size());
    const json::Value* min = v.find("minItems");
    const json::Value* max = v.find("maxItems");
    const json::Value* rest = v.find(rest_kw);
    bool closed = (max && max->is_number() && max->as_double() == len) || (rest && rest->is_bool() && !rest->as_bool());
    bool full = min && min->is_number() && min->as_double() == len && closed;
    if (!full) {
      program_.warnings.push_back(Warning{where(tuple_kw), "strict mode: \"" + tuple_kw + "\" is " +
                                                               std::to_string(tuple->as_array().size()) +
                                                               "-tuple, but minItems or maxItems/" + rest_kw +
                                                               " are not specified or different"});
    }
  }
}

namespace {

const char* meta_uri(Dialect d) {
  switch (d) {
    case Dialect::Draft4: return "http://json-schema.org/draft-04/schema";
    case Dialect::Draft6: return "http://json-schema.org/draft-06/schema";
    case Dialect::Draft7: return "http://json-schema.org/draft-07/schema";
    case Dialect::Draft2019_09: return "https://json-schema.org/draft/2019-09/schema";
    case Dialect::Draft2020_12:
    case Dialect::V1: return "https://json-schema.org/draft/2020-12/schema";
  }
  return "";
}

}  // namespace

/// The compiled meta-schema of `d`, built once (immutable, thread-safe init).
const Schema& meta_schema(Dialect d);

void Compiler::meta_validate(const json::Value& root, Dialect dialect) {
  if (root.is_object()) {
    if (const json::Value* s = root.find("$schema"); s && s->is_string() && !dialect_from_uri(s->as_string())) {
      return;  // custom meta-schema: its vocabularies are honoured, the document is not re-checked
    }
  }
  const Schema& meta = meta_schema(dialect);
  ValidationResult result = meta.validate(root, Collect::All);
  if (result.valid) return;
  // Report the most specific violation: the deepest instance path, first found.
  const Violation* best = &result.violations.front();
  for (const Violation& v : result.violations) {
    if (v.instance_path.size() > best->instance_path.size()) best = &v;
  }
  std::vector<std::string> tokens;
  json::split_pointer(best->instance_path, tokens);
  std::string keyword = tokens.empty() ? "" : tokens.back();
  std::string message = best->message;
  if (best->keyword == "enum") {
    const json::Value* allowed = best->params.find("allowedValues");
    if (allowed && allowed->is_array() && allowed->as_array().size() <= 12) {
      message += ": ";
      bool first = true;
      for (const json::Value& a : allowed->as_array()) {
        if (!first) message += ", ";
        first = false;
        message += json::serialize(a);
      }
    }
  }
  throw SchemaError(best->instance_path, (keyword.empty() ? "schema" : json::quote(keyword)) + " " + message);
}

namespace {

Schema build(Dialect dialect) {
  auto parsed = json::parse(builtin_document(meta_uri(dialect)));
  // The built-in documents are known-good: parsed always holds a value.
  return compile_meta_schema(*parsed);
}

}  // namespace

const Schema& meta_schema(Dialect d) {
  switch (d) {
    case Dialect::Draft4: { static const Schema s = build(Dialect::Draft4); return s; }
    case Dialect::Draft6: { static const Schema s = build(Dialect::Draft6); return s; }
    case Dialect::Draft7: { static const Schema s = build(Dialect::Draft7); return s; }
    case Dialect::Draft2019_09: { static const Schema s = build(Dialect::Draft2019_09); return s; }
    case Dialect::Draft2020_12:
    case Dialect::V1: break;  // v1's keywords are 2020-12's (less some): the same document checks their values
  }
  static const Schema s = build(Dialect::Draft2020_12);
  return s;
}

}  // namespace weld::schema
