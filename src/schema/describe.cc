// Violation -> text for people and models (docs/schema.md, "What validates"), Ajv's errorsText
// wording: "<dataVar><instancePath> <message>".
#include "weld/schema/schema.h"

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

json::Value to_json(const Violation& violation) {
  return json::Value(json::Object{{"instancePath", violation.instance_path},
                                  {"schemaPath", violation.schema_path},
                                  {"keyword", violation.keyword},
                                  {"params", violation.params},
                                  {"message", violation.message}});
}

}  // namespace weld::schema
