// weld._weld.repair: the repairs of weld's run on one answer
// (docs/python.md, "Repairing model answers"), through
// weld::repair::check_arguments, the code the run and the proxy use.

#include <optional>
#include <string>

#include "convert.h"
#include "errors.h"
#include "module_parts.h"
#include "schema_input.h"
#include "validator.h"
#include "weld/json/serialize.h"
#include "weld/repair/repair.h"

namespace weld::python {
namespace {

constexpr const char* kRepair = R"(repair(answer, schema, *, parse=True, coerce=True, clamp=False) -> (value, repairs)

The repairs weld's run applies to a model's answer before it asks again:
kept only when the repaired value then validates, so a correct answer is
returned untouched.

answer: the answer's text (str or bytes), or a Python value (a dict whose
    "true" should be true…).
schema: a Validator, or anything validator_for takes.
parse: repair the text (a Markdown fence, prose around the JSON, trailing
    commas, single quotes, unquoted keys, Python literals, raw newlines in
    strings).
coerce: align values with the schema ("true" -> true, "3" -> 3, a JSON
    string holding the expected object or array).
clamp: move numbers into minimum/maximum.

Returns the value and the repairs applied, each {"kind", "path", "detail"}.
An empty text is {} (a model's tool call without arguments), not a repair.
Raises weld.RepairError (a weld.ValidationError: the first remaining error,
with .errors for all of them) when no allowed repair makes it valid.)";

py::object repair(py::handle answer, py::handle schema, bool parse, bool coerce, bool clamp) {
  std::optional<Validator> compiled;
  const Validator* validator = validator_of(schema);
  if (validator == nullptr) {
    SchemaSource source = read_schema(schema);
    compiled.emplace(compile_schema(source.document, schema_options(py::none(), py::none(), false, py::none())),
                     source.model, std::nullopt);
    validator = &*compiled;
  }

  std::string text;
  if (PyUnicode_Check(answer.ptr()) || PyBytes_Check(answer.ptr()) || PyByteArray_Check(answer.ptr()) ||
      PyMemoryView_Check(answer.ptr())) {
    if (PyUnicode_Check(answer.ptr())) {
      Py_ssize_t size = 0;
      const char* data = PyUnicode_AsUTF8AndSize(answer.ptr(), &size);
      if (data == nullptr) throw py::error_already_set();
      text.assign(data, static_cast<std::size_t>(size));
    } else {
      py::buffer_info buffer = py::reinterpret_borrow<py::buffer>(answer).request();
      text.assign(static_cast<const char*>(buffer.ptr), static_cast<std::size_t>(buffer.size * buffer.itemsize));
    }
  } else {
    text = json::serialize(to_json(answer, "answer"));
  }

  repair::Options options;
  options.parse = parse;
  options.coerce = coerce;
  options.clamp = clamp;
  repair::Checked checked = repair::check_arguments(text, validator->schema(), options);
  if (!checked.valid) {
    const json::Value& value = checked.parsed ? checked.value : json::Value();
    py::list errors = validator->error_objects(checked.validation, value, py::none());
    py::object first = errors[0];
    py::object error = error_classes().repair_error(
        first.attr("message"), first.attr("instance_path"), first.attr("schema_path"), first.attr("keyword"),
        first.attr("params"), first.attr("instance"), errors, checked.parsed ? to_python(checked.value) : py::none(),
        py::bool_(checked.parsed));
    raise(error);
  }
  py::list repairs;
  for (const repair::Repair& applied : checked.repairs) {
    py::dict entry;
    entry["kind"] = applied.kind;
    entry["path"] = applied.path;
    entry["detail"] = applied.detail;
    repairs.append(entry);
  }
  return py::make_tuple(to_model(validator->model(), to_python(checked.value)), repairs);
}

}  // namespace

void add_repair(py::module_& module) {
  module.def("repair", &repair, py::arg("answer"), py::arg("schema"), py::kw_only(), py::arg("parse") = true,
             py::arg("coerce") = true, py::arg("clamp") = false, kRepair);
}

}  // namespace weld::python
