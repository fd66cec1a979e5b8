#pragma once
// The `schema` argument of every function of the module (docs/python.md,
// "Schemas"): a dict or bool, JSON text, a file, or a pydantic model.

#include <pybind11/pybind11.h>

#include <optional>
#include <string>

#include "weld/json/value.h"
#include "weld/schema/schema.h"

namespace weld::python {

namespace py = pybind11;

/// A schema argument, read.
struct SchemaSource {
  /// The schema's JSON.
  json::Value document;
  /// The pydantic model class (or TypeAdapter) it came from; None otherwise.
  py::object model = py::none();
};

/// Reads `schema`: a dict or bool (converted), JSON text as str or bytes
/// ("@path" reads a file, as `--json-schema` does), an os.PathLike (the
/// file's JSON), or a pydantic model class (pydantic 2's
/// `model_json_schema()`, pydantic 1's `schema()`) or pydantic 2
/// TypeAdapter (`json_schema()`). Raises weld.SchemaError when the text or
/// file is not JSON, TypeError for anything else.
SchemaSource read_schema(py::handle schema);

/// `value` as an instance of the pydantic `model` a schema came from
/// (pydantic 2's model_validate, pydantic 1's parse_obj, a TypeAdapter's
/// validate_python); `value` itself when `model` is None.
py::object to_model(const py::object& model, py::object value);

/// The options every schema compile of the module shares.
struct SchemaOptions {
  schema::CompileOptions compile;
  /// The exception the retriever raised, if it did (chained to the
  /// SchemaError of the compile).
  std::shared_ptr<py::object> retriever_error = std::make_shared<py::object>();
};

/// Builds compile options from the keyword arguments of validator_for:
/// `dialect` (None or a name: "draft4", "draft6", "draft7", "2019-09",
/// "2020-12"), `validate_formats` (None: weld's default, asserted),
/// `strict`, and `retriever` (None, or a callable uri -> dict | str | None
/// answering `$ref`s outside the schema).
SchemaOptions schema_options(py::handle dialect, py::handle validate_formats, bool strict, py::handle retriever);

/// Compiles `document`, issuing its warnings as weld.SchemaWarning.
/// Raises weld.SchemaError (chained to the retriever's exception, if it
/// raised one) when it does not compile.
schema::Schema compile_schema(const json::Value& document, const SchemaOptions& options);

}  // namespace weld::python
