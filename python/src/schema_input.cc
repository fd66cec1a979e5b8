#include "schema_input.h"

#include <string_view>

#include "convert.h"
#include "errors.h"
#include "weld/json/parse.h"
#include "weld/schema/load.h"

namespace weld::python {
namespace {

// The name the messages give the argument ("schema is not valid JSON: …").
constexpr std::string_view kSchema = "schema";

json::Value read_text(std::string_view text) {
  Result<json::Value> document = schema::read_json_argument(text, kSchema);
  if (!document) raise_schema_error(document.error().message, "");
  return std::move(*document);
}

// The UTF-8 text of a str, or the bytes of a bytes-like object; nullopt
// for anything else.
std::optional<std::string> text_of(py::handle object) {
  if (PyUnicode_Check(object.ptr())) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(object.ptr(), &size);
    if (data == nullptr) throw py::error_already_set();
    return std::string(data, static_cast<std::size_t>(size));
  }
  if (PyBytes_Check(object.ptr()) || PyByteArray_Check(object.ptr()) || PyMemoryView_Check(object.ptr())) {
    py::buffer_info buffer = py::reinterpret_borrow<py::buffer>(object).request();
    return std::string(static_cast<const char*>(buffer.ptr), static_cast<std::size_t>(buffer.size * buffer.itemsize));
  }
  return std::nullopt;
}

// pydantic: a model class (2: model_json_schema, 1: schema) or a
// TypeAdapter (json_schema). Duck-typed: pydantic is not a dependency.
py::object pydantic_schema(py::handle schema) {
  if (py::hasattr(schema, "model_json_schema")) return schema.attr("model_json_schema")();
  if (PyType_Check(schema.ptr()) && py::hasattr(schema, "parse_obj") && py::hasattr(schema, "schema")) {
    return schema.attr("schema")();
  }
  if (!PyType_Check(schema.ptr()) && py::hasattr(schema, "json_schema") && py::hasattr(schema, "validate_python")) {
    return schema.attr("json_schema")();
  }
  return py::object();
}

}  // namespace

SchemaSource read_schema(py::handle schema) {
  SchemaSource source;
  if (PyDict_Check(schema.ptr()) || PyBool_Check(schema.ptr())) {
    source.document = to_json(schema, kSchema);
    return source;
  }
  if (std::optional<std::string> text = text_of(schema)) {
    source.document = read_text(*text);
    return source;
  }
  if (py::isinstance(schema, py::module_::import("os").attr("PathLike"))) {
    py::object path = py::module_::import("os").attr("fspath")(schema);
    if (!PyUnicode_Check(path.ptr())) path = path.attr("decode")(py::module_::import("sys").attr("getfilesystemencoding")(), "surrogateescape");
    source.document = read_text("@" + path.cast<std::string>());
    return source;
  }
  if (py::object generated = pydantic_schema(schema)) {
    source.document = to_json(generated, kSchema);
    source.model = py::reinterpret_borrow<py::object>(schema);
    return source;
  }
  throw py::type_error(std::string("schema must be a dict or bool, JSON text (str or bytes), a path, or a pydantic model; got ") +
                       Py_TYPE(schema.ptr())->tp_name);
}

py::object to_model(const py::object& model, py::object value) {
  if (model.is_none()) return value;
  if (py::hasattr(model, "model_validate")) return model.attr("model_validate")(value);
  if (py::hasattr(model, "parse_obj")) return model.attr("parse_obj")(value);
  return model.attr("validate_python")(value);
}

SchemaOptions schema_options(py::handle dialect, py::handle validate_formats, bool strict, py::handle retriever) {
  SchemaOptions options;
  if (!dialect.is_none()) {
    if (!PyUnicode_Check(dialect.ptr())) throw py::type_error("dialect must be a str such as \"2020-12\" or \"draft7\"");
    std::string name = dialect.cast<std::string>();
    std::optional<schema::Dialect> parsed = schema::parse_dialect_name(name);
    if (!parsed) {
      throw py::value_error(
          "dialect must be one of \"draft4\", \"draft6\", \"draft7\", \"2019-09\", \"2020-12\", \"v1\" (got \"" + name +
          "\")");
    }
    options.compile.default_dialect = parsed;
  }
  if (!validate_formats.is_none()) options.compile.assert_formats = py::cast<bool>(validate_formats);
  options.compile.strict = strict;
  if (!retriever.is_none()) {
    if (!PyCallable_Check(retriever.ptr())) throw py::type_error("retriever must be a callable: uri -> dict | str | None");
    py::object call = py::reinterpret_borrow<py::object>(retriever);
    std::shared_ptr<py::object> failure = options.retriever_error;
    options.compile.resolver = [call, failure](std::string_view uri) -> std::optional<json::Value> {
      if (*failure) return std::nullopt;  // it raised already: the compile fails on this URI
      try {
        py::object answer = call(py::str(uri.data(), uri.size()));
        if (answer.is_none()) return std::nullopt;
        if (std::optional<std::string> text = text_of(answer)) {
          Result<json::Value> document = json::parse(*text);
          if (!document) {
            std::string message = "the retriever's text for \"" + std::string(uri) +
                                  "\" is not JSON: " + document.error().message + " at " + document.error().where;
            PyErr_SetString(PyExc_ValueError, message.c_str());
            throw py::error_already_set();
          }
          return std::move(*document);
        }
        return to_json(answer, "the retriever's answer for \"" + std::string(uri) + "\"");
      } catch (py::error_already_set& error) {
        *failure = error.value();
        return std::nullopt;
      }
    };
  }
  return options;
}

schema::Schema compile_schema(const json::Value& document, const SchemaOptions& options) {
  Result<schema::LoadedSchema> loaded = schema::compile_schema_document(document, options.compile, kSchema);
  if (!loaded) raise_schema_error(loaded.error().message, loaded.error().where, *options.retriever_error);
  for (const schema::Warning& warning : loaded->warnings) {
    warn_schema(warning.message + (warning.pointer.empty() ? "" : " at " + warning.pointer));
  }
  return std::move(loaded->schema);
}

}  // namespace weld::python
