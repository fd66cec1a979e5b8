// The built-in filters, registered by name (docs/design.md, "Where to add things").

#include "filters/agent_route/filter.h"
#include "filters/response_render/filter.h"
#include "filters/response_validation/filter.h"
#include "filters/schema_injection/filter.h"
#include "filters/tool_call_extraction/filter.h"
#include "weld/proxy/filter.h"

namespace weld::proxy {

FilterRegistry builtin_filters() {
  FilterRegistry registry;
  registry.add("agent_route", filters::make_agent_route);
  registry.add("schema_injection", filters::make_schema_injection);
  registry.add("tool_call_extraction", filters::make_tool_call_extraction);
  registry.add("response_validation", filters::make_response_validation);
  registry.add("response_render", filters::make_response_render);
  return registry;
}

}  // namespace weld::proxy
