// Model-suffix tagging (docs/proxy-weld.md, "The model name"): "base__schema=agent".

#include "weld/proxy/weld.h"
#include "weld/base/text.h"

namespace weld::proxy {
namespace {

constexpr std::string_view kMarker = "__schema=";

}  // namespace

std::optional<ModelTag> parse_model_tag(std::string_view model) {
  std::size_t first = model.find(kMarker);
  if (first == std::string_view::npos) return std::nullopt;
  // Several markers ("m__schema=a__schema=b"): the last names the agent, and
  // the base stops at the first, so no marker reaches the upstream.
  std::size_t last = model.rfind(kMarker);
  ModelTag tag;
  tag.base_model = std::string(trim(model.substr(0, first)));
  tag.agent = std::string(trim(model.substr(last + kMarker.size())));
  return tag;
}

}  // namespace weld::proxy
