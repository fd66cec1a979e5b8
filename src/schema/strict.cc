// Strict compile (SPEC §1.1 step 6, Ajv `strictSchema`) and validation of
// every schema against its dialect's meta-schema.
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

}  // namespace

bool is_known_keyword(std::string_view k, Dialect d) {
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
      throw SchemaError(where(m.key), "strict mode: unknown keyword: " + json::quote(m.key));
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
  if (info.dialect == Dialect::Draft2020_12) {
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
    case Dialect::Draft2020_12: return "https://json-schema.org/draft/2020-12/schema";
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
    case Dialect::Draft2020_12: break;
  }
  static const Schema s = build(Dialect::Draft2020_12);
  return s;
}

}  // namespace weld::schema
