// The validation part of the module: weld.Validator and validator_for.

#include <optional>
#include <string>

#include "convert.h"
#include "module_parts.h"
#include "schema_input.h"
#include "validator.h"

namespace weld::python {
namespace {

constexpr const char* kValidatorFor = R"(validator_for(schema, *, dialect=None, validate_formats=None, strict=False, retriever=None, mask=None) -> Validator

Compiles a JSON Schema once; the Validator then checks any number of
instances, from any number of threads.

schema: a dict (or True/False); JSON text as str or bytes (the fastest way
    in; "@path" reads a file); a pathlib.Path; or a pydantic model class
    (pydantic 2's model_json_schema(), pydantic 1's schema()) or TypeAdapter.
dialect: "draft4", "draft6", "draft7", "2019-09" or "2020-12", for a schema
    without "$schema" (default: 2020-12, or draft-07 when the schema uses a
    form only draft-07 has).
validate_formats: assert "format" (True, weld's default) or treat it as an
    annotation only (False).
strict: refuse unknown keywords and other likely mistakes, as weld's run
    does (default False: unknown keywords are ignored, as other Python
    validators do).
retriever: a callable uri -> dict | str | None answering "$ref"s to
    documents outside the schema (weld never fetches one itself).
mask: a string shown as the failing instance in errors instead of the
    value (weld's messages never quote the instance).

Raises weld.SchemaError when the schema is not valid; issues
weld.SchemaWarning for its warnings.

>>> v = weld.validator_for({"type": "object", "required": ["id"]})
>>> v.is_valid({"id": 1})
True
>>> [e.message for e in v.iter_errors({})]
["must have required property 'id'"]
)";

constexpr const char* kIsValid = R"(is_valid(instance) -> bool

Whether a Python value (dict, list, str, int, float, bool, None) validates.
The fastest check: it stops at the first failure and builds no error.
Raises TypeError or ValueError when the value is not JSON (a dict key that
is not a str, NaN, nesting deeper than 512 levels).)";

constexpr const char* kValidate = R"(validate(instance) -> None

Raises weld.ValidationError for the first error of a Python value; returns
None when it validates.)";

constexpr const char* kIterErrors = R"(iter_errors(instance) -> Iterator[ValidationError]

Every error of a Python value, as weld.ValidationError objects (not
raised); empty when it validates.)";

constexpr const char* kEvaluate = R"(evaluate(instance, output="list") -> dict

The JSON Schema output format: "flag" gives {"valid": bool}; "list" adds,
when invalid, "errors": [{"keywordLocation", "instanceLocation", "keyword",
"error"}].)";

constexpr const char* kJsonNote = R"(

The same for JSON text (str, bytes, bytearray or memoryview): no Python
objects are built, which makes it the fastest way to check text read from a
file or a model. Raises ValueError when the text is not JSON.)";

std::string json_doc(const char* name, const char* returns) {
  return std::string(name) + "(text) -> " + returns + kJsonNote;
}

std::optional<std::string> mask_of(py::handle mask) {
  if (mask.is_none()) return std::nullopt;
  if (!PyUnicode_Check(mask.ptr())) throw py::type_error("mask must be a str or None");
  return mask.cast<std::string>();
}

Validator make_validator(py::handle schema, py::handle dialect, py::handle validate_formats, bool strict,
                         py::handle retriever, py::handle mask) {
  SchemaOptions options = schema_options(dialect, validate_formats, strict, retriever);
  std::optional<std::string> masked = mask_of(mask);
  SchemaSource source = read_schema(schema);
  return Validator(compile_schema(source.document, options), std::move(source.model), std::move(masked));
}

}  // namespace

void add_validation(py::module_& module) {
  py::class_<Validator>(module, "Validator",
                        "A compiled JSON Schema (see validator_for). Immutable: share one between threads.")
      .def(py::init(&make_validator), py::arg("schema"), py::kw_only(), py::arg("dialect") = py::none(),
           py::arg("validate_formats") = py::none(), py::arg("strict") = false, py::arg("retriever") = py::none(),
           py::arg("mask") = py::none(), "Same as weld.validator_for(schema, ...).")
      .def("is_valid", &Validator::is_valid, py::arg("instance"), kIsValid)
      .def("validate", &Validator::validate, py::arg("instance"), kValidate)
      .def(
          "iter_errors", [](const Validator& v, py::handle instance) { return py::iter(v.errors(instance)); },
          py::arg("instance"), kIterErrors)
      .def("evaluate", &Validator::evaluate, py::arg("instance"), py::arg("output") = "list", kEvaluate)
      .def("is_valid_json", &Validator::is_valid_json, py::arg("text"), json_doc("is_valid_json", "bool").c_str())
      .def("validate_json", &Validator::validate_json, py::arg("text"), json_doc("validate_json", "None").c_str())
      .def(
          "iter_errors_json", [](const Validator& v, py::handle text) { return py::iter(v.errors_json(text)); },
          py::arg("text"), json_doc("iter_errors_json", "Iterator[ValidationError]").c_str())
      .def("evaluate_json", &Validator::evaluate_json, py::arg("text"), py::arg("output") = "list",
           json_doc("evaluate_json", "dict").c_str())
      .def_property_readonly(
          "dialect", [](const Validator& v) { return dialect_name(v.schema().dialect()); },
          "The dialect the schema was compiled as (\"2020-12\", \"draft7\"…).")
      .def_property_readonly(
          "schema", [](const Validator& v) { return to_python(v.schema().source()); },
          "The schema, as JSON (a new dict on each access).")
      .def_property_readonly(
          "model", [](const Validator& v) { return v.model(); },
          "The pydantic model the schema came from, or None.")
      .def("__repr__", [](const Validator& v) {
        return "<weld.Validator " + dialect_name(v.schema().dialect()) + (v.mask() ? " masked" : "") + ">";
      });

  module.def("validator_for", &make_validator, py::arg("schema"), py::kw_only(), py::arg("dialect") = py::none(),
             py::arg("validate_formats") = py::none(), py::arg("strict") = false, py::arg("retriever") = py::none(),
             py::arg("mask") = py::none(), kValidatorFor);
}

}  // namespace weld::python
