// Python -> JSON, by writing a json::Tape: one pass over the objects, their
// strings borrowed (a str's UTF-8 is cached in the str), nothing allocated
// per value once the tape's array has grown. The validator reads the tape
// in place (Schema::is_valid(const Tape&)); a json::Value, when one is
// needed (errors, repair), is read from the tape.
//
// The common types are recognised by their exact type first (one pointer
// compare each); subclasses, Decimal and numpy come after. A bad value
// unwinds as BadValue, collecting the JSON Pointer of its place on the way
// out, and becomes one TypeError or ValueError at the top.

#include "convert.h"

#include "projection.h"

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

std::string type_name(PyObject* object) { return Py_TYPE(object)->tp_name; }

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
    if (n > kHead + kTail && i == kHead) {
      pointer += "/…";
      i = n - kTail - 1;
      continue;
    }
    json::append_pointer(pointer, innermost_first[n - 1 - i]);
  }
  return pointer;
}

[[noreturn]] void bad(PyObject* kind, std::string detail) { throw BadValue{kind, std::move(detail), {}}; }

std::string_view utf8_of(PyObject* text) {
  if (PyUnicode_IS_COMPACT_ASCII(text) && static_cast<std::size_t>(PyUnicode_GET_LENGTH(text)) <= json::Tape::kMaxEntries) {
    // Most keys and many values: ASCII, whose bytes are their UTF-8, held
    // in the object itself (no call, no cache to fill).
    return std::string_view(static_cast<const char*>(PyUnicode_DATA(text)),
                            static_cast<std::size_t>(PyUnicode_GET_LENGTH(text)));
  }
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(text, &size);
  if (data == nullptr) {
    PyErr_Clear();
    bad(PyExc_ValueError, "the string is not valid Unicode: it holds a lone surrogate (JSON text is UTF-8)");
  }
  if (static_cast<std::size_t>(size) > json::Tape::kMaxEntries) bad(PyExc_ValueError, "the string is 4 GiB or longer");
  return std::string_view(data, static_cast<std::size_t>(size));
}

// Whether an int certainly fits in 64 bits, read from its size alone (no
// call): at most two 30-bit digits, or CPython 3.12's compact form.
bool small_int(PyObject* number) {
#if PY_VERSION_HEX >= 0x030C0000
  return PyUnstable_Long_IsCompact(reinterpret_cast<PyLongObject*>(number));
#else
  const Py_ssize_t digits = Py_SIZE(number);
  return digits >= -2 && digits <= 2;
#endif
}

// Whether `object` is a str, int, float, bool or None that is JSON as it is
// (an ASCII str, an int of 64 bits, a finite float), read inline.
inline bool plain_scalar(PyObject* object) {
  PyTypeObject* type = Py_TYPE(object);
  if (type == &PyUnicode_Type) return PyUnicode_IS_ASCII(object);
  if (type == &PyLong_Type) return small_int(object);
  if (type == &PyBool_Type || object == Py_None) return true;
  return type == &PyFloat_Type && std::isfinite(PyFloat_AS_DOUBLE(object));
}

class TapeWriter {
 public:
  TapeWriter(json::Tape& tape, Holder& held) : tape_(tape), held_(held) {}

  /// Appends `object` (a member's value when `key` has data). Of a dict,
  /// only the members `read` names are written (nullptr: all of them); the
  /// others are checked.
  void write(PyObject* object, std::string_view key, int depth, const Projection* read = nullptr) {
    PyTypeObject* type = Py_TYPE(object);
    if (type == &PyUnicode_Type) return string_of(object, key);
    if (type == &PyDict_Type) return object_of(object, key, depth, read);
    if (type == &PyLong_Type) return integer_of(object, key);
    if (type == &PyFloat_Type) return real_of(PyFloat_AS_DOUBLE(object), object, key);
    if (object == Py_True || object == Py_False) {
      push(json::Type::Boolean, key).boolean = object == Py_True;
      return;
    }
    if (object == Py_None) {
      push(json::Type::Null, key);
      return;
    }
    if (type == &PyList_Type) return list_of(object, key, depth);
    if (type == &PyTuple_Type) return tuple_of(object, key, depth);
    return other(object, key, depth, read);
  }

  /// Checks that `object`, which the schema never reads, is JSON: the
  /// plainly valid values here, anything else by writing it (the rules are
  /// write's) on a tape of its own.
  void check(PyObject* object, int depth) {
    if (plain_scalar(object)) return;
    PyTypeObject* type = Py_TYPE(object);
    if (type == &PyUnicode_Type) {
      if (!PyUnicode_IS_ASCII(object)) utf8_of(object);  // a lone surrogate
      return;
    }
    if (type == &PyDict_Type) {
      check_depth(depth);
      Py_ssize_t pos = 0;
      PyObject* name = nullptr;
      PyObject* value = nullptr;
      while (PyDict_Next(object, &pos, &name, &value)) {
        if (Py_TYPE(name) != &PyUnicode_Type || !PyUnicode_IS_ASCII(name)) key_of(name);
        if (plain_scalar(value)) continue;  // most values: no call
        try {
          check(value, depth + 1);
        } catch (BadValue& error) {
          error.tokens.emplace_back(key_of(name));
          throw;
        }
      }
      return;
    }
    if (type == &PyLong_Type) {
      if (small_int(object)) return;
      int overflow = 0;
      const long long n = PyLong_AsLongLongAndOverflow(object, &overflow);
      if (overflow == 0 && !(n == -1 && PyErr_Occurred())) return;
      PyErr_Clear();  // beyond 64 bits: written aside, below
    } else if (type == &PyFloat_Type) {
      if (std::isfinite(PyFloat_AS_DOUBLE(object))) return;
    } else if (object == Py_True || object == Py_False || object == Py_None) {
      return;
    } else if (type == &PyList_Type || type == &PyTuple_Type) {
      check_depth(depth);
      const bool list = type == &PyList_Type;
      const Py_ssize_t size = list ? PyList_GET_SIZE(object) : PyTuple_GET_SIZE(object);
      for (Py_ssize_t i = 0; i < size; ++i) {
        try {
          check(list ? PyList_GET_ITEM(object, i) : PyTuple_GET_ITEM(object, i), depth + 1);
        } catch (BadValue& error) {
          error.tokens.push_back(std::to_string(i));
          throw;
        }
      }
      return;
    }
    json::Tape aside;
    TapeWriter(aside, held_).write(object, {}, depth);
  }

 private:
  json::TapeEntry& push(json::Type type, std::string_view key) {
    if (tape_.size() >= json::Tape::kMaxEntries) bad(PyExc_ValueError, "the value has 4 billion parts or more");
    return tape_.push(type).set_key(key);
  }

  static void check_depth(int depth) {
    if (depth >= kMaxDepth) {
      bad(PyExc_ValueError, "nests deeper than " + std::to_string(kMaxDepth) +
                                " levels of lists and dicts (is it a list or dict that contains itself?)");
    }
  }

  void string_of(PyObject* text, std::string_view key) { push(json::Type::String, key).set_text(utf8_of(text)); }

  void integer_of(PyObject* number, std::string_view key) {
    int overflow = 0;
    long long n = PyLong_AsLongLongAndOverflow(number, &overflow);
    if (overflow == 0) {
      if (n == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        bad(PyExc_TypeError, type_name(number) + " could not be read as an integer");
      }
      push(json::Type::Integer, key).integer = static_cast<std::int64_t>(n);
      return;
    }
    // Beyond 64 bits: the decimal digits, kept exactly (the str holding them
    // lives as long as the tape is read), within the double range as
    // json::parse takes them.
    double nearest = PyLong_AsDouble(number);
    if (nearest == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      bad(PyExc_ValueError, "the integer is out of range (JSON numbers are read within the double range, ±1.8e308)");
    }
    PyObject* text = PyNumber_ToBase(number, 10);
    if (text == nullptr) {
      PyErr_Clear();
      bad(PyExc_ValueError,
          "the integer has more digits than Python writes as text (see sys.set_int_max_str_digits)");
    }
    held_.push_back(py::reinterpret_steal<py::object>(text));
    json::TapeEntry& entry = push(json::Type::Real, key);
    entry.real = nearest;
    entry.big_integer = true;
    entry.set_text(utf8_of(text));
  }

  void real_of(double value, PyObject* object, std::string_view key) {
    if (!std::isfinite(value)) {
      bad(PyExc_ValueError, repr_of(object) + " is not a JSON number (JSON numbers are finite: no NaN, no infinity)");
    }
    push(json::Type::Real, key).real = value;
  }

  static std::string_view key_of(PyObject* name) {
    if (!PyUnicode_Check(name)) {
      bad(PyExc_TypeError, "the dict key " + repr_of(name) + " (" + type_name(name) +
                               ") is not a string (JSON object keys are strings)");
    }
    return utf8_of(name);
  }

  // The members `read` names (all of them when it is null or reads all);
  // the others are checked, and not counted: the schema reads neither them
  // nor the count.
  void object_of(PyObject* dict, std::string_view key, int depth, const Projection* read) {
    check_depth(depth);
    if (read != nullptr && read->all) read = nullptr;
    const std::size_t at = tape_.size();
    push(json::Type::Object, key);
    Py_ssize_t pos = 0;
    PyObject* name = nullptr;
    PyObject* value = nullptr;
    std::size_t count = 0;
    while (PyDict_Next(dict, &pos, &name, &value)) {
      std::string_view member = key_of(name);
      try {
        if (read == nullptr) {
          write(value, member, depth + 1);
        } else if (const Projection* below = read->member(member)) {
          write(value, member, depth + 1, below);
        } else {
          check(value, depth + 1);
          continue;
        }
      } catch (BadValue& error) {
        error.tokens.emplace_back(member);
        throw;
      }
      ++count;
    }
    tape_.close(at, count);
  }

  template <typename Size, typename Item>
  void items_of(Size size, Item item, PyObject* sequence, std::string_view key, int depth) {
    check_depth(depth);
    const std::size_t at = tape_.size();
    push(json::Type::Array, key);
    Py_ssize_t i = 0;
    for (; i < size(sequence); ++i) {
      try {
        write(item(sequence, i), {}, depth + 1);
      } catch (BadValue& error) {
        error.tokens.push_back(std::to_string(i));
        throw;
      }
    }
    tape_.close(at, static_cast<std::size_t>(i));
  }

  void list_of(PyObject* list, std::string_view key, int depth) {
    items_of([](PyObject* o) { return PyList_GET_SIZE(o); }, [](PyObject* o, Py_ssize_t i) { return PyList_GET_ITEM(o, i); },
             list, key, depth);
  }

  void tuple_of(PyObject* tuple, std::string_view key, int depth) {
    items_of([](PyObject* o) { return PyTuple_GET_SIZE(o); },
             [](PyObject* o, Py_ssize_t i) { return PyTuple_GET_ITEM(o, i); }, tuple, key, depth);
  }

  // A value converted through a method of its own (numpy's item/tolist);
  // the result is held while the tape is read (it may own strings).
  void through(PyObject* object, const char* method, std::string_view key, int depth) {
    PyObject* result = PyObject_CallMethod(object, method, nullptr);
    if (result == nullptr) {
      PyErr_Clear();
      bad(PyExc_TypeError, type_name(object) + " is not a JSON value (its " + method + "() failed)");
    }
    held_.push_back(py::reinterpret_steal<py::object>(result));
    write(result, key, depth);
  }

  // Subclasses of the JSON types (str and int enums, OrderedDict,
  // namedtuple), decimal.Decimal, numpy; anything else is refused.
  void other(PyObject* object, std::string_view key, int depth, const Projection* read) {
    if (PyUnicode_Check(object)) return string_of(object, key);
    if (PyLong_Check(object)) return integer_of(object, key);
    if (PyFloat_Check(object)) return real_of(PyFloat_AS_DOUBLE(object), object, key);
    if (PyDict_Check(object)) return object_of(object, key, depth, read);
    if (PyList_Check(object)) return list_of(object, key, depth);
    if (PyTuple_Check(object)) return tuple_of(object, key, depth);
    // Held: the method calls below run Python code, which could drop the
    // container's reference to it.
    held_.push_back(py::reinterpret_borrow<py::object>(object));
    const std::string name = type_name(object);
    if (name == "decimal.Decimal") return decimal_of(object, key);
    if (name.rfind("numpy.", 0) == 0) return through(object, name == "numpy.ndarray" ? "tolist" : "item", key, depth);
    if (PyBytes_Check(object) || PyByteArray_Check(object) || PyMemoryView_Check(object)) {
      bad(PyExc_TypeError, name + " is not a JSON value (to validate JSON text, use the *_json methods)");
    }
    bad(PyExc_TypeError, name + " is not a JSON value (JSON has dicts with str keys, lists, str, int, float, "
                                "bool and None)");
  }

  // A Decimal keeps its digits: its text is a JSON number when finite.
  void decimal_of(PyObject* decimal, std::string_view key) {
    PyObject* text = PyObject_Str(decimal);
    if (text == nullptr) {
      PyErr_Clear();
      bad(PyExc_TypeError, "decimal.Decimal could not be written as text");
    }
    held_.push_back(py::reinterpret_steal<py::object>(text));
    std::string_view digits = utf8_of(text);
    Result<json::Value> number = json::parse(digits);
    if (!number || !number->is_number()) {
      bad(PyExc_ValueError, "Decimal('" + std::string(digits) + "') is not a JSON number (JSON numbers are finite)");
    }
    if (number->is_integer()) {
      push(json::Type::Integer, key).integer = number->as_integer();
      return;
    }
    json::TapeEntry& entry = push(json::Type::Real, key);
    entry.real = number->as_real();
    if (number->big_integer_digits() != nullptr) {
      // "12345678901234567890123" as written, or with an exponent: the
      // digits of the parsed value, kept in a str held with the tape.
      const std::string& written = *number->big_integer_digits();
      PyObject* kept = PyUnicode_FromStringAndSize(written.data(), static_cast<Py_ssize_t>(written.size()));
      if (kept == nullptr) throw py::error_already_set();
      held_.push_back(py::reinterpret_steal<py::object>(kept));
      entry.big_integer = true;
      entry.set_text(utf8_of(kept));
    }
  }

  json::Tape& tape_;
  Holder& held_;
};

}  // namespace

void to_tape(py::handle object, std::string_view what, json::Tape& tape, Holder& held, const Projection* read) {
  tape.clear();
  try {
    TapeWriter(tape, held).write(object.ptr(), {}, 0, read);
  } catch (BadValue& error) {
    std::string message(what);
    if (!error.tokens.empty()) message += " at " + place_of(error.tokens);
    message += ": " + error.detail;
    PyErr_SetString(error.kind, message.c_str());
    throw py::error_already_set();
  }
}

json::Value to_json(py::handle object, std::string_view what) {
  json::Tape tape;
  Holder held;
  to_tape(object, what, tape, held);
  return json::read_tape(tape);
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
