#pragma once
// weld.Validator: a compiled schema and the checks of an instance against
// it, in jsonschema-rs's shape (docs/python.md, "Validating").

#include <pybind11/pybind11.h>

#include <optional>
#include <string>

#include "projection.h"
#include "weld/json/value.h"
#include "weld/schema/schema.h"

namespace weld::python {

namespace py = pybind11;

/// A compiled schema. Immutable, so one Validator may be used by many
/// threads at once.
class Validator {
 public:
  Validator(schema::Schema schema, py::object model, std::optional<std::string> mask);

  /// The verdict for a Python value.
  bool is_valid(py::handle instance) const;
  /// Raises weld.ValidationError for the first error.
  void validate(py::handle instance) const;
  /// Every error, as weld.ValidationError objects.
  py::list errors(py::handle instance) const;
  /// The output format ("flag" or "list") of the JSON Schema specification.
  py::dict evaluate(py::handle instance, const std::string& output) const;

  /// The same four for JSON text (str or bytes-like).
  bool is_valid_json(py::handle text) const;
  void validate_json(py::handle text) const;
  py::list errors_json(py::handle text) const;
  py::dict evaluate_json(py::handle text, const std::string& output) const;

  const schema::Schema& schema() const { return schema_; }
  /// The pydantic model the schema came from (None otherwise).
  const py::object& model() const { return model_; }
  const std::optional<std::string>& mask() const { return mask_; }

  /// The violations of `result` as weld.ValidationError objects; `original`
  /// is the Python instance when there is one (its parts are handed back
  /// as they are), else None.
  py::list error_objects(const schema::ValidationResult& result, const json::Value& instance,
                         py::handle original) const;

 private:
  /// One ValidationError (see error_objects).
  py::object error_object(const schema::Violation& violation, const json::Value& instance, py::handle original) const;
  py::dict output(const schema::ValidationResult& result, const std::string& output) const;

  schema::Schema schema_;
  /// What of an instance the schema reads: the rest is checked, not written.
  Projection read_;
  py::object model_;
  std::optional<std::string> mask_;
};

/// The Validator of a weld.Validator object; nullptr for any other object
/// (validation_module.cc).
const Validator* validator_of(py::handle object);

/// JSON text given as str, bytes, bytearray or memoryview, parsed; raises
/// ValueError (naming `what`, line and column) when it is not JSON.
json::Value parse_text(py::handle text, std::string_view what);

/// The JSON Pointer `pointer` as a list of keys and indices: a token that
/// addresses an array of `root` becomes an int.
py::list path_list(const std::string& pointer, const json::Value* root);

}  // namespace weld::python
