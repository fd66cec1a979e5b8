// Violation -> text for people and models (docs/schema.md, "What validates"), Ajv's errorsText
// wording: "<dataVar><instancePath> <message>".
#include "weld/schema/schema.h"

#include "weld/json/pointer.h"
#include "weld/json/serialize.h"

namespace weld::schema {

std::string describe(const Violation& violation, std::string_view data_var) {
  std::string out(data_var);
  out += violation.instance_path;
  out += ' ';
  out += violation.message;
  return out;
}

std::string describe(const std::vector<Violation>& violations, std::string_view data_var) {
  std::string out;
  for (const Violation& v : violations) {
    if (!out.empty()) out += '\n';
    out += describe(v, data_var);
  }
  return out;
}

namespace {

// A value as JSON, cut to kDescribedValueChars (on a UTF-8 boundary).
std::string short_value(const json::Value& value) {
  if (value.is_object()) return value.as_object().empty() ? "{}" : "an object";
  if (value.is_array()) return "an array of " + std::to_string(value.as_array().size());
  std::string text = json::serialize(value);
  if (text.size() <= kDescribedValueChars) return text;
  std::size_t cut = kDescribedValueChars;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "…";
}

std::string value_list(const json::Value& list) {
  if (!list.is_array()) return short_value(list);
  std::string out;
  const auto& items = list.as_array();
  for (std::size_t i = 0; i < items.size() && i < kDescribedListItems; ++i) {
    out += (i ? ", " : "") + short_value(items[i]);
  }
  if (items.size() > kDescribedListItems) out += ", … (" + std::to_string(items.size()) + " in all)";
  return out;
}

// What was allowed, from Ajv's params.
std::string allowed_text(const Violation& v) {
  if (!v.params.is_object()) return {};
  if (const json::Value* values = v.params.find("allowedValues")) return ": " + value_list(*values);
  if (const json::Value* value = v.params.find("allowedValue")) return ": " + short_value(*value);
  if (const json::Value* name = v.params.find("additionalProperty")) return ": " + short_value(*name);
  return {};
}

// One violation's line: at most kDescribedLineBytes (a `pattern` of hundreds
// of characters is cut, on a UTF-8 boundary).
constexpr std::size_t kDescribedLineBytes = 400;
// Room kept at the end of the text for the count of the violations left out.
constexpr std::size_t kDescribedTailBytes = 48;

std::string cut_line(std::string line) {
  if (line.size() <= kDescribedLineBytes) return line;
  std::size_t cut = kDescribedLineBytes - 3;  // "…" is 3 bytes
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;
  line.resize(cut);
  return line + "…";
}

}  // namespace

std::string describe_for_model(const std::vector<Violation>& violations, const json::Value& instance,
                               std::string_view data_var) {
  static_assert(kDescribedLineBytes + kDescribedTailBytes < kDescribedTextBytes, "the first line always fits");
  std::string out;
  std::size_t shown = 0;
  for (; shown < violations.size() && shown < kDescribedViolations; ++shown) {
    const Violation& v = violations[shown];
    std::string line = describe(v, data_var);
    line += allowed_text(v);
    // The value found, where it says something the message does not (a
    // missing property or an extra one is named already).
    const bool about_the_object = v.keyword == "parse" || v.keyword == "required" || v.keyword == "additionalProperties" ||
                                  v.keyword == "dependentRequired" || v.keyword == "dependencies";
    if (!about_the_object) {
      if (const json::Value* found = json::resolve_pointer(instance, v.instance_path)) line += " (got " + short_value(*found) + ")";
    }
    line = cut_line(std::move(line));
    if (!out.empty() && out.size() + 1 + line.size() + kDescribedTailBytes > kDescribedTextBytes) break;
    if (!out.empty()) out += '\n';
    out += line;
  }
  if (shown < violations.size()) {
    out += "\n… and " + std::to_string(violations.size() - shown) + " more violation(s)";
  }
  return out;
}


json::Value to_json(const Violation& violation) {
  return json::Value(json::Object{{"instancePath", violation.instance_path},
                                  {"schemaPath", violation.schema_path},
                                  {"keyword", violation.keyword},
                                  {"params", violation.params},
                                  {"message", violation.message}});
}

}  // namespace weld::schema
