// weld::json under test.
#include <cstdio>
#include <cstdlib>

#include "impl.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::bench {
namespace {

std::size_t parse_all(const Texts& texts) {
  std::size_t ok = 0;
  for (const std::string& text : texts) {
    auto doc = json::parse(text);
    ok += doc ? 1 : 0;
  }
  return ok;
}

class WeldSet : public ParsedSet {
 public:
  explicit WeldSet(const Texts& texts) {
    for (const std::string& text : texts) {
      auto doc = json::parse(text);
      if (!doc) {
        std::fprintf(stderr, "weld: %s at %s\n", doc.error().message.c_str(), doc.error().where.c_str());
        std::abort();
      }
      docs_.push_back(std::move(*doc));
    }
  }
  std::size_t serialize_all() override {
    std::size_t bytes = 0;
    for (const json::Value& doc : docs_) bytes += json::serialize(doc).size();
    return bytes;
  }

 private:
  std::vector<json::Value> docs_;
};

std::unique_ptr<ParsedSet> parse_keep(const Texts& texts) { return std::make_unique<WeldSet>(texts); }

void walk(const json::Value& value, Digest& d) {
  switch (value.type()) {
    case json::Type::Null: ++d.nulls; return;
    case json::Type::Boolean: ++d.booleans; d.trues += value.as_bool() ? 1 : 0; return;
    case json::Type::Integer:
    case json::Type::Real: ++d.numbers; return;
    case json::Type::String: ++d.strings; d.string_bytes += value.as_string().size(); return;
    case json::Type::Array:
      ++d.arrays;
      for (const json::Value& element : value.as_array()) { ++d.elements; walk(element, d); }
      return;
    case json::Type::Object:
      ++d.objects;
      for (const json::Member& member : value.as_object()) {
        ++d.members;
        d.key_bytes += member.key.size();
        walk(member.value, d);
      }
      return;
  }
}

Digest digest(std::string_view text) {
  Digest d;
  auto doc = json::parse(text);
  if (doc) walk(*doc, d);
  return d;
}

}  // namespace

const Impl& weld_impl() {
  static const Impl impl{"weld", parse_all, parse_keep, digest};
  return impl;
}

}  // namespace weld::bench
