#pragma once
// The Python exception classes of weld._errors, looked up once when the
// module is imported, and the helpers that raise them.

#include <pybind11/pybind11.h>

#include <string>

namespace weld::python {

namespace py = pybind11;

/// weld._errors's classes (strong references, kept for the life of the
/// interpreter: the module is never unloaded).
struct ErrorClasses {
  py::handle validation_error;
  py::handle repair_error;
  py::handle schema_error;
  py::handle schema_warning;
  py::handle run_error_class;  // run_error_class(exit_code) -> class
};

/// Imports weld._errors; called once from the module's init.
void load_error_classes();

/// The classes loaded by load_error_classes().
const ErrorClasses& error_classes();

/// Raises `exception` (an instance of an exception class) and throws
/// py::error_already_set, so that pybind11 hands it to Python.
[[noreturn]] void raise(py::handle exception);

/// Raises weld.SchemaError(message, pointer), chained to `cause` when given.
[[noreturn]] void raise_schema_error(const std::string& message, const std::string& pointer,
                                     py::handle cause = py::handle());

/// Issues a weld.SchemaWarning (which may itself raise, under `-W error`).
void warn_schema(const std::string& message);

}  // namespace weld::python
