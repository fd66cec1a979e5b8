#pragma once
/// \file
/// The workers of a batch (docs/batch.md): one model per worker, all behind
/// one request gate (a 429 pauses every worker; --max-rps caps the starts),
/// their transports on fiber loops — one per thread, each over one libcurl
/// multi handle — unless the rows may block (built-in tools), when each
/// worker is a thread. `weld batch` and the Python module's weld.batch build
/// them here.
///
/// \code
///   weld::batch::WorkerOptions workers;  workers.concurrency = 16;
///   auto built = weld::batch::make_workers(request, env, workers, offline_factory);
///   if (!built) return 52;                                // the model could not be chosen
///   weld::batch::run_batch(lines, writer, ids, options, built->models, progress, cancel, built->loop_list);
/// \endcode

#include <memory>
#include <optional>
#include <vector>

#include "weld/agent/model_choice.h"
#include "weld/base/result.h"
#include "weld/batch/fiber_loop.h"
#include "weld/batch/gate.h"
#include "weld/provider/config.h"

namespace weld::batch {

/// How many workers, and how they run.
struct WorkerOptions {
  /// Rows run at once (one model each).
  int concurrency = 16;
  /// Threads the fibers run on (default: the number of CPUs, at most
  /// `concurrency`).
  std::optional<int> threads;
  /// At most this many model requests started per second (0: no cap).
  double max_rps = 0;
  /// Fibers (false: a thread per worker, for rows whose tools may block).
  bool fibers = true;
};

/// The workers, ready for run_batch.
struct Workers {
  std::vector<std::unique_ptr<FiberLoop>> loops;
  /// `loops` as run_batch takes them (empty: a thread per worker).
  std::vector<FiberLoop*> loop_list;
  std::unique_ptr<RequestGate> gate;
  std::vector<std::unique_ptr<provider::Model>> models;
  /// The first worker's choice (notes, provider, base URL, model name; its
  /// model is models[0]). The others use the model it settled on, without a
  /// second look at the server's models list.
  agent::ModelChoice first;
};

/// Chooses the model (agent::choose_model, `offline` the offline model's
/// factory) once per worker. Errors are choose_model's.
Result<Workers> make_workers(agent::ModelRequest request, const provider::Environment& env, const WorkerOptions& options,
                             const provider::ModelFactory& offline);

}  // namespace weld::batch
