#pragma once
// Python values <-> weld::json::Value (docs/python.md, "Instances"). The
// validator converts a Python instance once and validates the converted
// value; bench/python measures that against the validation alone.

#include <pybind11/pybind11.h>

#include <string_view>
#include <vector>

#include "weld/json/tape.h"
#include "weld/json/value.h"

namespace weld::python {

namespace py = pybind11;

/// The deepest nesting of lists and dicts converted: json::parse's default
/// limit, so an instance given as a Python object and the same instance
/// given as JSON text are refused alike (and a list that contains itself
/// ends here, not in a stack overflow).
inline constexpr int kMaxDepth = 512;

/// Python objects a Tape borrows strings from besides the value itself (a
/// big integer's digits, numpy's item() results): keep them while the tape
/// is read.
using Holder = std::vector<py::object>;

struct Projection;

/// Writes a Python value into `tape` (cleared first): dict (str keys),
/// list, tuple, str, int (any size in the double range, kept exactly),
/// float (finite), bool, None, decimal.Decimal, numpy scalars and arrays.
/// The tape borrows the strings of `object` and of what lands in `held`.
/// Anything else raises TypeError; a non-finite number, a lone surrogate or
/// nesting deeper than kMaxDepth raise ValueError; the message starts with
/// `what` ("instance", "schema") and names the place as a JSON Pointer.
/// With `read` (projection.h), the members of dicts the schema never reads
/// are checked by the same rules but not written.
void to_tape(py::handle object, std::string_view what, json::Tape& tape, Holder& held,
             const Projection* read = nullptr);

/// The same value as a json::Value (strings copied), with the same errors.
json::Value to_json(py::handle object, std::string_view what);

/// Converts JSON to Python: objects to dicts (member order kept), arrays to
/// lists, integers of any size to int, reals to float.
py::object to_python(const json::Value& value);

}  // namespace weld::python
