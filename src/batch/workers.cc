// The workers of a batch (workers.h; docs/batch.md, "Concurrency").
#include "weld/batch/workers.h"

#include <algorithm>
#include <thread>

namespace weld::batch {

Result<Workers> make_workers(agent::ModelRequest request, const provider::Environment& env, const WorkerOptions& options,
                             const provider::ModelFactory& offline) {
  Workers workers;
  // Rows run as fibers, on one loop per thread (each over one libcurl multi
  // handle, docs/bench-batch.md), unless the rows may block (a tool running
  // a shell command): each row then gets a thread.
  if (options.fibers) {
    const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int threads = std::min(options.threads.value_or(cpus), options.concurrency);
    for (int i = 0; i < threads; ++i) {
      workers.loops.push_back(std::make_unique<FiberLoop>(provider::network_settings(env)));
      workers.loop_list.push_back(workers.loops.back().get());
    }
  }
  // One model per worker, all behind one gate (429 pauses, max_rps). A
  // loop's transport and sleeper are those of the loop on the calling thread.
  workers.gate = std::make_unique<RequestGate>(options.max_rps, workers.loops.empty()
                                                                    ? provider::Sleeper()
                                                                    : workers.loops.front()->sleeper());
  provider::ModelHooks hooks;
  hooks.offline = offline;
  if (!workers.loops.empty()) {
    FiberLoop* loop = workers.loops.front().get();
    hooks.transport = [loop] { return loop->transport(); };
    hooks.sleep = loop->sleeper();
  }
  RequestGate* gate = workers.gate.get();
  hooks.wrap_transport = [gate](std::unique_ptr<provider::Transport> inner) {
    return gate_transport(std::move(inner), *gate);
  };
  for (int worker = 0; worker < options.concurrency; ++worker) {
    Result<agent::ModelChoice> choice = agent::choose_model(request, env, hooks);
    if (!choice) return choice.error();
    workers.models.push_back(std::move(choice->model));
    if (worker == 0) {
      workers.first = std::move(*choice);
      request.model = workers.first.model_name;
    }
  }
  return workers;
}

}  // namespace weld::batch
