#pragma once
/// \file
/// For the tests of a validation's stops (the depth limit, the work
/// budget): the stop is the validation's one violation.

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <string_view>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/json/tape.h"
#include "weld/schema/schema.h"

namespace weld::schema {

/// `instance_text` is invalid read either way (json::Value and json::Tape),
/// and both collecting modes report one violation alone: `message` with
/// `keyword`, at `instance_path`, in a subschema `at_schema_path` accepts.
inline void expect_stop_alone(const Schema& s, const std::string& instance_text, std::string_view message,
                              std::string_view keyword, const std::string& instance_path,
                              const std::function<bool(const std::string&)>& at_schema_path) {
  SCOPED_TRACE(instance_text);
  auto parsed = json::parse(instance_text);
  ASSERT_TRUE(parsed.ok()) << instance_text;
  const json::Value& instance = *parsed;
  EXPECT_FALSE(s.is_valid(instance));
  json::Tape tape;
  json::write_tape(instance, tape);
  EXPECT_FALSE(s.is_valid(tape));
  for (Collect collect : {Collect::All, Collect::First}) {
    ValidationResult r = s.validate(instance, collect);
    EXPECT_FALSE(r.valid);
    ASSERT_EQ(1u, r.violations.size()) << describe(r.violations);
    const Violation& v = r.violations[0];
    EXPECT_EQ(message, v.message);
    EXPECT_EQ(keyword, v.keyword);
    EXPECT_EQ(instance_path, v.instance_path);
    EXPECT_TRUE(at_schema_path(v.schema_path)) << v.schema_path;
    EXPECT_EQ("{}", json::serialize(v.params));
  }
}

}  // namespace weld::schema
