// response_render (docs/proxy-weld.md; errors in the client's shape: docs/proxy.md, "Errors and timeouts").

#include "filters/response_render/filter.h"

#include "filters/reply.h"
#include "weld/base/clock.h"
#include "weld/provider/http.h"

namespace weld::proxy::filters {
namespace {

class ResponseRender final : public Filter {
 public:
  FilterAction on_request(Exchange& ex) override {
    if (ex.client_stream) ex.keepalive = keepalive_frame(ex.api);
    if (ex.client_stream && ex.agent != nullptr && ex.agent->stream_partial && PartialStream::supports(ex.api)) {
      StreamHead head;
      head.model = ex.client_model;
      head.created = unix_seconds();  // the answer streams as it is generated
      head.include_usage = ex.client_usage_chunk;
      ex.partial.emplace(ex.api, std::move(head));
    }
    return FilterAction::Continue;
  }

  FilterAction on_response_end(Exchange& ex) override {
    ex.reply = Reply{};
    ex.reply.status = 200;
    if (ex.pass_back) {
      ex.outcome = Outcome::PassBack;
      // The upstream's assistant turn (calls of the client's own tools), as
      // the codec gives it back.
      const provider::Codec& codec = provider::codec_for(ex.api);
      StreamHead head = answer_head(ex.candidate.response, ex.client_model);
      head.include_usage = ex.client_usage_chunk;
      if (ex.client_stream) {
        ex.reply.stream_frames = codec.pass_back_stream(head, ex.candidate.response, ex.usage);
      } else {
        ex.reply.body = json::serialize(codec.pass_back(head, ex.candidate.response, ex.usage));
      }
      return FilterAction::Reply;
    }
    ex.outcome = Outcome::Ok;
    if (ex.partial && ex.partial->started()) {
      // The answer is streaming already: end it (a discard first when the
      // validated text is not what was streamed).
      ex.reply.stream_frames = ex.partial->finish(ex.verdict.text, ex.usage, !ex.verdict.repairs.empty());
    } else if (ex.client_stream) {
      // OpenAI clients that asked for stream_options.include_usage get the
      // final usage chunk (and "usage": null on the others), as OpenAI sends.
      ex.reply.stream_frames = render_stream(ex.api, ex.candidate.response, ex.verdict.text, ex.usage,
                                             ex.client_model, ex.client_usage_chunk);
    } else {
      ex.reply.body = render_response(ex.api, ex.candidate.response, ex.verdict.text, ex.usage, ex.client_model);
    }
    return FilterAction::Reply;
  }

  FilterAction on_error(Exchange& ex, const Error& error) override {
    const provider::Codec& codec = provider::codec_for(ex.api);
    if (error.code == ErrorCode::Timeout) {
      return reply_error(ex, Outcome::UpstreamTimeout, 504, "timeout_error", error.message);
    }
    if (error.code == ErrorCode::TooLarge) {
      return reply_error(ex, Outcome::ResponseTooLarge, 502, codec.upstream_error_type(), error.message);
    }
    if (error.code == ErrorCode::UpstreamStatus && ex.upstream_status >= 400 && ex.upstream_status < 500) {
      // The upstream refused the request itself: the client should see why.
      return upstream_status_reply(ex, ex.upstream_status, codec.status_error_type(ex.upstream_status), error.message);
    }
    if (error.code == ErrorCode::UpstreamStatus)
      return upstream_status_reply(ex, 502, codec.upstream_error_type(), error.message);
    return reply_error(ex, Outcome::UpstreamError, 502, codec.upstream_error_type(), error.message);
  }

 private:
  // An upstream error status, judged by the run's own rule (judge_status,
  // docs/protocols.md "Errors and retries"): what weld would not send again
  // (400, 409, 501, …) goes to the client as final (`x-should-retry: false`),
  // so its SDK does not send it again either.
  static FilterAction upstream_status_reply(Exchange& ex, int status, std::string_view type, std::string_view message) {
    FilterAction action = reply_error(ex, Outcome::UpstreamError, status, type, message);
    ex.reply.final = provider::judge_status(ex.upstream_status) == provider::StatusVerdict::Final;
    return action;
  }
};

}  // namespace

std::unique_ptr<Filter> make_response_render() { return std::make_unique<ResponseRender>(); }

}  // namespace weld::proxy::filters
