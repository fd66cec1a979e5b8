// The validation part of the module: weld.Validator and validator_for.
//
// weld.Validator is a type of the C API, not a pybind11 class: its methods
// are called once per instance, and pybind11's dispatcher (argument
// loaders, a type lookup, a vector per call) cost about 1,400 instructions a
// call, more than validating a small instance. A METH_O method is a plain
// C call through the method descriptor (bench/python, "call cost").

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
dialect: "draft4", "draft6", "draft7", "2019-09", "2020-12" or "v1", for a schema
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

constexpr const char* kValidatorDoc = R"(Validator(schema, *, dialect=None, validate_formats=None, strict=False, retriever=None, mask=None)
--

A compiled JSON Schema: the same as weld.validator_for(schema, ...), whose
help tells the arguments. Immutable: share one between threads.)";

constexpr const char* kIsValid = R"(is_valid($self, instance, /)
--

Whether a Python value (dict, list, str, int, float, bool, None) validates.
The fastest check: it stops at the first failure and builds no error.
Raises TypeError or ValueError when the value is not JSON (a dict key that
is not a str, NaN, nesting deeper than 512 levels).)";

constexpr const char* kValidate = R"(validate($self, instance, /)
--

Raises weld.ValidationError for the first error of a Python value; returns
None when it validates.)";

constexpr const char* kIterErrors = R"(iter_errors($self, instance, /)
--

Every error of a Python value, as weld.ValidationError objects (not
raised); none when it validates.)";

constexpr const char* kEvaluate = R"(evaluate($self, /, instance, output='list')
--

The JSON Schema output format: "flag" gives {"valid": bool}; "list" adds,
when invalid, "errors": [{"keywordLocation", "instanceLocation", "keyword",
"error"}].)";

constexpr const char* kIsValidJson = R"(is_valid_json($self, text, /)
--

is_valid for JSON text (str, bytes, bytearray or memoryview): no Python
objects are built, the fastest way to check text read from a file or a
model. Raises ValueError when the text is not JSON.)";

constexpr const char* kValidateJson = R"(validate_json($self, text, /)
--

validate for JSON text (str, bytes, bytearray or memoryview).)";

constexpr const char* kIterErrorsJson = R"(iter_errors_json($self, text, /)
--

iter_errors for JSON text (str, bytes, bytearray or memoryview).)";

constexpr const char* kEvaluateJson = R"(evaluate_json($self, /, text, output='list')
--

evaluate for JSON text (str, bytes, bytearray or memoryview).)";

struct ValidatorObject {
  PyObject_HEAD
  Validator* validator;
  /// (dialect, validate_formats, strict, mask) as given, for pickling; a
  /// null pointer when a retriever was given (what it answered is gone).
  PyObject* options;
};

PyTypeObject* validator_type = nullptr;

Validator& self_of(PyObject* self) { return *reinterpret_cast<ValidatorObject*>(self)->validator; }

// Runs `body` (which returns a new reference), turning C++ exceptions into
// the Python error they carry.
template <typename Body>
PyObject* guarded(Body&& body) noexcept {
  try {
    return body();
  } catch (py::error_already_set& error) {
    error.restore();
  } catch (const py::builtin_exception& error) {
    error.set_error();
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& error) {
    PyErr_SetString(PyExc_RuntimeError, (std::string("weld: internal error: ") + error.what()).c_str());
  }
  return nullptr;
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

py::object wrap(Validator validator, py::object options) {
  PyObject* object = validator_type->tp_alloc(validator_type, 0);
  if (object == nullptr) throw py::error_already_set();
  reinterpret_cast<ValidatorObject*>(object)->validator = new Validator(std::move(validator));
  reinterpret_cast<ValidatorObject*>(object)->options = options.release().ptr();
  return py::reinterpret_steal<py::object>(object);
}

// The keyword arguments of validator_for and Validator(), parsed.
PyObject* new_validator(PyTypeObject*, PyObject* args, PyObject* kwargs) {
  static const char* names[] = {"schema", "dialect", "validate_formats", "strict", "retriever", "mask", nullptr};
  PyObject* schema = nullptr;
  PyObject* dialect = Py_None;
  PyObject* validate_formats = Py_None;
  int strict = 0;
  PyObject* retriever = Py_None;
  PyObject* mask = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OOpOO:validator_for", const_cast<char**>(names), &schema,
                                   &dialect, &validate_formats, &strict, &retriever, &mask)) {
    return nullptr;
  }
  return guarded([&] {
    py::object options;
    if (retriever == Py_None) {
      options = py::make_tuple(py::handle(dialect), py::handle(validate_formats), py::bool_(strict != 0), py::handle(mask));
    }
    return wrap(make_validator(schema, dialect, validate_formats, strict != 0, retriever, mask), std::move(options))
        .release()
        .ptr();
  });
}

PyObject* validator_for(PyObject*, PyObject* args, PyObject* kwargs) { return new_validator(nullptr, args, kwargs); }

void dealloc(PyObject* self) {
  delete reinterpret_cast<ValidatorObject*>(self)->validator;
  Py_XDECREF(reinterpret_cast<ValidatorObject*>(self)->options);
  PyTypeObject* type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);
}

PyObject* repr(PyObject* self) {
  const Validator& v = self_of(self);
  std::string text = "<weld.Validator " + std::string(schema::dialect_name(v.schema().dialect())) + (v.mask() ? " masked" : "") + ">";
  return PyUnicode_FromStringAndSize(text.data(), static_cast<Py_ssize_t>(text.size()));
}

PyObject* is_valid(PyObject* self, PyObject* instance) {
  return guarded([&] { return PyBool_FromLong(self_of(self).is_valid(instance)); });
}

PyObject* validate(PyObject* self, PyObject* instance) {
  return guarded([&] {
    self_of(self).validate(instance);
    Py_RETURN_NONE;
  });
}

PyObject* iter_errors(PyObject* self, PyObject* instance) {
  return guarded([&] { return py::iter(self_of(self).errors(instance)).release().ptr(); });
}

PyObject* is_valid_json(PyObject* self, PyObject* text) {
  return guarded([&] { return PyBool_FromLong(self_of(self).is_valid_json(text)); });
}

PyObject* validate_json(PyObject* self, PyObject* text) {
  return guarded([&] {
    self_of(self).validate_json(text);
    Py_RETURN_NONE;
  });
}

PyObject* iter_errors_json(PyObject* self, PyObject* text) {
  return guarded([&] { return py::iter(self_of(self).errors_json(text)).release().ptr(); });
}

// evaluate(instance, output="list") and evaluate_json(text, output="list").
template <bool kJson>
PyObject* evaluate(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* names[] = {kJson ? "text" : "instance", "output", nullptr};
  PyObject* instance = nullptr;
  const char* output = "list";
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, kJson ? "O|s:evaluate_json" : "O|s:evaluate",
                                   const_cast<char**>(names), &instance, &output)) {
    return nullptr;
  }
  return guarded([&] {
    const Validator& v = self_of(self);
    return (kJson ? v.evaluate_json(instance, output) : v.evaluate(instance, output)).release().ptr();
  });
}

// Validators pickle (for Dask, Ray, Spark and multiprocessing workers) as
// the recipe that made them: the schema (or its pydantic model) and the
// options; the worker compiles it again.
PyObject* reduce(PyObject* self, PyObject*) {
  return guarded([&] {
    PyObject* options = reinterpret_cast<ValidatorObject*>(self)->options;
    if (options == nullptr) {
      throw py::type_error("a Validator made with a retriever cannot be pickled (what the retriever answered is not "
                           "kept): make the validator where it is used");
    }
    const Validator& v = self_of(self);
    py::object schema = v.model().is_none() ? to_python(v.schema().source()) : v.model();
    // functools.partial(validator_for, dialect=…, …)(schema): pickles by
    // the names of both.
    py::tuple given = py::reinterpret_borrow<py::tuple>(options);
    py::dict keywords;
    keywords["dialect"] = given[0];
    keywords["validate_formats"] = given[1];
    keywords["strict"] = given[2];
    keywords["mask"] = given[3];
    py::object rebuild = py::module_::import("functools").attr("partial")(
        py::module_::import("weld._weld").attr("validator_for"), **keywords);
    return py::make_tuple(rebuild, py::make_tuple(schema)).release().ptr();
  });
}

PyObject* get_dialect(PyObject* self, void*) {
  return guarded([&] { return py::str(std::string(schema::dialect_name(self_of(self).schema().dialect()))).release().ptr(); });
}

PyObject* get_schema(PyObject* self, void*) {
  return guarded([&] { return to_python(self_of(self).schema().source()).release().ptr(); });
}

PyObject* get_model(PyObject* self, void*) { return py::object(self_of(self).model()).release().ptr(); }

PyMethodDef methods[] = {
    {"is_valid", is_valid, METH_O, kIsValid},
    {"validate", validate, METH_O, kValidate},
    {"iter_errors", iter_errors, METH_O, kIterErrors},
    {"evaluate", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(evaluate<false>)),
     METH_VARARGS | METH_KEYWORDS, kEvaluate},
    {"is_valid_json", is_valid_json, METH_O, kIsValidJson},
    {"validate_json", validate_json, METH_O, kValidateJson},
    {"iter_errors_json", iter_errors_json, METH_O, kIterErrorsJson},
    {"evaluate_json", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(evaluate<true>)),
     METH_VARARGS | METH_KEYWORDS, kEvaluateJson},
    {"__reduce__", reduce, METH_NOARGS, "Pickles as the schema and options that made it."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef properties[] = {
    {"dialect", get_dialect, nullptr, "The dialect the schema was compiled as (\"2020-12\", \"draft7\"…).", nullptr},
    {"schema", get_schema, nullptr, "The schema, as JSON (a new dict on each access).", nullptr},
    {"model", get_model, nullptr, "The pydantic model the schema came from, or None.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyMethodDef validator_for_def = {"validator_for", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(validator_for)),
                                 METH_VARARGS | METH_KEYWORDS, kValidatorFor};

}  // namespace

const Validator* validator_of(py::handle object) {
  if (validator_type == nullptr || !PyObject_TypeCheck(object.ptr(), validator_type)) return nullptr;
  return &self_of(object.ptr());
}

void add_validation(py::module_& module) {
  PyType_Slot slots[] = {
      {Py_tp_doc, const_cast<char*>(kValidatorDoc)},
      {Py_tp_new, reinterpret_cast<void*>(new_validator)},
      {Py_tp_dealloc, reinterpret_cast<void*>(dealloc)},
      {Py_tp_repr, reinterpret_cast<void*>(repr)},
      {Py_tp_methods, methods},
      {Py_tp_getset, properties},
      {0, nullptr},
  };
#ifdef Py_TPFLAGS_IMMUTABLETYPE  // Python 3.10 and later
  constexpr unsigned int kFlags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE;
#else
  constexpr unsigned int kFlags = Py_TPFLAGS_DEFAULT;
#endif
  PyType_Spec spec = {"weld.Validator", sizeof(ValidatorObject), 0, kFlags, slots};
  PyObject* type = PyType_FromSpec(&spec);
  if (type == nullptr) throw py::error_already_set();
  validator_type = reinterpret_cast<PyTypeObject*>(type);
  Py_INCREF(type);  // kept for validator_of and wrap as long as the interpreter lives
  module.add_object("Validator", py::reinterpret_steal<py::object>(type));
  PyObject* function = PyCFunction_NewEx(&validator_for_def, nullptr, module.attr("__name__").ptr());
  if (function == nullptr) throw py::error_already_set();
  module.add_object("validator_for", py::reinterpret_steal<py::object>(function));
}

}  // namespace weld::python
