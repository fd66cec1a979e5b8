#pragma once
// Test-only: each target's published schema rules as a checker. A lowered
// schema that breaks one is a request the provider refuses.
//
//  - openai-strict: https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
//    "Root objects must not be anyOf and must be an object"; "all fields
//    must be required"; "additionalProperties: false must always be set in
//    objects"; supported keywords: for strings pattern and format
//    (date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid),
//    for numbers multipleOf, maximum, exclusiveMaximum, minimum,
//    exclusiveMinimum, for arrays minItems and maxItems; anyOf, $defs and
//    $ref ("#" for recursion); "up to 5000 object properties total, with up
//    to 10 levels of nesting"; "up to 1000 enum values across all enum
//    properties".
//  - anthropic: https://docs.claude.com/en/docs/build-with-claude/structured-outputs#json-schema-limitations
//    supported: basic types, enum and const (strings, numbers, booleans,
//    nulls), anyOf and allOf, required, additionalProperties false, default,
//    ten string formats (date-time, time, date, duration, email, hostname,
//    uri, ipv4, ipv6, uuid), minItems 0 or 1; not supported: recursive
//    schemas, numerical constraints (minimum, maximum, multipleOf), string
//    length constraints, array constraints beyond minItems 0 or 1,
//    additionalProperties other than false; regex without backreferences,
//    lookaround or word boundaries.
//  - gemini: https://ai.google.dev/api/caching#Schema (the OpenAPI 3.0
//    Schema object subset): type (STRING, NUMBER, INTEGER, BOOLEAN, ARRAY,
//    OBJECT), format, title, description, nullable, enum (strings, with
//    format "enum"), maxItems, minItems, properties, required, minProperties,
//    maxProperties, minLength, maxLength, pattern, example, anyOf,
//    propertyOrdering, default, items, minimum, maximum; no $ref; an OBJECT
//    needs properties (https://ai.google.dev/gemini-api/docs/structured-output).
//  - vllm: https://docs.vllm.ai/en/latest/features/structured_outputs.html
//    with xgrammar (https://xgrammar.mlc.ai/docs/how_to/json_generation.html)
//    and llguidance (https://github.com/guidance-ai/llguidance/blob/main/docs/json_schema.md):
//    not compiled into the grammar: not, if/then/else, dependentRequired,
//    dependentSchemas, dependencies, contains, minContains, maxContains,
//    uniqueItems, unevaluatedItems, unevaluatedProperties, multipleOf,
//    minProperties, maxProperties, propertyNames, $dynamicRef, $recursiveRef,
//    oneOf (anyOf only).
//  - tool: https://platform.openai.com/docs/guides/function-calling (a
//    function's parameters: "type: object" at the root, no anyOf, oneOf,
//    allOf, enum or not at the top level) and
//    https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use
//    (input_schema: a root "type": "object").

#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <vector>

#include "weld/json/serialize.h"
#include "weld/json/value.h"
#include "weld/schema/lower.h"

namespace weld::schema {

namespace rules {

inline bool one_of(std::string_view s, std::initializer_list<std::string_view> list) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

inline bool has_lookaround(const std::string& p) {
  for (std::string_view bad : {"(?=", "(?!", "(?<=", "(?<!", "\\b", "\\B"}) {
    if (p.find(bad) != std::string::npos) return true;
  }
  for (std::size_t i = 0; i + 1 < p.size(); ++i) {
    if (p[i] == '\\' && p[i + 1] >= '1' && p[i + 1] <= '9') return true;
    if (p[i] == '\\') ++i;
  }
  return false;
}

struct Checker {
  Target target;
  std::vector<std::string> broken;
  std::size_t properties = 0;
  std::size_t enum_values = 0;

  void fail(const std::string& where, const std::string& what) { broken.push_back(where + ": " + what); }

  void check(const json::Value& s, const std::string& where, int depth) {
    if (!s.is_object()) {
      if (target != Target::Vllm && target != Target::Tool) fail(where, "a boolean schema");
      return;
    }
    const json::Value* type = s.find("type");
    for (const json::Member& m : s.as_object()) {
      if (!allowed(m.key)) fail(where, "keyword " + m.key + " is not supported");
    }
    switch (target) {
      case Target::OpenAIStrict: openai(s, where, depth); break;
      case Target::Anthropic: anthropic(s, where); break;
      case Target::Gemini: gemini(s, where); break;
      default: break;
    }
    (void)type;
    auto sub = [&](const json::Value& v, const std::string& at, int d) { check(v, at, d); };
    if (const json::Value* p = s.find("properties"); p && p->is_object()) {
      properties += p->size();
      for (const json::Member& m : p->as_object()) sub(m.value, where + "/properties/" + m.key, depth + 1);
    }
    if (const json::Value* items = s.find("items"); items && items->is_object()) sub(*items, where + "/items", depth + 1);
    for (const char* k : {"anyOf", "allOf", "oneOf", "prefixItems"}) {
      if (const json::Value* list = s.find(k); list && list->is_array()) {
        for (std::size_t i = 0; i < list->as_array().size(); ++i) sub(list->as_array()[i], where + "/" + k + "/" + std::to_string(i), depth);
      }
    }
    if (const json::Value* defs = s.find("$defs"); defs && defs->is_object()) {
      for (const json::Member& m : defs->as_object()) sub(m.value, where + "/$defs/" + m.key, 0);
    }
    if (const json::Value* e = s.find("enum"); e && e->is_array()) enum_values += e->size();
    if (target == Target::Vllm || target == Target::Tool) {
      if (const json::Value* a = s.find("additionalProperties"); a && a->is_object()) sub(*a, where + "/additionalProperties", depth + 1);
    }
  }

  bool allowed(const std::string& k) const {
    switch (target) {
      case Target::OpenAIStrict:
        return one_of(k, {"type", "properties", "required", "additionalProperties", "items", "anyOf", "enum", "const",
                          "$ref", "$defs", "description", "title", "pattern", "format", "minimum", "maximum",
                          "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems"});
      case Target::Anthropic:
        return one_of(k, {"type", "properties", "required", "additionalProperties", "items", "anyOf", "allOf", "enum",
                          "const", "description", "title", "default", "format", "pattern", "minItems"});
      case Target::Gemini:
        return one_of(k, {"type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
                          "properties", "required", "minProperties", "maxProperties", "minLength", "maxLength",
                          "pattern", "example", "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum"});
      case Target::Vllm:
        return !one_of(k, {"not", "if", "then", "else", "dependentRequired", "dependentSchemas", "dependencies",
                           "contains", "minContains", "maxContains", "uniqueItems", "unevaluatedItems",
                           "unevaluatedProperties", "multipleOf", "minProperties", "maxProperties", "propertyNames",
                           "$dynamicRef", "$recursiveRef", "oneOf"});
      case Target::Tool: return true;
    }
    return false;
  }

  static bool is_object_type(const json::Value* type) {
    if (!type) return false;
    if (type->is_string()) return type->as_string() == "object";
    if (type->is_array()) {
      for (const json::Value& t : type->as_array()) {
        if (t.is_string() && t.as_string() == "object") return true;
      }
    }
    return false;
  }

  void openai(const json::Value& s, const std::string& where, int depth) {
    if (!s.find("type") && !s.find("anyOf") && !s.find("$ref") && !s.find("enum") && !s.find("const")) {
      fail(where, "no type");
    }
    if (is_object_type(s.find("type"))) {
      const json::Value* ap = s.find("additionalProperties");
      if (!ap || !ap->is_bool() || ap->as_bool()) fail(where, "an object without additionalProperties: false");
      const json::Value* props = s.find("properties");
      const json::Value* req = s.find("required");
      if (props && props->is_object()) {
        for (const json::Member& m : props->as_object()) {
          bool listed = false;
          if (req && req->is_array()) {
            for (const json::Value& r : req->as_array()) listed = listed || (r.is_string() && r.as_string() == m.key);
          }
          if (!listed) fail(where, "property " + m.key + " not in required");
        }
      }
    }
    if (const json::Value* f = s.find("format"); f && (!f->is_string() || !one_of(f->as_string(), {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}))) {
      fail(where, "format " + json::serialize(*f));
    }
    if (const json::Value* r = s.find("$ref"); r && (!r->is_string() || (r->as_string() != "#" && r->as_string().rfind("#/$defs/", 0) != 0))) {
      fail(where, "$ref outside $defs");
    }
    if (depth > 10) fail(where, "more than 10 levels of nesting");
  }

  void anthropic(const json::Value& s, const std::string& where) {
    if (is_object_type(s.find("type"))) {
      const json::Value* ap = s.find("additionalProperties");
      if (!ap || !ap->is_bool() || ap->as_bool()) fail(where, "an object without additionalProperties: false");
    }
    if (const json::Value* m = s.find("minItems"); m && !(m->is_number() && (m->as_double() == 0 || m->as_double() == 1))) {
      fail(where, "minItems other than 0 or 1");
    }
    if (const json::Value* f = s.find("format"); f && (!f->is_string() || !one_of(f->as_string(), {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}))) {
      fail(where, "format " + json::serialize(*f));
    }
    if (const json::Value* p = s.find("pattern"); p && p->is_string() && has_lookaround(p->as_string())) fail(where, "a complex pattern");
    for (const char* k : {"enum", "const"}) {
      if (const json::Value* v = s.find(k)) {
        auto complex = [](const json::Value& x) { return x.is_array() || x.is_object(); };
        bool bad = std::string_view(k) == "const" ? complex(*v) : (!v->is_array() || std::any_of(v->as_array().begin(), v->as_array().end(), complex));
        if (bad) fail(where, std::string(k) + " with complex values");
      }
    }
    if (s.find("$ref")) fail(where, "$ref (recursion is not supported)");
  }

  void gemini(const json::Value& s, const std::string& where) {
    const json::Value* type = s.find("type");
    if (type && !(type->is_string() && one_of(type->as_string(), {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"}))) {
      fail(where, "type " + json::serialize(*type));
    }
    if (!type && !s.find("anyOf")) fail(where, "no type");
    if (type && type->is_string() && type->as_string() == "OBJECT") {
      const json::Value* props = s.find("properties");
      if (!props || !props->is_object() || props->size() == 0) fail(where, "an OBJECT without properties");
    }
    if (const json::Value* e = s.find("enum")) {
      bool strings = e->is_array() && std::all_of(e->as_array().begin(), e->as_array().end(), [](const json::Value& x) { return x.is_string(); });
      if (!strings || !type || !type->is_string() || type->as_string() != "STRING") fail(where, "an enum that is not of strings");
    }
    if (const json::Value* f = s.find("format"); f && (!f->is_string() || !one_of(f->as_string(), {"date-time", "enum", "float", "double", "int32", "int64"}))) {
      fail(where, "format " + json::serialize(*f));
    }
  }
};

}  // namespace rules

/// The rules `schema` (lowered for `target`) breaks, each "pointer: rule";
/// empty when none.
inline std::vector<std::string> broken_rules(const json::Value& schema, Target target) {
  rules::Checker checker{target, {}};
  if (target == Target::OpenAIStrict || target == Target::Anthropic || target == Target::Tool) {
    const json::Value* type = schema.is_object() ? schema.find("type") : nullptr;
    if (!type || !type->is_string() || type->as_string() != "object") checker.fail("", "the root is not type: object");
    if (schema.is_object() && (schema.find("anyOf") || schema.find("oneOf"))) checker.fail("", "a union at the root");
    if (target == Target::Tool && schema.is_object()) {
      for (const char* k : {"allOf", "enum", "not", "if", "then", "else", "const"}) {
        if (schema.find(k)) checker.fail("", std::string(k) + " at the root");
      }
    }
  }
  checker.check(schema, "", 0);
  if (target == Target::OpenAIStrict) {
    if (checker.properties > 5000) checker.fail("", "more than 5000 properties");
    if (checker.enum_values > 1000) checker.fail("", "more than 1000 enum values");
  }
  return checker.broken;
}

}  // namespace weld::schema
