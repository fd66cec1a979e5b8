// Python <-> JSON. The common types are recognised by their exact type
// first (one pointer compare each); subclasses, Decimal and numpy come
// after. A bad value unwinds as BadValue, collecting the JSON Pointer of its
// place on the way out, and becomes one TypeError or ValueError at the top.

#include "convert.h"

#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "weld/json/parse.h"
#include "weld/json/pointer.h"

namespace weld::python {
namespace {

/// A value that is not JSON. `tokens` is the place, innermost first.
struct BadValue {
  PyObject* kind;  // PyExc_TypeError or PyExc_ValueError
  std::string detail;
  std::vector<std::string> tokens;
};

std::string type_name(PyObject* object) {
  PyTypeObject* type = Py_TYPE(object);
  return type->tp_name;
}

// repr(object), for a message ("?" when repr fails).
std::string repr_of(PyObject* object) {
  py::object repr = py::reinterpret_steal<py::object>(PyObject_Repr(object));
  if (!repr) {
    PyErr_Clear();
    return "?";
  }
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(repr.ptr(), &size);
  if (data == nullptr) {
    PyErr_Clear();
    return "?";
  }
  constexpr Py_ssize_t kShown = 60;
  if (size <= kShown) return std::string(data, static_cast<std::size_t>(size));
  Py_ssize_t cut = kShown;
  while (cut > 0 && (static_cast<unsigned char>(data[cut]) & 0xC0) == 0x80) --cut;  // a whole UTF-8 sequence
  return std::string(data, static_cast<std::size_t>(cut)) + "…";
}

// The place as a JSON Pointer, its middle left out when it is very deep.
std::string place_of(const std::vector<std::string>& innermost_first) {
  constexpr std::size_t kHead = 8, kTail = 3;
  const std::size_t n = innermost_first.size();
  std::string pointer;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t depth = i;  // outermost first
    if (n > kHead + kTail && depth == kHead) {
      pointer += "/…";
      i = n - kTail - 1;
      continue;
    }
    json::append_pointer(pointer, innermost_first[n - 1 - depth]);
  }
  return pointer;
}

class Converter {
 public:
  json::Value convert(PyObject* object, int depth) {
    PyTypeObject* type = Py_TYPE(object);
    if (type == &PyUnicode_Type) return string_of(object);
    if (type == &PyDict_Type) return object_of(object, depth);
    if (type == &PyLong_Type) return integer_of(object);
    if (type == &PyFloat_Type) return real_of(PyFloat_AS_DOUBLE(object), object);
    if (object == Py_True) return json::Value(true);
    if (object == Py_False) return json::Value(false);
    if (object == Py_None) return json::Value();
    if (type == &PyList_Type) return list_of(object, depth);
    if (type == &PyTuple_Type) return tuple_of(object, depth);
    return other(object, depth);
  }

 private:
  [[noreturn]] static void bad(PyObject* kind, std::string detail) { throw BadValue{kind, std::move(detail), {}}; }

  static void check_depth(int depth) {
    if (depth >= kMaxDepth) {
      bad(PyExc_ValueError, "nests deeper than " + std::to_string(kMaxDepth) +
                                " levels of lists and dicts (is it a list or dict that contains itself?)");
    }
  }

  static std::string_view utf8_of(PyObject* text) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(text, &size);
    if (data == nullptr) {
      PyErr_Clear();
      bad(PyExc_ValueError, "the string is not valid Unicode: it holds a lone surrogate (JSON text is UTF-8)");
    }
    return std::string_view(data, static_cast<std::size_t>(size));
  }

  static json::Value string_of(PyObject* text) { return json::Value(std::string(utf8_of(text))); }

  static json::Value integer_of(PyObject* number) {
    int overflow = 0;
    long long n = PyLong_AsLongLongAndOverflow(number, &overflow);
    if (overflow == 0) {
      if (n == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        bad(PyExc_TypeError, type_name(number) + " could not be read as an integer");
      }
      return json::Value(static_cast<std::int64_t>(n));
    }
    // Beyond 64 bits: the decimal digits, kept exactly.
    PyObject* text = PyNumber_ToBase(number, 10);
    if (text == nullptr) {
      PyErr_Clear();
      bad(PyExc_ValueError,
          "the integer has more digits than Python writes as text (see sys.set_int_max_str_digits)");
    }
    std::string digits(utf8_of(text));
    Py_DECREF(text);
    return json::Value(json::BigInteger{std::move(digits)});
  }

  static json::Value real_of(double value, PyObject* object) {
    if (!std::isfinite(value)) {
      bad(PyExc_ValueError, repr_of(object) + " is not a JSON number (JSON numbers are finite: no NaN, no infinity)");
    }
    return json::Value(value);
  }

  json::Value object_of(PyObject* dict, int depth) {
    check_depth(depth);
    json::Object members;
    members.reserve(static_cast<std::size_t>(PyDict_GET_SIZE(dict)));
    Py_ssize_t pos = 0;
    PyObject* key = nullptr;
    PyObject* value = nullptr;
    while (PyDict_Next(dict, &pos, &key, &value)) {
      if (!PyUnicode_Check(key)) {
        bad(PyExc_TypeError, "the dict key " + repr_of(key) + " (" + type_name(key) +
                                 ") is not a string (JSON object keys are strings)");
      }
      std::string_view name = utf8_of(key);
      try {
        members.push_back(json::Member{std::string(name), convert(value, depth + 1)});
      } catch (BadValue& error) {
        error.tokens.emplace_back(name);
        throw;
      }
    }
    return json::Value(std::move(members));
  }

  template <typename Item>
  json::Value items_of(Py_ssize_t (*size)(PyObject*), Item item, PyObject* sequence, int depth) {
    check_depth(depth);
    json::Array elements;
    elements.reserve(static_cast<std::size_t>(size(sequence)));
    for (Py_ssize_t i = 0; i < size(sequence); ++i) {
      try {
        elements.push_back(convert(item(sequence, i), depth + 1));
      } catch (BadValue& error) {
        error.tokens.push_back(std::to_string(i));
        throw;
      }
    }
    return json::Value(std::move(elements));
  }

  json::Value list_of(PyObject* list, int depth) {
    return items_of([](PyObject* o) { return PyList_GET_SIZE(o); }, [](PyObject* o, Py_ssize_t i) { return PyList_GET_ITEM(o, i); },
                    list, depth);
  }

  json::Value tuple_of(PyObject* tuple, int depth) {
    return items_of([](PyObject* o) { return PyTuple_GET_SIZE(o); },
                    [](PyObject* o, Py_ssize_t i) { return PyTuple_GET_ITEM(o, i); }, tuple, depth);
  }

  // A value converted through a method of its own (numpy's item/tolist).
  json::Value through(PyObject* object, const char* method, int depth) {
    PyObject* result = PyObject_CallMethod(object, method, nullptr);
    if (result == nullptr) {
      PyErr_Clear();
      bad(PyExc_TypeError, type_name(object) + " is not a JSON value (its " + method + "() failed)");
    }
    try {
      json::Value converted = convert(result, depth);
      Py_DECREF(result);
      return converted;
    } catch (...) {
      Py_DECREF(result);
      throw;
    }
  }

  // Subclasses of the JSON types (str and int enums, OrderedDict,
  // namedtuple), decimal.Decimal, numpy; anything else is refused.
  json::Value other(PyObject* object, int depth) {
    // Held while Python code may run (a method call below), in case that
    // code drops the container's reference.
    py::object hold = py::reinterpret_borrow<py::object>(object);
    if (PyUnicode_Check(object)) return string_of(object);
    if (PyLong_Check(object)) return integer_of(object);
    if (PyFloat_Check(object)) return real_of(PyFloat_AS_DOUBLE(object), object);
    if (PyDict_Check(object)) return object_of(object, depth);
    if (PyList_Check(object)) return list_of(object, depth);
    if (PyTuple_Check(object)) return tuple_of(object, depth);
    const std::string name = type_name(object);
    if (name == "decimal.Decimal") return decimal_of(object);
    if (name.rfind("numpy.", 0) == 0) return through(object, name == "numpy.ndarray" ? "tolist" : "item", depth);
    if (PyBytes_Check(object) || PyByteArray_Check(object) || PyMemoryView_Check(object)) {
      bad(PyExc_TypeError, name + " is not a JSON value (to validate JSON text, use the *_json methods)");
    }
    bad(PyExc_TypeError, name + " is not a JSON value (JSON has dicts with str keys, lists, str, int, float, "
                                "bool and None)");
  }

  // A Decimal keeps its digits: its text is a JSON number when finite.
  static json::Value decimal_of(PyObject* decimal) {
    PyObject* text = PyObject_Str(decimal);
    if (text == nullptr) {
      PyErr_Clear();
      bad(PyExc_TypeError, "decimal.Decimal could not be written as text");
    }
    std::string digits(utf8_of(text));
    Py_DECREF(text);
    Result<json::Value> number = json::parse(digits);
    if (!number || !number->is_number()) {
      bad(PyExc_ValueError, "Decimal('" + digits + "') is not a JSON number (JSON numbers are finite)");
    }
    return std::move(*number);
  }
};

}  // namespace

json::Value to_json(py::handle object, std::string_view what) {
  try {
    return Converter().convert(object.ptr(), 0);
  } catch (BadValue& error) {
    std::string message(what);
    if (!error.tokens.empty()) message += " at " + place_of(error.tokens);
    message += ": " + error.detail;
    PyErr_SetString(error.kind, message.c_str());
    throw py::error_already_set();
  }
}

py::object to_python(const json::Value& value) {
  switch (value.type()) {
    case json::Type::Null: return py::none();
    case json::Type::Boolean: return py::bool_(value.as_bool());
    case json::Type::Integer: return py::reinterpret_steal<py::object>(PyLong_FromLongLong(value.as_integer()));
    case json::Type::Real: {
      if (const std::string* digits = value.big_integer_digits()) {
        PyObject* number = PyLong_FromString(digits->c_str(), nullptr, 10);
        if (number == nullptr) throw py::error_already_set();
        return py::reinterpret_steal<py::object>(number);
      }
      return py::reinterpret_steal<py::object>(PyFloat_FromDouble(value.as_real()));
    }
    case json::Type::String: {
      const std::string& text = value.as_string();
      PyObject* string = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "strict");
      if (string == nullptr) throw py::error_already_set();
      return py::reinterpret_steal<py::object>(string);
    }
    case json::Type::Array: {
      const json::Array& elements = value.as_array();
      py::list list(elements.size());
      for (std::size_t i = 0; i < elements.size(); ++i) {
        PyList_SET_ITEM(list.ptr(), static_cast<Py_ssize_t>(i), to_python(elements[i]).release().ptr());
      }
      return list;
    }
    case json::Type::Object: {
      py::dict dict;
      for (const json::Member& member : value.as_object()) {
        py::object key = py::reinterpret_steal<py::object>(
            PyUnicode_DecodeUTF8(member.key.data(), static_cast<Py_ssize_t>(member.key.size()), "strict"));
        if (!key) throw py::error_already_set();
        if (PyDict_SetItem(dict.ptr(), key.ptr(), to_python(member.value).ptr()) != 0) throw py::error_already_set();
      }
      return dict;
    }
  }
  return py::none();
}

}  // namespace weld::python
