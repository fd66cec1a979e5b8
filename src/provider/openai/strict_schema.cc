// OpenAI's strict structured-output subset (docs/run.md,
// "Mechanisms"): a strict request is refused unless every object lists
// all its properties in `required` and sets `additionalProperties: false`,
// and a fixed keyword list is used. Rewriting the user's schema into it sends
// the strongest constraint the server accepts; what the rewrite relaxes is
// reported, and weld validates against the full schema whatever was sent.
#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "weld/json/pointer.h"
#include "weld/json/serialize.h"
#include "weld/provider/strict_schema.h"

namespace weld::provider {
namespace {

// Keywords outside the subset: removed, and written into the description so
// the model still reads them.
constexpr std::array<std::string_view, 29> kMoved = {
    "minLength", "maxLength", "patternProperties", "propertyNames", "minProperties", "maxProperties",
    "unevaluatedProperties", "unevaluatedItems", "contains", "minContains", "maxContains", "uniqueItems",
    "allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas", "dependencies",
    "default", "examples", "prefixItems", "additionalItems", "contentEncoding", "contentMediaType",
    "readOnly", "writeOnly", "deprecated"};
// Annotations the server does not need: dropped without a note.
constexpr std::array<std::string_view, 3> kDropped = {"$schema", "$id", "$comment"};
constexpr std::array<std::string_view, 9> kFormats = {"date-time", "time", "date", "duration", "email",
                                                     "hostname", "ipv4", "ipv6", "uuid"};

template <std::size_t N>
bool contains(const std::array<std::string_view, N>& list, std::string_view key) {
  return std::find(list.begin(), list.end(), key) != list.end();
}

bool is_object_schema(const json::Value& node) {
  const json::Value* type = node.find("type");
  return node.find("properties") != nullptr || (type != nullptr && type->is_string() && type->as_string() == "object");
}

class Rewriter {
 public:
  bool failed = false;
  StrictSchema result;

  json::Value rewrite(const json::Value& node, const std::string& path) {
    if (!node.is_object()) {
      failed = true;  // a boolean schema has no place in the subset
      return {};
    }
    json::Value out = json::Object{};
    std::string notes;
    const json::Value* required = node.find("required");
    for (const json::Member& member : node.as_object()) {
      const std::string& key = member.key;
      if (contains(kDropped, key)) continue;
      const bool bad_format = key == "format" && !(member.value.is_string() && contains(kFormats, member.value.as_string()));
      if (contains(kMoved, key) || bad_format) {
        if (!notes.empty()) notes += "; ";
        notes += key + ": " + json::serialize(member.value);
        relax(path, key + " moved into description");
        continue;
      }
      if (key == "required" || key == "additionalProperties" || key == "description") continue;  // set below
      if (key == "properties") {
        if (!member.value.is_object()) return fail();
        out.set("properties", properties(member.value, required, path));
      } else if (key == "items") {
        out.set("items", rewrite(member.value, path + "/items"));
      } else if (key == "anyOf" || (key == "oneOf" && node.find("anyOf") == nullptr)) {
        // oneOf is sent as anyOf (the subset has no oneOf); weld still
        // checks that exactly one branch matches.
        if (!member.value.is_array()) return fail();
        json::Array branches;
        for (std::size_t i = 0; i < member.value.size(); ++i)
          branches.push_back(rewrite(member.value.as_array()[i], path + "/" + key + "/" + std::to_string(i)));
        out.set("anyOf", std::move(branches));
        if (key == "oneOf") relax(path, "oneOf sent as anyOf");
      } else if (key == "oneOf") {
        if (!notes.empty()) notes += "; ";
        notes += key + ": " + json::serialize(member.value);
        relax(path, "oneOf moved into description");
      } else if (key == "$defs" || key == "definitions") {
        if (!member.value.is_object()) return fail();
        json::Value defs = json::Object{};
        for (const json::Member& def : member.value.as_object()) {
          std::string def_path = path + "/" + key;
          json::append_pointer(def_path, def.key);
          defs.set(def.key, rewrite(def.value, def_path));
        }
        out.set(key, std::move(defs));
      } else if (key == "$ref") {
        // Only references into the document's own definitions.
        if (!member.value.is_string() || (member.value.as_string().rfind("#/$defs/", 0) != 0 &&
                                          member.value.as_string().rfind("#/definitions/", 0) != 0 &&
                                          member.value.as_string() != "#"))
          return fail();
        out.set(key, member.value);
      } else {
        out.set(key, member.value);  // type, enum, const, title, pattern, bounds, minItems, maxItems, format
      }
    }
    if (is_object_schema(node)) {
      const json::Value* properties = node.find("properties");
      if (properties == nullptr || !properties->is_object() || properties->size() == 0)
        return fail();  // open-ended: a map, or any object
      json::Array all;
      for (const json::Member& member : properties->as_object()) all.push_back(json::Value(member.key));
      out.set("required", std::move(all));
      const json::Value* additional = node.find("additionalProperties");
      if (additional != nullptr && additional->is_object() && additional->size() > 0)
        relax(path, "additionalProperties schema replaced by false");
      out.set("additionalProperties", false);
    }
    const json::Value* description = node.find("description");
    std::string text = description != nullptr && description->is_string() ? description->as_string() : "";
    if (!notes.empty()) text = text.empty() ? notes : text + " (" + notes + ")";
    if (!text.empty()) out.set("description", std::move(text));
    if (!out.find("type") && !out.find("anyOf") && !out.find("$ref") && !out.find("enum") && !out.find("const"))
      return fail();  // "any value": not in the subset
    return out;
  }

 private:
  json::Value fail() {
    failed = true;
    return {};
  }

  void relax(const std::string& path, std::string change) { result.relaxed.push_back(Relaxation{path, std::move(change)}); }

  json::Value properties(const json::Value& properties, const json::Value* required, const std::string& path) {
    json::Value out = json::Object{};
    for (const json::Member& member : properties.as_object()) {
      std::string child_path = path + "/properties";
      json::append_pointer(child_path, member.key);
      json::Value child = rewrite(member.value, child_path);
      if (!listed(required, member.key)) {
        child = nullable(std::move(child));
        relax(child_path, "optional property made required and nullable");
        result.nullable_added = true;
      }
      out.set(member.key, std::move(child));
    }
    return out;
  }

  static bool listed(const json::Value* required, const std::string& key) {
    if (required == nullptr || !required->is_array()) return false;
    for (const json::Value& name : required->as_array())
      if (name.is_string() && name.as_string() == key) return true;
    return false;
  }

  static json::Value nullable(json::Value schema) {
    if (!schema.is_object()) return schema;
    json::Value* type = schema.find("type");
    const bool simple = schema.find("$ref") == nullptr && schema.find("anyOf") == nullptr && schema.find("const") == nullptr;
    if (simple && type != nullptr && type->is_string()) {
      if (type->as_string() != "null") *type = json::Array{json::Value(type->as_string()), json::Value("null")};
      if (json::Value* values = schema.find("enum"); values != nullptr && values->is_array())
        values->push_back(json::Value());
      return schema;
    }
    if (json::Value* branches = schema.find("anyOf"); branches != nullptr && branches->is_array() &&
                                                       schema.find("$ref") == nullptr) {
      branches->push_back(json::Object{{"type", "null"}});
      return schema;
    }
    json::Array branches;
    branches.push_back(std::move(schema));
    branches.push_back(json::Object{{"type", "null"}});
    return json::Object{{"anyOf", std::move(branches)}};
  }
};

}  // namespace

std::optional<StrictSchema> openai_strict_schema(const json::Value& schema) {
  // The subset's root is an object (not a union, not a scalar).
  if (!schema.is_object() || !is_object_schema(schema) || schema.find("anyOf") != nullptr) return std::nullopt;
  Rewriter rewriter;
  rewriter.result.schema = rewriter.rewrite(schema, "");
  if (rewriter.failed) return std::nullopt;
  return std::move(rewriter.result);
}

SentFormat openai_sent_format(const json::Value& schema, bool want_strict) {
  if (want_strict) {
    if (std::optional<StrictSchema> strict = openai_strict_schema(schema)) return {std::move(strict->schema), true};
  }
  return {schema.is_bool() ? json::Value(json::Object{}) : schema, false};
}

}  // namespace weld::provider
