#include "weld/telemetry/trace_context.h"

#include <gtest/gtest.h>

namespace weld::telemetry {
namespace {

constexpr const char* kW3cExample = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

TEST(Traceparent, ParsesTheW3cExampleAndFormatsItBack) {
  std::optional<SpanContext> context = parse_traceparent(kW3cExample);
  ASSERT_TRUE(context.has_value());
  EXPECT_EQ("4bf92f3577b34da6a3ce929d0e0e4736", to_hex(context->trace_id));
  EXPECT_EQ("00f067aa0ba902b7", to_hex(context->span_id));
  EXPECT_TRUE(context->sampled);
  EXPECT_TRUE(context->remote);
  EXPECT_EQ(kW3cExample, format_traceparent(*context));
}

TEST(Traceparent, ReadsTheSampledFlagOnly) {
  std::optional<SpanContext> context = parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
  ASSERT_TRUE(context.has_value());
  EXPECT_FALSE(context->sampled);
  EXPECT_EQ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", format_traceparent(*context));
}

TEST(Traceparent, RejectsMalformedValues) {
  for (const char* bad : {
           "",
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",        // no flags
           "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",     // upper case
           "00-00000000000000000000000000000000-00f067aa0ba902b7-01",     // zero trace id
           "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",     // zero span id
           "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",     // version ff
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",   // v00 with extra
           "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",     // separator
           "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",     // not hex
       }) {
    EXPECT_FALSE(parse_traceparent(bad).has_value()) << bad;
  }
}

TEST(Traceparent, AcceptsAFutureVersionWithMoreFields) {
  std::optional<SpanContext> context =
      parse_traceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future");
  ASSERT_TRUE(context.has_value());
  EXPECT_EQ("00f067aa0ba902b7", to_hex(context->span_id));
}

TEST(Ids, AreFreshAndNeverZero) {
  SpanContext a{new_trace_id(), new_span_id()};
  SpanContext b{new_trace_id(), new_span_id()};
  EXPECT_TRUE(a.valid());
  EXPECT_NE(a.trace_id, b.trace_id);
  EXPECT_NE(a.span_id, b.span_id);
}

}  // namespace
}  // namespace weld::telemetry
