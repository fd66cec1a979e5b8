// The blocking libcurl transport: its requests run on its own CurlMulti
// (weld/provider/curl_multi.h, which holds the per-transfer machinery),
// polled every 50 ms for the CancelToken (a SIGINT must end a request in
// flight within a second, docs/run.md "Limits") and the idle timer. The multi handle
// lives as long as the transport, so its connection cache keeps connections
// alive between turns, and its easy handles are reused.
#include <chrono>
#include <memory>
#include <vector>

#include "weld/provider/curl_multi.h"
#include "weld/provider/http.h"

namespace weld::provider {
namespace {

constexpr std::chrono::milliseconds kCancelCheck{50};

class CurlTransport : public Transport {
 public:
  explicit CurlTransport(NetworkSettings settings) : settings_(std::move(settings)) {}

  TransportOutcome perform(const HttpRequest& request, ResponseSink& sink, CancelToken& cancel) override {
    return perform_all({HttpCall{&request, &sink}}, cancel).front();
  }

  std::vector<TransportOutcome> perform_all(const std::vector<HttpCall>& calls, CancelToken& cancel) override {
    std::vector<TransportOutcome> outcomes(calls.size());
    std::vector<CurlMulti::TransferId> ids;
    ids.reserve(calls.size());
    std::size_t left = calls.size();
    for (std::size_t i = 0; i < calls.size(); ++i) {
      ids.push_back(multi_.start(*calls[i].request, *calls[i].sink, settings_,
                                 [&outcomes, &left, i](TransportOutcome outcome) {
                                   outcomes[i] = std::move(outcome);
                                   --left;
                                 }));
    }
    while (left > 0) {
      if (cancel.cancelled.load()) {
        for (CurlMulti::TransferId id : ids) multi_.cancel(id);
        break;
      }
      multi_.poll(kCancelCheck);
    }
    return outcomes;
  }

 private:
  NetworkSettings settings_;
  CurlMulti multi_;
};

}  // namespace

std::unique_ptr<Transport> make_curl_transport(const NetworkSettings& settings) {
  return std::make_unique<CurlTransport>(settings);
}

}  // namespace weld::provider
