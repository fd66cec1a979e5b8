#pragma once
/// \file
/// `weld batch`'s loop (docs/batch.md): reads rows, keeps this shard's, catches
/// repeated ids and rows already answered, runs each remaining row as one
/// headless run (agent::run, docs/run.md) on a pool of workers — one model per
/// worker; fibers over one connection pool (FiberLoop), or threads — and
/// writes one result line per row.
/// Memory is bounded by the pool: at most two rows per worker wait in the
/// queue. It never prints and picks no exit code; the CLI does.
///
/// \code
///   weld::batch::BatchOptions options;  options.run.schema = &loaded.schema; …
///   std::vector<std::unique_ptr<weld::provider::Model>> models = …;  // one per worker
///   weld::batch::BatchProgress progress;
///   weld::batch::FiberLoop loop(network);  // the models' transports are loop.transport()
///   weld::batch::BatchOutcome out = weld::batch::run_batch(lines, *writer, ids, options, models, progress, cancel, {&loop});
/// \endcode

#include <atomic>
#include <functional>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "weld/agent/run_loop.h"
#include "weld/agent/tool.h"
#include "weld/batch/fiber_loop.h"
#include "weld/batch/ids.h"
#include "weld/batch/input.h"
#include "weld/batch/result_file.h"
#include "weld/batch/result_line.h"
#include "weld/batch/shard.h"

namespace weld::batch {

/// What to run.
struct BatchOptions {
  InputOptions input;
  OutputFormat format = OutputFormat::Weld;
  Shard shard;
  /// Each row's run starts from these options (schema compiled once, model,
  /// system prompt, limits, repairs, mechanism); the row supplies the
  /// prompt, earlier messages, and its own system prompt and model if any.
  agent::RunOptions run;
  /// Tools offered besides structured_output (none by default: rows are data, docs/batch.md "Each row is a run").
  std::vector<const agent::Tool*> tools;
  /// Told once per field name of the request fields the rows carry that are
  /// not sent (a field weld batch does not forward, or a sampling field the
  /// model's wire protocol lacks), e.g. `line 3: body.logit_bias is not
  /// sent …`. Called from the thread that reads the input.
  std::function<void(const std::string&)> warn;
};

/// Counters, updated as rows end; read them from any thread. Every row of
/// the shard is one of: succeeded or errored by this run (its line is in
/// the file), answered by an earlier run (`earlier_*`), or not done.
struct BatchProgress {
  std::atomic<std::uint64_t> lines{0};      ///< input lines read (all shards)
  std::atomic<std::uint64_t> last_line{0};  ///< the last input line read (1-based)
  std::atomic<std::uint64_t> bytes{0};      ///< input bytes read
  std::atomic<bool> input_read{false};      ///< the input was read to its end
  std::atomic<std::uint64_t> rows{0};       ///< rows of this shard read (answered, skipped or not yet)
  std::atomic<std::uint64_t> succeeded{0};  ///< succeeded lines this run wrote to the file
  std::atomic<std::uint64_t> errored{0};    ///< errored lines this run wrote to the file
  std::atomic<std::uint64_t> earlier_succeeded{0};  ///< rows the file already answered, succeeded
  std::atomic<std::uint64_t> earlier_errored{0};    ///< rows the file already answered, errored
  std::atomic<std::uint64_t> attempts{0};   ///< structured_output calls evaluated
  std::atomic<std::uint64_t> retries{0};    ///< of those, the ones after an invalid call
  std::atomic<std::uint64_t> repairs{0};
  std::atomic<std::uint64_t> turns{0};
  std::atomic<std::uint64_t> input_tokens{0};
  std::atomic<std::uint64_t> output_tokens{0};
  std::atomic<std::uint64_t> in_flight{0};
};

/// Why the batch stopped.
enum class BatchStop {
  Finished,   ///< every row of the shard has a result line
  Auth,       ///< the provider refused the credentials (every row would fail)
  Temporary,  ///< a row's run ended on a temporary failure (408/429/5xx/network after retries)
  Cancelled,  ///< `cancel` was set from outside (a signal)
  InputError, ///< the input could not be read
  OutputError ///< a result line could not be written
};

/// How the batch ended.
struct BatchOutcome {
  BatchStop stop = BatchStop::Finished;
  /// For every stop but Finished: what happened (the row's error message
  /// for Auth and Temporary).
  std::string message;
  /// OutputError: `Unavailable` when writing may work later (a full disk).
  ErrorCode code = ErrorCode::Io;
};

/// Runs the batch with `models.size()` workers (at least one). With
/// `loops`, the workers are fibers, spread over the loops in turn; the first
/// loop runs on the calling thread, each other one on a thread of its own,
/// and the input is read on a thread of its own (the models' transports and
/// sleepers must be a loop's, FiberLoop::transport). Without, each worker is
/// a thread (for rows whose tools may block: built-in tools) and the calling
/// thread reads.
/// Rows marked done in `ids` are skipped (and counted as the file holds
/// them). A row whose run ends with exit 41 or 75, or a failed write, stops
/// the batch (cancelling the rows in flight); such rows, and rows cut short
/// by `cancel`, get no result line, so a rerun does them. After such a stop
/// the rest of the input is still read, to count the shard's rows; after
/// `cancel` it is not.
BatchOutcome run_batch(LineReader& input, ResultWriter& output, IdSet& ids, const BatchOptions& options,
                       const std::vector<std::unique_ptr<provider::Model>>& models, BatchProgress& progress,
                       provider::CancelToken& cancel, const std::vector<FiberLoop*>& loops = {});

}  // namespace weld::batch
