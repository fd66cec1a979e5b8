// docs/schema.md, "Reading --json-schema VALUE", step 6: the root schema must accept object values, because tool
// arguments are always objects. The walk looks at the root's keywords
// together; branches of anyOf/oneOf/allOf/not/if recurse.

#include "weld/json/serialize.h"
#include "weld/schema/load.h"

namespace weld::schema {
namespace {

bool type_includes_object(const json::Value& type) {
  if (type.is_string()) return type.as_string() == "object";
  if (type.is_array()) {
    for (const json::Value& name : type.as_array()) {
      if (name.is_string() && name.as_string() == "object") return true;
    }
    return false;
  }
  return true;  // a malformed `type` is the strict compiler's to report
}

// Whether `schema` can accept some object. `$ref` counts as compatible (it
// is not followed); keywords this walk does not know are neutral.
bool admits_object(const json::Value& schema, int depth) {
  if (schema.is_bool()) return schema.as_bool();
  if (!schema.is_object() || depth > 64) return true;
  if (const json::Value* type = schema.find("type"); type && !type_includes_object(*type)) return false;
  if (const json::Value* value = schema.find("const"); value && !value->is_object()) return false;
  if (const json::Value* values = schema.find("enum"); values && values->is_array()) {
    bool any = false;
    for (const json::Value& v : values->as_array()) any = any || v.is_object();
    if (!any) return false;
  }
  for (const char* keyword : {"anyOf", "oneOf"}) {
    const json::Value* branches = schema.find(keyword);
    if (branches == nullptr || !branches->is_array()) continue;
    bool any = false;
    for (const json::Value& branch : branches->as_array()) any = any || admits_object(branch, depth + 1);
    if (!any) return false;
  }
  if (const json::Value* branches = schema.find("allOf"); branches && branches->is_array()) {
    for (const json::Value& branch : branches->as_array()) {
      if (!admits_object(branch, depth + 1)) return false;
    }
  }
  if (const json::Value* negated = schema.find("not")) {
    if (negated->is_bool() && negated->as_bool()) return false;  // not: true rejects everything
    if (negated->is_object()) {
      const json::Object& members = negated->as_object();
      if (members.empty()) return false;  // not: {} rejects everything
      if (members.size() == 1 && members[0].key == "type") {
        const json::Value& type = members[0].value;
        bool names_object = (type.is_string() && type.as_string() == "object") ||
                            (type.is_array() && type_includes_object(type));
        if (names_object) return false;
      }
    }
  }
  if (const json::Value* condition = schema.find("if"); condition && condition->is_bool()) {
    const json::Value* branch = schema.find(condition->as_bool() ? "then" : "else");
    if (branch && !admits_object(*branch, depth + 1)) return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> check_root_accepts_object(const json::Value& schema, std::string_view flag) {
  std::string message = std::string(flag) +
                        " root must accept object-typed values (tool parameters are always JSON objects). At least "
                        "one branch of a root anyOf/oneOf must be satisfiable by an object, and a root `type` (when "
                        "present) must include \"object\".";
  if (const json::Value* ref = schema.find("$ref")) {
    std::string target = ref->is_string() ? json::quote(ref->as_string()) : "\"…\"";
    return message + " A root $ref is not accepted: wrap it as {\"allOf\":[{\"$ref\":" + target +
           "}], \"$defs\":{…}}.";
  }
  if (!admits_object(schema, 0)) return message;
  return std::nullopt;
}

}  // namespace weld::schema
