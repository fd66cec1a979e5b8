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

}  // namespace weld::proxy::testing
