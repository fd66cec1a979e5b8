#include "weld/batch/runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "../agent/test_model.h"
#include "offline_model.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/schema/schema.h"

namespace weld::batch {
namespace {

using agent::testing::answer;
using agent::testing::call;
using agent::testing::ScriptedModel;

constexpr const char* kSchema =
    R"({"type":"object","properties":{"label":{"enum":["a","b"]}},"required":["label"],"additionalProperties":false})";

// Every test runs twice: rows on worker threads, and rows as fibers.
class RunnerTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/weld-runner-test-XXXXXX";
    dir_ = ::mkdtemp(pattern);
    path_ = dir_ + "/out.jsonl";
    source_ = json::parse(kSchema).value();
    schema_.emplace(schema::Schema::compile(source_));
    options_.run.schema = &*schema_;
    options_.run.schema_source = source_;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs `input` with `models`; returns the output file's lines.
  std::vector<json::Value> run(const std::string& input, const std::vector<std::unique_ptr<provider::Model>>& models) {
    IdSet ids;
    ResumeScan scan;
    auto writer = ResultWriter::open(path_, {}, ids, scan);
    EXPECT_TRUE(writer);
    LineReader lines(memory_source(input));
    progress_ = std::make_unique<BatchProgress>();
    provider::CancelToken cancel;
    if (cancel_hook_) cancel_hook_(cancel);
    outcome_ = run_batch(lines, **writer, ids, options_, models, *progress_, cancel, GetParam() ? std::vector<FiberLoop*>{&fibers_, &second_loop_} : std::vector<FiberLoop*>{});
    writer->reset();
    std::ifstream in(path_);
    std::vector<json::Value> out;
    for (std::string line; std::getline(in, line);) out.push_back(json::parse(line).value());
    return out;
  }

  static std::vector<std::unique_ptr<provider::Model>> offline(int n) {
    std::vector<std::unique_ptr<provider::Model>> models;
    for (int i = 0; i < n; ++i) models.push_back(std::make_unique<sample::OfflineModel>(0));
    return models;
  }

  // Fibers run on two loops (two threads), as `weld batch --threads 2`.
  FiberLoop fibers_{provider::NetworkSettings{}};
  FiberLoop second_loop_{provider::NetworkSettings{}};
  std::string dir_, path_;
  json::Value source_;
  std::optional<schema::Schema> schema_;
  BatchOptions options_;
  std::unique_ptr<BatchProgress> progress_;
  BatchOutcome outcome_;
  /// Given the batch's cancel token before it runs (a test cancelling it).
  std::function<void(provider::CancelToken&)> cancel_hook_;
};

// Threads of this process (/proc/self/status).
int thread_count() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  return -1;
}

// The row's id, or "line N" for a row without one.
std::string custom_id(const json::Value& line) {
  const json::Value* id = line.find("custom_id");
  return id->is_null() ? "line " + std::to_string(line.find("line")->as_integer()) : id->as_string();
}

TEST_P(RunnerTest, EveryShapeBadLinesAndDuplicatesGetOneLineEach) {
  const std::string input =
      R"({"custom_id":"o1","method":"POST","url":"/v1/chat/completions","body":{"messages":[{"role":"user","content":"x"}]}})"
      "\n"
      R"({"custom_id":"a1","params":{"messages":[{"role":"user","content":"x"}]}})"
      "\n"
      R"({"id":"d1","text":"row"})"
      "\n"
      "not json\n"
      R"({"id":"d1","text":"again"})"
      "\n";
  auto lines = run(input, offline(3));
  EXPECT_EQ(outcome_.stop, BatchStop::Finished);
  ASSERT_EQ(lines.size(), 5u);
  std::map<std::string, std::vector<std::string>> status;
  for (const auto& line : lines) {
    std::string what = line.find("status")->as_string();
    if (const auto* error = line.find("error")) what += ":" + error->find("type")->as_string();
    status[custom_id(line)].push_back(what);
  }
  EXPECT_EQ(status["o1"], std::vector<std::string>{"succeeded"});
  EXPECT_EQ(status["a1"], std::vector<std::string>{"succeeded"});
  EXPECT_EQ(status["line 4"], std::vector<std::string>{"errored:error_invalid_input"});
  ASSERT_EQ(status["d1"].size(), 2u);
  EXPECT_EQ(progress_->succeeded.load(), 3u);
  EXPECT_EQ(progress_->errored.load(), 2u);
}

TEST_P(RunnerTest, ASecondRunSkipsAnsweredRowsIncludingTheDuplicateLine) {
  const std::string input = "{\"id\":\"x\"}\n{\"id\":\"y\"}\n{\"id\":\"x\"}\n";
  ASSERT_EQ(run(input, offline(2)).size(), 3u);
  auto again = run(input, offline(2));
  EXPECT_EQ(again.size(), 3u);
  // The repeated id's errored line counts as the errored row it is.
  EXPECT_EQ(progress_->earlier_succeeded.load(), 2u);
  EXPECT_EQ(progress_->earlier_errored.load(), 1u);
  EXPECT_EQ(progress_->succeeded.load() + progress_->errored.load(), 0u);
}

// After a stop (here 41) the reader reads on, only counting: the summary
// covers every row of the shard, not the ones read before the stop.
TEST_P(RunnerTest, AStoppedBatchStillCountsTheShardsRows) {
  std::vector<std::unique_ptr<provider::Model>> models;
  auto model = std::make_unique<ScriptedModel>();
  model->push_error(ErrorCode::Auth, "the provider refused the credentials: HTTP 401");
  model->repeat_last();
  models.push_back(std::move(model));
  std::string input;
  for (int i = 1; i <= 300; ++i) input += "{\"id\":" + std::to_string(i) + "}\n";
  EXPECT_TRUE(run(input, models).empty());
  EXPECT_EQ(outcome_.stop, BatchStop::Auth);
  EXPECT_EQ(progress_->rows.load(), 300u);
  EXPECT_TRUE(progress_->input_read.load());
  EXPECT_EQ(progress_->succeeded.load() + progress_->errored.load(), 0u);
}

TEST_P(RunnerTest, ShardsPartitionTheRows) {
  std::string input;
  for (int i = 0; i < 200; ++i) input += "{\"id\":\"row-" + std::to_string(i) + "\"}\n";
  std::set<std::string> seen;
  std::size_t total = 0;
  for (std::uint32_t shard = 0; shard < 3; ++shard) {
    std::filesystem::remove(path_);
    options_.shard = Shard{shard, 3, "--shard"};
    auto lines = run(input, offline(2));
    EXPECT_GT(lines.size(), 30u);
    for (const auto& line : lines) seen.insert(custom_id(line));
    total += lines.size();
  }
  EXPECT_EQ(total, 200u);
  EXPECT_EQ(seen.size(), 200u);
}

TEST_P(RunnerTest, RefusedCredentialsStopTheBatchWithoutALine) {
  std::vector<std::unique_ptr<provider::Model>> models;
  auto model = std::make_unique<ScriptedModel>();
  model->push(answer("", {call("c1", "structured_output", R"({"label":"a"})")}));
  model->push_error(ErrorCode::Auth, "the provider refused the credentials: HTTP 401");
  model->repeat_last();
  models.push_back(std::move(model));
  auto lines = run("{\"id\":1}\n{\"id\":2}\n{\"id\":3}\n", models);
  EXPECT_EQ(outcome_.stop, BatchStop::Auth);
  EXPECT_EQ(outcome_.message, "the provider refused the credentials: HTTP 401");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(custom_id(lines[0]), "1");
}

TEST_P(RunnerTest, ATemporaryFailureStopsTheBatchAndTheRowIsLeftForTheRerun) {
  std::vector<std::unique_ptr<provider::Model>> models;
  auto model = std::make_unique<ScriptedModel>();
  model->push_step([](const provider::Request&, provider::CancelToken&) -> Result<provider::Response> {
    return Error{.code = ErrorCode::Http, .message = "HTTP 503 Service Unavailable after 4 attempts", .http_status = 503, .temporary = true};
  });
  models.push_back(std::move(model));
  auto lines = run("{\"id\":1}\n{\"id\":2}\n", models);
  EXPECT_EQ(outcome_.stop, BatchStop::Temporary);
  EXPECT_TRUE(lines.empty());
  // The rerun does both rows.
  auto rerun = run("{\"id\":1}\n{\"id\":2}\n", offline(1));
  EXPECT_EQ(outcome_.stop, BatchStop::Finished);
  EXPECT_EQ(rerun.size(), 2u);
}

TEST_P(RunnerTest, InvalidAnswersEndInAnErroredLineWithTheSubtype) {
  options_.run.max_structured_retries = 1;
  std::vector<std::unique_ptr<provider::Model>> models;
  auto model = std::make_unique<ScriptedModel>();
  model->push(answer("", {call("c1", "structured_output", R"({"label":"zzz"})")}));
  model->repeat_last();
  models.push_back(std::move(model));
  auto lines = run("{\"id\":\"r\"}\n", models);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].find("status")->as_string(), "errored");
  EXPECT_EQ(lines[0].find("error")->find("type")->as_string(), "error_max_structured_output_retries");
  EXPECT_EQ(lines[0].find("attempts")->as_integer(), 2);
  EXPECT_EQ(json::serialize(*lines[0].find("last_candidate")), R"({"label":"zzz"})");
}

// A row that outlasts --max-wall-time ends with its own errored line
// (error_budget), and the batch goes on: each row has a cancel token of its
// own, the batch's cancel reaching it through the batch. As fibers, no
// thread watches a row's time (the loop does).
TEST_P(RunnerTest, ARowsSpentWallTimeEndsThatRowOnly) {
  const bool fibers = GetParam();
  options_.run.max_wall_time_seconds = 0.05;
  const int threads_before = thread_count();
  std::atomic<int> threads_during{0};
  std::vector<std::unique_ptr<provider::Model>> models;
  for (int i = 0; i < 2; ++i) {  // one per loop
    auto model = std::make_unique<ScriptedModel>();
    // A stalled upstream: each request waits an hour (on its loop's clock).
    model->push_step([&, this](const provider::Request&, provider::CancelToken& cancel) -> Result<provider::Response> {
      int now = thread_count();
      for (int seen = threads_during.load(); now > seen && !threads_during.compare_exchange_weak(seen, now);) {
      }
      const bool slept = fibers ? FiberLoop::on_this_thread(fibers_).sleep_for(std::chrono::hours(1), cancel)
                                : provider::sleep_unless_cancelled(std::chrono::hours(1), cancel);
      if (!slept) return Error{ErrorCode::Cancelled, "the request was cancelled", ""};
      return Error{ErrorCode::Http, "an hour passed", ""};
    });
    model->repeat_last();
    models.push_back(std::move(model));
  }
  // More rows than the queue holds (2 per worker) and the workers take: the
  // reader is still there, waiting for room, while the first rows run.
  std::string input;
  for (int i = 1; i <= 9; ++i) input += "{\"id\":" + std::to_string(i) + "}\n";
  auto lines = run(input, models);
  EXPECT_EQ(outcome_.stop, BatchStop::Finished);
  ASSERT_EQ(lines.size(), 9u);
  for (const auto& line : lines) {
    EXPECT_EQ(line.find("status")->as_string(), "errored");
    EXPECT_EQ(line.find("error")->find("type")->as_string(), "error_budget");
  }
  // As fibers, the input reader, the second loop and the result writer's
  // flusher (started by the first line written, before the third row's
  // request) are the threads the batch adds: no watcher per row.
  if (fibers) {
    EXPECT_EQ(threads_during.load(), threads_before + 3);
  }
}

// A cancel from outside (SIGINT) still stops rows in flight on threads and
// fibers alike, and leaves them unanswered (the rerun does them).
TEST_P(RunnerTest, ACancelStopsRowsInFlight) {
  std::vector<std::unique_ptr<provider::Model>> models;
  provider::CancelToken* batch_cancel = nullptr;
  for (int i = 0; i < 2; ++i) {
    auto model = std::make_unique<ScriptedModel>();
    model->push_step([&, this](const provider::Request&, provider::CancelToken& cancel) -> Result<provider::Response> {
      // The first request cancels the batch, as SIGINT would, then waits.
      if (batch_cancel != nullptr) batch_cancel->cancelled = true;
      const bool slept = GetParam() ? FiberLoop::on_this_thread(fibers_).sleep_for(std::chrono::hours(1), cancel)
                                    : provider::sleep_unless_cancelled(std::chrono::hours(1), cancel);
      if (!slept) return Error{ErrorCode::Cancelled, "the request was cancelled", ""};
      return Error{ErrorCode::Http, "an hour passed", ""};
    });
    model->repeat_last();
    models.push_back(std::move(model));
  }
  cancel_hook_ = [&](provider::CancelToken& cancel) { batch_cancel = &cancel; };
  auto lines = run("{\"id\":1}\n{\"id\":2}\n{\"id\":3}\n", models);
  EXPECT_EQ(outcome_.stop, BatchStop::Cancelled);
  EXPECT_TRUE(lines.empty());
}

INSTANTIATE_TEST_SUITE_P(ThreadsAndFibers, RunnerTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) { return info.param ? "Fibers" : "Threads"; });

}  // namespace
}  // namespace weld::batch
