// weld._weld.lower and weld.Lowering: a schema lowered for a provider's own
// structured output, and answers mapped back (docs/python.md, "Lowering a
// schema for a provider"), through weld::schema::Lowering, the code
// `weld schema lower` and the run's native mechanism use.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "convert.h"
#include "errors.h"
#include "module_parts.h"
#include "schema_input.h"
#include "validator.h"
#include "weld/schema/lower.h"

namespace weld::python {
namespace {

constexpr const char* kLower = R"(lower(schema, target, *, keep_open=False) -> Lowering

The strongest schema a provider's own structured output accepts, for a
schema it would refuse: what the target cannot say moves into
descriptions, optional properties become required and nullable
(openai-strict), maps become [{"key", "value"}] entries, and a value the
target cannot describe at all is asked for as JSON text. Every change is
listed, and Lowering.map_back turns an answer to the lowered schema into an
instance of the original (then validated against the original).

schema: anything validator_for takes (a dict, JSON text, a path, a pydantic
    model).
target: "openai-strict" (OpenAI's strict: true), "anthropic", "gemini"
    (its OpenAPI 3.0 subset), "vllm" (guided decoding), "tool" (a forced
    tool call's parameters).
keep_open: objects open to other properties keep them in a member of their
    own, instead of being closed as the providers' SDKs close them.

Raises weld.SchemaError when the schema is not valid, ValueError for an
unknown target.)";

constexpr const char* kMapBack = R"(map_back(answer, *, validate=True) -> (value, changes)

An answer to the lowered schema (JSON text, or the parsed value) in the
original's shape: the root unwrapped, the nulls only the lowering allowed
dropped, entries made objects again, JSON text parsed. A value already in
the original's shape is left as it is. With validate, the value is then
validated against the original schema (weld.ValidationError when it does
not hold) and made an instance of the pydantic model the schema came from.
Returns the value and what was changed, each {"pointer", "change",
"reason"} (change: "drop_null", "entries", "json_text", "tuple", "unwrap").)";

constexpr const char* kMapForward = R"(map_forward(instance) -> value

The inverse of map_back: an instance of the original schema (a Python
value: a str is a JSON string, as for Validator.is_valid) in the lowered
shape (what a model answering the lowered schema would write for it).)";

py::dict change_dict(const schema::Change& change) {
  py::dict entry;
  entry["pointer"] = change.pointer;
  entry["change"] = change.change;
  entry["reason"] = change.reason;
  return entry;
}

// An answer: JSON text (str or bytes-like, as the provider sent it) parsed,
// a Python value converted.
json::Value read_answer(py::handle value, std::string_view what) {
  if (PyUnicode_Check(value.ptr()) || PyBytes_Check(value.ptr()) || PyByteArray_Check(value.ptr()) ||
      PyMemoryView_Check(value.ptr())) {
    return parse_text(value, what);
  }
  return to_json(value, what);
}

// weld.Lowering: the lowering, and the original compiled (to validate what
// map_back gives).
class Lowered {
 public:
  Lowered(schema::Lowering lowering, Validator original)
      : lowering_(std::move(lowering)), original_(std::move(original)) {}

  py::object schema() const { return to_python(lowering_.schema()); }
  py::list changes() const {
    py::list list;
    for (const schema::Change& change : lowering_.changes()) list.append(change_dict(change));
    return list;
  }
  std::string target() const { return std::string(schema::target_name(lowering_.target())); }
  bool maps() const { return lowering_.maps(); }
  const py::object& model() const { return original_.model(); }

  py::tuple map_back(py::handle answer, bool validate) const {
    std::vector<schema::Change> done;
    json::Value value = lowering_.map_back(read_answer(answer, "answer"), &done);
    py::list changes;
    for (const schema::Change& change : done) changes.append(change_dict(change));
    py::object result = to_python(value);
    if (validate) {
      original_.validate(result);
      result = to_model(original_.model(), result);
    }
    return py::make_tuple(result, changes);
  }

  py::object map_forward(py::handle instance) const {
    return to_python(lowering_.map_forward(to_json(instance, "instance")));
  }

 private:
  schema::Lowering lowering_;
  Validator original_;
};

std::unique_ptr<Lowered> lower(py::handle schema_argument, const std::string& target_argument, bool keep_open) {
  std::optional<schema::Target> target = schema::parse_target(target_argument);
  if (!target) {
    throw py::value_error("target must be one of \"openai-strict\", \"anthropic\", \"gemini\", \"vllm\", \"tool\"; got \"" +
                          target_argument + "\"");
  }
  SchemaSource source = read_schema(schema_argument);
  // The original, compiled as validator_for compiles it by default: a
  // schema that is not valid is a weld.SchemaError before anything else.
  Validator original(compile_schema(source.document, schema_options(py::none(), py::none(), false, py::none())),
                     source.model, std::nullopt);
  schema::LowerOptions options;
  options.keep_open = keep_open;
  try {
    return std::make_unique<Lowered>(schema::Lowering::lower(source.document, *target, options), std::move(original));
  } catch (const schema::SchemaError& error) {
    raise_schema_error(error.message(), error.pointer());
  }
}

}  // namespace

void add_lower(py::module_& module) {
  py::class_<Lowered>(module, "Lowering",
                      "A schema lowered for a provider (weld.lower): .schema to send, .changes made, and "
                      "map_back / map_forward between answers to it and instances of the original.")
      .def_property_readonly("schema", &Lowered::schema, "The lowered schema, to send to the provider.")
      .def_property_readonly("changes", &Lowered::changes,
                             "What the lowering changed and why, each {\"pointer\", \"change\", \"reason\"} "
                             "(pointer: into the original schema).")
      .def_property_readonly("target", &Lowered::target, "The target's name (\"openai-strict\"…).")
      .def_property_readonly("maps", &Lowered::maps,
                             "True when answers need map_back to become instances of the original.")
      .def_property_readonly("model", &Lowered::model, "The pydantic model the schema came from (None otherwise).")
      .def("map_back", &Lowered::map_back, py::arg("answer"), py::kw_only(), py::arg("validate") = true, kMapBack)
      .def("map_forward", &Lowered::map_forward, py::arg("instance"), kMapForward)
      .def("__repr__", [](const Lowered& lowered) {
        return "<weld.Lowering for " + lowered.target() + ": " + std::to_string(py::len(lowered.changes())) +
               " changes>";
      });
  module.def("lower", &lower, py::arg("schema"), py::arg("target"), py::kw_only(), py::arg("keep_open") = false,
             kLower);
}

}  // namespace weld::python
