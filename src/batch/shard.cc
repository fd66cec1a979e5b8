// Choosing this process's shard (docs/batch.md, "Sharding: one input, many machines"): the flag wins, then Kubernetes'
// JOB_COMPLETION_INDEX (which does not say how many completions there are,
// hence --shards), then Slurm's array variables. Slurm arrays need not start
// at 0 or step by 1 (--array=1-8:2): the shard index is the task's position
// in the array, (ID - MIN) / STEP.

#include "weld/batch/shard.h"

#include <string_view>

namespace weld::batch {
namespace {

std::optional<std::uint64_t> whole_number(std::string_view text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  return std::stoull(std::string(text));
}

const std::string* variable(const std::map<std::string, std::string>& env, const char* name) {
  auto it = env.find(name);
  return it == env.end() || it->second.empty() ? nullptr : &it->second;
}

Error usage(std::string message) { return Error{ErrorCode::Usage, std::move(message), ""}; }

}  // namespace

Result<Shard> choose_shard(const std::optional<std::string>& shard_flag, const std::optional<std::uint32_t>& shards_flag,
                           const std::map<std::string, std::string>& env) {
  if (shards_flag && *shards_flag == 0) return usage("--shards must be at least 1.");
  if (shard_flag) {
    const std::string& text = *shard_flag;
    std::size_t slash = text.find('/');
    auto index = slash == std::string::npos ? std::nullopt : whole_number(std::string_view(text).substr(0, slash));
    auto count = slash == std::string::npos ? std::nullopt : whole_number(std::string_view(text).substr(slash + 1));
    if (!index || !count || *count == 0 || *index >= *count)
      return usage("--shard must be I/N with 0 <= I < N, e.g. --shard 0/4 (got \"" + text + "\").");
    if (shards_flag && *shards_flag != *count)
      return usage("--shard " + text + " and --shards " + std::to_string(*shards_flag) + " disagree.");
    return Shard{static_cast<std::uint32_t>(*index), static_cast<std::uint32_t>(*count), "--shard"};
  }
  if (const std::string* job = variable(env, "JOB_COMPLETION_INDEX")) {
    auto index = whole_number(*job);
    if (!index) return usage("JOB_COMPLETION_INDEX must be a whole number (got \"" + *job + "\").");
    if (!shards_flag)
      return usage("JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job): pass --shards N, N being the Job's "
                   "completions, or --shard I/N.");
    if (*index >= *shards_flag)
      return usage("JOB_COMPLETION_INDEX " + *job + " is not below --shards " + std::to_string(*shards_flag) + ".");
    return Shard{static_cast<std::uint32_t>(*index), *shards_flag, "JOB_COMPLETION_INDEX"};
  }
  if (const std::string* task = variable(env, "SLURM_ARRAY_TASK_ID")) {
    const std::string* count_text = variable(env, "SLURM_ARRAY_TASK_COUNT");
    auto id = whole_number(*task);
    auto count = count_text ? whole_number(*count_text) : std::nullopt;
    if (!id || !count || *count == 0)
      return usage("SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT must be whole numbers (got \"" + *task + "\" and \"" +
                   (count_text ? *count_text : std::string()) + "\").");
    std::uint64_t min = 0, step = 1;
    if (const std::string* text = variable(env, "SLURM_ARRAY_TASK_MIN")) min = whole_number(*text).value_or(0);
    if (const std::string* text = variable(env, "SLURM_ARRAY_TASK_STEP")) step = whole_number(*text).value_or(1);
    if (step == 0) step = 1;
    if (*id < min || (*id - min) % step != 0 || (*id - min) / step >= *count)
      return usage("SLURM_ARRAY_TASK_ID " + *task + " is not one of the array's " + *count_text + " tasks.");
    if (shards_flag && *shards_flag != *count)
      return usage("--shards " + std::to_string(*shards_flag) + " disagrees with SLURM_ARRAY_TASK_COUNT " +
                   *count_text + ".");
    return Shard{static_cast<std::uint32_t>((*id - min) / step), static_cast<std::uint32_t>(*count),
                 "SLURM_ARRAY_TASK_ID"};
  }
  if (shards_flag && *shards_flag != 1)
    return usage("--shards " + std::to_string(*shards_flag) +
                 " needs a shard index: --shard I/N, JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID.");
  return Shard{};
}

std::string expand_shard(std::string pattern, const Shard& shard) {
  const std::string index = std::to_string(shard.index);
  for (std::size_t at = pattern.find("{shard}"); at != std::string::npos; at = pattern.find("{shard}", at + index.size()))
    pattern.replace(at, 7, index);
  return pattern;
}

}  // namespace weld::batch
