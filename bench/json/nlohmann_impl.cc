// nlohmann-json 3.11 (Debian nlohmann-json3-dev) as the peer; ordered_json
// would match weld's key order but costs more, so the default (sorted
// std::map) json is measured: the faster of the two.
#include <nlohmann/json.hpp>

#include "impl.h"

namespace weld::bench {
namespace {

std::size_t parse_all(const Texts& texts) {
  std::size_t ok = 0;
  for (const std::string& text : texts) {
    nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    ok += doc.is_discarded() ? 0 : 1;
  }
  return ok;
}

class NlohmannSet : public ParsedSet {
 public:
  explicit NlohmannSet(const Texts& texts) {
    for (const std::string& text : texts) docs_.push_back(nlohmann::json::parse(text));
  }
  std::size_t serialize_all() override {
    std::size_t bytes = 0;
    for (const nlohmann::json& doc : docs_) bytes += doc.dump().size();
    return bytes;
  }

 private:
  std::vector<nlohmann::json> docs_;
};

std::unique_ptr<ParsedSet> parse_keep(const Texts& texts) { return std::make_unique<NlohmannSet>(texts); }

void walk(const nlohmann::json& value, Digest& d) {
  switch (value.type()) {
    case nlohmann::json::value_t::null: ++d.nulls; return;
    case nlohmann::json::value_t::boolean: ++d.booleans; d.trues += value.get<bool>() ? 1 : 0; return;
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float: ++d.numbers; return;
    case nlohmann::json::value_t::string:
      ++d.strings;
      d.string_bytes += value.get_ref<const std::string&>().size();
      return;
    case nlohmann::json::value_t::array:
      ++d.arrays;
      for (const auto& element : value) { ++d.elements; walk(element, d); }
      return;
    case nlohmann::json::value_t::object:
      ++d.objects;
      for (const auto& [key, member] : value.items()) {
        ++d.members;
        d.key_bytes += key.size();
        walk(member, d);
      }
      return;
    default: return;
  }
}

Digest digest(std::string_view text) {
  Digest d;
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_discarded()) walk(doc, d);
  return d;
}

}  // namespace

const Impl& nlohmann_impl() {
  static const Impl impl{"nlohmann", parse_all, parse_keep, digest};
  return impl;
}

}  // namespace weld::bench
