// simdjson 3.0 (Debian libsimdjson-dev), DOM API, used the way its docs
// advise: one dom::parser reused across documents (so steady-state parsing
// allocates nothing), inputs padded. Serialize is simdjson::to_string (minify).
#include <simdjson.h>

#include <cstdio>
#include <cstdlib>

#include "impl.h"

namespace weld::bench {
namespace {

simdjson::dom::parser& shared_parser() {
  static simdjson::dom::parser parser;
  return parser;
}

std::size_t parse_all(const Texts& texts) {
  std::size_t ok = 0;
  simdjson::dom::parser& parser = shared_parser();
  for (const std::string& text : texts) {
    simdjson::dom::element doc;
    auto error = parser.parse(text.data(), text.size(), /*realloc_if_needed=*/false).get(doc);
    ok += error ? 0 : 1;
  }
  return ok;
}

class SimdjsonSet : public ParsedSet {
 public:
  explicit SimdjsonSet(const Texts& texts) : docs_(texts.size()) {
    for (std::size_t i = 0; i < texts.size(); ++i) {
      simdjson::dom::element root;
      auto error = shared_parser()
                       .parse_into_document(docs_[i], reinterpret_cast<const std::uint8_t*>(texts[i].data()),
                                            texts[i].size(), false)
                       .get(root);
      if (error) {
        std::fprintf(stderr, "simdjson: %s\n", simdjson::error_message(error));
        std::abort();
      }
    }
  }
  std::size_t serialize_all() override {
    std::size_t bytes = 0;
    for (simdjson::dom::document& doc : docs_) bytes += simdjson::to_string(doc.root()).size();
    return bytes;
  }

 private:
  std::vector<simdjson::dom::document> docs_;
};

std::unique_ptr<ParsedSet> parse_keep(const Texts& texts) { return std::make_unique<SimdjsonSet>(texts); }

void walk(simdjson::dom::element value, Digest& d) {
  switch (value.type()) {
    case simdjson::dom::element_type::NULL_VALUE: ++d.nulls; return;
    case simdjson::dom::element_type::BOOL: ++d.booleans; d.trues += bool(value) ? 1 : 0; return;
    case simdjson::dom::element_type::INT64:
    case simdjson::dom::element_type::UINT64:
    case simdjson::dom::element_type::DOUBLE: ++d.numbers; return;
    case simdjson::dom::element_type::STRING:
      ++d.strings;
      d.string_bytes += std::string_view(value).size();
      return;
    case simdjson::dom::element_type::ARRAY:
      ++d.arrays;
      for (simdjson::dom::element element : simdjson::dom::array(value)) { ++d.elements; walk(element, d); }
      return;
    case simdjson::dom::element_type::OBJECT:
      ++d.objects;
      for (simdjson::dom::key_value_pair member : simdjson::dom::object(value)) {
        ++d.members;
        d.key_bytes += member.key.size();
        walk(member.value, d);
      }
      return;
  }
}

Digest digest(std::string_view text) {
  Digest d;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (!parser.parse(text.data(), text.size(), true).get(doc)) walk(doc, d);
  return d;
}

}  // namespace

const Impl& simdjson_impl() {
  static const Impl impl{"simdjson", parse_all, parse_keep, digest};
  return impl;
}

}  // namespace weld::bench
