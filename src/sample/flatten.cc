// Schema flattening for the sampler. The merge rules keep the tighter of two
// bounds, intersect `type` and `enum`, unite `required`, and wrap two
// subschemas for the same place in an allOf (flattened again when that place
// is generated). What cannot be merged exactly is kept from the first schema;
// the validator has the last word and the sampler retries.

#include "flatten.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <string_view>

#include "weld/json/pointer.h"
#include "weld/base/text.h"

namespace weld::sample {
namespace {

constexpr int kMaxRefDepth = 48;
constexpr int kMaxIndexDepth = 64;

// Keywords that do not constrain generation.
bool is_ignored(std::string_view key) {
  static constexpr std::array<std::string_view, 20> kIgnored = {
      "$schema", "$id", "id", "$defs", "definitions", "$anchor", "$dynamicAnchor", "$recursiveAnchor",
      "$comment", "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
      "$vocabulary", "contentMediaType", "contentEncoding", "contentSchema"};
  return std::find(kIgnored.begin(), kIgnored.end(), key) != kIgnored.end();
}

bool is_lower_bound(std::string_view key) {
  return key == "minimum" || key == "minLength" || key == "minItems" || key == "minProperties" ||
         key == "minContains";
}

bool is_upper_bound(std::string_view key) {
  return key == "maximum" || key == "maxLength" || key == "maxItems" || key == "maxProperties" ||
         key == "maxContains";
}

bool is_subschema_keyword(std::string_view key) {
  return key == "additionalProperties" || key == "additionalItems" || key == "contains" || key == "propertyNames" ||
         key == "unevaluatedItems" || key == "unevaluatedProperties";
}

json::Value both(const json::Value& a, const json::Value& b) { return json::Array{a, b}; }

json::Value all_of(const json::Value& a, const json::Value& b) { return json::Object{{"allOf", both(a, b)}}; }

// Type names as a list; "number" ∩ "integer" is "integer".
json::Value intersect_types(const json::Value& a, const json::Value& b) {
  auto names = [](const json::Value& v) {
    std::vector<std::string> out;
    if (v.is_string()) out.push_back(v.as_string());
    if (v.is_array()) {
      for (const auto& t : v.as_array()) {
        if (t.is_string()) out.push_back(t.as_string());
      }
    }
    return out;
  };
  std::vector<std::string> left = names(a), right = names(b);
  json::Array out;
  auto has = [](const std::vector<std::string>& list, std::string_view name) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  for (const auto& t : left) {
    std::string kept;
    if (has(right, t)) kept = t;
    else if (t == "integer" && has(right, "number")) kept = "integer";
    else if (t == "number" && has(right, "integer")) kept = "integer";
    if (!kept.empty() && std::find(out.begin(), out.end(), json::Value(kept)) == out.end()) out.push_back(kept);
  }
  return out;
}

void merge_members(json::Value& existing, const json::Value& incoming) {
  if (!existing.is_object() || !incoming.is_object()) return;
  for (const auto& member : incoming.as_object()) {
    if (json::Value* old = existing.find(member.key)) {
      json::Value combined = all_of(*old, member.value);
      *old = std::move(combined);
    } else {
      existing.set(member.key, member.value);
    }
  }
}

void merge_elementwise(json::Value& existing, const json::Value& incoming) {
  if (!existing.is_array() || !incoming.is_array()) return;
  auto& list = existing.as_array();
  const auto& more = incoming.as_array();
  for (std::size_t i = 0; i < more.size(); ++i) {
    if (i < list.size()) list[i] = all_of(list[i], more[i]);
    else list.push_back(more[i]);
  }
}

void merge_keyword(json::Value& merged, const std::string& key, const json::Value& value) {
  json::Value* existing = merged.find(key);
  if (key == "pattern" && value.is_string()) {
    json::Value* patterns = merged.find("__patterns");
    if (patterns == nullptr) patterns = &merged.set("__patterns", json::Array{});
    patterns->push_back(value);
  }
  if (existing == nullptr) {
    merged.set(key, value);
    return;
  }
  if (key == "type") {
    *existing = intersect_types(*existing, value);
  } else if (key == "properties" || key == "patternProperties" || key == "dependentSchemas") {
    merge_members(*existing, value);
  } else if (key == "required" && existing->is_array() && value.is_array()) {
    for (const auto& name : value.as_array()) {
      const auto& list = existing->as_array();
      if (std::find(list.begin(), list.end(), name) == list.end()) existing->push_back(name);
    }
  } else if ((key == "exclusiveMinimum" || key == "exclusiveMaximum") && existing->is_bool() && value.is_bool()) {
    *existing = json::Value(existing->as_bool() || value.as_bool());
  } else if (key == "uniqueItems" && existing->is_bool() && value.is_bool()) {
    *existing = json::Value(existing->as_bool() || value.as_bool());
  } else if ((is_lower_bound(key) || key == "exclusiveMinimum") && existing->is_number() && value.is_number()) {
    if (value.as_double() > existing->as_double()) *existing = value;
  } else if ((is_upper_bound(key) || key == "exclusiveMaximum") && existing->is_number() && value.is_number()) {
    if (value.as_double() < existing->as_double()) *existing = value;
  } else if (key == "enum" && existing->is_array() && value.is_array()) {
    json::Array kept;
    for (const auto& v : existing->as_array()) {
      const auto& other = value.as_array();
      if (std::find(other.begin(), other.end(), v) != other.end()) kept.push_back(v);
    }
    *existing = std::move(kept);
  } else if (key == "multipleOf" && existing->is_integer() && value.is_integer() && existing->as_integer() > 0 &&
             value.as_integer() > 0 && existing->as_integer() < (1 << 20) && value.as_integer() < (1 << 20)) {
    *existing = json::Value(std::lcm(existing->as_integer(), value.as_integer()));
  } else if ((key == "items" || key == "prefixItems") && existing->is_array() && value.is_array()) {
    merge_elementwise(*existing, value);
  } else if ((key == "items" && !existing->is_array() && !value.is_array()) || is_subschema_keyword(key)) {
    *existing = all_of(*existing, value);
  } else if (key == "dependentRequired" || key == "dependencies") {
    if (existing->is_object() && value.is_object()) {
      for (const auto& member : value.as_object()) {
        if (existing->find(member.key) == nullptr) existing->set(member.key, member.value);
      }
    }
  }
  // Anything else (const, format, pattern, …): the first one stays.
}

bool is_only_null(const json::Value& branch) {
  if (!branch.is_object()) return false;
  const auto* type = branch.find("type");
  return branch.size() == 1 && type != nullptr && type->is_string() && type->as_string() == "null";
}

// A branch without references or nested structure: the way out of recursion.
bool is_shallow(const json::Value& branch) {
  if (!branch.is_object()) return branch.is_bool() && branch.as_bool();
  for (const auto& member : branch.as_object()) {
    if (member.key == "$ref" || member.key == "$dynamicRef" || member.key == "$recursiveRef" ||
        member.key == "properties" || member.key == "items" || member.key == "prefixItems" ||
        member.key == "allOf" || member.key == "anyOf" || member.key == "oneOf") {
      return false;
    }
  }
  return true;
}

}  // namespace

RefIndex::RefIndex(const json::Value& root) : root_(root) { index(root, 0); }

void RefIndex::index(const json::Value& node, int depth) {
  if (depth > kMaxIndexDepth) return;
  if (node.is_array()) {
    for (const auto& element : node.as_array()) index(element, depth + 1);
    return;
  }
  if (!node.is_object()) return;
  for (const char* keyword : {"$anchor", "$dynamicAnchor"}) {
    if (const auto* anchor = node.find(keyword); anchor != nullptr && anchor->is_string()) {
      anchors_.emplace(anchor->as_string(), &node);
    }
  }
  for (const char* keyword : {"$id", "id"}) {
    if (const auto* id = node.find(keyword); id != nullptr && id->is_string()) {
      const std::string& text = id->as_string();
      if (!text.empty() && text[0] == '#') anchors_.emplace(text.substr(1), &node);
      else ids_.emplace(text, &node);
    }
  }
  for (const auto& member : node.as_object()) {
    if (member.key == "enum" || member.key == "const" || member.key == "examples" || member.key == "default") continue;
    index(member.value, depth + 1);
  }
}

const json::Value* RefIndex::resolve(const std::string& ref) const {
  std::size_t hash = ref.find('#');
  std::string base = ref.substr(0, hash);
  std::string fragment = hash == std::string::npos ? "" : weld::percent_decode(ref.substr(hash + 1));
  const json::Value* document = &root_;
  if (!base.empty()) {
    document = nullptr;
    auto exact = ids_.find(base);
    if (exact != ids_.end()) {
      document = exact->second;
    } else {
      // Relative to an unknown base URI: match by the last path segment.
      std::string tail = base.substr(base.rfind('/') == std::string::npos ? 0 : base.rfind('/') + 1);
      for (const auto& [id, node] : ids_) {
        std::string id_tail = id.substr(id.rfind('/') == std::string::npos ? 0 : id.rfind('/') + 1);
        if (!tail.empty() && id_tail == tail) {
          document = node;
          break;
        }
      }
      if (document == nullptr) {
        const auto* root_id = root_.find("$id");
        if (root_id != nullptr && root_id->is_string() && root_id->as_string() == base) document = &root_;
      }
    }
    if (document == nullptr) return nullptr;
  }
  if (fragment.empty()) return document;
  if (fragment[0] == '/') return json::resolve_pointer(*document, fragment);
  auto anchor = anchors_.find(fragment);
  return anchor == anchors_.end() ? nullptr : anchor->second;
}

void Flattener::merge_into(json::Value& merged, const json::Value& schema, int depth, int ref_depth) const {
  if (ref_depth > kMaxRefDepth) {
    merged.set("__false", json::Value(true));
    return;
  }
  if (schema.is_bool()) {
    if (!schema.as_bool()) merged.set("__false", json::Value(true));
    return;
  }
  if (!schema.is_object()) return;
  for (const auto& member : schema.as_object()) {
    const std::string& key = member.key;
    const json::Value& value = member.value;
    if (key == "$ref" || key == "$dynamicRef" || key == "$recursiveRef") {
      const json::Value* target = value.is_string() ? refs.resolve(value.as_string()) : nullptr;
      if (target != nullptr) merge_into(merged, *target, depth, ref_depth + 1);
    } else if (key == "allOf" && value.is_array()) {
      for (const auto& branch : value.as_array()) merge_into(merged, branch, depth, ref_depth + 1);
    } else if ((key == "anyOf" || key == "oneOf") && value.is_array()) {
      std::vector<const json::Value*> usable, shallow, not_null;
      for (const auto& branch : value.as_array()) {
        if (branch.is_bool() && !branch.as_bool()) continue;
        usable.push_back(&branch);
        if (is_shallow(branch)) shallow.push_back(&branch);
        if (!is_only_null(branch)) not_null.push_back(&branch);
      }
      if (usable.empty()) {
        merged.set("__false", json::Value(true));
        continue;
      }
      const std::vector<const json::Value*>* pool = &usable;
      if (depth >= soft_depth && !shallow.empty()) pool = &shallow;
      else if (!not_null.empty() && !rng.chance(1, 5)) pool = &not_null;
      merge_into(merged, *(*pool)[rng.below(pool->size())], depth, ref_depth + 1);
    } else if (key == "not") {
      json::Value* avoid = merged.find("__not");
      if (avoid == nullptr) avoid = &merged.set("__not", json::Array{});
      avoid->push_back(value);
    } else if (key == "if" || key == "then" || key == "else" || is_ignored(key)) {
      continue;
    } else {
      merge_keyword(merged, key, value);
    }
  }
  // if/then/else: either satisfy `if` and `then` together, or take `else`
  // (and avoid `if`). Both sides are tried across retries.
  const json::Value* condition = schema.find("if");
  if (condition == nullptr) return;
  const json::Value* then_branch = schema.find("then");
  const json::Value* else_branch = schema.find("else");
  bool take_then = else_branch == nullptr || (then_branch != nullptr && rng.chance(1, 2));
  if (take_then) {
    merge_into(merged, *condition, depth, ref_depth + 1);
    if (then_branch != nullptr) merge_into(merged, *then_branch, depth, ref_depth + 1);
  } else {
    merge_into(merged, *else_branch, depth, ref_depth + 1);
    json::Value* avoid = merged.find("__not");
    if (avoid == nullptr) avoid = &merged.set("__not", json::Array{});
    avoid->push_back(*condition);
  }
}

}  // namespace weld::sample
