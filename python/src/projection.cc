// The projection of a schema (projection.h): for each place of an instance,
// the schemas that apply there are gathered through the in-place
// applicators; when every keyword among them is one that reads no member it
// does not name, the place reads only the named members, each of them in
// turn a place of the schemas under its name. Any doubt reads it all: a
// projection that keeps too much costs time, one that keeps too little
// would change a verdict.

#include "projection.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string_view>
#include <utility>

#include "weld/json/pointer.h"

namespace weld::python {
namespace {

using SchemaList = std::vector<const json::Value*>;

/// Places below the root, and places in all, past which everything is read
/// (a recursive schema's projection would go on for ever).
constexpr int kMaxPlaceDepth = 32;
constexpr std::size_t kMaxPlaces = 4096;
/// Schemas applying at one place past which everything is read.
constexpr std::size_t kMaxSchemasAtPlace = 256;

// Keywords that read no member of an object: annotations and definitions,
// keywords of scalars, and keywords of arrays (an array is always written
// whole, so what its items' schemas read does not matter).
constexpr std::array<std::string_view, 38> kReadNoMember = {
    "$schema", "$comment", "$anchor", "$vocabulary", "title", "description", "default", "examples", "example",
    "deprecated", "readOnly", "writeOnly", "definitions", "$defs", "markdownDescription",
    // the type, scalars
    "type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
    "pattern", "format", "contentMediaType", "contentEncoding", "contentSchema",
    // arrays
    "items", "prefixItems", "additionalItems", "contains", "minContains", "maxContains", "minItems", "maxItems",
    "uniqueItems", "unevaluatedItems"};

// Keywords that read the members they name (gathered in names_at).
constexpr std::array<std::string_view, 4> kReadNamedMembers = {"properties", "required", "dependentRequired",
                                                                 "dependencies"};

bool one_of(std::string_view key, const auto& keys) { return std::find(keys.begin(), keys.end(), key) != keys.end(); }

class Builder {
 public:
  explicit Builder(const json::Value& root) : root_(root) {}

  /// What is read at a place where `schemas` apply.
  Projection at(const SchemaList& schemas, int depth) {
    Projection projection;  // all
    if (depth > kMaxPlaceDepth || ++places_ > kMaxPlaces) return projection;
    SchemaList here;
    for (const json::Value* schema : schemas) {
      if (!gather(*schema, here)) return projection;
    }
    std::vector<std::pair<std::string_view, SchemaList>> names;
    if (!names_at(here, names)) return projection;
    projection.all = false;
    std::sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [name, under] : names) {
      projection.members.push_back(Projection::Member{std::string(name), at(under, depth + 1)});
    }
    return projection;
  }

 private:
  // Adds `schema` and the schemas it applies at the same place to `out`;
  // false when one of them may read members it does not name.
  bool gather(const json::Value& schema, SchemaList& out) {
    if (schema.is_bool()) return true;
    if (!schema.is_object()) return false;
    if (std::find(out.begin(), out.end(), &schema) != out.end()) return true;  // a $ref cycle
    if (out.size() >= kMaxSchemasAtPlace) return false;
    out.push_back(&schema);
    for (const json::Member& member : schema.as_object()) {
      const std::string_view key = member.key;
      const json::Value& value = member.value;
      if (one_of(key, kReadNoMember)) continue;
      if (key == "$id" || key == "id") {
        // A base URI: "#…" references below it would mean another document.
        if (&schema != &root_) return false;
        continue;
      }
      if (key == "properties" || key == "required" || key == "dependentRequired") continue;
      if (key == "allOf" || key == "anyOf" || key == "oneOf") {
        if (!value.is_array()) return false;
        for (const json::Value& each : value.as_array()) {
          if (!gather(each, out)) return false;
        }
        continue;
      }
      if (key == "not" || key == "if" || key == "then" || key == "else") {
        if (!gather(value, out)) return false;
        continue;
      }
      if (key == "dependentSchemas" || key == "dependencies") {
        if (!value.is_object()) return false;
        for (const json::Member& each : value.as_object()) {
          if (key == "dependencies" && each.value.is_array()) continue;  // names (names_at)
          if (!gather(each.value, out)) return false;
        }
        continue;
      }
      if (key == "$ref") {
        const json::Value* target = local_target(value);
        if (target == nullptr || !gather(*target, out)) return false;
        continue;
      }
      return false;  // additionalProperties, enum, const, $dynamicRef, an unknown keyword…
    }
    return true;
  }

  // The schema a "#" or "#/json/pointer" reference names in the document;
  // nullptr for any other reference.
  const json::Value* local_target(const json::Value& ref) const {
    if (!ref.is_string()) return nullptr;
    std::string_view text = ref.as_string();
    if (text.empty() || text.front() != '#') return nullptr;
    text.remove_prefix(1);
    if (text.find('%') != std::string_view::npos) return nullptr;  // a percent-encoded fragment: not worth it
    if (!text.empty() && text.front() != '/') return nullptr;       // an anchor
    return json::resolve_pointer(root_, text);
  }

  // The members named by the schemas at a place, each with the schemas that
  // apply to its value; false when a naming keyword has an unexpected form.
  static bool names_at(const SchemaList& here, std::vector<std::pair<std::string_view, SchemaList>>& names) {
    auto name = [&](std::string_view key) -> SchemaList& {
      for (auto& [known, under] : names) {
        if (known == key) return under;
      }
      return names.emplace_back(key, SchemaList{}).second;
    };
    auto strings = [&](const json::Value& list) {
      if (!list.is_array()) return false;
      for (const json::Value& each : list.as_array()) {
        if (!each.is_string()) return false;
        name(each.as_string());
      }
      return true;
    };
    for (const json::Value* schema : here) {
      for (const json::Member& member : schema->as_object()) {
        if (!one_of(std::string_view(member.key), kReadNamedMembers) && member.key != "dependentSchemas") continue;
        if (member.key == "required") {
          if (!strings(member.value)) return false;
          continue;
        }
        if (!member.value.is_object()) return false;
        for (const json::Member& each : member.value.as_object()) {
          SchemaList& under = name(each.key);
          if (member.key == "properties") under.push_back(&each.value);
          if (each.value.is_array() && !strings(each.value)) return false;  // dependentRequired, dependencies
        }
      }
    }
    return true;
  }

  const json::Value& root_;
  std::size_t places_ = 0;
};

}  // namespace

const Projection* Projection::member(std::string_view key) const {
  if (members.size() <= 8) {  // most: the length alone tells most keys apart
    for (const Member& each : members) {
      if (each.key.size() == key.size() && std::memcmp(each.key.data(), key.data(), key.size()) == 0) {
        return &each.value;
      }
    }
    return nullptr;
  }
  auto at = std::lower_bound(members.begin(), members.end(), key,
                             [](const Member& member, std::string_view k) { return member.key < k; });
  return at != members.end() && at->key == key ? &at->value : nullptr;
}

Projection projection_of(const schema::Schema& schema) {
  switch (schema.dialect()) {
    case schema::Dialect::Draft4:
    case schema::Dialect::Draft6:
    case schema::Dialect::Draft7:
    case schema::Dialect::Draft2019_09:
    case schema::Dialect::Draft2020_12: break;
    default: return Projection{};  // a dialect whose keywords this file does not know
  }
  const json::Value& root = schema.source();
  return Builder(root).at(SchemaList{&root}, 0);
}

}  // namespace weld::python
