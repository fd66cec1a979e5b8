#include "offline_model.h"

#include <gtest/gtest.h>

#include "weld/json/parse.h"
#include "weld/schema/schema.h"

namespace weld::sample {
namespace {

const char* kSchema = R"({"type":"object","properties":{"summary":{"type":"string","minLength":3},
  "risk_level":{"enum":["low","medium","high"]},"score":{"type":"integer","minimum":0,"maximum":1000000}},
  "required":["summary","risk_level","score"],"additionalProperties":false})";

provider::Request request_with_tool() {
  provider::Request request;
  request.messages.push_back(provider::Message{provider::Role::User, "Assess the risk.", {}, {}});
  request.tools.push_back(provider::ToolSpec{"read_file", "Reads a file", *json::parse(R"({"type":"object"})")});
  request.tools.push_back(provider::ToolSpec{"structured_output", "Final answer", *json::parse(kSchema)});
  return request;
}

TEST(OfflineModel, CallsStructuredOutputWithAValidInstance) {
  OfflineModel model(7);
  provider::CancelToken cancel;
  auto response = model.complete(request_with_tool(), {}, cancel);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ("tool_use", response->stop_reason);
  EXPECT_EQ(provider::Role::Assistant, response->message.role);
  ASSERT_EQ(1u, response->message.tool_calls.size());
  const provider::ToolCall& call = response->message.tool_calls[0];
  EXPECT_EQ("structured_output", call.name);
  EXPECT_EQ("call_offline_1", call.id);
  auto args = json::parse(call.arguments);
  ASSERT_TRUE(args) << call.arguments;
  EXPECT_TRUE(schema::Schema::compile(*json::parse(kSchema)).is_valid(*args)) << call.arguments;
  EXPECT_EQ("offline", model.provider_name());
}

TEST(OfflineModel, DeterministicForASeed) {
  provider::CancelToken cancel;
  OfflineModel a(7), b(7), c(8);
  auto first = a.complete(request_with_tool(), {}, cancel);
  auto second = b.complete(request_with_tool(), {}, cancel);
  auto other = c.complete(request_with_tool(), {}, cancel);
  ASSERT_TRUE(first && second && other);
  EXPECT_EQ(first->message.tool_calls[0].arguments, second->message.tool_calls[0].arguments);
  EXPECT_NE(first->message.tool_calls[0].arguments, other->message.tool_calls[0].arguments);
}

TEST(OfflineModel, SamplesAgainAfterAnErrorResult) {
  OfflineModel model(7);
  provider::CancelToken cancel;
  provider::Request request = request_with_tool();
  auto first = model.complete(request, {}, cancel);
  ASSERT_TRUE(first);
  request.messages.push_back(first->message);
  provider::Message feedback;
  feedback.role = provider::Role::User;
  feedback.tool_results.push_back(
      provider::ToolResult{first->message.tool_calls[0].id, "params/score must be <= 10", true});
  request.messages.push_back(feedback);
  auto second = model.complete(request, {}, cancel);
  ASSERT_TRUE(second);
  ASSERT_EQ(1u, second->message.tool_calls.size());
  EXPECT_EQ("call_offline_2", second->message.tool_calls[0].id);
  EXPECT_NE(first->message.tool_calls[0].arguments, second->message.tool_calls[0].arguments);
}

TEST(OfflineModel, PlainTextWithoutStructuredOutput) {
  OfflineModel model;
  provider::CancelToken cancel;
  provider::Request request;
  request.messages.push_back(provider::Message{provider::Role::User, "Hello", {}, {}});
  auto response = model.complete(request, {}, cancel);
  ASSERT_TRUE(response);
  EXPECT_TRUE(response->message.tool_calls.empty());
  EXPECT_EQ("end_turn", response->stop_reason);
  EXPECT_EQ("This is weld's offline model (provider=offline). It is not a language model: it only answers "
            "schema runs, with an instance sampled from the schema.",
            response->message.text);
}

// Made for the command line (make_model's hook with the CLI's names), it
// names the flags.
TEST(OfflineModel, PlainTextNamesTheSettingsAsTheCallerSays) {
  provider::ProviderConfig config;
  config.provider = provider::Provider::Offline;
  config.names.provider = "--provider";
  config.names.json_schema = "--json-schema";
  config.names.assign = " ";
  provider::ModelHooks hooks;
  hooks.offline = offline_model_factory(7);
  auto model = provider::make_model(config, hooks);
  ASSERT_TRUE(model);
  provider::CancelToken cancel;
  provider::Request request;
  request.messages.push_back(provider::Message{provider::Role::User, "Hello", {}, {}});
  auto response = (*model)->complete(request, {}, cancel);
  ASSERT_TRUE(response);
  EXPECT_EQ("This is weld's offline model (--provider offline). It is not a language model: it only answers "
            "--json-schema runs, with an instance sampled from the schema.",
            response->message.text);
}

TEST(OfflineModel, CancelledAndUnsampleable) {
  OfflineModel model;
  provider::CancelToken cancel;
  cancel.cancelled = true;
  auto cancelled = model.complete(request_with_tool(), {}, cancel);
  ASSERT_FALSE(cancelled);
  EXPECT_EQ(ErrorCode::Cancelled, cancelled.error().code);

  provider::CancelToken live;
  provider::Request request;
  request.tools.push_back(provider::ToolSpec{"structured_output", "",
                                             *json::parse(R"({"type":"object","required":["a"],
                                               "properties":{"a":{"type":"integer","minimum":2,"maximum":1}}})")});
  auto failed = model.complete(request, {}, live);
  ASSERT_FALSE(failed);
  EXPECT_EQ(ErrorCode::Offline, failed.error().code);
  EXPECT_EQ("offline model: could not sample a valid instance: no integer lies between the minimum and the maximum",
            failed.error().message);
}

// Tool arguments are objects: the empty schema {} gives an object, never a
// string or number: a tool's arguments must be an object.
TEST(OfflineModel, EmptySchemaGivesAnObject) {
  provider::CancelToken cancel;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    OfflineModel model(seed);
    provider::Request request;
    request.tools.push_back(provider::ToolSpec{"structured_output", "", json::Object{}});
    auto response = model.complete(request, {}, cancel);
    ASSERT_TRUE(response);
    auto args = json::parse(response->message.tool_calls[0].arguments);
    ASSERT_TRUE(args);
    EXPECT_TRUE(args->is_object()) << response->message.tool_calls[0].arguments;
  }
}

TEST(OfflineModel, ReportsTheCallToTheStreamObserver) {
  OfflineModel model(1);
  provider::CancelToken cancel;
  int events = 0;
  provider::StreamObserver observer;
  observer.on_event = [&](const json::Value& event) {
    ++events;
    EXPECT_EQ("structured_output", event.find("name")->as_string());
  };
  ASSERT_TRUE(model.complete(request_with_tool(), observer, cancel));
  EXPECT_EQ(1, events);
}

}  // namespace
}  // namespace weld::sample
