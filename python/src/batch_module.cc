// weld._weld.BatchRun: `weld batch` from Python (docs/python.md, "Batches"):
// rows from a Python iterable (or a JSON Lines file) through
// weld::batch::run_batch — the same rows, ids, resume, retries and workers
// as `weld batch` — on a thread of its own; each result line handed to
// the caller as its row ends. weld/__init__.py's weld.batch iterates it.

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "convert.h"
#include "errors.h"
#include "module_parts.h"
#include "run_settings.h"
#include "schema_input.h"
#include "validator.h"
#include "weld/agent/session_log.h"
#include "weld/base/exit_code.h"
#include "weld/batch/input.h"
#include "weld/batch/result_file.h"
#include "weld/batch/runner.h"
#include "weld/batch/workers.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::python {
namespace {

/// Result lines waiting for the caller; past this many, a worker that ends
/// a row waits (the caller sets the pace).
constexpr std::size_t kQueuedLines = 1024;

/// Rows read from a Python iterable, one JSON line each, on run_batch's
/// input thread (which takes the GIL for each row).
class PythonRows {
 public:
  explicit PythonRows(py::object iterator) : iterator_(std::move(iterator)) {}

  Result<std::size_t> read(char* buffer, std::size_t size) {
    while (offset_ == pending_.size()) {
      if (done_) return std::size_t{0};
      py::gil_scoped_acquire gil;
      if (!next_line()) {
        done_ = true;
        if (failure_) return Error{ErrorCode::Io, "the rows' iterator raised an exception", ""};
        return std::size_t{0};
      }
    }
    const std::size_t count = std::min(size, pending_.size() - offset_);
    std::memcpy(buffer, pending_.data() + offset_, count);
    offset_ += count;
    return count;
  }

  /// The exception the iterator (or a row's conversion) raised, if any.
  const py::object& failure() const { return failure_; }

  /// Drops the Python objects (with the GIL held).
  void release() {
    iterator_ = py::object();
    failure_ = py::object();
  }

 private:
  // The next row as one line (GIL held); false at the end or on an error.
  bool next_line() {
    try {
      PyObject* item = PyIter_Next(iterator_.ptr());
      if (item == nullptr) {
        if (PyErr_Occurred()) throw py::error_already_set();
        return false;
      }
      py::object row = py::reinterpret_steal<py::object>(item);
      ++count_;
      if (PyUnicode_Check(row.ptr()) || PyBytes_Check(row.ptr()) || PyByteArray_Check(row.ptr())) {
        // A row as JSON text: written back compact, so it stays one line.
        pending_ = json::serialize(parse_text(row, "row " + std::to_string(count_ - 1)));
      } else {
        pending_ = json::serialize(to_json(row, "row " + std::to_string(count_ - 1)));
      }
      pending_ += '\n';
      offset_ = 0;
      return true;
    } catch (py::error_already_set& error) {
      failure_ = error.value();
      return false;
    }
  }

  py::object iterator_;
  py::object failure_;
  std::string pending_;
  std::size_t offset_ = 0;
  std::uint64_t count_ = 0;
  bool done_ = false;
};

class BatchRun {
 public:
  BatchRun(py::handle rows, py::handle schema_arg, py::dict keywords) {
    // The batch's own keywords, then those of each row's run.
    std::string output = "/dev/null";  // no file: results only go to the caller
    if (keywords.contains("output") && !keywords["output"].is_none()) {
      output = py::str(py::module_::import("os").attr("fspath")(keywords["output"])).cast<std::string>();
    }
    batch::OutputOptions output_options;
    output_options.retry_errored = keywords.contains("retry_errored") && keywords["retry_errored"].cast<bool>();
    std::string format = keywords.contains("output_format") ? keywords["output_format"].cast<std::string>() : "weld";
    std::optional<batch::OutputFormat> parsed_format = batch::parse_output_format(format);
    if (!parsed_format) throw py::value_error("output_format must be \"weld\" or \"openai\" (got \"" + format + "\")");
    output_options.format = *parsed_format;
    batch::WorkerOptions workers;
    workers.concurrency = keywords.contains("concurrency") ? keywords["concurrency"].cast<int>() : 16;
    if (workers.concurrency < 1 || workers.concurrency > 1024)
      throw py::value_error("concurrency must be from 1 to 1024 (got " + std::to_string(workers.concurrency) + ")");
    if (keywords.contains("threads") && !keywords["threads"].is_none()) workers.threads = keywords["threads"].cast<int>();
    if (keywords.contains("max_rps") && !keywords["max_rps"].is_none()) workers.max_rps = keywords["max_rps"].cast<double>();
    std::string prompt = keywords.contains("prompt") && !keywords["prompt"].is_none() ? keywords["prompt"].cast<std::string>() : "";
    std::string id_field =
        keywords.contains("id_field") && !keywords["id_field"].is_none() ? keywords["id_field"].cast<std::string>() : "";
    for (const char* name : {"output", "retry_errored", "output_format", "concurrency", "threads", "max_rps", "prompt", "id_field"}) {
      if (keywords.contains(name)) PyDict_DelItemString(keywords.ptr(), name);
    }
    RunSettings settings = read_run_settings(keywords);
    refuse_other_keywords(keywords, "batch");
    load_run_schema(schema_arg, settings.strict, schema_);

    // The input: a JSON Lines file, or the rows of an iterable.
    if (PyUnicode_Check(rows.ptr()) || py::isinstance(rows, py::module_::import("os").attr("PathLike"))) {
      std::string path = py::str(py::module_::import("os").attr("fspath")(rows)).cast<std::string>();
      fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd_ < 0) {
        PyErr_SetFromErrnoWithFilename(PyExc_OSError, path.c_str());
        throw py::error_already_set();
      }
      lines_ = std::make_unique<batch::LineReader>(batch::fd_source(fd_));
      Result<std::string_view> start = lines_->peek_start();
      if (!start) throw py::value_error(start.error().message);
      if (Status plain = batch::check_input_start(*start, path); !plain) throw py::value_error(plain.error().message);
    } else {
      py::object iterator = py::reinterpret_steal<py::object>(PyObject_GetIter(rows.ptr()));
      if (!iterator) throw py::error_already_set();
      rows_ = std::make_shared<PythonRows>(std::move(iterator));
      std::shared_ptr<PythonRows> source = rows_;
      lines_ = std::make_unique<batch::LineReader>(
          [source](char* buffer, std::size_t size) { return source->read(buffer, size); });
    }

    // The workers (the model of `weld batch`'s rules, one per worker).
    const provider::Environment env = provider::process_environment();
    {
      py::gil_scoped_release release;
      Result<batch::Workers> made = batch::make_workers(settings.request, env, workers, sample::offline_model_factory(settings.request.seed));
      if (made) workers_ = std::move(*made);
      else {
        error_ = made.error().message;
        error_code_ = agent::model_choice_exit_code(made.error());  // 52, or 75/41 for the models list
      }
    }
    if (!error_.empty()) {
      py::object error = error_classes().run_error_class(error_code_)(error_, py::none(), error_code_);
      raise(error);
    }
    notes_ = workers_.first.notes;
    if (workers_.first.offline) notes_.push_back(agent::offline_notice(workers_.first));
    Result<agent::Mechanism> mechanism = agent::choose_mechanism(settings.mechanism, agent::Settings{}, env);
    if (!mechanism) {
      const int config = ExitCode::Config;
      raise(error_classes().run_error_class(config)(mechanism.error().message, py::none(), config));
    }

    options_.input.id_field = id_field;
    options_.input.prompt = prompt;
    options_.input.schema = &schema_.source;
    options_.format = output_options.format;
    options_.run = std::move(settings.options);
    options_.run.model = workers_.first.model_name;
    options_.run.schema = schema_.schema;
    options_.run.schema_source = schema_.source;
    options_.run.session_id = agent::new_session_id();
    set_mechanism(options_.run, *mechanism, workers_.first);
    options_.warn = [this](const std::string& text) {
      std::lock_guard<std::mutex> lock(mutex_);
      warnings_.push_back("weld batch: warning: " + text);
    };

    // The output: resumed when it has lines (their rows are skipped).
    batch::ResumeScan scan;
    Result<std::unique_ptr<batch::ResultWriter>> writer = batch::ResultWriter::open(output, output_options, ids_, scan);
    if (!writer) {
      const ErrorCode code = writer.error().code;
      const int exit_code = code == ErrorCode::Unavailable ? ExitCode::Temporary
                            : code == ErrorCode::Config    ? ExitCode::Config
                                                           : ExitCode::Failure;
      raise(error_classes().run_error_class(exit_code)(writer.error().message, py::none(), exit_code));
    }
    writer_ = std::move(*writer);
    resumed_ = scan.lines;
    writer_->on_line([this](std::string_view line, bool) {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [this] { return lines_queued_.size() < kQueuedLines || cancel_.cancelled.load(); });
      lines_queued_.emplace_back(line);
      changed_.notify_all();
    });

    thread_ = std::thread([this] {
      batch::BatchOutcome outcome;
      try {
        outcome = batch::run_batch(*lines_, *writer_, ids_, options_, workers_.models, progress_, cancel_,
                                   workers_.loop_list);
      } catch (const std::exception& e) {
        outcome.stop = batch::BatchStop::InputError;
        outcome.message = std::string("weld: internal error: ") + e.what();
      }
      (void)writer_->flush();
      std::lock_guard<std::mutex> lock(mutex_);
      outcome_ = std::move(outcome);
      done_ = true;
      changed_.notify_all();
    });
  }

  ~BatchRun() { close(); }
  BatchRun(const BatchRun&) = delete;
  BatchRun& operator=(const BatchRun&) = delete;

  /// The next result row (a dict), None once every row has one; raises
  /// when the batch stopped early (RetryLater, AuthError, the rows'
  /// iterator's exception…). Ctrl-C cancels the batch and raises
  /// KeyboardInterrupt.
  py::object next() {
    if (closed_) return py::none();
    if (!wait_released(mutex_, changed_, [this] { return !lines_queued_.empty() || done_; })) {
      py::error_already_set interrupted;
      close();
      throw interrupted;
    }
    std::string line;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!lines_queued_.empty()) {
        line = std::move(lines_queued_.front());
        lines_queued_.pop_front();
        changed_.notify_all();
      }
    }
    if (line.empty()) return finish();
    Result<json::Value> row = json::parse(line);
    if (!row) throw std::runtime_error("a result line is not JSON: " + row.error().message);
    py::object out = to_python(*row);
    py::dict as_dict = py::reinterpret_borrow<py::dict>(out);
    if (!schema_.model.is_none() && as_dict.contains("structured_result") && !as_dict["structured_result"].is_none()) {
      as_dict["structured_result"] = to_model(schema_.model, as_dict["structured_result"]);
    }
    return out;
  }

  /// Cancels what is still running (rows in flight get no line: a rerun
  /// with the same output does them) and waits for the workers.
  void close() {
    if (thread_.joinable()) {
      cancel_.cancelled = true;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        changed_.notify_all();
      }
      py::gil_scoped_release release;
      thread_.join();
    }
    if (rows_) rows_->release();
    if (fd_ >= 0) {
      ::close(fd_);
      fd_ = -1;
    }
    closed_ = true;
  }

  py::list notes() const { return note_list(notes_); }
  /// Warnings of the batch so far (taken: each is given once).
  py::list take_warnings() {
    std::vector<std::string> taken;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      taken.swap(warnings_);
    }
    return note_list(taken);
  }
  std::uint64_t resumed() const { return resumed_; }
  py::dict counts() const {
    py::dict out;
    out["rows"] = progress_.rows.load();
    out["succeeded"] = progress_.succeeded.load();
    out["errored"] = progress_.errored.load();
    out["earlier_succeeded"] = progress_.earlier_succeeded.load();
    out["earlier_errored"] = progress_.earlier_errored.load();
    out["attempts"] = progress_.attempts.load();
    out["repairs"] = progress_.repairs.load();
    out["input_tokens"] = progress_.input_tokens.load();
    out["output_tokens"] = progress_.output_tokens.load();
    return out;
  }

 private:
  // The end: None when every row has its line, else the exception of how
  // the batch stopped.
  py::object finish() {
    {
      py::gil_scoped_release release;
      thread_.join();
    }
    const batch::BatchOutcome outcome = outcome_;
    py::object failure = rows_ ? rows_->failure() : py::object();
    close();
    switch (outcome.stop) {
      case batch::BatchStop::Finished:
      case batch::BatchStop::Cancelled: return py::none();
      case batch::BatchStop::Auth: raise(error_classes().run_error_class(41)(outcome.message, py::none(), 41));
      case batch::BatchStop::Temporary: raise(error_classes().run_error_class(75)(outcome.message, py::none(), 75));
      case batch::BatchStop::InputError:
        if (failure) raise(failure);
        raise(error_classes().run_error_class(1)(outcome.message, py::none(), 1));
      case batch::BatchStop::OutputError: raise(error_classes().run_error_class(1)(outcome.message, py::none(), 1));
    }
    return py::none();
  }

  RunSchema schema_;
  batch::BatchOptions options_;
  batch::Workers workers_;
  batch::IdSet ids_;
  std::unique_ptr<batch::ResultWriter> writer_;
  std::unique_ptr<batch::LineReader> lines_;
  std::shared_ptr<PythonRows> rows_;
  int fd_ = -1;
  batch::BatchProgress progress_;
  provider::CancelToken cancel_;
  std::vector<std::string> notes_;
  std::uint64_t resumed_ = 0;
  std::string error_;
  int error_code_ = ExitCode::Config;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> lines_queued_;
  std::vector<std::string> warnings_;
  bool done_ = false;
  bool closed_ = false;
  batch::BatchOutcome outcome_;
  std::thread thread_;
};

}  // namespace

void add_batch(py::module_& module) {
  py::class_<BatchRun>(module, "BatchRun", "weld.batch's work (weld/__init__.py has its keywords and help).")
      .def(py::init<py::handle, py::handle, py::dict>(), py::arg("rows"), py::arg("schema"), py::arg("keywords"))
      .def("next", &BatchRun::next)
      .def("close", &BatchRun::close)
      .def("take_warnings", &BatchRun::take_warnings)
      .def_property_readonly("notes", &BatchRun::notes)
      .def_property_readonly("resumed", &BatchRun::resumed)
      .def_property_readonly("counts", &BatchRun::counts);
}

}  // namespace weld::python
