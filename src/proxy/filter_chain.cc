// The filter chain driver (docs/design.md, "Conventions": one transform per filter).

#include "weld/proxy/filter.h"

namespace weld::proxy {

void FilterRegistry::add(std::string name, FilterFactory factory) {
  for (auto& [existing, f] : factories_) {
    if (existing == name) {
      f = std::move(factory);
      return;
    }
  }
  factories_.emplace_back(std::move(name), std::move(factory));
}

const FilterFactory* FilterRegistry::find(std::string_view name) const {
  for (const auto& [existing, f] : factories_) {
    if (existing == name) return &f;
  }
  return nullptr;
}

std::vector<std::string> FilterRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& entry : factories_) out.push_back(entry.first);
  return out;
}

std::vector<std::string> default_chain() {
  return {"agent_route", "schema_injection", "tool_call_extraction", "response_validation", "response_render"};
}

Result<std::vector<const FilterFactory*>> FilterChain::resolve(const FilterRegistry& registry,
                                                               const std::vector<std::string>& names) {
  std::vector<const FilterFactory*> out;
  for (const std::string& name : names) {
    const FilterFactory* factory = registry.find(name);
    if (factory == nullptr) return Error{ErrorCode::Config, "unknown filter \"" + name + "\"", name};
    out.push_back(factory);
  }
  return out;
}

FilterChain::FilterChain(const std::vector<const FilterFactory*>& factories) {
  filters_.reserve(factories.size());
  for (const FilterFactory* factory : factories) filters_.push_back((*factory)());
}

FilterAction FilterChain::on_request(Exchange& ex) {
  for (auto& filter : filters_) {
    FilterAction action = filter->on_request(ex);
    if (action != FilterAction::Continue) return action;
  }
  return FilterAction::Continue;
}

FilterAction FilterChain::on_response_end(Exchange& ex) {
  for (auto& filter : filters_) {
    FilterAction action = filter->on_response_end(ex);
    if (action != FilterAction::Continue) return action;
  }
  return FilterAction::Continue;
}

FilterAction FilterChain::on_error(Exchange& ex, const Error& error) {
  for (auto& filter : filters_) {
    FilterAction action = filter->on_error(ex, error);
    if (action != FilterAction::Continue) return action;
  }
  return FilterAction::Continue;
}

}  // namespace weld::proxy
