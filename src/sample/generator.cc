// The sampler's generator (docs/schema.md, "weld sample"): one candidate instance per call, built
// from the flattened schema of each place. Choices come from the caller's
// PRNG only, and object members are visited in document order, so the same
// seed gives the same instance everywhere.

#include "generator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "flatten.h"
#include "formats.h"
#include "pattern_gen.h"
#include "weld/json/serialize.h"
#include "weld/json/utf8.h"

namespace weld::sample {
namespace {

constexpr int kSoftDepth = 4;
constexpr int kHardDepth = 40;
constexpr std::size_t kMaxNodes = 20000;
constexpr std::int64_t kMaxItems = 2000;
constexpr std::int64_t kMaxLength = 100000;
constexpr double kMaxSafeInteger = 9007199254740991.0;  // 2^53 - 1
constexpr int kStringTries = 8;

bool has_any(const json::Value& m, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    if (m.find(key) != nullptr) return true;
  }
  return false;
}

std::int64_t integer_keyword(const json::Value& m, const char* key, std::int64_t fallback) {
  const json::Value* v = m.find(key);
  if (v == nullptr || !v->is_number()) return fallback;
  double d = v->as_double();
  if (!(d >= 0)) return 0;
  if (d > 1e15) return static_cast<std::int64_t>(1e15);
  return static_cast<std::int64_t>(std::ceil(d));
}

bool type_admits(std::string_view type, const json::Value& v) {
  switch (v.type()) {
    case json::Type::Null: return type == "null";
    case json::Type::Boolean: return type == "boolean";
    case json::Type::Integer: return type == "integer" || type == "number";
    case json::Type::Real:
      return type == "number" || (type == "integer" && std::floor(v.as_real()) == v.as_real());
    case json::Type::String: return type == "string";
    case json::Type::Array: return type == "array";
    case json::Type::Object: return type == "object";
  }
  return false;
}

// Number of decimal places needed to write `step` (0.25 → 2), capped.
int decimals_of(double step) {
  for (int places = 0; places <= 12; ++places) {
    double scaled = step * std::pow(10.0, places);
    if (std::fabs(scaled - std::round(scaled)) < 1e-9 * std::max(1.0, std::fabs(scaled))) return places;
  }
  return 12;
}

double round_to(double v, int places) {
  double scale = std::pow(10.0, places);
  double r = std::round(v * scale) / scale;
  return std::isfinite(r) ? r : v;
}

json::Value number_value(double v) {
  if (std::floor(v) == v && std::fabs(v) <= kMaxSafeInteger) return json::Value(static_cast<std::int64_t>(v));
  return json::Value(v);
}

struct Bounds {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_exclusive = false;
  bool hi_exclusive = false;
};

Bounds bounds_of(const json::Value& m) {
  Bounds b;
  const auto* minimum = m.find("minimum");
  const auto* maximum = m.find("maximum");
  const auto* ex_min = m.find("exclusiveMinimum");
  const auto* ex_max = m.find("exclusiveMaximum");
  if (minimum != nullptr && minimum->is_number()) {
    b.lo = minimum->as_double();
    b.lo_exclusive = ex_min != nullptr && ex_min->is_bool() && ex_min->as_bool();
  }
  if (maximum != nullptr && maximum->is_number()) {
    b.hi = maximum->as_double();
    b.hi_exclusive = ex_max != nullptr && ex_max->is_bool() && ex_max->as_bool();
  }
  if (ex_min != nullptr && ex_min->is_number() && ex_min->as_double() >= b.lo) {
    b.lo = ex_min->as_double();
    b.lo_exclusive = true;
  }
  if (ex_max != nullptr && ex_max->is_number() && ex_max->as_double() <= b.hi) {
    b.hi = ex_max->as_double();
    b.hi_exclusive = true;
  }
  return b;
}

class Generator {
 public:
  Generator(const json::Value& root, Prng& rng, const PatternMatcher& matcher, bool object_root)
      : refs_(root), rng_(rng), matcher_(matcher), flattener_{refs_, rng, kSoftDepth}, object_root_(object_root) {}

  Result<json::Value> run(const json::Value& schema) {
    json::Value out = gen(schema, 0);
    if (!error_.empty()) return Error{ErrorCode::Sample, error_, where_};
    return out;
  }

 private:
  json::Value fail(std::string message, const std::string& where = {}) {
    if (error_.empty()) {
      error_ = std::move(message);
      where_ = where;
    }
    return json::Value();
  }

  json::Value gen(const json::Value& schema, int depth) {
    if (!error_.empty()) return json::Value();
    if (++nodes_ > kMaxNodes) return fail("the instance would be too large to sample");
    if (depth > kHardDepth) return fail("the schema recurses too deeply to sample (required members all the way down?)");
    json::Value m = json::Object{};
    flattener_.merge_into(m, schema, depth, 0);
    if (m.find("__false") != nullptr) return fail("the schema admits no value here (false, or no usable anyOf/oneOf branch)");

    if (const auto* constant = m.find("const")) return *constant;
    std::vector<std::string> types = allowed_types(m);
    if (const auto* values = m.find("enum"); values != nullptr && values->is_array()) return pick_enum(m, *values, types);
    if (types.empty()) return fail("no JSON type satisfies the schema here");
    std::string type = choose_type(types);
    if (depth == 0 && object_root_ &&
        (m.find("type") == nullptr || std::find(types.begin(), types.end(), "object") != types.end())) {
      type = "object";
    }
    if (type == "object") return gen_object(m, depth);
    if (type == "array") return gen_array(m, depth);
    if (type == "string") return gen_string(m);
    if (type == "integer") return gen_integer(m);
    if (type == "number") return gen_number(m);
    if (type == "boolean") return json::Value(rng_.chance(1, 2));
    return json::Value(nullptr);
  }

  // Types from `type` (or inferred from the keywords present), minus those
  // a `not: {"type": …}` excludes.
  std::vector<std::string> allowed_types(const json::Value& m) {
    std::vector<std::string> types;
    if (const auto* type = m.find("type")) {
      if (type->is_string()) types.push_back(type->as_string());
      if (type->is_array()) {
        for (const auto& t : type->as_array()) {
          if (t.is_string()) types.push_back(t.as_string());
        }
      }
    } else if (has_any(m, {"properties", "required", "additionalProperties", "patternProperties", "minProperties",
                           "maxProperties", "propertyNames", "dependentRequired", "dependentSchemas",
                           "dependencies", "unevaluatedProperties"})) {
      types = {"object"};
    } else if (has_any(m, {"items", "prefixItems", "contains", "minItems", "maxItems", "uniqueItems",
                           "additionalItems", "unevaluatedItems"})) {
      types = {"array"};
    } else if (has_any(m, {"minLength", "maxLength", "pattern", "format"})) {
      types = {"string"};
    } else if (has_any(m, {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})) {
      types = {"number"};
    } else {
      types = {"string", "string", "integer", "boolean", "number", "null"};
    }
    if (const auto* avoid = m.find("__not"); avoid != nullptr && avoid->is_array()) {
      for (const auto& n : avoid->as_array()) {
        if (!n.is_object() || n.size() != 1) continue;
        const auto* t = n.find("type");
        if (t == nullptr) continue;
        std::vector<std::string> excluded;
        if (t->is_string()) excluded.push_back(t->as_string());
        if (t->is_array()) {
          for (const auto& e : t->as_array()) {
            if (e.is_string()) excluded.push_back(e.as_string());
          }
        }
        std::erase_if(types, [&](const std::string& name) {
          return std::find(excluded.begin(), excluded.end(), name) != excluded.end();
        });
      }
    }
    return types;
  }

  std::string choose_type(const std::vector<std::string>& types) {
    std::vector<std::string> not_null;
    for (const auto& t : types) {
      if (t != "null") not_null.push_back(t);
    }
    const auto& pool = (!not_null.empty() && !rng_.chance(1, 5)) ? not_null : types;
    return pool[rng_.below(pool.size())];
  }

  // A value `m`'s `not` list rejects outright (const/enum forms only).
  static bool excluded_by_not(const json::Value& m, const json::Value& v) {
    const auto* avoid = m.find("__not");
    if (avoid == nullptr || !avoid->is_array()) return false;
    for (const auto& n : avoid->as_array()) {
      if (!n.is_object()) continue;
      if (const auto* c = n.find("const"); c != nullptr && n.size() == 1 && *c == v) return true;
      if (const auto* e = n.find("enum"); e != nullptr && n.size() == 1 && e->is_array()) {
        const auto& list = e->as_array();
        if (std::find(list.begin(), list.end(), v) != list.end()) return true;
      }
    }
    return false;
  }

  json::Value pick_enum(const json::Value& m, const json::Value& values, const std::vector<std::string>& types) {
    std::vector<const json::Value*> usable;
    bool typed = m.find("type") != nullptr;
    for (const auto& v : values.as_array()) {
      if (excluded_by_not(m, v)) continue;
      if (typed && std::none_of(types.begin(), types.end(), [&](const std::string& t) { return type_admits(t, v); })) {
        continue;
      }
      usable.push_back(&v);
    }
    if (usable.empty()) return fail("no value of the enum satisfies the schema here");
    return *usable[rng_.below(usable.size())];
  }

  bool key_matches(std::string_view pattern, std::string_view key) const {
    return matcher_ ? matcher_(pattern, key) : false;
  }

  // A property name for an extra member: from patternProperties, from
  // propertyNames, or a plain word.
  std::optional<std::string> extra_key(const json::Value& m, const json::Value& object, bool closed) {
    const auto* patterns = m.find("patternProperties");
    for (int attempt = 0; attempt < 8; ++attempt) {
      std::optional<std::string> key;
      if (patterns != nullptr && patterns->is_object() && patterns->size() > 0) {
        const auto& chosen = patterns->as_object()[rng_.below(patterns->size())];
        key = generate_from_pattern(chosen.key, rng_);
      } else if (closed) {
        return std::nullopt;
      } else if (const auto* names = m.find("propertyNames"); names != nullptr) {
        json::Value v = gen(*names, kHardDepth - 1);
        if (v.is_string()) key = v.as_string();
        error_.clear();
      } else {
        key = std::string(random_word(rng_)) + "_" + std::to_string(rng_.between(1, 99));
      }
      if (key && object.find(*key) == nullptr) return key;
    }
    return std::nullopt;
  }

  json::Value member_schema(const json::Value& m, const std::string& key) {
    json::Array parts;
    const auto* properties = m.find("properties");
    bool listed = false;
    if (properties != nullptr && properties->is_object()) {
      if (const auto* s = properties->find(key)) {
        parts.push_back(*s);
        listed = true;
      }
    }
    bool pattern_matched = false;
    if (const auto* patterns = m.find("patternProperties"); patterns != nullptr && patterns->is_object()) {
      for (const auto& p : patterns->as_object()) {
        if (key_matches(p.key, key)) {
          parts.push_back(p.value);
          pattern_matched = true;
        }
      }
    }
    if (!listed && !pattern_matched) {
      if (const auto* additional = m.find("additionalProperties")) parts.push_back(*additional);
    }
    if (parts.empty()) return json::Value(true);
    if (parts.size() == 1) return parts.front();
    return json::Object{{"allOf", json::Value(std::move(parts))}};
  }

  json::Value gen_object(const json::Value& m, int depth) {
    std::vector<std::string> chosen;
    auto include = [&](const std::string& key) {
      if (std::find(chosen.begin(), chosen.end(), key) == chosen.end()) chosen.push_back(key);
    };
    const auto* properties = m.find("properties");
    std::vector<std::string> declared;
    if (properties != nullptr && properties->is_object()) {
      for (const auto& p : properties->as_object()) declared.push_back(p.key);
    }
    if (const auto* required = m.find("required"); required != nullptr && required->is_array()) {
      for (const auto& name : required->as_array()) {
        if (name.is_string()) include(name.as_string());
      }
    }
    std::int64_t min_p = integer_keyword(m, "minProperties", 0);
    std::int64_t max_p = integer_keyword(m, "maxProperties", std::numeric_limits<std::int64_t>::max());
    if (depth < kSoftDepth) {
      for (const auto& key : declared) {
        if (static_cast<std::int64_t>(chosen.size()) >= max_p) break;
        if (rng_.chance(1, 2)) include(key);
      }
    }
    // dependentRequired / dependencies (array form) / dependentSchemas' required.
    for (int round = 0; round < 16; ++round) {
      std::size_t before = chosen.size();
      for (const char* keyword : {"dependentRequired", "dependencies", "dependentSchemas"}) {
        const auto* deps = m.find(keyword);
        if (deps == nullptr || !deps->is_object()) continue;
        for (const auto& dep : deps->as_object()) {
          if (std::find(chosen.begin(), chosen.end(), dep.key) == chosen.end()) continue;
          const json::Value* names = dep.value.is_array() ? &dep.value : dep.value.find("required");
          if (names == nullptr || !names->is_array()) continue;
          for (const auto& name : names->as_array()) {
            if (name.is_string()) include(name.as_string());
          }
        }
      }
      if (chosen.size() == before) break;
    }
    for (const auto& key : declared) {
      if (static_cast<std::int64_t>(chosen.size()) >= min_p) break;
      include(key);
    }
    // Members in declared order first, then the others as they came.
    std::vector<std::string> ordered;
    for (const auto& key : declared) {
      if (std::find(chosen.begin(), chosen.end(), key) != chosen.end()) ordered.push_back(key);
    }
    for (const auto& key : chosen) {
      if (std::find(ordered.begin(), ordered.end(), key) == ordered.end()) ordered.push_back(key);
    }
    json::Value object = json::Object{};
    for (const auto& key : ordered) object.set(key, gen(member_schema(m, key), depth + 1));
    const auto* additional = m.find("additionalProperties");
    bool closed = additional != nullptr && additional->is_bool() && !additional->as_bool();
    if (const auto* unevaluated = m.find("unevaluatedProperties");
        unevaluated != nullptr && unevaluated->is_bool() && !unevaluated->as_bool()) {
      closed = true;
    }
    while (static_cast<std::int64_t>(object.size()) < min_p && error_.empty()) {
      if (static_cast<std::int64_t>(object.size()) >= kMaxItems) return fail("minProperties is too large to sample");
      auto key = extra_key(m, object, closed);
      if (!key) return fail("could not invent enough property names for minProperties");
      object.set(*key, gen(member_schema(m, *key), depth + 1));
    }
    return object;
  }

  json::Value gen_array(const json::Value& m, int depth) {
    std::vector<const json::Value*> prefix;
    const json::Value* rest = nullptr;
    const auto* items = m.find("items");
    if (const auto* prefix_items = m.find("prefixItems"); prefix_items != nullptr && prefix_items->is_array()) {
      for (const auto& s : prefix_items->as_array()) prefix.push_back(&s);
      if (items != nullptr && !items->is_array()) rest = items;
    } else if (items != nullptr && items->is_array()) {
      for (const auto& s : items->as_array()) prefix.push_back(&s);
      rest = m.find("additionalItems");
    } else {
      rest = items;
    }
    if (rest == nullptr) {
      if (const auto* unevaluated = m.find("unevaluatedItems")) rest = unevaluated;
    }
    bool closed = rest != nullptr && rest->is_bool() && !rest->as_bool();
    std::int64_t min_i = integer_keyword(m, "minItems", 0);
    std::int64_t max_i = integer_keyword(m, "maxItems", std::numeric_limits<std::int64_t>::max());
    if (min_i > kMaxItems) return fail("minItems is too large to sample");
    auto prefix_size = static_cast<std::int64_t>(prefix.size());
    std::int64_t upper = std::max(min_i, depth < kSoftDepth ? std::min<std::int64_t>(prefix_size, kMaxItems) : 0) +
                         (depth < kSoftDepth ? 2 : 0);
    upper = std::min(upper, max_i);
    if (closed) upper = std::min(upper, prefix_size);
    if (min_i > upper) {
      if (closed && min_i > prefix_size) return fail("minItems is larger than the closed tuple allows");
      upper = min_i;
    }
    std::int64_t n = rng_.between(min_i, upper);
    const json::Value* contains = m.find("contains");
    std::int64_t min_contains = contains != nullptr ? integer_keyword(m, "minContains", 1) : 0;
    if (min_contains > kMaxItems) return fail("minContains is too large to sample");
    n = std::max(n, min_contains);
    bool unique = false;
    if (const auto* u = m.find("uniqueItems"); u != nullptr && u->is_bool()) unique = u->as_bool();
    json::Value array = json::Array{};
    static const json::Value kAnything(true);
    for (std::int64_t i = 0; i < n && error_.empty(); ++i) {
      const json::Value* base = i < prefix_size ? prefix[static_cast<std::size_t>(i)] : (rest ? rest : &kAnything);
      json::Value element_schema = *base;
      if (contains != nullptr && i >= n - min_contains) {
        element_schema = json::Object{{"allOf", json::Array{*base, *contains}}};
      }
      json::Value element = gen(element_schema, depth + 1);
      for (int retry = 0; unique && retry < 12 && error_.empty(); ++retry) {
        const auto& existing = array.as_array();
        if (std::find(existing.begin(), existing.end(), element) == existing.end()) break;
        element = gen(element_schema, depth + 1);
      }
      array.push_back(std::move(element));
    }
    return array;
  }

  // One to three words (readable in demos), lengthened to minLength and cut
  // to maxLength when the schema asks.
  std::string plain_string(std::int64_t min_len, std::int64_t max_len) {
    std::string out;
    auto words = static_cast<int>(rng_.between(1, 3));
    for (int word = 0; word < words || static_cast<std::int64_t>(out.size()) < min_len; ++word) {
      if (!out.empty()) out.push_back(' ');
      out += random_word(rng_);
      if (static_cast<std::int64_t>(out.size()) > kMaxLength) break;
    }
    if (static_cast<std::int64_t>(out.size()) > max_len) out.resize(static_cast<std::size_t>(max_len));
    if (!out.empty() && out.back() == ' ') out.back() = 'x';
    return out;
  }

  bool string_fits(const json::Value& m, const std::string& s, std::int64_t min_len, std::int64_t max_len) {
    auto length = static_cast<std::int64_t>(json::count_code_points(s));
    if (length < min_len || length > max_len) return false;
    if (excluded_by_not(m, json::Value(s))) return false;
    if (const auto* patterns = m.find("__patterns"); patterns != nullptr && matcher_) {
      for (const auto& p : patterns->as_array()) {
        if (p.is_string() && !matcher_(p.as_string(), s)) return false;
      }
    }
    return true;
  }

  json::Value gen_string(const json::Value& m) {
    std::int64_t min_len = integer_keyword(m, "minLength", 0);
    std::int64_t max_len = integer_keyword(m, "maxLength", std::numeric_limits<std::int64_t>::max());
    if (min_len > kMaxLength) return fail("minLength is too large to sample");
    if (min_len > max_len) return fail("minLength is larger than maxLength");
    const auto* pattern = m.find("pattern");
    const auto* format = m.find("format");
    std::string last;
    for (int attempt = 0; attempt < kStringTries; ++attempt) {
      std::optional<std::string> candidate;
      if (pattern != nullptr && pattern->is_string()) {
        int extra = static_cast<int>(std::min<std::int64_t>(std::max<std::int64_t>(3, min_len), 64)) + attempt;
        candidate = generate_from_pattern(pattern->as_string(), rng_, extra);
      }
      if (!candidate && format != nullptr && format->is_string()) candidate = generate_format(format->as_string(), rng_);
      if (!candidate) candidate = plain_string(min_len, max_len);
      if (string_fits(m, *candidate, min_len, max_len)) return json::Value(std::move(*candidate));
      last = std::move(*candidate);
    }
    return json::Value(std::move(last));  // the validator will say what is wrong
  }

  json::Value gen_integer(const json::Value& m) {
    Bounds b = bounds_of(m);
    double lo = std::isfinite(b.lo) ? (b.lo_exclusive && std::floor(b.lo) == b.lo ? b.lo + 1 : std::ceil(b.lo)) : NAN;
    double hi = std::isfinite(b.hi) ? (b.hi_exclusive && std::floor(b.hi) == b.hi ? b.hi - 1 : std::floor(b.hi)) : NAN;
    if (std::isnan(lo) && std::isnan(hi)) { lo = 0; hi = 100; }
    else if (std::isnan(lo)) lo = hi >= 0 ? std::min(0.0, hi) : hi - 100;
    else if (std::isnan(hi)) hi = lo <= 0 ? std::max(100.0, lo + 100) : lo + 100;
    lo = std::max(lo, -kMaxSafeInteger);
    hi = std::min(hi, kMaxSafeInteger);
    if (lo > hi) return fail("no integer lies between the minimum and the maximum");
    double step = 1;
    if (const auto* mult = m.find("multipleOf"); mult != nullptr && mult->is_number() && mult->as_double() > 0) {
      double mo = mult->as_double();
      step = 0;
      for (int t = 1; t <= 1000; ++t) {
        double scaled = mo * t;
        if (std::fabs(scaled - std::round(scaled)) < 1e-9 * std::max(1.0, scaled)) {
          step = std::round(scaled);
          break;
        }
      }
      if (step == 0 || step > kMaxSafeInteger) return fail("no integer is a multiple of multipleOf");
    }
    double k_lo = std::ceil(lo / step), k_hi = std::floor(hi / step);
    if (k_lo > k_hi) return fail("no multiple of multipleOf lies between the minimum and the maximum");
    auto k = rng_.between(static_cast<std::int64_t>(k_lo), static_cast<std::int64_t>(k_hi));
    double v = static_cast<double>(k) * step;
    if (excluded_by_not(m, json::Value(static_cast<std::int64_t>(v))) && k < static_cast<std::int64_t>(k_hi)) {
      v += step;
    }
    return json::Value(static_cast<std::int64_t>(v));
  }

  json::Value gen_number(const json::Value& m) {
    Bounds b = bounds_of(m);
    const auto* mult = m.find("multipleOf");
    if (mult != nullptr && mult->is_number() && mult->as_double() > 0) {
      double step = mult->as_double();
      double lo = std::isfinite(b.lo) ? b.lo : (std::isfinite(b.hi) ? std::min(0.0, b.hi) - 100 * step : 0);
      double hi = std::isfinite(b.hi) ? b.hi : lo + 100 * step;
      double k_lo = std::ceil(lo / step), k_hi = std::floor(hi / step);
      if (b.lo_exclusive && k_lo * step <= b.lo) k_lo += 1;
      if (b.hi_exclusive && k_hi * step >= b.hi) k_hi -= 1;
      if (!(k_lo <= k_hi) || std::fabs(k_lo) > kMaxSafeInteger || std::fabs(k_hi) > kMaxSafeInteger) {
        return fail("no multiple of multipleOf lies between the minimum and the maximum");
      }
      auto k = rng_.between(static_cast<std::int64_t>(k_lo), static_cast<std::int64_t>(k_hi));
      return number_value(round_to(static_cast<double>(k) * step, decimals_of(step)));
    }
    if (rng_.chance(1, 2)) {
      json::Value as_integer = gen_integer(m);
      if (error_.empty()) return as_integer;
      error_.clear();  // no integer in range: try a real below
    }
    double lo = std::isfinite(b.lo) ? b.lo : (std::isfinite(b.hi) ? std::min(0.0, b.hi) - 100 : 0);
    double hi = std::isfinite(b.hi) ? b.hi : lo + 100;
    if (lo > hi || (lo == hi && (b.lo_exclusive || b.hi_exclusive))) {
      return fail("no number lies between the minimum and the maximum");
    }
    double v = round_to(lo + rng_.unit() * (hi - lo), 2);
    auto inside = [&](double x) {
      return x >= lo && x <= hi && !(b.lo_exclusive && x <= lo) && !(b.hi_exclusive && x >= hi);
    };
    if (!inside(v)) v = lo + (hi - lo) / 2;
    if (!inside(v)) v = std::nextafter(lo, hi);
    return json::Value(v);  // a real, even when integral (written 5.0)
  }

  RefIndex refs_;
  Prng& rng_;
  const PatternMatcher& matcher_;
  Flattener flattener_;
  bool object_root_;
  std::size_t nodes_ = 0;
  std::string error_;
  std::string where_;
};

}  // namespace

Result<json::Value> generate_candidate(const json::Value& schema, Prng& rng, const PatternMatcher& matcher,
                                       bool object_root) {
  Generator generator(schema, rng, matcher, object_root);
  return generator.run(schema);
}

}  // namespace weld::sample
