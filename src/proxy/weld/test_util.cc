#include "test_util.h"

#include <gtest/gtest.h>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::proxy::testing {

json::Value j(std::string_view text) {
  auto parsed = json::parse(text);
  if (!parsed) {
    ADD_FAILURE() << "bad JSON in test: " << parsed.error().message << " at " << parsed.error().where << "\n"
                  << text;
    return {};
  }
  return std::move(*parsed);
}

std::string s(const json::Value& value) { return json::serialize(value); }

namespace {

Candidate candidate_of(Result<provider::Response> response, std::string_view agent_tool) {
  if (!response) {
    ADD_FAILURE() << "the reader refused the answer: " << response.error().message;
    return {};
  }
  return make_candidate(std::move(*response), agent_tool);
}

}  // namespace

Candidate read_response(Protocol api, const json::Value& body, std::string_view agent_tool) {
  return candidate_of(provider::response_from_json(api, body), agent_tool);
}

Candidate read_stream(Protocol api, std::string_view sse, std::string_view agent_tool) {
  auto reader = provider::make_stream_parser(api);
  if (Status st = reader->feed(sse); !st) return candidate_of(st.error(), agent_tool);
  return candidate_of(reader->finish(), agent_tool);
}

}  // namespace weld::proxy::testing
