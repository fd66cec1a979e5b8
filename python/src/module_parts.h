#pragma once
// The parts of the extension module, one function each, called from
// module.cc in this order.

#include <pybind11/pybind11.h>

namespace weld::python {

/// weld.Validator and weld.validator_for (validation_module.cc).
void add_validation(pybind11::module_& module);

/// weld.repair (repair_module.cc).
void add_repair(pybind11::module_& module);

/// weld.lower and weld.Lowering (lower_module.cc).
void add_lower(pybind11::module_& module);

/// weld.run (run_module.cc).
void add_run(pybind11::module_& module);

/// weld._weld.BatchRun, under weld.batch (batch_module.cc).
void add_batch(pybind11::module_& module);

}  // namespace weld::python
