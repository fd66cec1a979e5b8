#include "validator.h"

#include <charconv>
#include <memory>
#include <string_view>
#include <vector>

#include "convert.h"
#include "errors.h"
#include "weld/json/parse.h"
#include "weld/json/pointer.h"

namespace weld::python {
namespace {

constexpr std::string_view kInstance = "instance";

/// JSON text at least this long is parsed with the GIL released, so other
/// Python threads run meanwhile (shorter texts parse faster than the
/// release and re-acquire cost).
constexpr std::size_t kReleaseGilBytes = 64 * 1024;

/// The module's spare Tape, reused: once its array has grown to the
/// instances' size, is_valid allocates nothing. Taken and given back under
/// the GIL, which every caller holds (cheaper than a thread_local in a
/// shared object); a call that finds it taken (another thread's, while a
/// conversion ran Python code) uses a tape of its own. A tape grown past
/// kKeepEntries by a large instance is let go after it.
class Scratch {
 public:
  static constexpr std::size_t kKeepEntries = 1 << 16;  // 2.5 MiB of entries

  Scratch() : tape_(spare_ ? std::move(spare_) : std::make_unique<json::Tape>()) {}
  ~Scratch() {
    held_.clear();
    if (!spare_ && tape_->size() <= kKeepEntries) spare_ = std::move(tape_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  /// Writes what `read` reads of `instance` into the tape.
  const json::Tape& write(py::handle instance, const Projection& read) {
    to_tape(instance, kInstance, *tape_, held_, &read);
    return *tape_;
  }

 private:
  static std::unique_ptr<json::Tape> spare_;
  std::unique_ptr<json::Tape> tape_;
  Holder held_;
};

std::unique_ptr<json::Tape> Scratch::spare_;

// The first error only: what validate() raises.
schema::ValidationResult first_error(const schema::Schema& schema, const json::Value& instance) {
  if (schema.is_valid(instance)) return {};  // the fast path decides most instances
  return schema.validate(instance, schema::Collect::First);
}

}  // namespace

json::Value parse_text(py::handle text, std::string_view what) {
  std::string_view view;
  bool immutable = true;
  py::buffer_info buffer;
  if (PyUnicode_Check(text.ptr())) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
    if (data == nullptr) throw py::error_already_set();
    view = std::string_view(data, static_cast<std::size_t>(size));
  } else if (PyBytes_Check(text.ptr())) {
    view = std::string_view(PyBytes_AS_STRING(text.ptr()), static_cast<std::size_t>(PyBytes_GET_SIZE(text.ptr())));
  } else if (PyByteArray_Check(text.ptr()) || PyMemoryView_Check(text.ptr())) {
    buffer = py::reinterpret_borrow<py::buffer>(text).request();
    view = std::string_view(static_cast<const char*>(buffer.ptr), static_cast<std::size_t>(buffer.size * buffer.itemsize));
    immutable = false;  // another thread could resize it
  } else {
    throw py::type_error(std::string(what) + " text must be str, bytes, bytearray or memoryview; got " +
                         Py_TYPE(text.ptr())->tp_name);
  }
  Result<json::Value> parsed = json::Value();
  if (immutable && view.size() >= kReleaseGilBytes) {
    py::gil_scoped_release release;
    parsed = json::parse(view);
  } else {
    parsed = json::parse(view);
  }
  if (!parsed) {
    const Error& error = parsed.error();
    std::string message = std::string(what) + " is not valid JSON: " + error.message +
                          (error.where.empty() ? "" : " at " + error.where);
    PyErr_SetString(PyExc_ValueError, message.c_str());
    throw py::error_already_set();
  }
  return std::move(*parsed);
}

py::list path_list(const std::string& pointer, const json::Value* root) {
  py::list out;
  std::vector<std::string> tokens;
  if (!json::split_pointer(pointer, tokens)) {
    out.append(py::str(pointer));
    return out;
  }
  const json::Value* at = root;
  for (const std::string& token : tokens) {
    std::size_t index = 0;
    auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), index);
    if (at != nullptr && at->is_array() && error == std::errc() && end == token.data() + token.size()) {
      out.append(py::int_(index));
      at = index < at->as_array().size() ? &at->as_array()[index] : nullptr;
    } else {
      out.append(py::str(token));
      at = at != nullptr ? at->find(token) : nullptr;
    }
  }
  return out;
}

Validator::Validator(schema::Schema schema, py::object model, std::optional<std::string> mask)
    : schema_(std::move(schema)), read_(projection_of(schema_)), model_(std::move(model)), mask_(std::move(mask)) {}

bool Validator::is_valid(py::handle instance) const {
  Scratch scratch;
  return schema_.is_valid(scratch.write(instance, read_));
}

// The other three read the tape for the verdict and convert the instance
// only when there are errors to report.

void Validator::validate(py::handle instance) const {
  {
    Scratch scratch;
    if (schema_.is_valid(scratch.write(instance, read_))) return;
  }
  json::Value value = to_json(instance, kInstance);
  schema::ValidationResult result = schema_.validate(value, schema::Collect::First);
  if (!result.valid) raise(error_object(result.violations.front(), value, instance));
}

py::list Validator::errors(py::handle instance) const {
  {
    Scratch scratch;
    if (schema_.is_valid(scratch.write(instance, read_))) return py::list();
  }
  json::Value value = to_json(instance, kInstance);
  return error_objects(schema_.validate(value, schema::Collect::All), value, instance);
}

py::dict Validator::evaluate(py::handle instance, const std::string& format) const {
  bool valid = false;
  {
    Scratch scratch;
    valid = schema_.is_valid(scratch.write(instance, read_));
  }
  if (valid || format == "flag") return output(schema::ValidationResult{valid, {}}, format);
  json::Value value = to_json(instance, kInstance);
  return output(schema_.validate(value, schema::Collect::All), format);
}

bool Validator::is_valid_json(py::handle text) const { return schema_.is_valid(parse_text(text, kInstance)); }

void Validator::validate_json(py::handle text) const {
  json::Value value = parse_text(text, kInstance);
  schema::ValidationResult result = first_error(schema_, value);
  if (!result.valid) raise(error_object(result.violations.front(), value, py::none()));
}

py::list Validator::errors_json(py::handle text) const {
  json::Value value = parse_text(text, kInstance);
  if (schema_.is_valid(value)) return py::list();
  return error_objects(schema_.validate(value, schema::Collect::All), value, py::none());
}

py::dict Validator::evaluate_json(py::handle text, const std::string& format) const {
  json::Value value = parse_text(text, kInstance);
  if (format == "flag") return output(schema::ValidationResult{schema_.is_valid(value), {}}, format);
  return output(schema_.validate(value, schema::Collect::All), format);
}

py::object Validator::error_object(const schema::Violation& violation, const json::Value& instance,
                                   py::handle original) const {
  py::list instance_path = path_list(violation.instance_path, &instance);
  // Ajv's schema path: "#/properties/a/type", a place in the schema
  // document (after $ref); a path into another resource keeps its URI.
  std::string_view schema_pointer = violation.schema_path;
  const json::Value* schema_root = nullptr;
  if (!schema_pointer.empty() && schema_pointer.front() == '#') {
    schema_pointer.remove_prefix(1);
    schema_root = &schema_.source();
  }
  py::list schema_path = path_list(std::string(schema_pointer), schema_root);

  py::object failing;
  if (mask_) {
    failing = py::str(*mask_);
  } else {
    // The instance's own object when it came from Python, else a copy.
    if (!original.is_none()) {
      py::object at = py::reinterpret_borrow<py::object>(original);
      for (py::handle token : instance_path) {
        PyObject* item = PyObject_GetItem(at.ptr(), token.ptr());
        if (item == nullptr) {
          PyErr_Clear();
          at = py::object();
          break;
        }
        at = py::reinterpret_steal<py::object>(item);
      }
      failing = at;
    }
    if (!failing) {
      const json::Value* part = json::resolve_pointer(instance, violation.instance_path);
      failing = part != nullptr ? to_python(*part) : py::none();
    }
  }
  return error_classes().validation_error(violation.message, instance_path, schema_path, violation.keyword,
                                          to_python(violation.params), failing);
}

py::list Validator::error_objects(const schema::ValidationResult& result, const json::Value& instance,
                                  py::handle original) const {
  py::list out;
  for (const schema::Violation& violation : result.violations) out.append(error_object(violation, instance, original));
  return out;
}

py::dict Validator::output(const schema::ValidationResult& result, const std::string& format) const {
  py::dict out;
  out["valid"] = py::bool_(result.valid);
  if (format == "flag") return out;
  if (format != "list") throw py::value_error("output must be \"flag\" or \"list\" (got \"" + format + "\")");
  if (result.valid) return out;
  py::list errors;
  for (const schema::Violation& violation : result.violations) {
    py::dict entry;
    std::string_view keyword_location = violation.schema_path;
    if (!keyword_location.empty() && keyword_location.front() == '#') keyword_location.remove_prefix(1);
    entry["keywordLocation"] = py::str(keyword_location.data(), keyword_location.size());
    entry["instanceLocation"] = py::str(violation.instance_path);
    entry["keyword"] = py::str(violation.keyword);
    entry["error"] = py::str(violation.message);
    errors.append(entry);
  }
  out["errors"] = errors;
  return out;
}

}  // namespace weld::python
