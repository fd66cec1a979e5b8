#include "weld/proxy/registry.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::proxy {
namespace {

TEST(Registry, DefaultHasTheSourcesFourShapes) {
  auto registry = load_registry(default_registry_text(), "default");
  ASSERT_TRUE(registry) << registry.error().message;
  EXPECT_EQ((std::vector<std::string>{"router", "advisor", "ticket", "brief"}), (*registry)->names());
  const Agent* brief = (*registry)->find("brief");
  ASSERT_NE(nullptr, brief);
  EXPECT_EQ(2, brief->max_retries);
  EXPECT_TRUE(brief->clamp);
  EXPECT_EQ(Mode::Forced, brief->mode);
  ASSERT_NE(nullptr, brief->schema);
  EXPECT_TRUE(brief->schema->is_valid(*json::parse(R"({"options":[{"label":"a","confidence":0.5,"reason":"r"}],"summary":"s"})")));
  EXPECT_FALSE(brief->schema->is_valid(*json::parse(R"({"options":[],"summary":"s"})")));
}

TEST(Registry, ShippedConfigFileEqualsTheEmbeddedDefault) {
  std::ifstream in(std::string(WELD_SOURCE_DIR) + "/config/agents.json");
  std::stringstream text;
  text << in.rdbuf();
  auto file = json::parse(text.str());
  auto embedded = json::parse(default_registry_text());
  ASSERT_TRUE(file);
  ASSERT_TRUE(embedded);
  EXPECT_TRUE(*file == *embedded);
}

TEST(Registry, OptionalFields) {
  auto registry = load_registry(R"({"r":{"description":"d","input_schema":{"type":"object"},
    "max_retries":0,"clamp":false,"mode":"two_phase","mechanism":"auto"}})", "t.json");
  ASSERT_TRUE(registry) << registry.error().message;
  const Agent* agent = (*registry)->find("r");
  ASSERT_NE(nullptr, agent);
  EXPECT_EQ(0, agent->max_retries);
  EXPECT_FALSE(agent->clamp);
  EXPECT_EQ(Mode::TwoPhase, agent->mode);
  EXPECT_EQ(Mechanism::Auto, agent->mechanism);
  EXPECT_FALSE(agent->stream_partial);
  EXPECT_EQ(nullptr, (*registry)->find("x"));
}

TEST(Registry, StreamPartial) {
  auto registry = load_registry(R"({"on":{"input_schema":{"type":"object"},"stream_partial":true},
    "off":{"input_schema":{"type":"object"},"stream_partial":false,"mode":"two_phase"}})", "t.json");
  ASSERT_TRUE(registry) << registry.error().message;
  EXPECT_TRUE((*registry)->find("on")->stream_partial);
  EXPECT_FALSE((*registry)->find("off")->stream_partial);
}

TEST(Registry, InvalidSchemaNamesTheAgent) {
  auto registry = load_registry(R"({"ok":{"input_schema":{"type":"object"}},
    "bad":{"description":"d","input_schema":{"type":"object","properties":{"x":{"type":42}}}}})", "agents.json");
  ASSERT_FALSE(registry);
  EXPECT_EQ("bad", registry.error().where);
  EXPECT_EQ(0u, registry.error().message.rfind("agents.json: agent \"bad\": input_schema is not a valid JSON Schema: ", 0))
      << registry.error().message;
}

TEST(Registry, UnknownKeywordIsRefusedStrictly) {
  auto registry = load_registry(R"({"a":{"input_schema":{"type":"object","propertees":{}}}})", "f");
  ASSERT_FALSE(registry);
  EXPECT_NE(std::string::npos, registry.error().message.find("propertees")) << registry.error().message;
}

TEST(Registry, StrictFalseAllowsUnknownKeywordsPerAgent) {
  auto registry = load_registry(R"({"loose":{"input_schema":{"type":"object","propertees":{}},"strict":false},
                                   "tight":{"input_schema":{"type":"object","properties":{"n":{"type":"integer"}}}}})",
                                "f");
  ASSERT_TRUE(registry) << registry.error().message;
  // Strict off changes what compiles, never what validates.
  const Agent* loose = (*registry)->find("loose");
  ASSERT_NE(nullptr, loose);
  EXPECT_TRUE(loose->schema->is_valid(json::Value(json::Object{{"propertees", 1}})));
  auto bad = load_registry(R"({"a":{"input_schema":{"type":"object"},"strict":"no"}})", "f");
  ASSERT_FALSE(bad);
  EXPECT_EQ("f: agent \"a\": strict must be true or false", bad.error().message);
  auto strict = load_registry(R"({"a":{"input_schema":{"type":"object","propertees":{}},"strict":true}})", "f");
  EXPECT_FALSE(strict);
}

TEST(Registry, RootMustAcceptObjects) {
  auto registry = load_registry(R"({"list":{"input_schema":{"type":"array"}}})", "f");
  ASSERT_FALSE(registry);
  EXPECT_EQ(0u, registry.error().message.rfind(
                    "f: agent \"list\": input_schema root must accept object-typed values (tool parameters are always "
                    "JSON objects).",
                    0))
      << registry.error().message;
}

TEST(Registry, ChatTemplateKwargs) {
  auto registry = load_registry(R"({
    "own":{"input_schema":{"type":"object"},"chat_template_kwargs":{"enable_thinking":false,"thinking_budget":0}},
    "none":{"input_schema":{"type":"object"},"chat_template_kwargs":false},
    "default":{"input_schema":{"type":"object"}}})", "t.json");
  ASSERT_TRUE(registry) << registry.error().message;
  const Agent* own = (*registry)->find("own");
  ASSERT_NE(nullptr, own);
  EXPECT_TRUE(own->chat_template_kwargs);
  ASSERT_TRUE(own->template_kwargs.is_object());
  EXPECT_EQ(R"({"enable_thinking":false,"thinking_budget":0})", json::serialize(own->template_kwargs));
  const Agent* none = (*registry)->find("none");
  ASSERT_NE(nullptr, none);
  EXPECT_FALSE(none->chat_template_kwargs);
  EXPECT_TRUE(none->template_kwargs.is_null());
  const Agent* fallback = (*registry)->find("default");
  ASSERT_NE(nullptr, fallback);
  EXPECT_TRUE(fallback->chat_template_kwargs);
  EXPECT_TRUE(fallback->template_kwargs.is_null());
}

TEST(Registry, StructuralErrors) {
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"[1]", "f: must be a JSON object mapping agent names to {\"description\", \"input_schema\"}"},
      {"{", nullptr},
      {"{}", "f: defines no agents"},
      {R"({"a b":{"input_schema":{}}})", "f: agent \"a b\": invalid agent name (use 1-64 characters of A-Z a-z 0-9 _ -)"},
      {R"({"a":1})", "f: agent \"a\": must be an object"},
      {R"({"a":{}})", "f: agent \"a\": input_schema is missing"},
      {R"({"a":{"input_schema":[]}})", "f: agent \"a\": input_schema must be a JSON object describing a schema"},
      {R"({"a":{"input_schema":{},"max_retry":1}})",
       "f: agent \"a\": unknown field \"max_retry\" (known: description, input_schema, max_retries, clamp, mode, "
       "mechanism, chat_template_kwargs, passthrough_when, stream_partial, strict)"},
      {R"({"a":{"input_schema":{},"stream_partial":"yes"}})", "f: agent \"a\": stream_partial must be true or false"},
      {R"({"a":{"input_schema":{},"stream_partial":1}})", "f: agent \"a\": stream_partial must be true or false"},
      {R"({"a":{"input_schema":{},"mode":"two_phase","stream_partial":true}})",
       "f: agent \"a\": stream_partial needs mode \"forced\" (two_phase answers are not streamed)"},
      {R"({"a":{"input_schema":{},"passthrough_when":{"max_tokens_below":-1}}})",
       "f: agent \"a\": passthrough_when.max_tokens_below must be a positive integer"},
      {R"({"a":{"input_schema":{},"chat_template_kwargs":"enable_thinking=false"}})",
       "f: agent \"a\": chat_template_kwargs must be an object (passed to an OpenAI-compatible upstream's chat "
       "template, e.g. {\"enable_thinking\": false}) or false (send none)"},
      {R"({"a":{"input_schema":{},"chat_template_kwargs":true}})",
       "f: agent \"a\": chat_template_kwargs must be an object (passed to an OpenAI-compatible upstream's chat "
       "template, e.g. {\"enable_thinking\": false}) or false (send none)"},
      {R"({"a":{"input_schema":{},"chat_template_kwargs":[{"enable_thinking":false}]}})",
       "f: agent \"a\": chat_template_kwargs must be an object (passed to an OpenAI-compatible upstream's chat "
       "template, e.g. {\"enable_thinking\": false}) or false (send none)"},
      {R"({"a":{"input_schema":{},"max_retries":-1}})", "f: agent \"a\": max_retries must be an integer from 0 to 10"},
      {R"({"a":{"input_schema":{},"clamp":"yes"}})", "f: agent \"a\": clamp must be true or false"},
      {R"({"a":{"input_schema":{},"mode":"free"}})", "f: agent \"a\": mode must be \"forced\" or \"two_phase\""},
      {R"({"a":{"input_schema":{},"mechanism":"grammar"}})",
       "f: agent \"a\": mechanism must be \"tool\", \"native\" or \"auto\""},
      {R"({"a":{"input_schema":{},"description":5}})", "f: agent \"a\": description must be a string"},
  };
  for (const Case& c : cases) {
    auto registry = load_registry(c.text, "f");
    ASSERT_FALSE(registry) << c.text;
    if (c.message != nullptr) {
      EXPECT_EQ(c.message, registry.error().message);
    } else {
      EXPECT_EQ(0u, registry.error().message.rfind("f: not valid JSON: ", 0)) << registry.error().message;
    }
  }
}

TEST(Registry, FileErrors) {
  auto missing = load_registry_file("/nonexistent/agents.json");
  ASSERT_FALSE(missing);
  EXPECT_EQ("/nonexistent/agents.json: cannot read: No such file or directory", missing.error().message);
  auto dir = load_registry_file("/tmp");
  ASSERT_FALSE(dir);
  EXPECT_EQ("/tmp: not a regular file", dir.error().message);
}

// A FIFO (or /dev/zero) named as the registry used to block the start or
// grow without bound: it is refused at once, like a directory.
TEST(Registry, FifoAndDevicesAreRefusedWithoutBlocking) {
  const std::string fifo = ::testing::TempDir() + "weld-registry-fifo";
  ::unlink(fifo.c_str());
  ASSERT_EQ(0, ::mkfifo(fifo.c_str(), 0600));
  auto from_fifo = load_registry_file(fifo);
  ::unlink(fifo.c_str());
  ASSERT_FALSE(from_fifo);
  EXPECT_EQ(fifo + ": not a regular file", from_fifo.error().message);
  auto zero = load_registry_file("/dev/zero");
  ASSERT_FALSE(zero);
  EXPECT_EQ("/dev/zero: not a regular file", zero.error().message);
}

TEST(Registry, FileOverTheCapIsRefused) {
  const std::string path = ::testing::TempDir() + "weld-registry-big.json";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << '{' << std::string((16u << 20) + 1, ' ') << '}';
  }
  auto big = load_registry_file(path);
  ::unlink(path.c_str());
  ASSERT_FALSE(big);
  EXPECT_EQ(path + ": larger than 16 MiB", big.error().message);
}

TEST(Registry, AgentNames) {
  EXPECT_TRUE(is_valid_agent_name("router"));
  EXPECT_TRUE(is_valid_agent_name("a-b_C9"));
  EXPECT_FALSE(is_valid_agent_name(""));
  EXPECT_FALSE(is_valid_agent_name("a=b"));
  EXPECT_FALSE(is_valid_agent_name(std::string(65, 'a')));
}

}  // namespace
}  // namespace weld::proxy
