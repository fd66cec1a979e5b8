// list_models: the URL and headers each API expects, the ids in order, and
// clear errors for a server that answers something else. The transport is
// in memory (the network is outside our control); tests/e2e_run drives the
// real binary against a real HTTP server.
#include "weld/provider/list_models.h"

#include <gtest/gtest.h>

namespace weld::provider {
namespace {

class OneAnswer : public Transport {
 public:
  OneAnswer(int status, std::string body, HttpRequest* seen) : status_(status), body_(std::move(body)), seen_(seen) {}
  TransportOutcome perform(const HttpRequest& request, ResponseSink& sink, CancelToken&) override {
    *seen_ = request;
    sink.on_headers(status_, {{"Content-Type", "application/json"}});
    sink.on_body(body_);
    return {TransportOutcome::Kind::Complete, "", true};
  }

 private:
  int status_;
  std::string body_;
  HttpRequest* seen_;
};

ProviderConfig config_for(std::string provider, std::string base_url) {
  ProviderConfig config;
  config.provider = *parse_provider(provider);
  config.base_url = std::move(base_url);
  config.api_key = "sk-test-key-1234";
  config.retry.max_retries = 0;
  return config;
}

TEST(ListModels, OpenAiAsksBaseSlashModelsWithTheBearerKey) {
  HttpRequest seen;
  CancelToken cancel;
  auto ids = list_models(config_for("openai", "http://127.0.0.1:8000/v1"), cancel,
                         std::make_unique<OneAnswer>(200, R"({"object":"list","data":[{"id":"Qwen/Qwen3-8B","object":"model"}]})", &seen));
  ASSERT_TRUE(ids) << ids.error().message;
  EXPECT_EQ(*ids, std::vector<std::string>{"Qwen/Qwen3-8B"});
  EXPECT_EQ(seen.method, "GET");
  EXPECT_EQ(seen.url, "http://127.0.0.1:8000/v1/models");
  EXPECT_EQ(*find_header(seen.headers, "authorization"), "Bearer sk-test-key-1234");
}

TEST(ListModels, AnthropicAsksHostSlashV1ModelsWithItsHeaders) {
  HttpRequest seen;
  CancelToken cancel;
  auto ids = list_models(config_for("anthropic", "http://127.0.0.1:8000"), cancel,
                         std::make_unique<OneAnswer>(200, R"({"data":[{"id":"a"},{"id":"b"}],"has_more":false})", &seen));
  ASSERT_TRUE(ids);
  EXPECT_EQ(*ids, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(seen.url, "http://127.0.0.1:8000/v1/models");
  EXPECT_EQ(*find_header(seen.headers, "x-api-key"), "sk-test-key-1234");
  EXPECT_NE(find_header(seen.headers, "anthropic-version"), nullptr);
  EXPECT_EQ(models_url(config_for("anthropic", "http://h/v1")), "http://h/v1/models");
}

TEST(ListModels, NotAModelsListIsAProtocolErrorNamingTheUrl) {
  HttpRequest seen;
  CancelToken cancel;
  auto ids = list_models(config_for("openai", "http://h/v1"), cancel,
                         std::make_unique<OneAnswer>(200, "<html>hello</html>", &seen));
  ASSERT_FALSE(ids);
  EXPECT_EQ(ids.error().code, ErrorCode::Protocol);
  EXPECT_EQ(ids.error().message, "the answer is not a models list (no \"data\" array) (GET http://h/v1/models)");
  EXPECT_FALSE(parse_models_list(R"({"data":[{"name":"x"}]})"));
}

TEST(ListModels, HttpErrorKeepsItsStatusAndNeverTheKey) {
  HttpRequest seen;
  CancelToken cancel;
  auto ids = list_models(config_for("openai", "http://h/v1"), cancel,
                         std::make_unique<OneAnswer>(404, R"({"error":{"message":"no route sk-test-key-1234"}})", &seen));
  ASSERT_FALSE(ids);
  EXPECT_EQ(ids.error().code, ErrorCode::Http);
  EXPECT_EQ(ids.error().http_status, 404);
  EXPECT_EQ(ids.error().message.find("sk-test-key-1234"), std::string::npos);
}

}  // namespace
}  // namespace weld::provider
