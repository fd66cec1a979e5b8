// The original schema, indexed for the lowering (document.h).
#include "document.h"

#include "weld/base/text.h"
#include "weld/json/pointer.h"
#include "weld/schema/uri.h"

namespace weld::schema::lowering {
namespace {

// Keywords whose value is a subschema, an array of them, or a map of them.
constexpr std::string_view kSchema[] = {"additionalProperties", "not", "if", "then", "else", "contains",
                                        "propertyNames", "unevaluatedItems", "unevaluatedProperties",
                                        "additionalItems", "contentSchema", "items"};
constexpr std::string_view kArray[] = {"allOf", "anyOf", "oneOf", "prefixItems", "items"};
constexpr std::string_view kMap[] = {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas",
                                     "dependencies"};

bool is_schema(const json::Value& v) { return v.is_object() || v.is_bool(); }

}  // namespace

void Document::for_each_child(const json::Value& schema, const std::string& pointer,
                              const std::function<void(const json::Value&, const std::string&)>& visit) {
  if (!schema.is_object()) return;
  for (const json::Member& m : schema.as_object()) {
    std::string at = pointer;
    json::append_pointer(at, m.key);
    bool done = false;
    for (std::string_view k : kSchema) {
      if (m.key == k && is_schema(m.value)) {
        visit(m.value, at);
        done = true;
      }
    }
    if (done) continue;
    for (std::string_view k : kArray) {
      if (m.key == k && m.value.is_array()) {
        for (std::size_t i = 0; i < m.value.as_array().size(); ++i) {
          std::string item = at;
          json::append_pointer(item, i);
          if (is_schema(m.value.as_array()[i])) visit(m.value.as_array()[i], item);
        }
      }
    }
    for (std::string_view k : kMap) {
      if (m.key == k && m.value.is_object()) {
        for (const json::Member& entry : m.value.as_object()) {
          std::string item = at;
          json::append_pointer(item, entry.key);
          if (is_schema(entry.value)) visit(entry.value, item);
        }
      }
    }
  }
}

Document::Document(const json::Value& root) : root_(root) { index(root, "", ""); }

void Document::index(const json::Value& schema, const std::string& pointer, const std::string& base_in) {
  if (schema_at_.count(pointer)) return;
  schema_at_.emplace(pointer, &schema);
  std::string base = base_in;
  if (schema.is_object()) {
    if (const json::Value* id = schema.find("$id"); id && id->is_string()) {
      base = std::string(strip_fragment(resolve_uri(base, id->as_string())));
      pointer_of_.emplace(base, pointer);
    }
    if (const json::Value* anchor = schema.find("$anchor"); anchor && anchor->is_string()) {
      pointer_of_.emplace(base + "#" + anchor->as_string(), pointer);
    }
    if (const json::Value* anchor = schema.find("$dynamicAnchor"); anchor && anchor->is_string()) {
      pointer_of_.emplace(base + "#" + anchor->as_string(), pointer);
    }
  }
  if (pointer.empty()) pointer_of_.emplace(base, pointer);
  base_of_.emplace(pointer, base);
  for_each_child(schema, pointer, [&](const json::Value& child, const std::string& at) { index(child, at, base); });
}

const json::Value* Document::at(const std::string& pointer) const {
  auto it = schema_at_.find(pointer);
  if (it != schema_at_.end()) return it->second;
  return json::resolve_pointer(root_, pointer);
}

std::optional<std::string> Document::resolve(const std::string& pointer, std::string_view ref) const {
  auto base_it = base_of_.find(pointer);
  const std::string base = base_it != base_of_.end() ? base_it->second : "";
  const std::string target = resolve_uri(base, ref);
  std::string_view without, fragment;
  split_fragment(target, without, fragment);
  auto resource = pointer_of_.find(std::string(without));
  if (resource == pointer_of_.end()) return std::nullopt;
  if (fragment.empty()) return resource->second;
  if (fragment.front() != '/') {
    auto anchor = pointer_of_.find(std::string(without) + "#" + std::string(fragment));
    if (anchor == pointer_of_.end()) return std::nullopt;
    return anchor->second;
  }
  std::string joined = resource->second + weld::percent_decode(fragment);
  if (at(joined) == nullptr) return std::nullopt;
  return joined;
}

}  // namespace weld::schema::lowering
