// Lowering a schema for a target (lower.h). One walk over the original
// schema writes the lowered one, subschema by subschema, under each
// target's published rules (the tests cite them: lower_rules_test.cc):
//
//  - openai-strict (platform.openai.com/docs/guides/structured-outputs,
//    "Supported schemas"): the root an object, never a union; every object
//    closed (`additionalProperties: false`) with every property in
//    `required` (optional ones made nullable); the keywords type, enum,
//    const, anyOf, $ref/$defs, properties, required, items, minItems,
//    maxItems, pattern, nine formats, minimum, maximum, the exclusive forms,
//    multipleOf, title and description; at most 10 levels of nesting.
//  - anthropic (docs.claude.com/en/docs/build-with-claude/structured-outputs,
//    "JSON Schema limitations"): objects closed, no recursion, no numeric or
//    length constraints, minItems 0 or 1 only, ten formats, simple patterns.
//  - gemini (ai.google.dev/api/caching#Schema): OpenAPI 3.0's Schema object:
//    one upper-case type (plus `nullable`), string enums, no $ref, no
//    additionalProperties, objects with properties.
//  - vllm (docs.vllm.ai/en/latest/features/structured_outputs.html, and the
//    JSON Schema support of xgrammar and llguidance): most of JSON Schema;
//    what the grammar compilers skip is moved into the description.
//  - tool: a forced tool call's parameters: a root `type: "object"` without
//    a union, `enum`, `not` or conditional at the top.
//
// What a target cannot express is never silently lost: a keyword goes into
// the description (weld still checks it), a map becomes [{"key","value"}]
// entries, and a value the target cannot describe at all (any value, a
// recursion cut, a reference that leaves the document) is asked for as JSON
// text. The changes are listed; map.cc undoes the shape changes.
#include <algorithm>
#include <array>
#include <functional>

#include "state.h"
#include "weld/json/pointer.h"
#include "weld/json/serialize.h"
#include "weld/schema/lower.h"

namespace weld::schema {
namespace {

using lowering::Document;

constexpr std::array<std::string_view, 9> kOpenAIFormats = {"date-time", "time", "date", "duration", "email",
                                                            "hostname", "ipv4", "ipv6", "uuid"};
constexpr std::array<std::string_view, 10> kAnthropicFormats = {"date-time", "time", "date", "duration", "email",
                                                                "hostname", "uri", "ipv4", "ipv6", "uuid"};
constexpr std::array<std::string_view, 2> kGeminiFormats = {"date-time", "enum"};

template <std::size_t N>
bool in(const std::array<std::string_view, N>& list, std::string_view s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// Annotations and identifiers a target never needs: dropped without a note.
bool silent_drop(std::string_view k) {
  return k == "$schema" || k == "$id" || k == "$anchor" || k == "$comment" || k == "$dynamicAnchor" ||
         k == "$vocabulary" || k == "deprecated" || k == "readOnly" || k == "writeOnly" || k.starts_with("x-") ||
         k == "discriminator" || k == "example" || k == "xml" || k == "externalDocs" || k == "markdownDescription" ||
         k == "errorMessage" || k == "examples" || k == "$defs" || k == "definitions";
}

// A pattern the target's regex engine may refuse: look-around, back
// references, word boundaries.
bool complex_pattern(const std::string& p) {
  for (std::string_view bad : {"(?=", "(?!", "(?<=", "(?<!", "\\b", "\\B", "\\k<", "(?<"}) {
    if (p.find(bad) != std::string::npos) return true;
  }
  for (std::size_t i = 0; i + 1 < p.size(); ++i) {
    if (p[i] == '\\' && p[i + 1] >= '1' && p[i + 1] <= '9') return true;
    if (p[i] == '\\') ++i;
  }
  return false;
}

bool is_object_schema(const json::Value& s) {
  if (!s.is_object()) return false;
  const json::Value* type = s.find("type");
  if (type && type->is_string()) return type->as_string() == "object";
  if (type && type->is_array()) {
    return type->as_array().size() == 1 && type->as_array()[0].is_string() && type->as_array()[0].as_string() == "object";
  }
  return !type && (s.find("properties") || s.find("additionalProperties") || s.find("patternProperties") ||
                   s.find("required") || s.find("propertyNames") || s.find("minProperties") || s.find("maxProperties"));
}

std::string gemini_type(const std::string& t) {
  std::string out = t;
  for (char& c : out) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return out;
}

class Lowerer {
 public:
  Lowerer(Lowering::State& state) : s_(state), doc_(*state.document), t_(state.target) {}

  json::Value lower_root() {
    const json::Value& root = s_.original;
    json::Value out = lower(root, "", 0);
    // $defs travel with targets that keep references.
    if (!s_.inline_refs && defs_.size() > 0) {
      if (!out.is_object()) out = json::Object{{"allOf", json::Array{out}}};
      out.set("$defs", std::move(defs_));
    }
    return finish_root(std::move(out));
  }

 private:
  // ---- the walk ------------------------------------------------------------

  json::Value lower(const json::Value& schema, const std::string& pointer, int depth) {
    // An allOf merge in progress concerns its own object only, not the
    // subschemas below it.
    std::vector<std::map<std::string, std::string>> outer_pointers;
    std::vector<std::vector<std::string>> outer_parts;
    std::vector<std::string> outer_structural;
    outer_pointers.swap(property_pointers_);
    outer_parts.swap(merged_parts_);
    outer_structural.swap(structural_);
    json::Value out = lower_unmerged(schema, pointer, depth);
    outer_pointers.swap(property_pointers_);
    outer_parts.swap(merged_parts_);
    outer_structural.swap(structural_);
    return out;
  }

  json::Value lower_unmerged(const json::Value& schema, const std::string& pointer, int depth) {
    if (schema.is_bool()) {
      if (schema.as_bool()) return any_value(pointer, depth);
      change(pointer, "the false schema written as a value that cannot occur", "a target has no false schema");
      return as_text(pointer, "no value is valid here; write null");
    }
    if (!schema.is_object()) return as_text(pointer, "");
    if (depth > kMaxDepth && t_ == Target::OpenAIStrict) {
      change(pointer, "asked for as JSON text", "openai-strict allows at most 10 levels of nesting");
      return as_text(pointer, describe_for_text(schema));
    }
    // References first: they may stand alone.
    if (const json::Value* ref = schema.find("$ref"); ref && ref->is_string()) {
      std::optional<std::string> target = doc_.resolve(pointer, ref->as_string());
      if (!target) {
        change(pointer, "asked for as JSON text", "the reference " + json::quote(ref->as_string()) + " leaves the schema");
        return as_text(pointer, describe_for_text(schema));
      }
      // draft-07 and before: the siblings of $ref are ignored.
      if (s_.legacy_refs) return reference(*target, depth, pointer);
      if (closed_world() && constraining_siblings(schema)) {
        // Both apply (2019-09 and later): merged as an allOf would be.
        return lower_all_of(schema, json::Value(json::Array{}), pointer, depth);
      }
      json::Value referenced = reference(*target, depth, pointer);
      // Siblings that only annotate (a title, $defs, …).
      json::Value rest = schema;
      rest.erase("$ref");
      bool constrains = false;
      for (const json::Member& m : rest.as_object()) {
        constrains = constrains || !(silent_drop(m.key) || m.key == "title" || m.key == "description" || m.key == "default");
      }
      if (!constrains) {
        if (const json::Value* d = rest.find("description"); d && d->is_string() && referenced.is_object() &&
                                                            !referenced.find("$ref") && !referenced.find("description")) {
          referenced.set("description", *d);
        }
        return referenced;
      }
      json::Value own = lower(rest, pointer, depth);
      if (!closed_world() && own.is_object() && referenced.is_object() && referenced.find("$ref")) {
        own.set("$ref", *referenced.find("$ref"));
        return own;
      }
      return merge_all({std::move(referenced), std::move(own)}, pointer);
    }
    if (schema.find("$dynamicRef") || schema.find("$recursiveRef")) {
      change(pointer, "asked for as JSON text", "a dynamic reference has no static form");
      return as_text(pointer, describe_for_text(schema));
    }
    if (const json::Value* all = schema.find("allOf"); all && all->is_array() && t_ != Target::Tool &&
                                                       t_ != Target::Vllm) {
      return lower_all_of(schema, *all, pointer, depth);
    }
    return lower_plain(schema, pointer, depth);
  }

  // A `$ref` to `target`: kept (with the target lowered once into $defs) or
  // expanded in place, recursion cut after kUnrollRecursion expansions.
  json::Value reference(const std::string& target, int depth, const std::string& site) {
    const json::Value* schema = doc_.at(target);
    if (!s_.inline_refs) {
      std::string name = def_name(target);
      if (!defined_.count(target)) {
        defined_.insert(target);
        defs_.set(name, json::Value());  // reserve: a recursive reference finds it
        defs_.set(name, lower(*schema, target, 0));
      }
      return json::Object{{"$ref", "#/$defs/" + json::escape_pointer_token(name)}};
    }
    int seen = static_cast<int>(std::count(expanding_.begin(), expanding_.end(), target));
    if (seen > 0 && ++expansions_ > kMaxExpansions) seen = kUnrollRecursion;  // a schema that grows too fast unrolled
    if (seen >= kUnrollRecursion) {
      s_.unrolled = true;
      s_.cuts.insert(Lowering::State::cut_key(sites_, site));
      if (!cut_reported_.count(target)) {
        cut_reported_.insert(target);
        change(target, "asked for as JSON text below " + std::to_string(kUnrollRecursion) + " levels of recursion",
               std::string(target_name(t_)) + " has no recursive schemas");
      }
      return as_text(target, "the same shape as above, nested deeper (" + def_name(target) + ")",
                     /*record=*/false);  // map.cc counts expansions too
    }
    expanding_.push_back(target);
    sites_.push_back(site);
    json::Value out = lower(*schema, target, depth);
    sites_.pop_back();
    expanding_.pop_back();
    return out;
  }

  std::string def_name(const std::string& target) {
    // "/$defs/Pet" -> "Pet"; anything else by its pointer, escaped.
    for (std::string_view prefix : {"/$defs/", "/definitions/"}) {
      if (target.rfind(prefix, 0) == 0 && target.find('/', prefix.size()) == std::string::npos) {
        std::vector<std::string> tokens;
        json::split_pointer(target, tokens);
        return tokens.back();
      }
    }
    std::string name = target.empty() ? "root" : target.substr(1);
    for (char& c : name) {
      if (c == '/' || c == '~' || c == '$') c = '_';
    }
    return name;
  }

  // Moves a keyword the target has no room for into the description.
  using Describe = std::function<void(const std::string&, const json::Value&, std::string)>;

  json::Value lower_plain(const json::Value& schema, const std::string& pointer, int depth) {
    json::Value out = json::Object{};
    std::string notes;
    const Describe describe = [&](const std::string& key, const json::Value& value, std::string reason) {
      if (!notes.empty()) notes += "; ";
      notes += key + ": " + json::serialize(value);
      change(pointer, key + " moved into the description", std::move(reason));
    };
    bool inferred = false;
    const std::vector<std::string> types = plain_types(schema, inferred);
    if (types.empty() && !schema.find("enum") && !schema.find("const") && !schema.find("anyOf") &&
        !schema.find("oneOf") && closed_world()) {
      return any_value(pointer, depth, &schema);  // vllm and tool take a schema without a type as it is
    }
    const bool object = std::find(types.begin(), types.end(), "object") != types.end();
    const bool array = std::find(types.begin(), types.end(), "array") != types.end();
    const bool several_types = types.size() > 1;
    if (object && inferred && closed_world() && s_.options.keep_open) return open_object(schema, pointer, depth);
    if (object && several_types && closed_world()) return type_branches(schema, types, pointer, depth);

    write_type(out, schema, types, pointer);
    for (const json::Member& m : schema.as_object()) {
      if (std::optional<json::Value> whole = lower_member(out, schema, m, types, object, pointer, depth, describe))
        return std::move(*whole);
    }

    // An object whose union branches list the properties (and it none of its
    // own): the branches are the objects.
    const bool branches_are_objects = (out.find("anyOf") || out.find("oneOf")) && !schema.find("properties") &&
                                      !schema.find("additionalProperties") && !schema.find("patternProperties");
    if (object && !(closed_world() && branches_are_objects)) this->object(schema, out, pointer, depth, describe);
    if (object && closed_world() && branches_are_objects && !several_types) out.erase("type");  // the branches say it
    if (array) this->array(schema, out, pointer, depth, describe);
    // (Objects/arrays keywords on a schema of another type mean nothing to
    // the targets that close objects.)
    if (!types.empty() && !object && (schema.find("properties") || schema.find("additionalProperties")) &&
        !closed_world()) {
      this->object(schema, out, pointer, depth, describe);
    }
    return finish_plain(std::move(out), schema, notes, pointer);
  }

  // The types a schema allows; without `type`, `enum`, `const` or a union,
  // inferred from its keywords as a reader would (`inferred` set).
  std::vector<std::string> plain_types(const json::Value& schema, bool& inferred) const {
    std::vector<std::string> types;
    if (const json::Value* type = schema.find("type")) {
      if (type->is_string()) types.push_back(type->as_string());
      if (type->is_array()) {
        for (const json::Value& t : type->as_array()) {
          if (t.is_string()) types.push_back(t.as_string());
        }
      }
    }
    const bool has_literal = schema.find("enum") || schema.find("const");
    const bool has_union = schema.find("anyOf") || schema.find("oneOf");
    if (!types.empty() || has_literal || has_union) return types;
    inferred = true;
    if (is_object_schema(schema)) types.push_back("object");
    else if (schema.find("items") || schema.find("prefixItems") || schema.find("minItems") || schema.find("maxItems") ||
             schema.find("contains") || schema.find("uniqueItems")) types.push_back("array");
    else if (schema.find("minLength") || schema.find("maxLength") || schema.find("pattern") || schema.find("format"))
      types.push_back("string");
    else if (schema.find("minimum") || schema.find("maximum") || schema.find("exclusiveMinimum") ||
             schema.find("exclusiveMaximum") || schema.find("multipleOf")) types.push_back("number");
    return types;
  }

  // Without a type, the object keywords leave other values valid: with
  // keep_open they get a branch too (arrays but as JSON text).
  json::Value open_object(const json::Value& schema, const std::string& pointer, int depth) {
    json::Value as_object = schema;
    as_object.set("type", "object");
    json::Array branches;
    branches.push_back(lower_plain(as_object, pointer, depth));
    if (t_ == Target::Gemini) {
      for (const char* t : {"STRING", "NUMBER", "BOOLEAN"}) branches.push_back(json::Object{{"type", t}});
    } else {
      branches.push_back(json::Object{{"type", json::Array{json::Value("string"), json::Value("number"),
                                                           json::Value("boolean"), json::Value("null")}}});
    }
    change(pointer, "values other than objects given a branch of their own", "the schema has no type");
    return json::Object{{"anyOf", std::move(branches)}};
  }

  // An object among other types: each type its own branch, the same
  // subschema (same pointer) with one type.
  json::Value type_branches(const json::Value& schema, const std::vector<std::string>& types,
                            const std::string& pointer, int depth) {
    change(pointer, "type " + json::serialize(*schema.find("type")) + " written as anyOf", "each object needs its own schema here");
    json::Array branches;
    for (const std::string& type : types) {
      json::Value branch = schema;
      branch.set("type", type);
      branch.erase("description");
      branches.push_back(lower_plain(branch, pointer, depth));
    }
    json::Value as_union = json::Object{{"anyOf", std::move(branches)}};
    if (const json::Value* d = schema.find("description")) as_union.set("description", *d);
    return as_union;
  }

  // The lowered schema's type: Gemini's one upper-case type (and
  // `nullable`), else the schema's own; an inferred type only for the
  // targets that need one.
  void write_type(json::Value& out, const json::Value& schema, const std::vector<std::string>& types,
                  const std::string& pointer) {
    if (types.empty()) return;
    if (t_ != Target::Gemini) {
      if (schema.find("type")) {
        out.set("type", *schema.find("type"));
      } else if (closed_world()) {
        out.set("type", types.size() == 1 ? json::Value(types[0]) : json::Value());
      }
      return;
    }
    std::vector<std::string> non_null;
    bool nullable = false;
    for (const std::string& t : types) {
      if (t == "null") {
        nullable = true;
      } else {
        non_null.push_back(t);
      }
    }
    if (non_null.size() == 1) {
      out.set("type", gemini_type(non_null[0]));
      if (nullable) out.set("nullable", true);
    } else if (non_null.empty()) {
      out.set("type", "STRING");
      out.set("nullable", true);
      out.set("enum", json::Array{});
      change(pointer, "type null written as a nullable string", "gemini has no null type");
    } else {
      json::Array branches;
      for (const std::string& t : non_null) branches.push_back(json::Object{{"type", gemini_type(t)}});
      out.set("anyOf", std::move(branches));
      if (nullable) out.set("nullable", true);
      change(pointer, "type list written as anyOf", "gemini takes one type per schema");
    }
  }

  // One member of a plain schema into `out`. A value when the whole schema
  // is lowered another way (properties distributed into union branches).
  std::optional<json::Value> lower_member(json::Value& out, const json::Value& schema, const json::Member& m,
                                          const std::vector<std::string>& types, bool object,
                                          const std::string& pointer, int depth, const Describe& describe) {
    const std::string& k = m.key;
    const json::Value& v = m.value;
    if (k == "type" || k == "description" || k == "title" || k == "$ref") return std::nullopt;
    if (k == "properties" || k == "required" || k == "additionalProperties" || k == "patternProperties" ||
        k == "propertyNames" || k == "minProperties" || k == "maxProperties" || k == "unevaluatedProperties") {
      return std::nullopt;  // object(): later
    }
    if (k == "items" || k == "prefixItems" || k == "additionalItems") return std::nullopt;  // array(): later
    if (silent_drop(k)) {
      if (!closed_world() && !k.starts_with("$") && k != "definitions") out.set(k, v);
      return std::nullopt;
    }
    if (k == "enum" || k == "const") {
      literal(out, k, v, pointer, describe);
    } else if (k == "anyOf" || k == "oneOf") {
      if (v.is_array()) return lower_union(out, schema, k, v, types, object, pointer, depth, describe);
    } else if (k == "allOf") {  // vllm and tool keep it
      json::Array branches;
      for (std::size_t i = 0; v.is_array() && i < v.as_array().size(); ++i) {
        std::string at = pointer;
        json::append_pointer(at, k);
        json::append_pointer(at, i);
        branches.push_back(lower(v.as_array()[i], at, depth));
      }
      out.set(k, std::move(branches));
    } else {
      lower_keyword(out, k, v, types, pointer, describe);
    }
    return std::nullopt;
  }

  // `anyOf` or `oneOf` (an array) into `out`; a value when the schema's
  // properties go into each branch instead.
  std::optional<json::Value> lower_union(json::Value& out, const json::Value& schema, const std::string& k,
                                         const json::Value& v, const std::vector<std::string>& types, bool object,
                                         const std::string& pointer, int depth, const Describe& describe) {
    if (closed_world() && object && schema.find("properties") && object_branches(v, sp(pointer)) &&
        !out.find("anyOf")) {
      return distributed_union(schema, k, v, pointer, depth);
    }
    if (closed_world() && !types.empty() && !all_typed(v, pointer)) {
      // Branches that only add to this schema ({"required": ["a"]}):
      // no target takes them as schemas of their own.
      describe(k, v, std::string(target_name(t_)) + " takes only typed " + (k == "oneOf" ? "oneOf" : "anyOf") + " branches");
      return std::nullopt;
    }
    json::Array branches;
    for (std::size_t i = 0; i < v.as_array().size(); ++i) {
      std::string at = sp(pointer);
      json::append_pointer(at, k);
      json::append_pointer(at, i);
      branches.push_back(lower(v.as_array()[i], at, depth));
    }
    if (k == "oneOf" && (closed_world() || t_ == Target::Vllm)) {
      change(pointer, "oneOf sent as anyOf", std::string(target_name(t_)) + " has no oneOf" +
                                                 " (weld still checks that exactly one branch matches)");
    }
    const std::string key = k == "oneOf" && (closed_world() || t_ == Target::Vllm) ? "anyOf" : k;
    if (json::Value* existing = out.find(key); existing && existing->is_array()) {
      for (json::Value& b : branches) existing->push_back(std::move(b));
    } else {
      out.set(key, std::move(branches));
    }
    return std::nullopt;
  }

  // Properties here and objects in the branches: each branch gets this
  // schema's properties too (no target can close an object and let a
  // branch add to it).
  json::Value distributed_union(const json::Value& schema, const std::string& k, const json::Value& v,
                                const std::string& pointer, int depth) {
    json::Value rest = schema;
    rest.erase("anyOf");
    rest.erase("oneOf");
    owned_.push_back(std::make_unique<json::Value>(std::move(rest)));
    const json::Value* common = owned_.back().get();
    json::Array branches;
    for (std::size_t i = 0; i < v.as_array().size(); ++i) {
      std::string at = sp(pointer);
      json::append_pointer(at, k);
      json::append_pointer(at, i);
      std::vector<Part> parts;
      if (!property_pointers_.empty()) {
        // This schema is itself a merge: its parts' pointers hold.
        parts.push_back(Part{common, pointer, property_pointers_.back()});
      } else {
        flatten(*common, pointer, parts, 0);
      }
      flatten(v.as_array()[i], at, parts, 0);
      branches.push_back(lower_parts(parts, at, depth));
    }
    s_.distributed.insert(pointer);
    change(pointer, "properties copied into each branch of " + k, std::string(target_name(t_)) + " closes every object");
    json::Value result = json::Object{{"anyOf", std::move(branches)}};
    if (const json::Value* d = schema.find("description")) result.set("description", *d);
    return result;
  }

  // A keyword of no particular shape: kept, rewritten into what the target
  // has of it, or described.
  void lower_keyword(json::Value& out, const std::string& k, const json::Value& v,
                     const std::vector<std::string>& types, const std::string& pointer, const Describe& describe) {
    if (k == "format") {
      bool keep = t_ == Target::Vllm || t_ == Target::Tool;
      if (v.is_string()) {
        if (t_ == Target::OpenAIStrict) keep = in(kOpenAIFormats, v.as_string());
        if (t_ == Target::Anthropic) keep = in(kAnthropicFormats, v.as_string());
        if (t_ == Target::Gemini) keep = in(kGeminiFormats, v.as_string());
      }
      if (keep) out.set(k, v);
      else describe(k, v, std::string(target_name(t_)) + " has no format " + json::serialize(v));
      return;
    }
    if (k == "pattern") {
      bool keep = true;
      if ((t_ == Target::OpenAIStrict || t_ == Target::Anthropic || t_ == Target::Gemini) && v.is_string() &&
          complex_pattern(v.as_string())) {
        keep = false;
      }
      if (keep) out.set(k, v);
      else describe(k, v, std::string(target_name(t_)) + " has no look-around, back-references or word boundaries");
      return;
    }
    if (keeps(k)) {
      out.set(k, v);
      return;
    }
    if (t_ == Target::Anthropic && k == "minItems" && v.is_number() && v.as_double() >= 1) {
      out.set(k, 1);  // what the target has of it
      if (v.as_double() > 1) describe(k, v, "anthropic allows minItems 0 or 1 only");
      return;
    }
    if (t_ == Target::Gemini && (k == "exclusiveMinimum" || k == "exclusiveMaximum") && v.is_number() &&
        types.size() == 1 && types[0] == "integer" && v.is_integer()) {
      // For integers x > 5 is x >= 6.
      std::int64_t bound = v.as_integer();
      bool min = k == "exclusiveMinimum";
      if ((min && bound < INT64_MAX) || (!min && bound > INT64_MIN)) {
        out.set(min ? "minimum" : "maximum", min ? bound + 1 : bound - 1);
        change(pointer, k + " written as " + (min ? "minimum " : "maximum ") + std::to_string(min ? bound + 1 : bound - 1),
               "gemini has no exclusive bounds");
        return;
      }
    }
    describe(k, v, std::string(target_name(t_)) + " has no " + k);
  }

  // The description (the schema's own, then what was moved into it) and
  // the title; the value as JSON text when nothing the target can check is
  // left (an enum of mixed values for gemini, a schema of only `not`).
  json::Value finish_plain(json::Value out, const json::Value& schema, const std::string& notes,
                           const std::string& pointer) {
    std::string text;
    if (const json::Value* d = schema.find("description"); d && d->is_string()) text = d->as_string();
    if (!notes.empty()) text = text.empty() ? "(" + notes + ")" : text + " (" + notes + ")";
    if (const json::Value* title = schema.find("title"); title && title->is_string()) out.set("title", *title);
    if (!text.empty()) out.set("description", std::move(text));
    if (out.find("type") && out.find("type")->is_null()) out.erase("type");
    if (closed_world() && !out.find("type") && !out.find("anyOf") && !out.find("enum") && !out.find("const") &&
        !out.find("$ref")) {
      change(pointer, "asked for as JSON text", std::string(target_name(t_)) + " cannot express this schema");
      return as_text(pointer, describe_for_text(schema));
    }
    return out;
  }

  // Every branch an object schema with properties (references followed).
  bool object_branches(const json::Value& branches, const std::string& pointer) {
    if (!branches.is_array() || branches.as_array().empty()) return false;
    for (std::size_t i = 0; i < branches.as_array().size(); ++i) {
      const json::Value* b = &branches.as_array()[i];
      if (const json::Value* ref = b->is_object() ? b->find("$ref") : nullptr; ref && ref->is_string()) {
        std::optional<std::string> target = doc_.resolve(pointer + "/anyOf/" + std::to_string(i), ref->as_string());
        b = target ? doc_.at(*target) : nullptr;
      }
      if (!b || !is_object_schema(*b) || !b->find("properties")) return false;
    }
    return true;
  }

  static bool constraining_siblings(const json::Value& schema) {
    for (const json::Member& m : schema.as_object()) {
      if (m.key != "$ref" && !(silent_drop(m.key) || m.key == "title" || m.key == "description" || m.key == "default")) {
        return true;
      }
    }
    return false;
  }

  // Every branch a schema of its own: typed, a reference, or a literal.
  bool all_typed(const json::Value& branches, const std::string& pointer) {
    for (std::size_t i = 0; i < branches.as_array().size(); ++i) {
      const json::Value& b = branches.as_array()[i];
      if (!b.is_object()) return false;
      if (b.find("type") || b.find("enum") || b.find("const") || b.find("anyOf") || b.find("oneOf")) continue;
      if (const json::Value* ref = b.find("$ref"); ref && ref->is_string()) {
        std::optional<std::string> target = doc_.resolve(sp(pointer) + "/anyOf/" + std::to_string(i), ref->as_string());
        const json::Value* t = target ? doc_.at(*target) : nullptr;
        if (t && t->is_object() && (t->find("type") || t->find("enum") || t->find("const") || t->find("anyOf"))) continue;
      }
      if (is_object_schema(b) && b.find("properties")) continue;
      return false;
    }
    return true;
  }

  void literal(json::Value& out, const std::string& k, const json::Value& v, const std::string& pointer,
               const std::function<void(const std::string&, const json::Value&, std::string)>& describe) {
    auto primitive = [](const json::Value& x) { return !x.is_array() && !x.is_object(); };
    if (t_ == Target::Anthropic) {
      bool ok = k == "const" ? primitive(v) : v.is_array() && std::all_of(v.as_array().begin(), v.as_array().end(), primitive);
      if (!ok) return describe(k, v, "anthropic takes enum and const of strings, numbers, booleans and null only");
    }
    if (t_ == Target::Gemini) {
      json::Array values;
      bool strings = true;
      if (k == "const") values.push_back(v);
      else if (v.is_array()) values = v.as_array();
      for (const json::Value& x : values) strings = strings && x.is_string();
      if (!strings || values.empty()) return describe(k, v, "gemini takes enums of strings only");
      out.set("type", "STRING");
      out.set("format", "enum");
      out.set("enum", json::Value(std::move(values)));
      if (k == "const") change(pointer, "const written as a one-value enum", "gemini has no const");
      return;
    }
    out.set(k, v);
  }

  void object(const json::Value& schema, json::Value& out, const std::string& pointer, int depth,
              const std::function<void(const std::string&, const json::Value&, std::string)>& describe) {
    const json::Value* props = schema.find("properties");
    const json::Value* required = schema.find("required");
    const json::Value* additional = schema.find("additionalProperties");
    const json::Value* patterns = schema.find("patternProperties");
    const json::Value* unevaluated = schema.find("unevaluatedProperties");
    const bool has_props = props && props->is_object() && props->size() > 0;
    // Closed: nothing beyond `properties` (patternProperties keys count as
    // beyond: they need the other-properties member).
    const bool closed = !(patterns && patterns->is_object() && patterns->size() > 0) &&
                        ((additional && additional->is_bool() && !additional->as_bool()) ||
                         (unevaluated && unevaluated->is_bool() && !unevaluated->as_bool() && !schema.find("allOf") &&
                          !schema.find("anyOf") && !schema.find("oneOf")));
    const bool typed_extras = (additional && !(additional->is_bool() && additional->as_bool())) || patterns;

    if (!closed_world()) {
      // vllm and tool: everything stays but what the grammar compilers skip.
      std::string at;
      if (props && props->is_object()) {
        json::Value lowered = json::Object{};
        for (const json::Member& p : props->as_object()) {
          at = pointer + "/properties";
          json::append_pointer(at, p.key);
          lowered.set(p.key, lower(p.value, at, depth + 1));
        }
        out.set("properties", std::move(lowered));
      }
      if (required) out.set("required", *required);
      if (additional) out.set("additionalProperties", additional->is_bool() ? *additional : lower(*additional, sp(pointer) + "/additionalProperties", depth + 1));
      for (const char* k : {"patternProperties", "propertyNames", "minProperties", "maxProperties", "unevaluatedProperties"}) {
        const json::Value* v = schema.find(k);
        if (!v) continue;
        if (t_ == Target::Tool || (t_ == Target::Vllm && std::string_view(k) == "patternProperties")) {
          if (std::string_view(k) == "patternProperties" && v->is_object()) {
            json::Value lowered = json::Object{};
            for (const json::Member& p : v->as_object()) {
              at = sp(pointer) + "/patternProperties";
              json::append_pointer(at, p.key);
              lowered.set(p.key, lower(p.value, at, depth + 1));
            }
            out.set(k, std::move(lowered));
          } else {
            out.set(k, *v);
          }
        } else {
          describe(k, *v, std::string(target_name(t_)) + " has no " + k);
        }
      }
      return;
    }

    if (!has_props && (typed_extras || !closed)) {
      // A map (or any object): [{"key","value"}] entries.
      map_entries(schema, out, pointer, depth, describe);
      return;
    }
    // Listed properties.
    json::Value lowered = json::Object{};
    json::Array all_required;
    std::set<std::string> made_nullable;
    std::set<std::string> required_names;
    if (required && required->is_array()) {
      for (const json::Value& r : required->as_array()) {
        if (r.is_string()) required_names.insert(r.as_string());
      }
    }
    const bool merged = !merged_parts_.empty() && !merged_parts_.back().empty();
    std::map<std::string, std::set<std::string>> nullable_by_owner;
    for (const json::Member& p : props->as_object()) {
      std::string at = property_pointer(pointer, p.key);
      if (p.value.is_bool() && !p.value.as_bool()) {
        change(at, "property left out", "it may never be present (false schema)");
        continue;
      }
      json::Value child = lower(p.value, at, depth + 1);
      const bool is_required = required_names.count(p.key) > 0;
      if (t_ == Target::OpenAIStrict && !is_required) {
        child = nullable(std::move(child));
        made_nullable.insert(p.key);
        // Recorded where map.cc meets the property: under the schema (or
        // the allOf part) that lists it.
        nullable_by_owner[merged ? pointer : at.substr(0, at.rfind("/properties/"))].insert(p.key);
        change(at, "optional property made required and nullable", "openai-strict needs every property in required");
      }
      if (t_ == Target::OpenAIStrict || is_required) all_required.push_back(json::Value(p.key));
      lowered.set(p.key, std::move(child));
    }
    // Other properties.
    if (!closed) {
      if (s_.options.keep_open) {
        std::string name = "additional_properties";
        while (props->find(name)) name += "_";
        json::Value entries = json::Object{};
        map_entries(schema, entries, pointer, depth, describe, /*own=*/false);
        entries.set("description", "other properties, as key/value entries");
        if (t_ == Target::OpenAIStrict) {
          all_required.push_back(json::Value(name));
        }
        lowered.set(name, std::move(entries));
        s_.extra_member[pointer] = name;
        change(pointer, "other properties written as entries in " + json::quote(name), "objects are closed in " + std::string(target_name(t_)));
      } else {
        change(pointer, "closed (additionalProperties: false)",
               std::string(target_name(t_)) + " needs closed objects; an answer with only the listed properties "
                                              "is valid here too");
      }
    }
    for (auto& [owner, names] : nullable_by_owner) s_.nullable[owner].insert(names.begin(), names.end());
    if (lowered.size() == 0 && t_ == Target::Gemini) {
      // Gemini refuses an object without properties; the only such object
      // here is {}.
      change(pointer, "asked for as JSON text", "gemini needs at least one property per object");
      out = as_text(pointer, "an empty object, {}");
      return;
    }
    out.set("properties", std::move(lowered));
    if (!all_required.empty() || t_ == Target::OpenAIStrict) out.set("required", json::Value(std::move(all_required)));
    if (t_ == Target::Gemini) {
      json::Array order;
      for (const json::Member& m : out.find("properties")->as_object()) order.push_back(json::Value(m.key));
      out.set("propertyOrdering", std::move(order));
    } else {
      out.set("additionalProperties", false);
    }
    for (const char* k : {"propertyNames", "minProperties", "maxProperties", "unevaluatedProperties"}) {
      if (const json::Value* v = schema.find(k)) {
        if (t_ == Target::Gemini && (std::string_view(k) == "minProperties" || std::string_view(k) == "maxProperties")) {
          out.set(k, *v);
        } else if (std::string_view(k) != "unevaluatedProperties" || !closed) {
          describe(k, *v, std::string(target_name(t_)) + " has no " + k);
        }
      }
    }
    if (patterns && !s_.options.keep_open) {
      describe("patternProperties", *patterns, std::string(target_name(t_)) + " has no patternProperties");
    }
  }

  // `out` becomes an array of {"key","value"} entries for the object's
  // members: the key constrained by propertyNames or the only pattern, the
  // value by the union of what may stand there.
  void map_entries(const json::Value& schema, json::Value& out, const std::string& pointer, int depth,
                   const std::function<void(const std::string&, const json::Value&, std::string)>& describe,
                   bool own = true) {
    const json::Value* additional = schema.find("additionalProperties");
    const json::Value* patterns = schema.find("patternProperties");
    json::Array values;
    json::Value key = json::Object{{"type", t_ == Target::Gemini ? "STRING" : "string"}};
    if (patterns && patterns->is_object()) {
      for (const json::Member& p : patterns->as_object()) {
        std::string at = sp(pointer) + "/patternProperties";
        json::append_pointer(at, p.key);
        values.push_back(lower(p.value, at, depth + 2));
      }
      if (patterns->size() == 1 && !(additional && !(additional->is_bool() && !additional->as_bool())) &&
          !complex_pattern(patterns->as_object()[0].key)) {
        key.set("pattern", json::Value(patterns->as_object()[0].key));
      }
    }
    if (additional && !(additional->is_bool() && !additional->as_bool())) {
      values.push_back(additional->is_bool() ? any_value(sp(pointer) + "/additionalProperties", depth + 2)
                                             : lower(*additional, sp(pointer) + "/additionalProperties", depth + 2));
    } else if (!additional && !patterns) {
      values.push_back(any_value(sp(pointer) + "/additionalProperties", depth + 2));
    }
    if (const json::Value* names = schema.find("propertyNames"); names && names->is_object() && own) {
      json::Value lowered = lower(*names, sp(pointer) + "/propertyNames", depth + 2);
      if (lowered.is_object() && lowered.find("type")) key = std::move(lowered);
    }
    const bool no_member = values.empty();  // nothing may stand beside the listed properties
    if (no_member) values.push_back(json::Object{{"type", t_ == Target::Gemini ? "STRING" : "string"}});
    json::Value value = values.size() == 1 ? std::move(values[0]) : json::Value(json::Object{{"anyOf", std::move(values)}});
    json::Value entry = json::Object{};
    entry.set("type", t_ == Target::Gemini ? "OBJECT" : "object");
    entry.set("properties", json::Object{{"key", std::move(key)}, {"value", std::move(value)}});
    entry.set("required", json::Array{json::Value("key"), json::Value("value")});
    if (t_ == Target::Gemini) {
      entry.set("propertyOrdering", json::Array{json::Value("key"), json::Value("value")});
    } else {
      entry.set("additionalProperties", false);
    }
    out.set("type", t_ == Target::Gemini ? "ARRAY" : "array");
    out.set("items", std::move(entry));
    if (no_member) empty_array(out);
    if (own) {
      s_.entries.insert(pointer);
      change(pointer, "map written as [{\"key\",\"value\"}] entries", std::string(target_name(t_)) + " needs objects with listed properties");
      for (const char* k : {"minProperties", "maxProperties"}) {
        if (const json::Value* v = schema.find(k)) {
          if (t_ == Target::Anthropic) describe(k, *v, "anthropic has no item counts here");
          else out.set(std::string_view(k) == "minProperties" ? "minItems" : "maxItems", *v);
        }
      }
    }
  }

  void array(const json::Value& schema, json::Value& out, const std::string& pointer, int depth,
             const std::function<void(const std::string&, const json::Value&, std::string)>& describe) {
    const json::Value* items = schema.find("items");
    const json::Value* prefix = schema.find("prefixItems");
    const json::Value* rest = items;
    const char* rest_kw = "items";
    const char* prefix_kw = "prefixItems";
    if (items && items->is_array()) {  // draft-07 tuples
      prefix = items;
      prefix_kw = "items";
      rest = schema.find("additionalItems");
      rest_kw = "additionalItems";
    }
    if (prefix && prefix->is_array()) {
      const std::size_t n = prefix->as_array().size();
      const json::Value* max = schema.find("maxItems");
      const bool closed_rest = (rest && rest->is_bool() && !rest->as_bool()) ||
                               (max && max->is_number() && max->as_double() <= static_cast<double>(n));
      if (!closed_world()) {
        json::Array lowered;
        for (std::size_t i = 0; i < n; ++i) {
          std::string at = sp(pointer) + "/" + prefix_kw + "/" + std::to_string(i);
          lowered.push_back(lower(prefix->as_array()[i], at, depth + 1));
        }
        out.set(prefix_kw, std::move(lowered));
        if (rest) out.set(rest_kw, rest->is_bool() ? *rest : lower(*rest, sp(pointer) + "/" + rest_kw, depth + 1));
        return;
      }
      if (!closed_rest) {
        // An open tuple: the target cannot say "these first, then those".
        change(pointer, "asked for as JSON text", std::string(target_name(t_)) + " has no tuples");
        out = as_text(pointer, describe_for_text(schema));
        return;
      }
      // A closed tuple: an object {"0": …, "1": …}.
      const json::Value* min = schema.find("minItems");
      const std::size_t required_count = min && min->is_number() ? static_cast<std::size_t>(min->as_double()) : 0;
      json::Value tuple = json::Object{};
      json::Value props = json::Object{};
      json::Array required;
      std::set<std::string> made_nullable;
      for (std::size_t i = 0; i < n; ++i) {
        std::string at = sp(pointer) + "/" + prefix_kw + "/" + std::to_string(i);
        json::Value child = lower(prefix->as_array()[i], at, depth + 1);
        const std::string name = std::to_string(i);
        if (i >= required_count) {
          if (t_ == Target::OpenAIStrict) {
            child = nullable(std::move(child));
            made_nullable.insert(name);
          }
        }
        if (i < required_count || t_ == Target::OpenAIStrict) required.push_back(json::Value(name));
        props.set(name, std::move(child));
      }
      out = json::Object{};
      out.set("type", t_ == Target::Gemini ? "OBJECT" : "object");
      out.set("properties", std::move(props));
      out.set("required", json::Value(std::move(required)));
      if (t_ == Target::Gemini) {
        json::Array order;
        for (std::size_t i = 0; i < n; ++i) order.push_back(json::Value(std::to_string(i)));
        out.set("propertyOrdering", std::move(order));
      } else {
        out.set("additionalProperties", false);
      }
      s_.tuples.insert(pointer);
      if (!made_nullable.empty()) s_.nullable[pointer] = std::move(made_nullable);
      change(pointer, "tuple written as an object {\"0\": …, \"1\": …}", std::string(target_name(t_)) + " has no prefixItems");
      return;
    }
    if (rest && rest->is_bool() && !rest->as_bool()) {
      out.set("items", json::Object{{"type", t_ == Target::Gemini ? "STRING" : "string"}});
      empty_array(out);  // items: false, as the target can say it
    } else if (rest && !rest->is_array()) {
      out.set("items", rest->is_bool() ? any_value(sp(pointer) + "/items", depth + 1)
                                       : lower(*rest, sp(pointer) + "/items", depth + 1));
    } else if (!rest && closed_world()) {
      out.set("items", any_value(sp(pointer) + "/items", depth + 1));
    }
    (void)describe;
  }

  // allOf, for targets without it: the parts (references followed) merged
  // into one schema before lowering; each property keeps its own pointer,
  // and what is decided for an object is recorded for every part that
  // lists properties, so map.cc finds it walking the parts.
  struct Part {
    const json::Value* schema;
    std::string pointer;
    /// Where its properties live, when not under `pointer` (a merge's).
    std::map<std::string, std::string> property_pointers;
  };

  void flatten(const json::Value& schema, const std::string& pointer, std::vector<Part>& parts, int hops) {
    if (!schema.is_object() || hops > 16) {
      parts.push_back(Part{&schema, pointer, {}});
      return;
    }
    json::Value rest = schema;
    if (const json::Value* ref = schema.find("$ref"); ref && ref->is_string()) {
      if (std::optional<std::string> target = doc_.resolve(pointer, ref->as_string());
          target && std::count(expanding_.begin(), expanding_.end(), *target) == 0) {
        flatten(*doc_.at(*target), *target, parts, hops + 1);
        rest.erase("$ref");
      }
    }
    if (const json::Value* all = schema.find("allOf"); all && all->is_array()) {
      for (std::size_t i = 0; i < all->as_array().size(); ++i) {
        flatten(all->as_array()[i], pointer + "/allOf/" + std::to_string(i), parts, hops + 1);
      }
      rest.erase("allOf");
    }
    bool constrains = false;
    for (const json::Member& m : rest.as_object()) constrains = constrains || !silent_drop(m.key);
    if (constrains) {
      owned_.push_back(std::make_unique<json::Value>(std::move(rest)));
      parts.push_back(Part{owned_.back().get(), pointer, {}});
    }
  }

  json::Value lower_all_of(const json::Value& schema, const json::Value& all, const std::string& pointer, int depth) {
    (void)all;
    std::vector<Part> parts;
    flatten(schema, pointer, parts, 0);
    return lower_parts(parts, pointer, depth);
  }

  // Schemas that all apply, lowered as one at `pointer` (see lower_all_of).
  json::Value lower_parts(const std::vector<Part>& parts, const std::string& pointer, int depth) {
    if (parts.empty()) return any_value(pointer, depth);
    if (parts.size() == 1 && parts[0].schema->is_object()) return lower(*parts[0].schema, parts[0].pointer, depth);
    change(pointer, "allOf merged into one schema", std::string(target_name(t_)) + " has no allOf");
    json::Value merged = json::Object{};
    std::string notes;
    property_pointers_.emplace_back();
    auto& own_pointers = property_pointers_.back();
    std::vector<std::string> object_parts;
    // Properties and required from every part; the other keywords that
    // shape a value (items, unions, additionalProperties, …) from the first
    // part that has any, the rest of them described.
    auto shared = [](const std::string& k) {
      return k == "properties" || k == "required" || k == "type" || k == "description" || k == "title" ||
             silent_drop(k);
    };
    std::string structural;
    for (const Part& part : parts) {
      if (!part.schema->is_object()) continue;
      bool shapes = false;
      for (const json::Member& m : part.schema->as_object()) shapes = shapes || !shared(m.key);
      if (shapes && structural.empty()) structural = part.pointer;
      for (const json::Member& m : part.schema->as_object()) {
        json::Value* existing = merged.find(m.key);
        if (m.key == "properties" && m.value.is_object()) {
          object_parts.push_back(part.pointer);
          if (!existing) existing = &merged.set("properties", json::Object{});
          for (const json::Member& p : m.value.as_object()) {
            if (existing->find(p.key)) continue;  // the first part's wins
            existing->set(p.key, p.value);
            std::string at = part.pointer + "/properties";
            json::append_pointer(at, p.key);
            if (auto it = part.property_pointers.find(p.key); it != part.property_pointers.end()) at = it->second;
            own_pointers[p.key] = at;
          }
        } else if (m.key == "required" && m.value.is_array()) {
          if (!existing) existing = &merged.set("required", json::Array{});
          for (const json::Value& r : m.value.as_array()) {
            if (std::find(existing->as_array().begin(), existing->as_array().end(), r) == existing->as_array().end()) {
              existing->push_back(r);
            }
          }
        } else if (shared(m.key) ? !existing : part.pointer == structural) {
          if (!existing) merged.set(m.key, m.value);
        } else if (!(existing && *existing == m.value) && m.key != "description" && m.key != "title" &&
                   !silent_drop(m.key)) {
          if (!notes.empty()) notes += "; ";
          notes += m.key + ": " + json::serialize(m.value);
        }
      }
    }
    if (!notes.empty()) {
      change(pointer, "conflicting parts of allOf moved into the description", "one schema cannot hold both");
      const json::Value* d = merged.find("description");
      std::string text = d && d->is_string() ? d->as_string() : "";
      merged.set("description", text.empty() ? "(also: " + notes + ")" : text + " (also: " + notes + ")");
    }
    merged_parts_.push_back(object_parts);
    structural_.push_back(structural);
    s_.merged[pointer] = Lowering::State::Merge{own_pointers, structural.empty() ? pointer : structural};
    json::Value out = lower_plain(merged, pointer, depth);
    structural_.pop_back();
    merged_parts_.pop_back();
    property_pointers_.pop_back();
    return out;
  }

  // Where the structural keywords (items, anyOf, additionalProperties, …)
  // of the schema being lowered live in the original: the allOf part that
  // gave them when merged, else `pointer` itself.
  std::string sp(const std::string& pointer) const {
    return !structural_.empty() && !structural_.back().empty() ? structural_.back() : pointer;
  }

  // Where a property of the schema being lowered lives in the original: its
  // allOf part's pointer when merged, else under `pointer`.
  std::string property_pointer(const std::string& pointer, const std::string& name) const {
    if (!property_pointers_.empty()) {
      auto it = property_pointers_.back().find(name);
      if (it != property_pointers_.back().end()) return it->second;
    }
    std::string at = pointer + "/properties";
    json::append_pointer(at, name);
    return at;
  }

  // Merges lowered schemas that all apply. References are followed (to
  // their lowered $defs) so that the parts can be merged.
  json::Value merge_all(std::vector<json::Value> parts, const std::string& pointer) {
    json::Value merged = json::Object{};
    std::string notes;
    for (json::Value& part : parts) {
      json::Value resolved = deref(part);
      if (!resolved.is_object()) continue;
      for (json::Member& m : resolved.as_object()) {
        json::Value* existing = merged.find(m.key);
        if (!existing) {
          merged.set(m.key, std::move(m.value));
        } else if (m.key == "properties" && existing->is_object() && m.value.is_object()) {
          for (json::Member& p : m.value.as_object()) {
            if (!existing->find(p.key)) existing->set(p.key, std::move(p.value));
          }
        } else if (m.key == "required" && existing->is_array() && m.value.is_array()) {
          for (json::Value& r : m.value.as_array()) {
            if (std::find(existing->as_array().begin(), existing->as_array().end(), r) == existing->as_array().end()) {
              existing->push_back(std::move(r));
            }
          }
        } else if (m.key == "description" && existing->is_string() && m.value.is_string()) {
          if (existing->as_string() != m.value.as_string()) existing->as_string() += " " + m.value.as_string();
        } else if (m.key == "additionalProperties" || m.key == "propertyOrdering") {
          // set again below
        } else if (!(*existing == m.value)) {
          if (!notes.empty()) notes += "; ";
          notes += m.key + ": " + json::serialize(m.value);
        }
      }
    }
    if (!notes.empty()) {
      change(pointer, "conflicting parts of allOf moved into the description", "one schema cannot hold both");
      std::string d = merged.find("description") && merged.find("description")->is_string() ? merged.find("description")->as_string() : "";
      merged.set("description", d.empty() ? "(also: " + notes + ")" : d + " (also: " + notes + ")");
    }
    if (merged.find("properties")) {
      if (t_ == Target::OpenAIStrict) {
        json::Array all;
        for (const json::Member& p : merged.find("properties")->as_object()) all.push_back(json::Value(p.key));
        merged.set("required", json::Value(std::move(all)));
      }
      if (t_ == Target::Gemini) {
        json::Array order;
        for (const json::Member& p : merged.find("properties")->as_object()) order.push_back(json::Value(p.key));
        merged.set("propertyOrdering", std::move(order));
      } else if (closed_world()) {
        merged.set("additionalProperties", false);
      }
    }
    return merged;
  }

  json::Value deref(const json::Value& part) {
    if (part.is_object() && part.size() == 1) {
      if (const json::Value* ref = part.find("$ref"); ref && ref->is_string() && ref->as_string().rfind("#/$defs/", 0) == 0) {
        std::vector<std::string> tokens;
        json::split_pointer(ref->as_string().substr(1), tokens);
        if (const json::Value* def = defs_.find(tokens.back()); def && !def->is_null()) return deref(*def);
      }
    }
    return part;
  }

  // References into the root (other than its definitions) once the root
  // sits under /properties/value.
  static void rebase_refs(json::Value& v) {
    if (v.is_array()) {
      for (json::Value& item : v.as_array()) rebase_refs(item);
      return;
    }
    if (!v.is_object()) return;
    for (json::Member& m : v.as_object()) {
      if (m.key == "$ref" && m.value.is_string()) {
        const std::string& ref = m.value.as_string();
        if (ref == "#") {
          m.value = json::Value("#/properties/value");
        } else if (ref.rfind("#/", 0) == 0 && ref.rfind("#/$defs/", 0) != 0 && ref.rfind("#/definitions/", 0) != 0) {
          m.value = json::Value("#/properties/value" + ref.substr(1));
        }
      } else {
        rebase_refs(m.value);
      }
    }
  }

  // An array that must stay empty: maxItems 0 where the target has it, a
  // word in the description where not (anthropic).
  void empty_array(json::Value& out) {
    if (t_ != Target::Anthropic) {
      out.set("maxItems", 0);
      return;
    }
    const json::Value* d = out.find("description");
    std::string text = d && d->is_string() ? d->as_string() + " " : "";
    out.set("description", text + "(always empty)");
  }

  // ---- values the target cannot describe -----------------------------------

  json::Value any_value(const std::string& pointer, int depth, const json::Value* schema = nullptr) {
    (void)depth;
    if (!closed_world()) return schema ? *schema : json::Value(json::Object{});
    change(pointer, "asked for as JSON text", std::string(target_name(t_)) + " has no schema for any value");
    return as_text(pointer, schema ? describe_for_text(*schema) : "");
    // (a schema that constrains without a type, e.g. only `not`, is described whole)
  }

  // A string holding the value's JSON text; map.cc parses it back.
  json::Value as_text(const std::string& pointer, const std::string& what, bool record = true) {
    if (record) s_.text.insert(pointer);
    std::string description = "JSON text of the value";
    if (!what.empty()) description += ": " + what;
    return json::Object{{"type", t_ == Target::Gemini ? "STRING" : "string"}, {"description", description}};
  }

  // What a value asked for as JSON text should be: the schema's own
  // description, and the schema itself when it says more than that.
  static std::string describe_for_text(const json::Value& schema) {
    std::string text;
    const json::Value* d = schema.is_object() ? schema.find("description") : nullptr;
    if (d && d->is_string()) text = d->as_string();
    bool constrains = false;
    if (schema.is_object()) {
      for (const json::Member& m : schema.as_object()) {
        constrains = constrains || !(silent_drop(m.key) || m.key == "title" || m.key == "description" || m.key == "default");
      }
    }
    if (!constrains) return text;
    std::string body = json::serialize(schema);
    if (body.size() > 2000) body = body.substr(0, 2000) + "…";
    return (text.empty() ? "" : text + " ") + "(schema: " + body + ")";
  }

  // The schema or null (OpenAI: an optional property made required).
  json::Value nullable(json::Value schema) {
    if (!schema.is_object()) return schema;
    json::Value* type = schema.find("type");
    const bool simple = !schema.find("$ref") && !schema.find("anyOf") && !schema.find("const");
    if (simple && type && type->is_string()) {
      if (type->as_string() != "null") *type = json::Array{json::Value(type->as_string()), json::Value("null")};
      if (json::Value* values = schema.find("enum"); values && values->is_array()) values->push_back(json::Value());
      return schema;
    }
    if (simple && type && type->is_array()) {
      bool has_null = false;
      for (const json::Value& t : type->as_array()) has_null = has_null || (t.is_string() && t.as_string() == "null");
      if (!has_null) type->push_back(json::Value("null"));
      if (json::Value* values = schema.find("enum"); values && values->is_array()) values->push_back(json::Value());
      return schema;
    }
    if (json::Value* branches = schema.find("anyOf"); branches && branches->is_array() && !schema.find("$ref") &&
                                                      !schema.find("type")) {
      branches->push_back(json::Object{{"type", "null"}});
      return schema;
    }
    json::Array branches;
    branches.push_back(std::move(schema));
    branches.push_back(json::Object{{"type", "null"}});
    return json::Object{{"anyOf", std::move(branches)}};
  }

  // ---- the root ------------------------------------------------------------

  json::Value finish_root(json::Value out) {
    bool needs_object = t_ == Target::OpenAIStrict || t_ == Target::Anthropic;
    if (!needs_object) return out;
    json::Value defs;
    if (json::Value* d = out.find("$defs")) {
      defs = std::move(*d);
      out.erase("$defs");
    }
    // A root that only refers: the definition itself (its $defs entry
    // stays for the references inside it).
    if (out.is_object() && out.size() == 1 && out.find("$ref")) out = deref(out);
    const json::Value* type = out.find("type");
    bool plain_object = out.is_object() && type && type->is_string() && type->as_string() == "object" &&
                        !out.find("anyOf") && !out.find("oneOf");
    if (!plain_object) wrap(out);
    if (!defs.is_null()) out.set("$defs", std::move(defs));
    return out;
  }

  void wrap(json::Value& out) {
    s_.wrapped = true;
    change("", "the root wrapped as {\"value\": …}", std::string(target_name(t_)) + " needs an object at the root");
    json::Value wrapper = json::Object{};
    wrapper.set("type", "object");
    wrapper.set("properties", json::Object{{"value", std::move(out)}});
    wrapper.set("required", json::Array{json::Value("value")});
    wrapper.set("additionalProperties", false);
    out = std::move(wrapper);
  }

 public:
  // The tool target: the schema as it is, but for what a tool's root may
  // not be (OpenAI: "type: object", no anyOf/oneOf/allOf/enum/not at the top
  // level; Anthropic: a root type object).
  json::Value tool_root() {
    json::Value out = s_.original.is_object() ? s_.original : json::Value(json::Object{});
    if (s_.original.is_bool()) {
      change("", "the boolean schema written as an object schema", "a tool's parameters are an object");
      if (!s_.original.as_bool()) out.set("not", json::Object{});
    }
    // A root reference: the definition in its place ($defs stay).
    if (const json::Value* ref = out.find("$ref"); ref && ref->is_string()) {
      if (std::optional<std::string> target = doc_.resolve("", ref->as_string())) {
        if (const json::Value* def = doc_.at(*target); def && def->is_object() && !target->empty()) {
          json::Value inlined = *def;
          for (const json::Member& m : out.as_object()) {
            if (m.key != "$ref" && !inlined.find(m.key)) inlined.set(m.key, m.value);
          }
          out = std::move(inlined);
          change("", "the root $ref replaced by its definition", "a tool's root is an object schema, not a reference");
        }
      }
    }
    const json::Value* type = out.find("type");
    // What OpenAI refuses at the top of a function's parameters: the whole
    // schema goes one level down instead (nothing is lost).
    bool union_root = false;
    for (const char* k : {"anyOf", "oneOf", "allOf", "enum", "const", "not", "if", "then", "else"}) {
      union_root = union_root || out.find(k) != nullptr;
    }
    const bool object_type = type && type->is_string() && type->as_string() == "object";
    if (union_root || (type && !object_type)) {
      // The definitions (and the dialect) stay at the root, where the
      // references ("#/$defs/…") find them; an $id would move their base.
      json::Value defs;
      for (const char* k : {"$schema", "$defs", "definitions"}) {
        if (json::Value* d = out.find(k)) {
          if (defs.is_null()) defs = json::Object{};
          defs.set(k, std::move(*d));
          out.erase(k);
        }
      }
      out.erase("$id");
      rebase_refs(out);
      wrap(out);
      if (!defs.is_null()) {
        for (json::Member& m : defs.as_object()) out.set(m.key, std::move(m.value));
      }
      return out;
    }
    if (!type) {
      json::Object typed{{"type", "object"}};
      for (json::Member& m : out.as_object()) typed.push_back(std::move(m));
      out = json::Value(std::move(typed));
      change("", "type \"object\" added at the root", "a tool's parameters are an object");
    }
    return out;
  }

 private:
  // ---- target rules --------------------------------------------------------

  // Objects must be closed and everything typed: every target but vllm and tool.
  bool closed_world() const { return t_ == Target::OpenAIStrict || t_ == Target::Anthropic || t_ == Target::Gemini; }

  // Keywords a target keeps as they are (the others it does not handle
  // specially are described).
  bool keeps(std::string_view k) const {
    switch (t_) {
      case Target::OpenAIStrict:
        return k == "minItems" || k == "maxItems" || k == "minimum" || k == "maximum" || k == "exclusiveMinimum" ||
               k == "exclusiveMaximum" || k == "multipleOf";
      case Target::Anthropic: return k == "default";
      case Target::Gemini:
        return k == "minItems" || k == "maxItems" || k == "minimum" || k == "maximum" || k == "minLength" ||
               k == "maxLength";
      case Target::Vllm:
        return !(k == "not" || k == "if" || k == "then" || k == "else" || k == "dependentRequired" ||
                 k == "dependentSchemas" || k == "dependencies" || k == "contains" || k == "minContains" ||
                 k == "maxContains" || k == "uniqueItems" || k == "unevaluatedItems" || k == "multipleOf" ||
                 k == "contentSchema" || k == "contentMediaType" || k == "contentEncoding");
      case Target::Tool: return true;
    }
    return false;
  }

  void change(const std::string& pointer, std::string what, std::string why) {
    s_.changes.push_back(Change{pointer, std::move(what), std::move(why)});
  }

  static constexpr int kMaxDepth = 10;
  /// Recursive expansions of one lowering (targets without $ref): past
  /// this, a schema whose references fan out is not unrolled further.
  static constexpr int kMaxExpansions = 200;
  int expansions_ = 0;

  Lowering::State& s_;
  const Document& doc_;
  Target t_;
  json::Value defs_ = json::Object{};
  std::set<std::string> defined_;
  std::vector<std::string> expanding_;
  std::vector<std::string> sites_;  // the $ref sites of expanding_
  std::set<std::string> cut_reported_;
  // allOf merges in progress: property name -> original pointer, and the
  // parts that list properties (object decisions are recorded for each).
  std::vector<std::map<std::string, std::string>> property_pointers_;
  std::vector<std::vector<std::string>> merged_parts_;
  std::vector<std::string> structural_;
  std::vector<std::unique_ptr<json::Value>> owned_;
};

}  // namespace

std::optional<Target> parse_target(std::string_view name) {
  if (name == "openai-strict") return Target::OpenAIStrict;
  if (name == "anthropic") return Target::Anthropic;
  if (name == "gemini") return Target::Gemini;
  if (name == "vllm") return Target::Vllm;
  if (name == "tool") return Target::Tool;
  return std::nullopt;
}

std::string_view target_name(Target target) {
  switch (target) {
    case Target::OpenAIStrict: return "openai-strict";
    case Target::Anthropic: return "anthropic";
    case Target::Gemini: return "gemini";
    case Target::Vllm: return "vllm";
    case Target::Tool: return "tool";
  }
  return "tool";
}

Lowering Lowering::lower(const json::Value& schema, Target target, const LowerOptions& options) {
  auto state = std::make_unique<State>();
  state->target = target;
  state->options = options;
  state->original = schema;
  state->inline_refs = target == Target::Anthropic || target == Target::Gemini;
  CompileOptions compile;
  compile.strict = false;
  compile.assert_formats = false;
  state->compiled.emplace(Schema::compile(schema, compile));
  state->document.emplace(state->original);
  const Dialect dialect = state->compiled->dialect();
  state->legacy_refs = dialect == Dialect::Draft4 || dialect == Dialect::Draft6 || dialect == Dialect::Draft7;
  Lowerer lowerer(*state);
  state->lowered = target == Target::Tool ? lowerer.tool_root() : lowerer.lower_root();
  return Lowering(std::move(state));
}

Lowering::Lowering(std::unique_ptr<State> state) : state_(std::move(state)) {}
Lowering::Lowering(Lowering&&) noexcept = default;
Lowering& Lowering::operator=(Lowering&&) noexcept = default;
Lowering::~Lowering() = default;

const json::Value& Lowering::schema() const { return state_->lowered; }
const std::vector<Change>& Lowering::changes() const { return state_->changes; }
Target Lowering::target() const { return state_->target; }
bool Lowering::maps() const {
  return state_->wrapped || state_->unrolled || !state_->text.empty() || !state_->entries.empty() || !state_->extra_member.empty() ||
         !state_->nullable.empty() || !state_->tuples.empty();
}

json::Value to_json(const Change& change) {
  return json::Object{{"pointer", change.pointer}, {"change", change.change}, {"reason", change.reason}};
}

}  // namespace weld::schema
