#include "errors.h"

namespace weld::python {
namespace {

ErrorClasses classes;

}  // namespace

void load_error_classes() {
  py::module_ errors = py::module_::import("weld._errors");
  classes.validation_error = py::object(errors.attr("ValidationError")).release();
  classes.repair_error = py::object(errors.attr("RepairError")).release();
  classes.schema_error = py::object(errors.attr("SchemaError")).release();
  classes.schema_warning = py::object(errors.attr("SchemaWarning")).release();
  classes.run_error_class = py::object(errors.attr("run_error_class")).release();
}

const ErrorClasses& error_classes() { return classes; }

void raise(py::handle exception) {
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exception.ptr())), exception.ptr());
  throw py::error_already_set();
}

void raise_schema_error(const std::string& message, const std::string& pointer, py::handle cause) {
  py::object error = classes.schema_error(message, pointer);
  if (cause) PyException_SetCause(error.ptr(), py::reinterpret_borrow<py::object>(cause).release().ptr());
  raise(error);
}

void warn_schema(const std::string& message) {
  if (PyErr_WarnEx(classes.schema_warning.ptr(), message.c_str(), 2) != 0) throw py::error_already_set();
}

}  // namespace weld::python
