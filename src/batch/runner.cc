// The batch loop (docs/batch.md). A reader reads and sorts the input (shard,
// repeated id, already answered, invalid line); workers run the rest, each
// with its own model: fibers on FiberLoops (one per thread, the first on
// the calling thread; the reader then has a thread of its own), or threads,
// the reader being the calling thread. Rows pass through a bounded queue, so the input is never held in
// memory, only the 16-byte keys of the ids seen.

#include "weld/batch/runner.h"

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "weld/provider/sampling.h"

namespace weld::batch {
namespace {

// A bounded hand-off from the reader to the workers.
class RowQueue {
 public:
  explicit RowQueue(std::size_t capacity) : capacity_(capacity) {}

  // Blocks while full; false when the queue was closed meanwhile.
  bool push(Row row) {
    std::unique_lock lock(mutex_);
    not_full_.wait(lock, [&] { return rows_.size() < capacity_ || closed_; });
    if (closed_) return false;
    const bool was_empty = rows_.empty();
    rows_.push_back(std::move(row));
    not_empty_.notify_one();
    lock.unlock();
    if (was_empty && on_change_) on_change_();
    return true;
  }
  // Blocks while empty; nullopt once closed and drained (or abandoned).
  std::optional<Row> pop() {
    std::unique_lock lock(mutex_);
    not_empty_.wait(lock, [&] { return !rows_.empty() || closed_; });
    return take(lock);
  }
  // Never blocks: a row, or nullopt with `more` telling whether rows may
  // still come.
  std::optional<Row> try_pop(bool& more) {
    std::unique_lock lock(mutex_);
    more = !closed_;
    return take(lock);
  }
  // No more rows will come.
  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
      not_empty_.notify_all();
      not_full_.notify_all();
    }
    if (on_change_) on_change_();
  }
  // Stop now: queued rows are left unanswered.
  void abandon() {
    {
      std::lock_guard lock(mutex_);
      closed_ = abandoned_ = true;
      not_empty_.notify_all();
      not_full_.notify_all();
    }
    if (on_change_) on_change_();
  }
  // Called (on the pushing thread) when a row arrives in an empty queue, and
  // on close and abandon: how fibers waiting for rows learn of them.
  void on_change(std::function<void()> notify) { on_change_ = std::move(notify); }

 private:
  std::optional<Row> take(std::unique_lock<std::mutex>&) {
    if (rows_.empty() || abandoned_) return std::nullopt;
    Row row = std::move(rows_.front());
    rows_.pop_front();
    // The reader is woken when the queue is half empty, not for each row:
    // it then refills it in one go (a wake-up per row cost two futex calls
    // and a context switch per row).
    if (rows_.size() == capacity_ / 2) not_full_.notify_one();
    return row;
  }

  std::function<void()> on_change_;
  std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable not_full_;
  std::condition_variable not_empty_;
  std::deque<Row> rows_;
  bool closed_ = false;
  bool abandoned_ = false;
};

// Everything the reader and the workers share.
class Batch {
 public:
  Batch(ResultWriter& output, const BatchOptions& options, BatchProgress& progress, provider::CancelToken& cancel,
        std::size_t workers)
      : output_(output), options_(options), progress_(progress), cancel_(cancel), queue_(2 * workers) {}

  RowQueue& queue() { return queue_; }

  // The first stop wins; it cancels the rows in flight.
  void stop(BatchStop why, std::string message, ErrorCode code = ErrorCode::Io) {
    {
      std::lock_guard lock(mutex_);
      if (outcome_.stop != BatchStop::Finished) return;
      outcome_ = {why, std::move(message), code};
    }
    cancel_.cancelled = true;
    cancel_rows();
    queue_.abandon();
  }
  // Rows on threads: cancels the row each worker runs (the batch stopped or
  // was cancelled). Idempotent.
  void cancel_rows() {
    std::lock_guard lock(mutex_);
    for (provider::CancelToken* token : row_tokens_) token->cancelled = true;
  }
  bool stopped() {
    std::lock_guard lock(mutex_);
    return outcome_.stop != BatchStop::Finished;
  }
  BatchOutcome outcome() {
    std::lock_guard lock(mutex_);
    if (outcome_.stop == BatchStop::Finished && cancel_.cancelled.load())
      return {BatchStop::Cancelled, "Operation cancelled."};
    return outcome_;
  }

  void write(const std::string& line, bool errored) {
    Status written = output_.write(line, errored);
    if (!written) stop(BatchStop::OutputError, written.error().message, written.error().code);
  }

  void write_input_error(const Row& row, InputErrorKind kind, std::string_view message) {
    write(input_error_line(options_.format, row, kind, message), true);
  }

  // One worker thread: runs rows until the queue is drained or abandoned.
  // Each row has a cancel token of its own, which the batch's stop or
  // cancel also sets (cancel_rows), so a row's --max-wall-time ends that row
  // only.
  void work(provider::Model& model) {
    // The worker's own copy of the run options (schema source and all),
    // made once: a row only changes its prompt, history, model and system.
    agent::RunOptions run = options_.run;
    provider::CancelToken row_cancel;
    {
      std::lock_guard lock(mutex_);
      row_tokens_.push_back(&row_cancel);
    }
    while (std::optional<Row> row = queue_.pop()) {
      if (cancel_.cancelled.load()) break;
      {
        // Under the lock cancel_rows takes: a cancel is never lost between
        // this row's start and the next check.
        std::lock_guard lock(mutex_);
        row_cancel.cancelled = cancel_.cancelled.load();
      }
      progress_.in_flight.fetch_add(1);
      run_row(model, run, *row, row_cancel);
      progress_.in_flight.fetch_sub(1);
    }
    std::lock_guard lock(mutex_);
    std::erase(row_tokens_, &row_cancel);
  }

  // One worker fiber: the same, waiting for rows on `loop`. Each row has a
  // cancel token of its own (the loop cancels its waits when the batch
  // stops), so a row's --max-wall-time ends that row only.
  void work_in_fiber(provider::Model& model, FiberLoop& loop) {
    agent::RunOptions run = options_.run;
    // The loop watches a row's --max-wall-time (no thread per row).
    run.wall_time_thread = false;
    const bool timed = run.max_wall_time_seconds > 0;
    const auto budget = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(timed ? run.max_wall_time_seconds : 0));
    provider::CancelToken row_cancel;
    for (;;) {
      bool more = true;
      std::optional<Row> row = queue_.try_pop(more);
      if (!row) {
        if (!more || !loop.park()) return;
        continue;
      }
      if (cancel_.cancelled.load()) return;
      row_cancel.cancelled = false;
      // A little after the run's own deadline (taken just after this), so
      // that the run sees its budget spent, not a plain cancel.
      if (timed) loop.set_deadline(std::chrono::steady_clock::now() + budget + std::chrono::milliseconds(5));
      progress_.in_flight.fetch_add(1);
      run_row(model, run, *row, row_cancel);
      progress_.in_flight.fetch_sub(1);
    }
  }

 private:
  void run_row(provider::Model& model, agent::RunOptions& run, Row& row, provider::CancelToken& cancel) {
    run.model = row.request.model.empty() ? options_.run.model : row.request.model;
    run.system_prompt = row.request.system.empty() ? options_.run.system_prompt : row.request.system;
    run.history = std::move(row.request.history);
    run.prompt = std::move(row.request.prompt);
    run.max_tokens = row.request.max_tokens.value_or(options_.run.max_tokens);
    run.sampling = provider::overlay(options_.run.sampling, row.request.sampling);

    agent::RunOutcome outcome = agent::run(model, options_.tools, run, {}, cancel);
    // Endings that leave the row unanswered (docs/batch.md, "Resume"): the rerun does it.
    if (outcome.exit_code == ExitCode::Cancelled || cancel_.cancelled.load()) return;
    if (outcome.exit_code == ExitCode::Auth) return stop(BatchStop::Auth, outcome.error_message);
    if (outcome.exit_code == ExitCode::Temporary) return stop(BatchStop::Temporary, outcome.error_message);

    progress_.attempts.fetch_add(static_cast<std::uint64_t>(outcome.attempts));
    if (outcome.attempts > 1) progress_.retries.fetch_add(static_cast<std::uint64_t>(outcome.attempts - 1));
    progress_.repairs.fetch_add(outcome.repairs.size());
    progress_.turns.fetch_add(static_cast<std::uint64_t>(outcome.num_turns));
    progress_.input_tokens.fetch_add(static_cast<std::uint64_t>(outcome.usage.input_tokens));
    progress_.output_tokens.fetch_add(static_cast<std::uint64_t>(outcome.usage.output_tokens));
    write(run_result_line(options_.format, row, outcome, run.model), !row_succeeded(outcome));
  }

  ResultWriter& output_;
  const BatchOptions& options_;
  BatchProgress& progress_;
  provider::CancelToken& cancel_;
  RowQueue queue_;
  std::mutex mutex_;
  BatchOutcome outcome_;
  /// Rows on threads: the token of the row each worker runs (guarded by mutex_).
  std::vector<provider::CancelToken*> row_tokens_;
};

// Tells `options.warn` once per field name of what a row carries but is
// not sent: fields weld batch does not forward, and sampling fields the
// model's wire protocol lacks.
class UnsentFields {
 public:
  UnsentFields(const BatchOptions& options, const provider::Model& model) : options_(options), model_(model) {}

  void check(const Row& row) {
    if (!options_.warn) return;
    for (const std::string& field : row.request.unsent) {
      if (!told_.insert(field).second) continue;
      options_.warn("line " + std::to_string(row.line) + ": " + field +
                    " is not sent to the model: weld batch sends a request's messages, model, token limit and "
                    "sampling fields (docs/batch.md, Input); this is said once per field");
    }
    for (const std::string& field : model_.sampling_not_sent(row.request.sampling)) {
      if (!told_.insert(field).second) continue;
      options_.warn("line " + std::to_string(row.line) + ": the row's " + field + " is not sent: the " +
                    model_.provider_name() + " wire protocol has no such field; this is said once per field");
    }
  }

 private:
  const BatchOptions& options_;
  const provider::Model& model_;
  std::set<std::string> told_;
};

// Reads the input and hands this shard's runnable rows to the workers;
// answers the rows that need no run (bad lines, repeated ids) and counts the
// rows the file already answers. Once the batch stopped (41, 75, a failed
// write) it reads on, only counting, so that the summary covers the shard.
void read_rows(Batch& batch, LineReader& input, IdSet& ids, const BatchOptions& options, BatchProgress& progress,
               UnsentFields& unsent, provider::CancelToken& outside_cancel) {
  for (;;) {
    // A stop sets the token too; a cancel from outside (a signal) is one
    // without a stop, and ends the reading at once.
    if (outside_cancel.cancelled.load() && !batch.stopped()) break;
    Result<std::optional<InputLine>> line = input.next();
    progress.bytes.store(input.bytes_read());
    if (!line) {
      batch.stop(BatchStop::InputError, line.error().message);
      break;
    }
    if (!*line) {
      progress.input_read.store(true);
      break;
    }
    progress.lines.fetch_add(1);
    const InputLine& in = **line;
    progress.last_line.store(in.number);
    Row row;
    if (in.too_long) {
      row = line_row(in.number);
      row.error = InputErrorKind::InvalidLine;
      row.error_message = "line " + std::to_string(in.number) + ": longer than " +
                          std::to_string(LineReader::kDefaultMaxLine >> 20) + " MiB; skipped unread";
    } else {
      row = read_row(in.text, in.number, options.input);
    }
    const RowKey key = key_of_row(row);
    if (shard_of(key, options.shard.count) != options.shard.index) continue;
    progress.rows.fetch_add(1);
    // For a repeated id the later line is the errored one; its result line
    // is remembered under its own line's key.
    const bool repeated = !ids.mark_seen(key);
    const Done done = ids.done(repeated ? key_of_duplicate(row.line) : key);
    if (done != Done::No) {
      (done == Done::Errored ? progress.earlier_errored : progress.earlier_succeeded).fetch_add(1);
      continue;
    }
    if (batch.stopped()) continue;  // counted: not done
    if (repeated) {
      const std::string shown = row.id_from_line ? "line " + std::to_string(row.line) : "\"" + row.id + "\"";
      batch.write_input_error(row, InputErrorKind::DuplicateId,
                              "line " + std::to_string(row.line) + ": the id " + shown +
                                  " was already used by an earlier line; this line was not run");
      continue;
    }
    if (row.error) {
      batch.write_input_error(row, *row.error, row.error_message);
      continue;
    }
    unsent.check(row);
    if (!batch.queue().push(std::move(row))) continue;  // the batch stopped meanwhile: counted as not done
  }
  batch.queue().close();
}

}  // namespace

BatchOutcome run_batch(LineReader& input, ResultWriter& output, IdSet& ids, const BatchOptions& options,
                       const std::vector<std::unique_ptr<provider::Model>>& models, BatchProgress& progress,
                       provider::CancelToken& cancel, const std::vector<FiberLoop*>& loops) {
  Batch batch(output, options, progress, cancel, models.size());
  UnsentFields unsent(options, *models.front());
  output.on_written([&progress](std::uint64_t succeeded, std::uint64_t errored) {
    progress.succeeded.fetch_add(succeeded);
    progress.errored.fetch_add(errored);
  });
  if (!loops.empty()) {
    batch.queue().on_change([&loops] {
      for (FiberLoop* loop : loops) loop->wakeup();
    });
    for (std::size_t i = 0; i < models.size(); ++i) {
      FiberLoop* loop = loops[i % loops.size()];
      loop->spawn([&batch, model = models[i].get(), loop] { batch.work_in_fiber(*model, *loop); });
    }
    std::thread reader([&] { read_rows(batch, input, ids, options, progress, unsent, cancel); });
    // The first loop runs here, the others on threads of their own.
    std::vector<std::exception_ptr> errors(loops.size());
    std::vector<std::thread> others;
    for (std::size_t k = 1; k < loops.size(); ++k) {
      others.emplace_back([&, k] {
        try {
          loops[k]->run(cancel);
        } catch (...) {
          errors[k] = std::current_exception();
        }
      });
    }
    try {
      loops[0]->run(cancel);
    } catch (...) {
      errors[0] = std::current_exception();
    }
    for (auto& thread : others) thread.join();
    // The workers are gone (all rows done, or the batch stopped): a reader
    // waiting for room in the queue must not wait for ever.
    batch.queue().abandon();
    reader.join();
    for (const auto& error : errors)
      if (error) std::rethrow_exception(error);
  } else {
    std::vector<std::thread> workers;
    workers.reserve(models.size());
    for (const auto& model : models) workers.emplace_back([&batch, &model] { batch.work(*model); });
    // A cancel from outside (SIGINT sets `cancel`) reaches the rows in flight
    // within 20 ms: they watch their own tokens.
    std::mutex relay_mutex;
    std::condition_variable relay_wake;
    bool workers_done = false;
    std::thread relay([&] {
      std::unique_lock lock(relay_mutex);
      while (!relay_wake.wait_for(lock, std::chrono::milliseconds(20), [&] { return workers_done; })) {
        if (cancel.cancelled.load()) {
          batch.cancel_rows();
          return;
        }
      }
    });
    read_rows(batch, input, ids, options, progress, unsent, cancel);
    for (auto& worker : workers) worker.join();
    {
      std::lock_guard lock(relay_mutex);
      workers_done = true;
    }
    relay_wake.notify_all();
    relay.join();
  }
  Status flushed = output.flush();
  if (!flushed) batch.stop(BatchStop::OutputError, flushed.error().message, flushed.error().code);
  output.on_written({});
  return batch.outcome();
}

}  // namespace weld::batch
