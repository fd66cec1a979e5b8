#include "weld/batch/shard.h"

#include <gtest/gtest.h>

namespace weld::batch {
namespace {

using Env = std::map<std::string, std::string>;

TEST(ChooseShard, WholeInputByDefault) {
  auto shard = choose_shard(std::nullopt, std::nullopt, {});
  ASSERT_TRUE(shard);
  EXPECT_EQ(shard->index, 0u);
  EXPECT_EQ(shard->count, 1u);
}

TEST(ChooseShard, FlagWinsOverTheEnvironment) {
  auto shard = choose_shard("2/5", std::nullopt, Env{{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "4"}});
  ASSERT_TRUE(shard);
  EXPECT_EQ(shard->index, 2u);
  EXPECT_EQ(shard->count, 5u);
  EXPECT_EQ(shard->source, "--shard");
}

TEST(ChooseShard, BadFlagsAreUsageErrors) {
  EXPECT_EQ(choose_shard("4/4", std::nullopt, {}).error().message,
            "--shard must be I/N with 0 <= I < N, e.g. --shard 0/4 (got \"4/4\").");
  EXPECT_EQ(choose_shard("x", std::nullopt, {}).error().code, ErrorCode::Usage);
  EXPECT_EQ(choose_shard("1/4", 3u, {}).error().message, "--shard 1/4 and --shards 3 disagree.");
  EXPECT_EQ(choose_shard(std::nullopt, 3u, {}).error().message,
            "--shards 3 needs a shard index: --shard I/N, JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID.");
}

TEST(ChooseShard, KubernetesIndexedJobNeedsShards) {
  Env env{{"JOB_COMPLETION_INDEX", "3"}};
  auto shard = choose_shard(std::nullopt, 4u, env);
  ASSERT_TRUE(shard);
  EXPECT_EQ(shard->index, 3u);
  EXPECT_EQ(shard->count, 4u);
  EXPECT_EQ(choose_shard(std::nullopt, std::nullopt, env).error().message,
            "JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job): pass --shards N, N being the Job's completions, "
            "or --shard I/N.");
  EXPECT_EQ(choose_shard(std::nullopt, 3u, env).error().message, "JOB_COMPLETION_INDEX 3 is not below --shards 3.");
}

TEST(ChooseShard, SlurmArrayPositionFromMinAndStep) {
  auto plain = choose_shard(std::nullopt, std::nullopt, Env{{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_COUNT", "4"}});
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->index, 2u);
  EXPECT_EQ(plain->count, 4u);
  auto stepped = choose_shard(std::nullopt, std::nullopt,
                              Env{{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_COUNT", "4"},
                                  {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_STEP", "2"}});
  ASSERT_TRUE(stepped);
  EXPECT_EQ(stepped->index, 2u);
  EXPECT_EQ(choose_shard(std::nullopt, std::nullopt, Env{{"SLURM_ARRAY_TASK_ID", "9"}, {"SLURM_ARRAY_TASK_COUNT", "4"}})
                .error()
                .message,
            "SLURM_ARRAY_TASK_ID 9 is not one of the array's 4 tasks.");
}

TEST(ExpandShard, ReplacesEveryPlaceholder) {
  EXPECT_EQ(expand_shard("out/{shard}/r-{shard}.jsonl", Shard{12, 16, ""}), "out/12/r-12.jsonl");
  EXPECT_EQ(expand_shard("-", Shard{1, 2, ""}), "-");
}

}  // namespace
}  // namespace weld::batch
