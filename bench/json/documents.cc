// What is measured: the proxy's tagged-path traffic (the canned OpenAI chat
// completion of bench/proxy, a minimal tagged chat request, a 3.3 KB
// request with tools and a 2 KB history, and a 52 KB conversation) and some jsonschema-benchmark
// instances (read at run time, never copied; without the corpus those four
// are left out, saying so: tests/support/benchmark_corpus.h): small
// (helm-chart-lock), mid-size (ui5-manifest, cmake-presets) and one large
// schema (krakend, 373 KB).
#include "documents.h"

#include "benchmark_corpus.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace weld::bench {
namespace {

// simdjson reads up to 64 bytes past the end; the others never look there.
constexpr std::size_t kPadding = 64;

std::string padded(std::string_view text) {
  std::string out;
  out.reserve(text.size() + kPadding);
  out.assign(text);
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "weld_json_bench: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string env_or(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

Document single(std::string name, std::string about, const std::string& path) {
  Document doc{std::move(name), std::move(about), {}, 0};
  std::string text = read_file(path);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  doc.bytes = text.size();
  doc.texts.push_back(padded(text));
  return doc;
}

// A coding agent's long conversation, as bench/proxy/post.lua builds it with
// HISTORY=100: 100 earlier turns of 500 characters, then the question.
Document long_conversation() {
  std::string turn_text;
  while (turn_text.size() < 500) turn_text += "The customer wrote about an order and a refund. ";
  turn_text.resize(500);
  std::string text = R"({"model":"bench__schema=router","messages":[)";
  for (int i = 1; i <= 100; ++i) {
    text += R"({"role":")";
    text += i % 2 == 1 ? "user" : "assistant";
    text += R"(","content":")" + turn_text + R"("},)";
  }
  text += R"({"role":"user","content":"Route this: I want my money back."}]})";
  Document doc{"chat_long", "OpenAI chat request, 100 turns of 500 characters (53 KB, post.lua HISTORY=100)", {}, 0};
  doc.bytes = text.size();
  doc.texts.push_back(padded(text));
  return doc;
}

Document instances(const std::string& corpus, const std::string& dataset, std::size_t limit) {
  Document doc{dataset, "first " + std::to_string(limit) + " instances of jsonschema-benchmark/" + dataset, {}, 0};
  std::istringstream lines(read_file(corpus + "/" + dataset + "/instances.jsonl"));
  for (std::string line; std::getline(lines, line) && doc.texts.size() < limit;) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    doc.bytes += line.size();
    doc.texts.push_back(padded(line));
  }
  return doc;
}

}  // namespace

std::vector<Document> load_documents() {
  const std::string source = env_or("WELD_SOURCE_DIR", WELD_SOURCE_DIR);
  std::vector<Document> docs;
  docs.push_back(single("canned", "bench/proxy/canned.json: the chat completion the proxy bench returns",
                        source + "/bench/proxy/canned.json"));
  docs.push_back(single("chat_small", "the tagged OpenAI chat request of bench/proxy/post.lua",
                        source + "/bench/json/data/chat_request_small.json"));
  docs.push_back(single("chat_tools", "OpenAI chat request, 3 tools + 9 messages (2 KB history)",
                        source + "/bench/json/data/chat_request_tools.json"));
  docs.push_back(long_conversation());
  std::string absent;
  if (!test_support::benchmark_corpus_present(&absent)) {
    std::fprintf(stderr, "weld_json_bench: the corpus documents are left out: %s\n", absent.c_str());
    return docs;
  }
  const std::string corpus = test_support::benchmark_corpus_dir().string();
  docs.push_back(instances(corpus, "helm-chart-lock", 200));
  docs.push_back(instances(corpus, "ui5-manifest", 100));
  docs.push_back(instances(corpus, "cmake-presets", 100));
  docs.push_back(single("krakend_schema", "jsonschema-benchmark/krakend/schema.json (one large document)",
                        corpus + "/krakend/schema.json"));
  return docs;
}

}  // namespace weld::bench
