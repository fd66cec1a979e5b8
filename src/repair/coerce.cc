// Schema-aligned coercion and clamping (docs/design.md, "Repairs").
//
// Only a value whose JSON type the schema does not accept at that place is
// ever coerced (a string where no branch accepts a string), so an answer the
// schema already accepts cannot change meaning: the string "true" under
// {"type":"string"} stays a string.

#include "coerce.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_set>

#include "lenient_parse.h"
#include "weld/json/parse.h"
#include "weld/json/pointer.h"
#include "weld/json/serialize.h"
#include "weld/json/utf8.h"
#include "weld/base/text.h"

namespace weld::repair {
namespace {

// JSON types a schema place admits, as a bit set. kInteger covers integral
// numbers (1, 1.0), kReal the others; "number" admits both.
using TypeMask = unsigned;
constexpr TypeMask kNull = 1, kBoolean = 2, kInteger = 4, kReal = 8, kString = 16, kArray = 32, kObject = 64;
constexpr TypeMask kAny = 127;

// Collected schema nodes are capped so that a hostile schema ($ref chains,
// huge allOf fans) cannot make the walk expensive.
constexpr std::size_t kMaxNodes = 256;
constexpr int kMaxBranchDepth = 16;
constexpr std::size_t kDetailChars = 60;

using Nodes = std::vector<const json::Value*>;

TypeMask mask_of_name(std::string_view name) {
  if (name == "null") return kNull;
  if (name == "boolean") return kBoolean;
  if (name == "integer") return kInteger;
  if (name == "number") return kInteger | kReal;
  if (name == "string") return kString;
  if (name == "array") return kArray;
  if (name == "object") return kObject;
  return kAny;  // unknown names are the compiler's business, not ours
}

bool is_integral(double d) { return std::isfinite(d) && std::floor(d) == d; }

TypeMask mask_of_value(const json::Value& v) {
  switch (v.type()) {
    case json::Type::Null: return kNull;
    case json::Type::Boolean: return kBoolean;
    case json::Type::Integer: return kInteger;
    case json::Type::Real: return is_integral(v.as_real()) ? kInteger : kReal;
    case json::Type::String: return kString;
    case json::Type::Array: return kArray;
    case json::Type::Object: return kObject;
  }
  return kAny;
}

// Short, single-line rendering of a value for a repair's detail.
std::string brief(const json::Value& v) {
  std::string text = json::serialize(v);
  if (json::count_code_points(text) > kDetailChars) {
    text = std::string(json::utf8_prefix(text, kDetailChars)) + "…";
  }
  return text;
}

class Walker {
 public:
  Walker(const json::Value& root, const CoerceOptions& options) : root_(root), options_(options) {}

  void walk(json::Value& value, const Nodes& nodes, const std::string& path) {
    if (nodes.empty()) return;
    TypeMask mask = types_of(nodes, 0);
    if (options_.coerce && value.is_string() && !(mask & kString) && mask != 0) coerce_string(value, mask, path);

    Nodes extended = nodes;
    add_unambiguous_branches(value, nodes, extended);

    if (value.is_object()) {
      for (auto& member : value.as_object()) {
        Nodes child;
        for (const json::Value* node : extended) child_for_property(*node, member.key, child);
        std::string child_path = path;
        json::append_pointer(child_path, member.key);
        walk(member.value, child, child_path);
      }
    } else if (value.is_array()) {
      auto& array = value.as_array();
      for (std::size_t i = 0; i < array.size(); ++i) {
        Nodes child;
        for (const json::Value* node : extended) child_for_item(*node, i, child);
        std::string child_path = path;
        json::append_pointer(child_path, i);
        walk(array[i], child, child_path);
      }
    } else if (value.is_number() && options_.clamp) {
      clamp(value, extended, mask, path);
    }
  }

  std::vector<Repair> take() { return std::move(repairs_); }

  // The schema nodes that apply at a place: the node, what its $ref points
  // to, and its allOf members, recursively.
  void collect(const json::Value* node, Nodes& out) const {
    std::unordered_set<const json::Value*> seen(out.begin(), out.end());
    collect_into(node, out, seen);
  }

 private:
  void collect_into(const json::Value* node, Nodes& out, std::unordered_set<const json::Value*>& seen) const {
    if (node == nullptr || !node->is_object() || out.size() >= kMaxNodes) return;
    if (!seen.insert(node).second) return;
    out.push_back(node);
    if (const auto* ref = node->find("$ref"); ref != nullptr && ref->is_string()) {
      collect_into(resolve_ref(ref->as_string()), out, seen);
    }
    if (const auto* all_of = node->find("allOf"); all_of != nullptr && all_of->is_array()) {
      for (const auto& branch : all_of->as_array()) collect_into(&branch, out, seen);
    }
  }

  const json::Value* resolve_ref(const std::string& ref) const {
    if (ref.empty() || ref[0] != '#') return nullptr;  // only same-document references
    std::string pointer = weld::percent_decode(std::string_view(ref).substr(1));
    if (pointer.empty()) return &root_;
    if (pointer[0] != '/') return nullptr;  // anchors: not followed (conservative)
    return json::resolve_pointer(root_, pointer);
  }

  // Types admitted by all `nodes` together; anyOf/oneOf admit the union of
  // their branches. A boolean schema `false` branch admits nothing.
  TypeMask types_of(const Nodes& nodes, int depth) const {
    TypeMask mask = kAny;
    for (const json::Value* node : nodes) {
      if (const auto* type = node->find("type")) {
        if (type->is_string()) {
          mask &= mask_of_name(type->as_string());
        } else if (type->is_array()) {
          TypeMask any = 0;
          for (const auto& name : type->as_array()) any |= name.is_string() ? mask_of_name(name.as_string()) : kAny;
          mask &= any;
        }
      }
      if (const auto* constant = node->find("const")) {
        mask &= mask_of_value(*constant);
      } else if (const auto* values = node->find("enum"); values != nullptr && values->is_array()) {
        TypeMask any = 0;
        for (const auto& v : values->as_array()) any |= mask_of_value(v);
        mask &= any;
      }
      for (const char* keyword : {"anyOf", "oneOf"}) {
        const auto* branches = node->find(keyword);
        if (branches == nullptr || !branches->is_array() || depth >= kMaxBranchDepth) continue;
        TypeMask any = 0;
        for (const auto& branch : branches->as_array()) any |= branch_types(branch, depth + 1);
        mask &= any;
      }
    }
    return mask;
  }

  TypeMask branch_types(const json::Value& branch, int depth) const {
    if (branch.is_bool()) return branch.as_bool() ? kAny : 0;
    Nodes nodes;
    collect(&branch, nodes);
    return types_of(nodes, depth);
  }

  // anyOf/oneOf are entered only when exactly one branch admits the value's
  // type: anything else would be a guess about the author's intent.
  void add_unambiguous_branches(const json::Value& value, const Nodes& nodes, Nodes& extended) const {
    TypeMask type = mask_of_value(value);
    for (const json::Value* node : nodes) {
      for (const char* keyword : {"anyOf", "oneOf"}) {
        const auto* branches = node->find(keyword);
        if (branches == nullptr || !branches->is_array()) continue;
        const json::Value* only = nullptr;
        int matches = 0;
        for (const auto& branch : branches->as_array()) {
          if (branch_types(branch, 1) & type) {
            ++matches;
            only = &branch;
          }
        }
        if (matches == 1) collect(only, extended);
      }
    }
  }

  void child_for_property(const json::Value& node, const std::string& key, Nodes& out) const {
    if (const auto* properties = node.find("properties"); properties != nullptr && properties->is_object()) {
      if (const auto* schema = properties->find(key)) {
        collect(schema, out);
        return;
      }
    }
    // additionalProperties applies only when no patternProperties pattern
    // matches; without evaluating patterns we cannot know, so we stop.
    if (const auto* patterns = node.find("patternProperties"); patterns != nullptr && patterns->size() > 0) return;
    if (const auto* additional = node.find("additionalProperties")) collect(additional, out);
  }

  void child_for_item(const json::Value& node, std::size_t index, Nodes& out) const {
    const auto* prefix = node.find("prefixItems");
    const auto* items = node.find("items");
    if (prefix != nullptr && prefix->is_array()) {
      if (index < prefix->size()) {
        collect(&prefix->as_array()[index], out);
      } else if (items != nullptr) {
        collect(items, out);
      }
      return;
    }
    if (items != nullptr && items->is_array()) {  // draft-07 tuple form
      if (index < items->size()) {
        collect(&items->as_array()[index], out);
      } else if (const auto* additional = node.find("additionalItems")) {
        collect(additional, out);
      }
      return;
    }
    if (items != nullptr) collect(items, out);
  }

  void add(std::string kind, const std::string& path, std::string detail) {
    repairs_.push_back(Repair{std::move(kind), path, std::move(detail)});
  }

  void coerce_string(json::Value& value, TypeMask mask, const std::string& path) {
    const std::string& s = value.as_string();
    if (mask & kBoolean) {
      if (s == "true" || s == "True" || s == "false" || s == "False") {
        bool b = s[0] == 't' || s[0] == 'T';
        add("coerce_boolean", path, json::quote(s) + " -> " + (b ? "true" : "false"));
        value = json::Value(b);
        return;
      }
    }
    if (mask & (kInteger | kReal)) {
      auto number = json::parse(s);
      if (number && number->is_number() && !s.empty() && s.front() != ' ' && s.back() != ' ' &&
          s.front() != '\n' && s.back() != '\n') {
        json::Value result = std::move(*number);
        if (!(mask & kReal) && result.is_real()) {
          double d = result.as_real();
          // Integers stay integers; a non-integral string is left alone.
          if (!is_integral(d) || std::fabs(d) > 9.0e15) return;
          result = json::Value(static_cast<std::int64_t>(d));
        }
        if (!(mask & kReal) && !result.is_integer()) return;
        add("coerce_number", path, brief(value) + " -> " + brief(result));
        value = std::move(result);
        return;
      }
    }
    if (mask & (kObject | kArray)) {
      std::size_t first = s.find_first_not_of(" \t\r\n");
      if (first == std::string::npos) return;
      char c = s[first];
      if (c != '{' && c != '[' && !(options_.lenient_strings && c == '`')) return;
      json::Value parsed;
      std::string how;
      if (auto strict = json::parse(s)) {
        parsed = std::move(*strict);
      } else if (options_.lenient_strings) {
        auto lenient = lenient_parse(s);
        if (!lenient) return;
        parsed = std::move(lenient->value);
        for (const auto& repair : lenient->repairs) how += (how.empty() ? " (repaired: " : ", ") + repair.kind;
        if (!how.empty()) how += ")";
      } else {
        return;
      }
      if (!(mask_of_value(parsed) & mask) || !(parsed.is_object() || parsed.is_array())) return;
      add("coerce_json_string", path,
          std::string("parsed the string as a JSON ") + (parsed.is_object() ? "object" : "array") + how);
      value = std::move(parsed);
    }
  }

  // Clamps into the tightest bounds of all `nodes` (draft-04 boolean
  // exclusiveMinimum/Maximum modify minimum/maximum; later drafts use
  // numbers). Integers stay integers; multipleOf is honoured when possible.
  void clamp(json::Value& value, const Nodes& nodes, TypeMask mask, const std::string& path) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    double lo = -kInf, hi = kInf;
    bool lo_exclusive = false, hi_exclusive = false;
    double multiple = 0;
    auto tighten_lo = [&](double bound, bool exclusive) {
      if (bound > lo || (bound == lo && exclusive)) { lo = bound; lo_exclusive = exclusive; }
    };
    auto tighten_hi = [&](double bound, bool exclusive) {
      if (bound < hi || (bound == hi && exclusive)) { hi = bound; hi_exclusive = exclusive; }
    };
    for (const json::Value* node : nodes) {
      const auto* minimum = node->find("minimum");
      const auto* maximum = node->find("maximum");
      const auto* ex_min = node->find("exclusiveMinimum");
      const auto* ex_max = node->find("exclusiveMaximum");
      if (minimum != nullptr && minimum->is_number()) {
        tighten_lo(minimum->as_double(), ex_min != nullptr && ex_min->is_bool() && ex_min->as_bool());
      }
      if (maximum != nullptr && maximum->is_number()) {
        tighten_hi(maximum->as_double(), ex_max != nullptr && ex_max->is_bool() && ex_max->as_bool());
      }
      if (ex_min != nullptr && ex_min->is_number()) tighten_lo(ex_min->as_double(), true);
      if (ex_max != nullptr && ex_max->is_number()) tighten_hi(ex_max->as_double(), true);
      if (const auto* m = node->find("multipleOf"); m != nullptr && m->is_number() && m->as_double() > 0) {
        multiple = m->as_double();  // several multipleOf: the validator has the last word
      }
    }
    double v = value.as_double();
    bool below = v < lo || (lo_exclusive && v <= lo);
    bool above = v > hi || (hi_exclusive && v >= hi);
    if (!below && !above) return;
    bool keep_integer = value.is_integer() || !(mask & kReal);
    double target;
    if (keep_integer) {
      constexpr double kLimit = 9.0e15;  // exact in a double and in int64
      if (below) target = lo_exclusive ? std::floor(lo) + 1 : std::ceil(lo);
      else target = hi_exclusive ? std::ceil(hi) - 1 : std::floor(hi);
      if (multiple > 0 && is_integral(multiple)) {
        double k = below ? std::ceil(target / multiple) : std::floor(target / multiple);
        target = k * multiple;
      }
      if (!(std::fabs(target) <= kLimit)) return;
    } else {
      if (below) target = lo_exclusive ? std::nextafter(lo, kInf) : lo;
      else target = hi_exclusive ? std::nextafter(hi, -kInf) : hi;
      if (multiple > 0) {
        double k = below ? std::ceil(target / multiple) : std::floor(target / multiple);
        double snapped = k * multiple;
        if (std::isfinite(snapped)) target = snapped;
      }
      if (!std::isfinite(target)) return;
    }
    if (target < lo || (lo_exclusive && target <= lo) || target > hi || (hi_exclusive && target >= hi)) return;
    json::Value result = keep_integer ? json::Value(static_cast<std::int64_t>(target)) : json::Value(target);
    add("clamp", path, brief(value) + " -> " + brief(result));
    value = std::move(result);
  }

  const json::Value& root_;
  const CoerceOptions& options_;
  std::vector<Repair> repairs_;
};

}  // namespace

std::vector<Repair> coerce_to_schema(json::Value& value, const json::Value& schema, const CoerceOptions& options) {
  if (!options.coerce && !options.clamp) return {};
  Walker walker(schema, options);
  Nodes nodes;
  walker.collect(&schema, nodes);
  walker.walk(value, nodes, "");
  return walker.take();
}

}  // namespace weld::repair
