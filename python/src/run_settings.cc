#include "run_settings.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "errors.h"
#include "schema_input.h"
#include "validator.h"
#include "weld/agent/mechanism.h"
#include "weld/agent/settings.h"
#include "weld/schema/load.h"

namespace weld::python {
namespace {

// Takes `name` out of `keywords`: None (or absent) is nullopt.
std::optional<py::object> take(py::dict& keywords, const char* name) {
  py::str key(name);
  if (!keywords.contains(key)) return std::nullopt;
  py::object value = keywords[key];
  PyDict_DelItem(keywords.ptr(), key.ptr());
  if (value.is_none()) return std::nullopt;
  return value;
}

std::optional<std::string> take_string(py::dict& keywords, const char* name) {
  std::optional<py::object> value = take(keywords, name);
  if (!value) return std::nullopt;
  if (!PyUnicode_Check(value->ptr())) throw py::type_error(std::string(name) + " must be a str or None");
  return value->cast<std::string>();
}

std::optional<double> take_number(py::dict& keywords, const char* name, double low, double high, bool low_open) {
  std::optional<py::object> value = take(keywords, name);
  if (!value) return std::nullopt;
  if (PyBool_Check(value->ptr()) || !(PyFloat_Check(value->ptr()) || PyLong_Check(value->ptr()))) {
    throw py::type_error(std::string(name) + " must be a number or None");
  }
  double number = value->cast<double>();
  if (!std::isfinite(number) || (low_open ? number <= low : number < low) || number > high) {
    throw py::value_error(std::string(name) + " must be a number " + (low_open ? "greater than " : "from ") +
                          py::str(py::float_(low)).cast<std::string>() + (low_open ? " and at most " : " to ") +
                          py::str(py::float_(high)).cast<std::string>() + " (got " + py::repr(*value).cast<std::string>() +
                          ")");
  }
  return number;
}

std::optional<std::int64_t> take_count(py::dict& keywords, const char* name, std::int64_t low, std::int64_t high) {
  std::optional<py::object> value = take(keywords, name);
  if (!value) return std::nullopt;
  if (PyBool_Check(value->ptr()) || !PyLong_Check(value->ptr())) throw py::type_error(std::string(name) + " must be an int or None");
  long long number = PyLong_AsLongLong(value->ptr());
  if (number == -1 && PyErr_Occurred()) PyErr_Clear();
  if (number < low || number > high) {
    throw py::value_error(std::string(name) + " must be a whole number from " + std::to_string(low) + " to " +
                          std::to_string(high) + " (got " + py::repr(*value).cast<std::string>() + ")");
  }
  return number;
}

bool take_flag(py::dict& keywords, const char* name, bool fallback) {
  std::optional<py::object> value = take(keywords, name);
  if (!value) return fallback;
  if (!PyBool_Check(value->ptr())) throw py::type_error(std::string(name) + " must be True or False");
  return value->ptr() == Py_True;
}

}  // namespace

RunSettings read_run_settings(py::dict keywords) {
  RunSettings settings;
  agent::ModelRequest& request = settings.request;
  request.provider = take_string(keywords, "provider");
  request.model = take_string(keywords, "model");
  request.base_url = take_string(keywords, "base_url");
  request.api_key = take_string(keywords, "api_key");
  request.seed = static_cast<std::uint64_t>(take_count(keywords, "seed", 0, INT64_MAX).value_or(0));
  request.connect_timeout_seconds = take_number(keywords, "connect_timeout", 0, 86400, true);
  request.idle_timeout_seconds = take_number(keywords, "idle_timeout", 0, 86400, true);
  if (auto retries = take_count(keywords, "max_retries", 0, 100)) request.max_retries = static_cast<int>(*retries);
  if (std::optional<py::object> bytes = take(keywords, "max_response_bytes")) {
    // An int of bytes, or the text --max-response-bytes takes ("64M").
    const bool number = PyLong_Check(bytes->ptr()) && !PyBool_Check(bytes->ptr());
    if (!number && !PyUnicode_Check(bytes->ptr())) throw py::type_error("max_response_bytes must be an int, a str or None");
    request.max_response_bytes = provider::parse_byte_size(py::str(*bytes).cast<std::string>());
    if (!request.max_response_bytes) {
      throw py::value_error("max_response_bytes must be a number of bytes from 1024 to 1T (K, M, G allowed: \"64M\") (got " +
                            py::repr(*bytes).cast<std::string>() + ")");
    }
  }

  if (std::optional<std::string> name = take_string(keywords, "mechanism")) {
    settings.mechanism = agent::parse_mechanism(*name);
    if (!settings.mechanism) throw py::value_error("mechanism must be \"tool\", \"native\" or \"auto\" (got \"" + *name + "\")");
  }
  agent::RunOptions& options = settings.options;
  options.system_prompt = take_string(keywords, "system_prompt").value_or("");
  options.max_session_turns = static_cast<int>(take_count(keywords, "max_session_turns", 1, INT32_MAX).value_or(-1));
  options.max_structured_retries = static_cast<int>(take_count(keywords, "max_structured_retries", 0, INT32_MAX).value_or(5));
  options.max_wall_time_seconds = take_number(keywords, "max_wall_time", 0, 1e9, true).value_or(0);
  if (auto tokens = take_count(keywords, "max_tokens", 1, 999999999)) options.max_tokens = *tokens;
  options.sampling.temperature = take_number(keywords, "temperature", 0, 2, false);
  const bool repair = take_flag(keywords, "repair", true);
  const bool clamp = take_flag(keywords, "clamp", false);
  if (!repair && clamp) throw py::value_error("clamp=True cannot be used with repair=False");
  if (!repair) options.repair = {false, false, false};
  options.repair.clamp = clamp;
  settings.strict = take_flag(keywords, "strict", true);
  std::error_code ignored;
  options.cwd = std::filesystem::current_path(ignored).string();
  return settings;
}

void refuse_other_keywords(const py::dict& keywords, const char* function) {
  for (auto item : keywords) {
    throw py::type_error(std::string(function) + "() got an unexpected keyword argument '" +
                         py::str(item.first).cast<std::string>() + "'");
  }
}

void load_run_schema(py::handle given, bool strict, RunSchema& out) {
  if (const Validator* validator = validator_of(given)) {
    out.schema = &validator->schema();
    out.source = validator->schema().source();
    out.model = validator->model();
    return;
  }
  SchemaSource source = read_schema(given);
  // Compiled first, as the weld command does: a schema that is not one says so before what its root accepts.
  out.compiled.emplace(compile_schema(source.document, schema_options(py::none(), py::none(), strict, py::none())));
  if (std::optional<std::string> problem = schema::check_root_accepts_object(source.document, "schema")) {
    raise_schema_error(*problem, "");
  }
  out.schema = &*out.compiled;
  out.source = std::move(source.document);
  out.model = source.model;
}

void set_mechanism(agent::RunOptions& options, agent::Mechanism mechanism, const agent::ModelChoice& choice) {
  // The offline model answers through the structured_output tool only.
  options.mechanism = choice.offline ? agent::Mechanism::Tool : mechanism;
  if (options.mechanism == agent::Mechanism::Auto) {
    if (std::string home = agent::home_directory(); !home.empty()) {
      options.mechanism_cache_path = agent::mechanism_cache_path(home);
      options.mechanism_cache_key = agent::mechanism_cache_key(choice.provider, choice.base_url, choice.model_name);
    }
  }
}

py::list note_list(const std::vector<std::string>& notes) {
  py::list out;
  for (const std::string& note : notes) out.append(py::str(note));
  return out;
}

}  // namespace weld::python
