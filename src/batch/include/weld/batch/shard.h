#pragma once
/// \file
/// Which shard of the input this process runs (docs/batch.md, "Sharding: one input, many machines"): `--shard I/N`, or
/// the scheduler's own variables — `JOB_COMPLETION_INDEX` (Kubernetes
/// Indexed Jobs, with `--shards N`) and `SLURM_ARRAY_TASK_ID` /
/// `SLURM_ARRAY_TASK_COUNT` (Slurm job arrays). A row's shard is
/// `shard_of(key_of_id(id), N)` (ids.h).
///
/// \code
///   auto shard = weld::batch::choose_shard(flag, shards_flag, weld::provider::process_environment());
///   if (!shard) return fail(1, shard.error().message);
///   std::string out = weld::batch::expand_shard("out-{shard}.jsonl", *shard);  // out-2.jsonl
/// \endcode

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "weld/base/result.h"

namespace weld::batch {

/// Shard `index` of `count` (0-based); {0, 1} is the whole input.
struct Shard {
  std::uint32_t index = 0;
  std::uint32_t count = 1;
  /// Where the choice came from ("--shard", "JOB_COMPLETION_INDEX",
  /// "SLURM_ARRAY_TASK_ID", or "" for the whole input).
  std::string source;
};

/// The shard from `--shard I/N` (when given), else from the environment.
/// Errors (code "usage") name the flag or variable and the value.
Result<Shard> choose_shard(const std::optional<std::string>& shard_flag, const std::optional<std::uint32_t>& shards_flag,
                           const std::map<std::string, std::string>& env);

/// `pattern` with each "{shard}" replaced by the shard's index.
std::string expand_shard(std::string pattern, const Shard& shard);

}  // namespace weld::batch
