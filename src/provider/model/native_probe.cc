// The `auto` mechanism's probe (docs/run.md, "Mechanisms"), shared by the run and the proxy.
#include "weld/provider/native_probe.h"

#include "weld/json/parse.h"
#include "weld/provider/http.h"

namespace weld::provider {
namespace {

constexpr std::string_view kProbeKey = "weld_probe";
// Not mentioned in the prompt: only a server that constrains decoding to the
// schema can produce it.
constexpr std::string_view kProbeValue = "enforced-7c1e9a";

}  // namespace

Request native_probe_request(const std::string& model) {
  Request request;
  request.model = model;
  Message message;
  message.role = Role::User;
  message.text = "Reply with the single word: hello";
  request.messages.push_back(std::move(message));
  ResponseFormat format;
  format.name = "weld_probe";
  format.schema = json::Object{
      {"type", "object"},
      {"properties", json::Object{{std::string(kProbeKey),
                                   json::Object{{"type", "string"}, {"const", std::string(kProbeValue)}}}}},
      {"required", json::Array{json::Value(std::string(kProbeKey))}},
      {"additionalProperties", false}};
  format.strict = true;
  request.response_format = std::move(format);
  request.max_tokens = 64;
  return request;
}

bool native_probe_passed(const Response& response) {
  if (!response.message.tool_calls.empty()) return false;
  Result<json::Value> parsed = json::parse(response.message.text);
  if (!parsed || !parsed->is_object() || parsed->as_object().size() != 1) return false;
  const json::Value* value = parsed->find(kProbeKey);
  return value != nullptr && value->is_string() && value->as_string() == kProbeValue;
}

ProbeVerdict judge_probe(const Result<Response>& outcome) {
  if (outcome.ok()) return native_probe_passed(*outcome) ? ProbeVerdict::Native : ProbeVerdict::NotNative;
  const Error& error = outcome.error();
  // A server that refuses the field for good does not enforce it; what may
  // pass (a busy or failing server, a network, credentials) says nothing.
  const bool refused = error.code == ErrorCode::Http && error.http_status >= 400 && error.http_status < 500 &&
                       judge_status(error.http_status) == StatusVerdict::Final;
  return refused ? ProbeVerdict::NotNative : ProbeVerdict::Unknown;
}

}  // namespace weld::provider
