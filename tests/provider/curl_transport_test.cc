// The libcurl transport sends request bodies whole and unchanged, whatever
// their size: below, at and past libcurl's upload buffer (64 KB by default;
// curl_multi.cc sizes it to the body, up to libcurl's 2 MB cap), one after
// another through the transport's reused handles. The loopback server reads
// each body by its Content-Length; a corrupted, cut or padded body fails the
// comparison.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "loopback_server.h"
#include "weld/provider/http.h"

namespace weld::provider {
namespace {

using namespace std::chrono_literals;
using testing::LoopbackServer;
using testing::ScriptedResponse;

class Collect final : public ResponseSink {
 public:
  void on_headers(int status, const HttpHeaders&) override { status_ = status; }
  bool on_body(std::string_view chunk) override {
    body_ += chunk;
    return true;
  }
  int status_ = 0;
  std::string body_;
};

// `size` bytes of every value, zero included, in no pattern a shift would keep.
std::string random_bytes(std::size_t size, unsigned seed) {
  std::mt19937 generator(seed);
  std::string bytes(size, '\0');
  for (char& byte : bytes) byte = static_cast<char>(generator() & 0xFF);
  return bytes;
}

TEST(CurlTransport, BodiesOfEverySizeArriveWhole) {
  // Below, at and just past the default upload buffer; a telemetry batch;
  // past libcurl's 2 MB cap; then small again (the handle's buffer is reset).
  const std::vector<std::size_t> sizes = {0, 1000, 65536, 65537, 170'000, 1'000'000, 3'000'000, 10};
  std::vector<ScriptedResponse> script;
  for (std::size_t size : sizes) script.push_back(testing::plain_response(200, "text/plain", std::to_string(size)));
  LoopbackServer server(script);
  std::unique_ptr<Transport> transport = make_curl_transport({});
  std::vector<std::string> sent;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    HttpRequest request;
    request.url = server.url() + "/upload";
    request.body = random_bytes(sizes[i], static_cast<unsigned>(i + 1));
    request.headers = {{"Content-Type", "application/octet-stream"}};
    request.idle_timeout = 10s;
    Collect sink;
    CancelToken cancel;
    TransportOutcome outcome = transport->perform(request, sink, cancel);
    ASSERT_EQ(TransportOutcome::Kind::Complete, outcome.kind) << sizes[i] << " bytes: " << outcome.detail;
    EXPECT_EQ(200, sink.status_);
    EXPECT_EQ(std::to_string(sizes[i]), sink.body_);
    sent.push_back(std::move(request.body));
  }
  const std::vector<testing::RecordedRequest> received = server.requests();
  ASSERT_EQ(sent.size(), received.size());
  for (std::size_t i = 0; i < sent.size(); ++i) {
    EXPECT_EQ(sent[i].size(), received[i].body.size()) << "request " << i;
    EXPECT_TRUE(sent[i] == received[i].body) << "request " << i << " (" << sent[i].size() << " bytes) arrived changed";
  }
}

}  // namespace
}  // namespace weld::provider
