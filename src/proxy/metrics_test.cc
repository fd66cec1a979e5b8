#include "weld/proxy/metrics.h"

#include <gtest/gtest.h>

namespace weld::proxy {
namespace {

TEST(Metrics, PrometheusText) {
  Metrics metrics;
  metrics.record_request("", Outcome::Passthrough);
  metrics.record_request("", Outcome::Passthrough);
  metrics.record_request("router", Outcome::Ok);
  metrics.record_request("ro\"uter", Outcome::Invalid);
  metrics.add_validation_failures("router", 2);
  metrics.add_retries("router", 1);
  metrics.add_repairs("router", 3);
  metrics.observe_upstream(0.003);
  metrics.observe_added(0.0002);
  std::string text = metrics.render();
  EXPECT_NE(std::string::npos, text.find("weld_proxy_requests_total{agent=\"\",outcome=\"passthrough\"} 2\n"));
  EXPECT_NE(std::string::npos, text.find("weld_proxy_requests_total{agent=\"router\",outcome=\"ok\"} 1\n"));
  EXPECT_NE(std::string::npos, text.find("weld_proxy_requests_total{agent=\"ro\\\"uter\",outcome=\"invalid\"} 1\n"));
  EXPECT_NE(std::string::npos, text.find("weld_proxy_validation_failures_total{agent=\"router\"} 2\n"));
  EXPECT_NE(std::string::npos, text.find("weld_proxy_retries_total{agent=\"router\"} 1\n"));
  EXPECT_NE(std::string::npos, text.find("weld_proxy_repairs_total{agent=\"router\"} 3\n"));
  EXPECT_NE(std::string::npos, text.find("weld_proxy_upstream_latency_seconds_bucket{le=\"0.0025\"} 0\n"));
  EXPECT_NE(std::string::npos, text.find("weld_proxy_upstream_latency_seconds_bucket{le=\"0.005\"} 1\n"));
  EXPECT_NE(std::string::npos, text.find("weld_proxy_upstream_latency_seconds_count 1\n"));
  EXPECT_NE(std::string::npos, text.find("weld_proxy_added_latency_seconds_bucket{le=\"0.00025\"} 1\n"));
  EXPECT_NE(std::string::npos, text.find("# TYPE weld_proxy_added_latency_seconds histogram\n"));
}

}  // namespace
}  // namespace weld::proxy
