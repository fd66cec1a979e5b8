#include "weld/proxy/filter.h"

#include <gtest/gtest.h>

namespace weld::proxy {
namespace {

// A filter that records its calls and answers a fixed action.
class Recorder final : public Filter {
 public:
  Recorder(std::string name, std::vector<std::string>& calls, FilterAction action)
      : name_(std::move(name)), calls_(calls), action_(action) {}
  FilterAction on_request(Exchange&) override {
    calls_.push_back(name_ + ".request");
    return action_;
  }
  FilterAction on_response_end(Exchange&) override {
    calls_.push_back(name_ + ".end");
    return action_;
  }

 private:
  std::string name_;
  std::vector<std::string>& calls_;
  FilterAction action_;
};

TEST(FilterChain, RunsInOrderAndStopsAtTheFirstDecision) {
  std::vector<std::string> calls;
  FilterRegistry registry;
  registry.add("a", [&] { return std::make_unique<Recorder>("a", calls, FilterAction::Continue); });
  registry.add("b", [&] { return std::make_unique<Recorder>("b", calls, FilterAction::Reply); });
  registry.add("c", [&] { return std::make_unique<Recorder>("c", calls, FilterAction::Continue); });
  auto factories = FilterChain::resolve(registry, {"a", "b", "c"});
  ASSERT_TRUE(factories);
  FilterChain chain(*factories);
  Exchange ex;
  EXPECT_EQ(FilterAction::Reply, chain.on_request(ex));
  EXPECT_EQ(FilterAction::Reply, chain.on_response_end(ex));
  EXPECT_EQ((std::vector<std::string>{"a.request", "b.request", "a.end", "b.end"}), calls);
  Error error{ErrorCode::Timeout, "slow", ""};
  EXPECT_EQ(FilterAction::Continue, chain.on_error(ex, error));  // default: not handled
}

TEST(FilterChain, UnknownFilterIsAConfigError) {
  auto factories = FilterChain::resolve(builtin_filters(), {"agent_route", "nope"});
  ASSERT_FALSE(factories);
  EXPECT_EQ("unknown filter \"nope\"", factories.error().message);
}

TEST(FilterChain, BuiltinsCoverTheDefaultChain) {
  FilterRegistry registry = builtin_filters();
  for (const std::string& name : default_chain()) EXPECT_NE(nullptr, registry.find(name)) << name;
  EXPECT_EQ((std::vector<std::string>{"agent_route", "schema_injection", "tool_call_extraction",
                                      "response_validation", "response_render"}),
            default_chain());
}

}  // namespace
}  // namespace weld::proxy
