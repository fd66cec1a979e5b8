// weld._weld: the extension module under `import weld` (docs/python.md).
// Each part registers its own functions; weld/__init__.py re-exports them
// with the exception classes and the pydantic glue.

#include <pybind11/pybind11.h>

#include "errors.h"
#include "module_parts.h"

namespace py = pybind11;

PYBIND11_MODULE(_weld, module) {
  module.doc() = "weld's C++ library for Python: validation, repair, lowering, the run and the batch (docs/python.md).";
  module.attr("__version__") = WELD_VERSION;
  weld::python::load_error_classes();
  weld::python::add_validation(module);
  weld::python::add_repair(module);
  weld::python::add_lower(module);
  weld::python::add_run(module);
  weld::python::add_batch(module);
}
