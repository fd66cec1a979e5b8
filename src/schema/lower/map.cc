// Moving a value between the original's shape and the lowered one
// (Lowering::map_back, map_forward). Both walk the ORIGINAL schema beside
// the value, reading what lower.cc decided for each subschema (state.h):
// JSON text, entries, tuples, properties made nullable, a member for the
// other properties, the wrapped root. Unions are told apart by validating
// against the original's branches. Each step is undone only where the value
// has the lowered shape, so a value already in the original's shape passes
// through unchanged.
#include <algorithm>
#include <functional>
#include <map>
#include <vector>

#include "state.h"
#include "weld/json/parse.h"
#include "weld/json/pointer.h"
#include "weld/json/serialize.h"
#include "weld/schema/regex.h"

namespace weld::schema {
namespace {

class Mapper {
 public:
  Mapper(const Lowering::State& state, bool back, std::vector<Change>* done = nullptr)
      : s_(state), doc_(*state.document), back_(back), done_(done) {}

  json::Value run(json::Value value) {
    if (back_ && s_.wrapped && value.is_object() && value.size() == 1 && value.find("value")) {
      json::Value inner = std::move(*value.find("value"));  // not straight into `value`: it owns the member
      value = std::move(inner);
      report("unwrap", "{\"value\": …} -> …");
    }
    value = map(std::move(value), "");
    if (!back_ && s_.wrapped) value = json::Object{{"value", std::move(value)}};
    return value;
  }

 private:
  json::Value map(json::Value v, const std::string& p) {
    if (++steps_ > kMaxSteps) return v;  // a pathological schema: stop rewriting, never loop
    if (s_.text.count(p)) return text(std::move(v));
    const json::Value* schema = doc_.at(p);
    if (schema == nullptr || !schema->is_object()) return v;
    if (auto merged = s_.merged.find(p); merged != s_.merged.end()) {
      // An allOf merged into one schema: its properties from every part, the
      // rest from the part that gave it (lower.cc, lower_all_of).
      const std::string& sp = merged->second.structural;
      const json::Value* source = doc_.at(sp);
      if (source == nullptr || !source->is_object()) source = schema;
      for (const char* k : {"anyOf", "oneOf"}) {
        const json::Value* branches = source->find(k);
        if (branches && branches->is_array()) v = union_branch(std::move(v), sp, k, branches->as_array().size());
      }
      if (back_ && s_.entries.count(p)) v = entries_to_object(std::move(v));
      if (back_ && s_.tuples.count(p)) v = tuple_to_array(std::move(v), p);
      if (v.is_object()) v = object(std::move(v), p, *source, &merged->second.properties, &sp);
      if (v.is_array()) v = array(std::move(v), sp, *source);
      if (!back_ && s_.tuples.count(p) && v.is_array()) v = array_to_tuple(std::move(v), p);
      if (!back_ && s_.entries.count(p) && v.is_object()) v = object_to_entries(std::move(v));
      return v;
    }
    if (const json::Value* ref = schema->find("$ref"); ref && ref->is_string()) {
      if (std::optional<std::string> target = doc_.resolve(p, ref->as_string())) {
        if (s_.inline_refs && s_.cuts.count(Lowering::State::cut_key(sites_, p))) return text(std::move(v));
        if (chain_.size() > 64 || std::count(chain_.begin(), chain_.end(), *target) > 0) {
          // References that come back to themselves without a step into the
          // value: nothing more to map.
        } else {
          expanding_.push_back(*target);
          sites_.push_back(p);
          chain_.push_back(*target);
          v = map(std::move(v), *target);
          chain_.pop_back();
          sites_.pop_back();
          expanding_.pop_back();
        }
      }
      if (s_.legacy_refs) return v;  // draft-07 and before: siblings of $ref are ignored
    }
    if (const json::Value* all = schema->find("allOf"); all && all->is_array()) {
      for (std::size_t i = 0; i < all->as_array().size(); ++i) v = map(std::move(v), child(p, "allOf", i));
    }
    for (const char* k : {"anyOf", "oneOf"}) {
      const json::Value* branches = schema->find(k);
      if (!branches || !branches->is_array()) continue;
      v = union_branch(std::move(v), p, k, branches->as_array().size());
    }
    if (s_.distributed.count(p)) return v;  // the branch had all of it
    // Shapes of this subschema.
    if (s_.entries.count(p)) v = back_ ? entries_to_object(std::move(v)) : v;
    if (s_.tuples.count(p)) v = back_ ? tuple_to_array(std::move(v), p) : v;
    if (v.is_object()) v = object(std::move(v), p, *schema);
    if (v.is_array()) v = array(std::move(v), p, *schema);
    if (!back_) {
      if (s_.tuples.count(p) && v.is_array()) v = array_to_tuple(std::move(v), p);
      if (s_.entries.count(p) && v.is_object()) v = object_to_entries(std::move(v));
    }
    return v;
  }

  // A union: the branch whose original schema the mapped value passes
  // (map_back), or that the value passes (map_forward).
  // Back, a value in the lowered shape of one branch (entries, JSON text…)
  // is taken in that shape before a branch that would take it as it is: a
  // string "false" where one branch asked for JSON text and another allows
  // strings is the text's false.
  json::Value union_branch(json::Value v, const std::string& p, const char* k, std::size_t n) {
    std::optional<json::Value> unchanged;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string branch = child(p, k, i);
      if (!back_) {
        if (valid_at(branch, v)) return map(std::move(v), branch);
        continue;
      }
      const std::size_t mark = done_ ? done_->size() : 0;
      json::Value candidate = map(v, branch);
      if (!valid_at(branch, candidate)) {
        if (done_) done_->resize(mark);  // not this branch: what it would have changed is not done
        continue;
      }
      // ([] is as much an empty array as no entries: taken as it is.)
      const bool empty_array = v.is_array() && v.size() == 0;
      if (!empty_array && (!(candidate == v) || json::serialize(candidate) != json::serialize(v))) return candidate;
      if (done_) done_->resize(mark);
      if (!unchanged) unchanged = std::move(candidate);
    }
    return unchanged ? std::move(*unchanged) : v;
  }

  json::Value object(json::Value v, const std::string& p, const json::Value& schema,
                     const std::map<std::string, std::string>* merged = nullptr, const std::string* structural = nullptr) {
    const std::string& sp = structural ? *structural : p;
    const json::Value* props = schema.find("properties");
    const json::Value* patterns = schema.find("patternProperties");
    // The listed properties: this schema's, or those of every merged part.
    auto listed = [&](const std::string& name) {
      return merged ? merged->count(name) > 0 : props && props->is_object() && props->find(name) != nullptr;
    };
    auto property_pointer = [&](const std::string& name) {
      return merged ? merged->at(name) : child(p, "properties", name);
    };
    auto extra = s_.extra_member.find(p);
    if (back_ && extra != s_.extra_member.end()) {
      // The other properties, from their member back among the rest.
      if (json::Value* held = v.find(extra->second); held && held->is_array()) {
        json::Value members = entries_as_object(std::move(*held));
        v.erase(extra->second);
        if (members.is_object()) {
          for (json::Member& m : members.as_object()) {
            if (!v.find(m.key)) v.set(m.key, std::move(m.value));
          }
        }
      } else if (held && held->is_null()) {
        v.erase(extra->second);
      }
    }
    auto nullable = s_.nullable.find(p);
    if (back_ && nullable != s_.nullable.end() && !s_.tuples.count(p)) {
      // A null where the original has an optional property that refuses
      // null: the lowering's doing, so the property is left out.
      for (const std::string& name : nullable->second) {
        json::Value* member = v.find(name);
        if (member && member->is_null() && !valid_at(property_pointer(name), json::Value())) {
          v.erase(name);
          path_.push_back(name);
          report("drop_null", "null -> absent");
          path_.pop_back();
        }
      }
    }
    std::vector<std::string> chain;
    chain.swap(chain_);  // a step into the value: references may repeat again
    for (json::Member& m : v.as_object()) {
      path_.push_back(m.key);
      bool matched = false;
      if (listed(m.key)) {
        m.value = map(std::move(m.value), property_pointer(m.key));
        matched = true;
      }
      if (patterns && patterns->is_object()) {
        for (const json::Member& pattern : patterns->as_object()) {
          if (matches(pattern.key, m.key)) {
            m.value = map(std::move(m.value), child(sp, "patternProperties", pattern.key));
            matched = true;
          }
        }
      }
      if (!matched) m.value = map(std::move(m.value), sp + "/additionalProperties");
      path_.pop_back();
    }
    chain.swap(chain_);
    if (!back_) {
      if (nullable != s_.nullable.end() && !s_.tuples.count(p)) {
        for (const std::string& name : nullable->second) {
          if (!v.find(name)) v.set(name, json::Value());
        }
      }
      if (extra != s_.extra_member.end()) {
        json::Value others = json::Object{};
        json::Object kept;
        for (json::Member& m : v.as_object()) {
          if (listed(m.key)) {
            kept.push_back(std::move(m));
          } else {
            others.set(m.key, std::move(m.value));
          }
        }
        v = json::Value(std::move(kept));
        v.set(extra->second, object_to_entries(std::move(others)));
      }
    }
    return v;
  }

  json::Value array(json::Value v, const std::string& p, const json::Value& schema) {
    const json::Value* items = schema.find("items");
    const json::Value* prefix = schema.find("prefixItems");
    std::string prefix_kw = "prefixItems", rest_kw = "items";
    if (items && items->is_array()) {
      prefix = items;
      prefix_kw = "items";
      rest_kw = "additionalItems";
    }
    const std::size_t n = prefix && prefix->is_array() ? prefix->as_array().size() : 0;
    json::Array& array = v.as_array();
    std::vector<std::string> chain;
    chain.swap(chain_);
    for (std::size_t i = 0; i < array.size(); ++i) {
      path_.push_back(std::to_string(i));
      array[i] = i < n ? map(std::move(array[i]), child(p, prefix_kw, i)) : map(std::move(array[i]), p + "/" + rest_kw);
      path_.pop_back();
    }
    chain.swap(chain_);
    return v;
  }

  // ---- the shape changes -----------------------------------------------------

  json::Value text(json::Value v) {
    if (!back_) return json::Value(json::serialize(v));
    if (!v.is_string()) return v;
    Result<json::Value> parsed = json::parse(v.as_string());
    if (!parsed) return v;
    report("json_text", "JSON text -> value");
    return std::move(*parsed);
  }

  void report(const char* kind, const char* what) {
    if (done_ == nullptr) return;
    std::string pointer;
    for (const std::string& token : path_) json::append_pointer(pointer, token);
    done_->push_back(Change{pointer, kind, what});
  }

  json::Value entries_to_object(json::Value v) {
    json::Value out = entries_as_object(std::move(v));
    if (out.is_object()) report("entries", "[{\"key\",\"value\"}] -> object");
    return out;
  }

  static json::Value entries_as_object(json::Value v) {
    if (!v.is_array()) return v;
    json::Value out = json::Object{};
    for (json::Value& entry : v.as_array()) {
      const json::Value* key = entry.is_object() ? entry.find("key") : nullptr;
      json::Value* value = entry.is_object() ? entry.find("value") : nullptr;
      if (!key || !key->is_string() || !value || entry.size() != 2) return v;  // not entries after all
      out.set(key->as_string(), std::move(*value));
    }
    return out;
  }

  static json::Value object_to_entries(json::Value v) {
    json::Array entries;
    for (json::Member& m : v.as_object()) entries.push_back(json::Object{{"key", m.key}, {"value", std::move(m.value)}});
    return json::Value(std::move(entries));
  }

  json::Value tuple_to_array(json::Value v, const std::string& p) {
    if (!v.is_object()) return v;
    json::Array out;
    for (std::size_t i = 0;; ++i) {
      json::Value* item = v.find(std::to_string(i));
      if (!item) break;
      out.push_back(std::move(*item));
    }
    if (out.size() != v.size()) return v;  // not a tuple object
    // Trailing nulls at positions the lowering made nullable are absent items.
    auto nullable = s_.nullable.find(p);
    while (!out.empty() && out.back().is_null() && nullable != s_.nullable.end() &&
           nullable->second.count(std::to_string(out.size() - 1))) {
      out.pop_back();
    }
    report("tuple", "{\"0\": …} -> array");
    return json::Value(std::move(out));
  }

  json::Value array_to_tuple(json::Value v, const std::string& p) const {
    json::Value out = json::Object{};
    for (std::size_t i = 0; i < v.as_array().size(); ++i) out.set(std::to_string(i), std::move(v.as_array()[i]));
    if (auto nullable = s_.nullable.find(p); nullable != s_.nullable.end()) {
      for (const std::string& name : nullable->second) {
        if (!out.find(name)) out.set(name, json::Value());
      }
    }
    return out;
  }

  // ---- helpers -------------------------------------------------------------

  bool valid_at(const std::string& pointer, const json::Value& v) const {
    std::optional<bool> verdict = s_.compiled->is_valid_at(pointer, v);
    return verdict.value_or(true);
  }

  bool matches(const std::string& pattern, const std::string& name) {
    auto it = regexes_.find(pattern);
    if (it == regexes_.end()) {
      Result<Regex> compiled = Regex::compile(pattern);
      it = regexes_.emplace(pattern, compiled ? std::optional<Regex>(std::move(*compiled)) : std::nullopt).first;
    }
    return it->second && it->second->search(name) == Regex::Match::Yes;
  }

  static std::string child(const std::string& p, std::string_view keyword, std::size_t index) {
    std::string out = p;
    json::append_pointer(out, keyword);
    json::append_pointer(out, index);
    return out;
  }
  static std::string child(const std::string& p, std::string_view keyword, std::string_view name) {
    std::string out = p;
    json::append_pointer(out, keyword);
    json::append_pointer(out, name);
    return out;
  }

  static constexpr std::size_t kMaxSteps = 1u << 22;

  const Lowering::State& s_;
  const lowering::Document& doc_;
  bool back_;
  std::vector<Change>* done_;
  std::vector<std::string> path_;  // the instance location, unescaped tokens
  std::vector<std::string> expanding_;
  std::vector<std::string> sites_;
  std::vector<std::string> chain_;
  std::size_t steps_ = 0;
  std::map<std::string, std::optional<Regex>> regexes_;
};

}  // namespace

json::Value Lowering::map_back(json::Value answer, std::vector<Change>* done) const {
  if (!maps()) return answer;
  return Mapper(*state_, true, done).run(std::move(answer));
}

json::Value Lowering::map_forward(json::Value instance) const {
  if (!maps()) return instance;
  return Mapper(*state_, false).run(std::move(instance));
}

}  // namespace weld::schema
