// weld._weld.run: weld's run from Python (docs/python.md, "Running a
// model"): the schema loaded with the run's rules, the model chosen by
// weld::agent::choose_model (the rules `weld` follows), weld::agent::run on
// a thread of its own while the caller waits with the GIL released, and
// the result envelope handed back. weld/__init__.py turns a failed
// envelope into the RunError subclass of its exit code.

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "convert.h"
#include "module_parts.h"
#include "run_settings.h"
#include "schema_input.h"
#include "weld/agent/model_choice.h"
#include "weld/agent/output.h"
#include "weld/agent/run_loop.h"
#include "weld/agent/session_log.h"
#include "weld/base/exit_code.h"

namespace weld::python {
namespace {

constexpr const char* kRun =
    "run(prompt, schema, keywords) -> (exit_code, envelope, notes): weld.run's work (weld/__init__.py has its "
    "keywords and help).";

/// The run's thread and what it ends with. Joined before anything it reads
/// goes away, whatever the way out (a KeyboardInterrupt included).
class RunThread {
 public:
  RunThread(provider::Model& model, const agent::RunOptions& options) {
    thread_ = std::thread([this, &model, &options] {
      agent::RunOutcome outcome;
      try {
        outcome = agent::run(model, {}, options, {}, cancel_);
      } catch (const std::exception& e) {
        outcome.subtype = agent::Subtype::ErrorDuringExecution;
        outcome.exit_code = ExitCode::Failure;
        outcome.error_message = std::string("weld: internal error: ") + e.what();
        outcome.session_id = options.session_id;
      }
      std::lock_guard<std::mutex> lock(mutex_);
      outcome_ = std::move(outcome);
      done_ = true;
      ended_.notify_all();
    });
  }
  ~RunThread() {
    if (thread_.joinable()) {
      cancel_.cancelled = true;
      py::gil_scoped_release release;
      thread_.join();
    }
  }
  RunThread(const RunThread&) = delete;
  RunThread& operator=(const RunThread&) = delete;

  /// Waits for the outcome with the GIL released, looking for signals in
  /// between: a signal's exception (KeyboardInterrupt) cancels the run,
  /// which is waited for, and is then raised.
  agent::RunOutcome wait() {
    if (!wait_released(mutex_, ended_, [this] { return done_; })) {
      py::error_already_set interrupted;  // takes the pending exception
      cancel_.cancelled = true;
      {
        py::gil_scoped_release release;
        thread_.join();
      }
      throw interrupted;
    }
    {
      py::gil_scoped_release release;
      thread_.join();
    }
    return std::move(outcome_);
  }

 private:
  provider::CancelToken cancel_;
  std::mutex mutex_;
  std::condition_variable ended_;
  bool done_ = false;
  agent::RunOutcome outcome_;
  std::thread thread_;
};

/// (exit_code, envelope, notes) of a run that ended before it started
/// (configuration): the envelope `weld -o result` prints then.
py::tuple ended_before(int exit_code, const std::string& message, const std::string& session_id,
                       const std::vector<std::string>& notes) {
  agent::RunOutcome outcome;
  outcome.exit_code = exit_code;
  outcome.subtype = agent::Subtype::ErrorDuringExecution;
  outcome.error_message = message;
  outcome.session_id = session_id;
  return py::make_tuple(exit_code, to_python(agent::result_envelope(outcome)), note_list(notes));
}

py::tuple run(py::handle prompt, py::handle schema_arg, py::dict keywords) {
  if (!PyUnicode_Check(prompt.ptr())) throw py::type_error("prompt must be a str");
  RunSettings settings = read_run_settings(keywords);
  refuse_other_keywords(keywords, "run");
  RunSchema loaded;
  if (!schema_arg.is_none()) load_run_schema(schema_arg, settings.strict, loaded);

  agent::RunOptions options = std::move(settings.options);
  options.session_id = agent::new_session_id();
  options.prompt = prompt.cast<std::string>();
  if (loaded.schema != nullptr) {
    options.schema = loaded.schema;
    options.schema_source = loaded.source;
  }

  // The model (the rules of `weld`, agent::choose_model); the offline model
  // only when named. The server's models list may be asked for: no GIL.
  provider::ModelHooks hooks;
  hooks.offline = sample::offline_model_factory(settings.request.seed);
  const provider::Environment env = provider::process_environment();
  Result<agent::ModelChoice> choice = Error{ErrorCode::Config, "", ""};
  {
    py::gil_scoped_release release;
    choice = agent::choose_model(settings.request, env, hooks);
  }
  if (!choice) return ended_before(agent::model_choice_exit_code(choice.error()), choice.error().message, options.session_id, {});
  std::vector<std::string> notes = choice->notes;
  if (choice->offline) notes.push_back(agent::offline_notice(*choice));
  Result<agent::Mechanism> mechanism = agent::choose_mechanism(settings.mechanism, agent::Settings{}, env);
  if (!mechanism) return ended_before(52, mechanism.error().message, options.session_id, notes);
  set_mechanism(options, *mechanism, *choice);
  options.model = choice->model_name;

  agent::RunOutcome outcome;
  {
    RunThread thread(*choice->model, options);
    outcome = thread.wait();
  }
  for (const std::string& warning : outcome.warnings) notes.push_back("weld: warning: " + warning);
  py::object envelope = to_python(agent::result_envelope(outcome));
  if (outcome.exit_code == 0 && outcome.structured && !loaded.model.is_none()) {
    envelope["structured_output"] = to_model(loaded.model, envelope["structured_output"]);
  }
  return py::make_tuple(outcome.exit_code, envelope, note_list(notes));
}

}  // namespace

void add_run(py::module_& module) {
  module.def("run", &run, py::arg("prompt"), py::arg("schema"), py::arg("keywords"), kRun);
}

}  // namespace weld::python
