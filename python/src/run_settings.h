#pragma once
// What weld.run and weld.batch share (docs/python.md, "Running a model"):
// the keywords about the model and the run's limits, the schema loaded by
// the run's rules, and the wait for a C++ thread with the GIL released.

#include <pybind11/pybind11.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "offline_model.h"  // src/sample (target weld_offline): offline_model_factory
#include "weld/agent/model_choice.h"
#include "weld/agent/run_loop.h"
#include "weld/json/value.h"
#include "weld/provider/config.h"
#include "weld/schema/schema.h"

namespace weld::python {

namespace py = pybind11;

/// The keywords of weld.run that weld.batch takes too.
struct RunSettings {
  agent::ModelRequest request;
  std::optional<agent::Mechanism> mechanism;
  /// The limits, repairs, sampling and system prompt of each run.
  agent::RunOptions options;
  /// Compile the schema with the strict rules (unknown keywords refused).
  bool strict = true;
};

/// Reads and removes from `keywords` those RunSettings has (provider,
/// model, base_url, api_key, seed, connect_timeout, idle_timeout,
/// max_retries, max_response_bytes, mechanism, system_prompt, max_session_turns,
/// max_structured_retries, max_wall_time, max_tokens, temperature, repair,
/// clamp, strict). Raises TypeError or ValueError for a bad value.
RunSettings read_run_settings(py::dict keywords);

/// Raises TypeError naming a keyword left in `keywords` (one `function`
/// does not take).
void refuse_other_keywords(const py::dict& keywords, const char* function);

/// A schema for runs: a Validator as compiled, or anything validator_for
/// takes, loaded by the run's rules (the root must accept an object; the
/// strict rules unless `strict` is false). Raises weld.SchemaError.
struct RunSchema {
  std::optional<schema::Schema> compiled;
  const schema::Schema* schema = nullptr;
  json::Value source;
  /// The pydantic model the schema came from, or None.
  py::object model = py::none();
};
void load_run_schema(py::handle given, bool strict, RunSchema& out);

/// The run's mechanism and its probe cache (in $HOME), as `weld` sets them.
void set_mechanism(agent::RunOptions& options, agent::Mechanism mechanism, const agent::ModelChoice& choice);

/// Notes (lines for the caller's log) as a Python list.
py::list note_list(const std::vector<std::string>& notes);

/// How often a caller waiting with the GIL released looks for a signal.
inline constexpr std::chrono::milliseconds kSignalPoll{50};

/// Waits until `done()` (checked under `mutex`, woken through `changed`)
/// with the GIL released, running Python's signal handlers every
/// kSignalPoll. Returns false when a handler raised (Ctrl-C's
/// KeyboardInterrupt): the exception is then pending.
template <typename Done>
bool wait_released(std::mutex& mutex, std::condition_variable& changed, Done done) {
  for (;;) {
    {
      py::gil_scoped_release release;
      std::unique_lock<std::mutex> lock(mutex);
      if (changed.wait_for(lock, kSignalPoll, done)) return true;
    }
    if (PyErr_CheckSignals() != 0) return false;
  }
}

}  // namespace weld::python
