#include "weld/agent/hooks.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_model.h"
#include "weld/agent/run_loop.h"
#include "weld/json/parse.h"

namespace weld::agent {
namespace {
namespace fs = std::filesystem;

class HooksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("weld_hooks_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  HookSettings parse(const std::string& text) {
    HookSettings settings;
    Status s = parse_hooks(*json::parse(text), "settings.json", settings);
    EXPECT_TRUE(s.ok()) << s.error().message;
    return settings;
  }
  std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  fs::path dir_;
};

TEST_F(HooksTest, PreToolUseExit2BlocksTheCallAndItsStderrGoesToTheModel) {
  HookRunner hooks(parse(R"({"PreToolUse":[{"matcher":"write_file|edit","hooks":[{"type":"command","command":"echo 'writes are frozen' >&2; exit 2"}]}]})"),
                   "sid", dir_.string());
  auto write = make_write_file_tool();
  testing::ScriptedModel model;
  model.push(testing::answer("", {testing::call("w", "write_file", R"({"path":"f.txt","content":"x"})")}));
  model.push(testing::answer("done"));
  RunOptions options;
  options.prompt = "p";
  options.cwd = dir_.string();
  options.hooks = &hooks;
  provider::CancelToken cancel;
  RunOutcome out = run(model, {write.get()}, options, {}, cancel);
  EXPECT_EQ(out.subtype, Subtype::Success);
  EXPECT_FALSE(fs::exists(dir_ / "f.txt"));
  const auto& result = model.requests[1].messages[2].tool_results[0];
  EXPECT_TRUE(result.is_error);
  EXPECT_EQ(result.content, "writes are frozen");
}

TEST_F(HooksTest, HooksSeeRawStructuredOutputArgumentsAndPostHooksRun) {
  std::string log = (dir_ / "log.jsonl").string();
  HookRunner hooks(parse(R"({"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"cat >> )" + log +
                         R"(; echo >> )" + log + R"("}]}],"PostToolUse":[{"hooks":[{"type":"command","command":"cat >> )" +
                         log + R"("}]}]})"),
                   "sid", dir_.string());
  json::Value schema_source = json::Object{{"type", "object"}};
  schema::Schema schema = schema::Schema::compile(schema_source);
  testing::ScriptedModel model;
  model.push(testing::answer("", {testing::call("s", "structured_output", R"({"secret":"raw"})")}));
  RunOptions options;
  options.prompt = "p";
  options.cwd = dir_.string();
  options.schema = &schema;
  options.schema_source = schema_source;
  options.hooks = &hooks;
  provider::CancelToken cancel;
  RunOutcome out = run(model, {}, options, {}, cancel);
  EXPECT_EQ(out.subtype, Subtype::Success);
  std::string text = slurp(log);
  std::istringstream lines(text);
  std::string pre;
  std::getline(lines, pre);
  EXPECT_EQ(pre,
            R"({"session_id":"sid","hook_event_name":"PreToolUse","cwd":")" + dir_.string() +
                R"(","tool_name":"structured_output","tool_use_id":"s","tool_input":{"secret":"raw"}})");
  EXPECT_NE(text.find(R"("hook_event_name":"PostToolUse")"), std::string::npos) << text;
}

TEST_F(HooksTest, BadHookSettingsNameTheField) {
  HookSettings settings;
  Status s = parse_hooks(*json::parse(R"({"PreToolUse":[{"hooks":[{"type":"shell","command":"x"}]}]})"), "/h/s.json",
                         settings);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            "Settings file \"/h/s.json\": hooks.PreToolUse[0].hooks[0].type must be \"command\" or \"http\".");
  s = parse_hooks(*json::parse(R"({"PostToolUse":[{"matcher":"(","hooks":[]}]})"), "/h/s.json", settings);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message.rfind("Settings file \"/h/s.json\": hooks.PostToolUse[0].matcher is not a valid regular expression: ", 0), 0u);
}

TEST_F(HooksTest, AHookThatHangsIsKilledAtItsTimeout) {
  HookRunner hooks(parse(R"({"PreToolUse":[{"hooks":[{"type":"command","command":"sleep 30","timeout":1}]}]})"), "sid",
                   dir_.string());
  HookRunner::Decision d = hooks.pre_tool_use({"c", "read_file", "{}"}, nullptr);
  EXPECT_FALSE(d.blocked);
}

}  // namespace
}  // namespace weld::agent

namespace weld::agent {
namespace {

// HTTP hooks go through the provider's Transport (one HTTP client for the run), not a curl
// call of their own: the transport sees the POST, its body and its headers.
class RecordingTransport : public provider::Transport {
 public:
  explicit RecordingTransport(std::vector<provider::HttpRequest>* seen) : seen_(seen) {}
  provider::TransportOutcome perform(const provider::HttpRequest& request, provider::ResponseSink& sink,
                                     provider::CancelToken&) override {
    seen_->push_back(request);
    sink.on_headers(204, {});
    return {provider::TransportOutcome::Kind::Complete, "", true};
  }

 private:
  std::vector<provider::HttpRequest>* seen_;
};

TEST(HttpHooks, PostThroughTheProviderTransport) {
  HookSettings settings;
  ASSERT_TRUE(parse_hooks(*json::parse(R"({"PostToolUse":[{"hooks":[{"type":"http","url":"http://127.0.0.1:9/audit","timeout":5}]}]})"),
                          "s.json", settings));
  HookRunner hooks(settings, "sid", "/work");
  std::vector<provider::HttpRequest> seen;
  hooks.set_transport_factory([&] { return std::make_unique<RecordingTransport>(&seen); });
  hooks.post_tool_use({"c1", "read_file", R"({"path":"a"})"}, ToolOutput{"text", false}, nullptr);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].url, "http://127.0.0.1:9/audit");
  EXPECT_EQ(seen[0].idle_timeout, std::chrono::seconds(5));
  ASSERT_NE(provider::find_header(seen[0].headers, "content-type"), nullptr);
  json::Value body = *json::parse(seen[0].body);
  EXPECT_EQ(body.find("hook_event_name")->as_string(), "PostToolUse");
  EXPECT_EQ(body.find("tool_response")->find("content")->as_string(), "text");
}

}  // namespace
}  // namespace weld::agent
