// Schema compiler, part 2: one subschema -> one Node with its instruction
// ranges (any type, number, string, array, object), in Ajv's keyword order
// so that collected errors come out in the order Ajv reports them.
#include <algorithm>
#include <cctype>
#include <cmath>

#include "compiler.h"
#include "weld/schema/uri.h"
#include "weld/json/pointer.h"
#include "weld/json/serialize.h"
#include "weld/schema/format.h"

namespace weld::schema {
namespace {

enum Range { kAny = 0, kNumber, kString, kArray, kObject, kRangeCount };

std::uint8_t type_bits(std::string_view name) {
  if (name == "null") return kTypeNull;
  if (name == "boolean") return kTypeBoolean;
  if (name == "integer") return kTypeInteger | kTypeIntegralReal;
  if (name == "number") return kTypeInteger | kTypeReal;
  if (name == "string") return kTypeString;
  if (name == "array") return kTypeArray;
  if (name == "object") return kTypeObject;
  return 0;
}

bool is_legacy(Dialect d) { return d == Dialect::Draft4 || d == Dialect::Draft6 || d == Dialect::Draft7; }

/// A collision-free PropTable::buckets for the entries' names: the first
/// size (up to 8 times the entries), byte position and multiplier under
/// which no two signatures share a slot. Only the positions at which the
/// names' signatures are distinct are tried (names alike in length, first
/// and last byte, such as "dependency_name" and "dependency_type", differ
/// deep inside). False when there is none.
bool index_entries_perfectly(PropTable& table) {
  const std::size_t count = table.entries.size();
  std::vector<std::uint8_t> picks;
  std::vector<std::uint64_t> signatures(count);
  for (std::uint8_t pick = 1; pick < 64; ++pick) {
    for (std::size_t e = 0; e < count; ++e) {
      const std::string& name = table.entries[e].name;
      signatures[e] = key_signature(name.data(), name.size(), pick);
    }
    std::sort(signatures.begin(), signatures.end());
    if (std::adjacent_find(signatures.begin(), signatures.end()) == signatures.end()) picks.push_back(pick);
  }
  unsigned bits = 1;
  while ((std::size_t{1} << bits) < count) ++bits;
  std::uint64_t seed = 0x9E3779B97F4A7C15ull;
  for (unsigned extra = 0; extra < 4; ++extra) {
    const unsigned size_bits = bits + extra;
    for (std::size_t p = 0; p < picks.size() && p < 8; ++p) {
      const std::uint8_t pick = picks[p];
      for (int attempt = 0; attempt < 16; ++attempt) {
        seed = (seed ^ (seed >> 31)) * 0xBF58476D1CE4E5B9ull | 1;
        std::vector<std::uint32_t> slots(std::size_t{1} << size_bits, kNone);
        bool clash = false;
        for (std::uint32_t e = 0; e < count && !clash; ++e) {
          const std::string& name = table.entries[e].name;
          std::uint64_t slot = (key_signature(name.data(), name.size(), pick) * seed) >> (64 - size_bits);
          clash = slots[slot] != kNone;
          slots[slot] = e;
        }
        if (clash) continue;
        table.buckets = std::move(slots);
        table.perfect_seed = seed;
        table.perfect_shift = static_cast<std::uint8_t>(64 - size_bits);
        table.perfect_pick = pick;
        return true;
      }
    }
  }
  return false;
}

/// PropTable::by_length when no two names share a length below kByLength.
bool index_entries_by_length(PropTable& table) {
  std::fill(std::begin(table.by_length), std::end(table.by_length), PropTable::kNoEntry);
  for (std::uint32_t e = 0; e < table.entries.size(); ++e) {
    const std::size_t size = table.entries[e].name.size();
    if (size >= PropTable::kByLength || table.by_length[size] != PropTable::kNoEntry) return false;
    table.by_length[size] = static_cast<std::uint8_t>(e);
  }
  table.by_length_indexed = true;
  return true;
}

/// The entry lookup of a PropTable (find_entry in the evaluator): by name
/// length when the lengths are distinct, else a perfect table when one
/// exists, else open addressing; none for one or two names.
void index_entries(PropTable& table) {
  if (index_entries_by_length(table)) return;
  if (table.entries.size() < 3 || index_entries_perfectly(table)) return;
  std::size_t size = 8;
  while (size < table.entries.size() * 2) size *= 2;
  table.buckets.assign(size, kNone);
  table.bucket_mask = size - 1;
  for (std::uint32_t e = 0; e < table.entries.size(); ++e) {
    const std::string& name = table.entries[e].name;
    std::uint64_t h = hash_key(name.data(), name.size()) & table.bucket_mask;
    while (table.buckets[h] != kNone) h = (h + 1) & table.bucket_mask;
    table.buckets[h] = e;
  }
}

}  // namespace

std::uint32_t Compiler::intern(const std::string& s) {
  auto [it, inserted] = interned_.emplace(s, static_cast<std::uint32_t>(program_.strings.size()));
  if (inserted) program_.strings.push_back(s);
  return it->second;
}

namespace {

/// `\&`, `\%`, `\:` … are identity escapes that ECMAScript allows without
/// the `u` flag (Annex B) but not with it. Schemas in the wild use them and
/// mean the character itself; this rewrites them (other helpers see the
/// pattern unchanged). Returns false when there is nothing to rewrite.
bool rewrite_identity_escapes(const std::string& pattern, std::string& out) {
  static constexpr std::string_view kSyntax = "^$\\.*+?()[]{}|/-";
  bool changed = false;
  out.clear();
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      char next = pattern[i + 1];
      unsigned char u = static_cast<unsigned char>(next);
      if (u < 0x80 && std::ispunct(u) && kSyntax.find(next) == std::string_view::npos) {
        out += next;
        changed = true;
      } else {
        out += c;
        out += next;
      }
      ++i;
      continue;
    }
    out += c;
  }
  return changed;
}

}  // namespace

std::uint32_t Compiler::regex_for(const std::string& pattern, const std::string& where) {
  if (auto it = regex_index_.find(pattern); it != regex_index_.end()) return it->second;
  auto re = Regex::compile(pattern);
  std::string rewritten;
  if (!re && rewrite_identity_escapes(pattern, rewritten)) {
    auto second = Regex::compile(rewritten);
    if (second) {
      re = std::move(second);
      if (!internal_ && options_.strict) {
        program_.warnings.push_back(Warning{where, "pattern " + json::quote(pattern) +
                                                       " escapes characters that need no escape; read as " +
                                                       json::quote(rewritten)});
      }
    }
  }
  if (!re) throw SchemaError(where, "pattern " + json::quote(pattern) + " is not a valid regular expression: " + re.error().message);
  std::uint32_t index = static_cast<std::uint32_t>(program_.regexes.size());
  program_.regexes.push_back(std::move(*re));
  program_.simple_patterns.push_back(parse_simple_pattern(pattern));
  regex_index_.emplace(pattern, index);
  return index;
}

std::uint32_t Compiler::node_for(const json::Value* v) {
  if (auto it = node_of_.find(v); it != node_of_.end()) return it->second;
  std::uint32_t index = static_cast<std::uint32_t>(program_.nodes.size());
  program_.nodes.emplace_back();
  node_of_.emplace(v, index);
  worklist_.emplace_back(index, v);
  return index;
}

void Compiler::finish_dynamic_refs() {
  std::vector<PendingDynamic> pending;
  pending.swap(pending_dynamic_);
  for (const PendingDynamic& p : pending) {
    DynamicRef& ref = program_.dynamic_refs[p.dynamic_ref];
    ref.candidates.clear();
    for (std::uint32_t r = 0; r < resources_.size(); ++r) {
      const ResourceInfo& res = resources_[r];
      if (p.anchor.empty()) {
        if (res.recursive_anchor) ref.candidates.emplace_back(r, kNone);
      } else if (auto it = res.dynamic_anchors.find(p.anchor); it != res.dynamic_anchors.end()) {
        ref.candidates.emplace_back(r, kNone);
      }
    }
    for (auto& [r, node] : ref.candidates) {
      const ResourceInfo& res = resources_[r];
      const json::Value* target = p.anchor.empty() ? res.root : res.dynamic_anchors.at(p.anchor);
      node = node_for(target);
    }
    program_.dynamic_refs[p.dynamic_ref].candidates = ref.candidates;
  }
}

/// One subschema being compiled: its instruction ranges (any type, number,
/// string, array, object), its Node, and what every keyword needs to emit
/// an instruction.
struct Compiler::NodeDraft {
  Compiler& c;
  const json::Value& v;
  const SubInfo& info;
  Dialect d;
  bool legacy;
  bool validation;
  bool applicator;
  std::vector<Instr> ranges[kRangeCount];
  Node node;

  /// The schema pointer of keyword `kw` of this subschema.
  std::string where(std::string_view kw) const {
    std::string p = info.pointer;
    json::append_pointer(p, kw);
    return p;
  }
  /// The schema path ("#" and the pointer) of keyword `kw`, interned.
  std::uint32_t path(std::string_view kw) {
    std::string path = "#";
    json::append_pointer(path.append(info.pointer), kw);
    return c.intern(path);
  }
  Instr make(OpCode op, std::string_view kw) {
    Instr in;
    in.op = op;
    in.keyword = c.intern(std::string(kw));
    in.path = path(kw);
    return in;
  }
  /// The node of subschema `s` (compiled later, from the worklist).
  std::uint32_t sub(const json::Value& s) {
    if (!s.is_object() && !s.is_bool()) throw SchemaError(info.pointer, "subschema must be an object or a boolean");
    if (!c.info_.count(&s)) c.walk(s, info, false);
    return c.node_for(&s);
  }
  /// The nodes of an array of subschemas, as (first in node_lists, count).
  std::pair<std::uint32_t, std::uint32_t> list(const json::Value& arr, std::string_view kw) {
    if (!arr.is_array()) throw SchemaError(where(kw), "\"" + std::string(kw) + "\" must be array");
    std::vector<std::uint32_t> nodes;
    for (const json::Value& s : arr.as_array()) nodes.push_back(sub(s));
    std::uint32_t first = static_cast<std::uint32_t>(c.program_.node_lists.size());
    c.program_.node_lists.insert(c.program_.node_lists.end(), nodes.begin(), nodes.end());
    return {first, static_cast<std::uint32_t>(nodes.size())};
  }
  /// A length or count bound, clamped to kMaxCount.
  std::uint32_t limit(const json::Value& val, std::string_view kw) const {
    if (!val.is_number()) throw SchemaError(where(kw), "\"" + std::string(kw) + "\" must be number");
    double x = val.as_double();
    if (x < 0 || std::floor(x) != x) throw SchemaError(where(kw), "\"" + std::string(kw) + "\" must be a non-negative integer");
    return x >= kMaxCount ? kMaxCount : static_cast<std::uint32_t>(x);
  }
  /// A count beyond kMaxCount decides like kMaxCount (no string, array or
  /// object that large can be read), but messages print the schema's
  /// number: it is kept in values[b].
  void keep_clamped(Instr& in, const json::Value& val) {
    if (in.a != kMaxCount) return;
    in.flags |= kInstrClampedBound;
    in.b = static_cast<std::uint32_t>(c.program_.values.size());
    c.program_.values.push_back(val);
  }
  double number(const json::Value& val, std::string_view kw) const {
    if (!val.is_number()) throw SchemaError(where(kw), "\"" + std::string(kw) + "\" must be number");
    return val.as_double();
  }
  const json::Value* resolve(const std::string& ref, std::string_view kw) {
    std::string target = resolve_uri(info.base, ref);
    return c.resolve_reference(target, where(kw), d);
  }
};

/// `$ref` (draft <= 7: its siblings are ignored; true then, nothing else
/// to compile), `$dynamicRef`, `$recursiveRef`.
bool Compiler::compile_references(NodeDraft& n) {
  const json::Value* ref = n.v.find("$ref");
  // Core: $ref (draft <= 7: its siblings are ignored).
  if (ref) {
    if (!ref->is_string()) throw SchemaError(n.where("$ref"), "\"$ref\" must be string");
    Instr in = n.make(OpCode::Ref, "$ref");
    in.a = node_for(n.resolve(ref->as_string(), "$ref"));
    n.ranges[kAny].push_back(in);
    if (n.legacy) return true;
  }
  if (is_2020_or_later(n.d)) {
    const json::Value* dyn = n.v.find("$dynamicRef");
    std::string_view dyn_uri, dyn_fragment;
    if (dyn && dyn->is_string()) split_fragment(dyn->as_string(), dyn_uri, dyn_fragment);
    if (dyn && n.d == Dialect::V1 && !dyn_fragment.empty() && dyn_fragment[0] != '/') {
      // v1: always dynamic. The outermost resource in the dynamic scope
      // with this $dynamicAnchor wins; the resource the URI names is only
      // the fallback when none is in scope (and a plain $anchor of the same
      // name is never a target).
      std::string resource_uri(strip_fragment(resolve_uri(n.info.base, dyn->as_string())));
      const json::Value* resource = resolve_reference(resource_uri, n.where("$dynamicRef"), n.d);
      Instr in = n.make(OpCode::DynamicRef, "$dynamicRef");
      in.a = static_cast<std::uint32_t>(program_.dynamic_refs.size());
      std::uint32_t fallback = kNone;
      for (const ResourceInfo& res : resources_) {
        if (res.root != resource) continue;
        if (auto it = res.dynamic_anchors.find(std::string(dyn_fragment)); it != res.dynamic_anchors.end()) {
          fallback = node_for(it->second);
        }
      }
      program_.dynamic_refs.push_back(DynamicRef{fallback, {}});
      pending_dynamic_.push_back(PendingDynamic{in.a, std::string(dyn_fragment)});
      program_.uses_dynamic_scope = true;
      n.ranges[kAny].push_back(in);
      dyn = nullptr;  // done
    }
    if (dyn) {
      if (!dyn->is_string()) throw SchemaError(n.where("$dynamicRef"), "\"$dynamicRef\" must be string");
      const json::Value* target = n.resolve(dyn->as_string(), "$dynamicRef");
      Instr in = n.make(OpCode::DynamicRef, "$dynamicRef");
      in.a = static_cast<std::uint32_t>(program_.dynamic_refs.size());
      program_.dynamic_refs.push_back(DynamicRef{node_for(target), {}});
      std::string_view without, fragment;
      split_fragment(dyn->as_string(), without, fragment);
      const json::Value* anchor = target->is_object() ? target->find("$dynamicAnchor") : nullptr;
      if (!fragment.empty() && fragment[0] != '/' && anchor && anchor->is_string() && anchor->as_string() == fragment) {
        pending_dynamic_.push_back(PendingDynamic{in.a, std::string(fragment)});
        program_.uses_dynamic_scope = true;
      }
      n.ranges[kAny].push_back(in);
    }
  } else if (n.d == Dialect::Draft2019_09) {
    if (const json::Value* rec = n.v.find("$recursiveRef")) {
      if (!rec->is_string()) throw SchemaError(n.where("$recursiveRef"), "\"$recursiveRef\" must be string");
      const json::Value* target = n.resolve(rec->as_string(), "$recursiveRef");
      Instr in = n.make(OpCode::DynamicRef, "$recursiveRef");
      in.a = static_cast<std::uint32_t>(program_.dynamic_refs.size());
      program_.dynamic_refs.push_back(DynamicRef{node_for(target), {}});
      const json::Value* anchor = target->is_object() ? target->find("$recursiveAnchor") : nullptr;
      if (anchor && anchor->is_bool() && anchor->as_bool()) {
        pending_dynamic_.push_back(PendingDynamic{in.a, std::string()});
        program_.uses_dynamic_scope = true;
      }
      n.ranges[kAny].push_back(in);
    }
  }
  return false;
}

/// Keywords of any instance type: `type`, `const`, `enum`, `not`, `anyOf`,
/// `oneOf`, `allOf`, `if`/`then`/`else`.
void Compiler::compile_any_type(NodeDraft& n) {
  if (n.validation) {
    if (const json::Value* type = n.v.find("type")) {
      std::uint8_t mask = 0;
      if (type->is_string()) {
        mask = type_bits(type->as_string());
      } else if (type->is_array()) {
        for (const json::Value& t : type->as_array()) {
          if (t.is_string()) mask |= type_bits(t.as_string());
        }
      } else {
        throw SchemaError(n.where("type"), "\"type\" must be string or array");
      }
      n.node.type_mask = mask;
      n.node.type_value = static_cast<std::uint32_t>(program_.values.size());
      program_.values.push_back(*type);
    }
    if (const json::Value* c = n.v.find("const"); c && n.d != Dialect::Draft4) {
      Instr in = n.make(OpCode::Const, "const");
      in.a = static_cast<std::uint32_t>(program_.values.size());
      program_.values.push_back(*c);
      n.ranges[kAny].push_back(in);
    }
    if (const json::Value* e = n.v.find("enum")) {
      if (!e->is_array()) throw SchemaError(n.where("enum"), "\"enum\" must be array");
      Instr in = n.make(OpCode::Enum, "enum");
      in.a = static_cast<std::uint32_t>(program_.values.size());
      in.b = static_cast<std::uint32_t>(e->as_array().size());
      program_.values.insert(program_.values.end(), e->as_array().begin(), e->as_array().end());
      // The whole enum again, for the allowedValues parameter.
      in.c = static_cast<std::uint32_t>(program_.values.size());
      program_.values.push_back(*e);
      if (in.b > 6) {
        EnumSet set;
        std::size_t size = 16;
        while (size < in.b * 2) size *= 2;
        set.buckets.assign(size, kNone);
        set.mask = size - 1;
        for (std::uint32_t k = in.a; k < in.a + in.b; ++k) {
          const json::Value& member = program_.values[k];
          if (!member.is_string()) {
            set.others.push_back(k);
            continue;
          }
          const std::string& str = member.as_string();
          std::uint64_t h = hash_name(str.data(), str.size()) & set.mask;
          while (set.buckets[h] != kNone) h = (h + 1) & set.mask;
          set.buckets[h] = k;
        }
        in.d = static_cast<std::uint32_t>(program_.enum_sets.size());
        program_.enum_sets.push_back(std::move(set));
      }
      n.ranges[kAny].push_back(in);
    }
  }
  if (n.applicator) {
    if (const json::Value* schema = n.v.find("not")) {
      Instr in = n.make(OpCode::Not, "not");
      in.a = n.sub(*schema);
      n.ranges[kAny].push_back(in);
    }
    for (auto [kw, op] : {std::pair{"anyOf", OpCode::AnyOf}, {"oneOf", OpCode::OneOf}, {"allOf", OpCode::AllOf}}) {
      if (const json::Value* arr = n.v.find(kw)) {
        Instr in = n.make(op, kw);
        auto [first, count] = n.list(*arr, kw);
        in.a = first;
        in.b = count;
        n.ranges[kAny].push_back(in);
      }
    }
    if (n.d != Dialect::Draft4 && n.d != Dialect::Draft6) {
      if (const json::Value* i = n.v.find("if")) {
        const json::Value* t = n.v.find("then");
        const json::Value* e = n.v.find("else");
        Instr in = n.make(OpCode::IfThenElse, "if");
        in.a = n.sub(*i);
        in.b = t ? n.sub(*t) : kNone;
        in.c = e ? n.sub(*e) : kNone;
        n.ranges[kAny].push_back(in);  // even alone: `if` annotates for unevaluated*
      }
    }
  }
}

/// Numbers (`maximum` ... `multipleOf`) and strings (`maxLength`,
/// `minLength`, `pattern`, `format`).
void Compiler::compile_scalars(NodeDraft& n) {
  // Numbers.
  if (n.validation) {
    const json::Value* max = n.v.find("maximum");
    const json::Value* min = n.v.find("minimum");
    const json::Value* xmax = n.v.find("exclusiveMaximum");
    const json::Value* xmin = n.v.find("exclusiveMinimum");
    // A bound keeps its schema value (values[a]): the message prints it as
    // written, and a bound a double cannot hold exactly (an integer beyond
    // 2^53, or beyond int64) is compared exactly (kInstrExactBound).
    auto bound = [&](OpCode op, const json::Value& val, std::string_view kw) {
      Instr in = n.make(op, kw);
      in.num = n.number(val, kw);
      in.a = static_cast<std::uint32_t>(program_.values.size());
      program_.values.push_back(val);
      if (val.big_integer_digits() != nullptr ||
          (val.is_integer() && (val.as_integer() > (std::int64_t{1} << 53) || val.as_integer() < -(std::int64_t{1} << 53)))) {
        in.flags |= kInstrExactBound;
      }
      return in;
    };
    if (max) {
      Instr in = bound(OpCode::Maximum, *max, "maximum");
      if (n.d == Dialect::Draft4 && xmax && xmax->is_bool() && xmax->as_bool()) in.flags |= kInstrDraft4Exclusive;
      n.ranges[kNumber].push_back(in);
    }
    if (min) {
      Instr in = bound(OpCode::Minimum, *min, "minimum");
      if (n.d == Dialect::Draft4 && xmin && xmin->is_bool() && xmin->as_bool()) in.flags |= kInstrDraft4Exclusive;
      n.ranges[kNumber].push_back(in);
    }
    if (n.d != Dialect::Draft4) {
      if (xmax) n.ranges[kNumber].push_back(bound(OpCode::ExclusiveMaximum, *xmax, "exclusiveMaximum"));
      if (xmin) n.ranges[kNumber].push_back(bound(OpCode::ExclusiveMinimum, *xmin, "exclusiveMinimum"));
    }
    if (const json::Value* m = n.v.find("multipleOf")) {
      Instr in = n.make(OpCode::MultipleOf, "multipleOf");
      in.num = n.number(*m, "multipleOf");
      if (!(in.num > 0)) throw SchemaError(n.where("multipleOf"), "\"multipleOf\" must be > 0");
      in.a = static_cast<std::uint32_t>(program_.values.size());
      program_.values.push_back(*m);
      n.ranges[kNumber].push_back(in);
    }
    // Strings.
    if (const json::Value* m = n.v.find("maxLength")) {
      Instr in = n.make(OpCode::MaxLength, "maxLength");
      in.a = n.limit(*m, "maxLength");
      n.keep_clamped(in, *m);
      n.ranges[kString].push_back(in);
    }
    if (const json::Value* m = n.v.find("minLength")) {
      Instr in = n.make(OpCode::MinLength, "minLength");
      in.a = n.limit(*m, "minLength");
      n.keep_clamped(in, *m);
      n.ranges[kString].push_back(in);
    }
    if (const json::Value* p = n.v.find("pattern")) {
      if (!p->is_string()) throw SchemaError(n.where("pattern"), "\"pattern\" must be string");
      Instr in = n.make(OpCode::Pattern, "pattern");
      in.a = regex_for(p->as_string(), n.where("pattern"));
      in.b = intern(p->as_string());
      n.ranges[kString].push_back(in);
    }
  }
  if (const json::Value* f = n.v.find("format"); f && f->is_string()) {
    if (std::optional<FormatId> id = format_id(f->as_string(), n.d == Dialect::Draft4 || n.d == Dialect::Draft6)) {
      if (options_.assert_formats && !internal_) {
        Instr in = n.make(OpCode::Format, "format");
        in.a = intern(f->as_string());
        in.b = static_cast<std::uint32_t>(*id);
        n.ranges[kString].push_back(in);
      }
    } else if (!internal_ && options_.strict && n.info.doc == 0) {
      program_.warnings.push_back(Warning{n.where("format"), "unknown format \"" + f->as_string() + "\" ignored"});
    }
  }
}

/// Arrays: `maxItems`, `minItems`, `uniqueItems`, `prefixItems`/`items`/
/// `additionalItems`, `contains` with `minContains`/`maxContains`.
void Compiler::compile_arrays(NodeDraft& n) {
  // Arrays.
  if (n.validation) {
    if (const json::Value* m = n.v.find("maxItems")) {
      Instr in = n.make(OpCode::MaxItems, "maxItems");
      in.a = n.limit(*m, "maxItems");
      n.keep_clamped(in, *m);
      n.ranges[kArray].push_back(in);
    }
    if (const json::Value* m = n.v.find("minItems")) {
      Instr in = n.make(OpCode::MinItems, "minItems");
      in.a = n.limit(*m, "minItems");
      n.keep_clamped(in, *m);
      n.ranges[kArray].push_back(in);
    }
    if (const json::Value* u = n.v.find("uniqueItems"); u && u->is_bool() && u->as_bool()) {
      n.ranges[kArray].push_back(n.make(OpCode::UniqueItems, "uniqueItems"));
    }
  }
  if (n.applicator) {
    const json::Value* prefix = nullptr;
    const json::Value* rest = nullptr;
    const char* prefix_kw = "items";
    const char* rest_kw = "items";
    const json::Value* items = n.v.find("items");
    if (is_2020_or_later(n.d)) {
      prefix = n.v.find("prefixItems");
      prefix_kw = "prefixItems";
      rest = items;
      if (items && items->is_array()) {  // not 2020-12; be lenient and read it as draft-07 did
        prefix = items;
        prefix_kw = "items";
        rest = n.v.find("additionalItems");
        rest_kw = "additionalItems";
      }
    } else if (items && items->is_array()) {
      prefix = items;
      rest = n.v.find("additionalItems");
      rest_kw = "additionalItems";
    } else {
      rest = items;
    }
    if (prefix || rest) {
      Instr in = n.make(OpCode::Items, rest ? rest_kw : prefix_kw);
      in.c = kNone;
      if (prefix) {
        auto [first, count] = n.list(*prefix, prefix_kw);
        in.a = first;
        in.b = count;
      }
      if (rest) {
        in.c = n.sub(*rest);
        if (rest->is_bool() && !rest->as_bool()) in.flags = 1;
      }
      n.ranges[kArray].push_back(in);
    }
    if (n.d != Dialect::Draft4) {
      if (const json::Value* c = n.v.find("contains")) {
        Instr in = n.make(OpCode::Contains, "contains");
        in.a = n.sub(*c);
        in.b = 1;
        in.c = kNone;
        if (!n.legacy) {
          const json::Value* min_contains = n.validation ? n.v.find("minContains") : nullptr;
          const json::Value* max_contains = n.validation ? n.v.find("maxContains") : nullptr;
          if (min_contains) in.b = n.limit(*min_contains, "minContains");
          if (max_contains) in.c = n.limit(*max_contains, "maxContains");
          if ((min_contains && in.b == kMaxCount) || (max_contains && in.c == kMaxCount)) {
            // Messages print the schema's numbers: values[d] and values[d + 1].
            in.flags |= kInstrClampedBound;
            in.d = static_cast<std::uint32_t>(program_.values.size());
            program_.values.push_back(min_contains ? *min_contains : json::Value(1));
            program_.values.push_back(max_contains ? *max_contains : json::Value());
          }
        }
        if (is_2020_or_later(n.d)) in.flags |= 1;  // contains annotates the items it matched
        n.ranges[kArray].push_back(in);
      }
    }
  }
}

/// Objects: `maxProperties`, `minProperties`, `required`, `dependencies`,
/// `dependentRequired`, `propertyNames`, `dependentSchemas`.
void Compiler::compile_objects(NodeDraft& n) {
  // Objects.
  if (n.validation) {
    if (const json::Value* m = n.v.find("maxProperties")) {
      Instr in = n.make(OpCode::MaxProperties, "maxProperties");
      in.a = n.limit(*m, "maxProperties");
      n.keep_clamped(in, *m);
      n.ranges[kObject].push_back(in);
    }
    if (const json::Value* m = n.v.find("minProperties")) {
      Instr in = n.make(OpCode::MinProperties, "minProperties");
      in.a = n.limit(*m, "minProperties");
      n.keep_clamped(in, *m);
      n.ranges[kObject].push_back(in);
    }
    if (const json::Value* r = n.v.find("required")) {
      if (!r->is_array()) throw SchemaError(n.where("required"), "\"required\" must be array");
      Instr in = n.make(OpCode::Required, "required");
      in.a = static_cast<std::uint32_t>(program_.names.size());
      for (const json::Value& name : r->as_array()) {
        if (!name.is_string()) throw SchemaError(n.where("required"), "\"required\" items must be string");
        program_.names.push_back(name.as_string());
      }
      in.b = static_cast<std::uint32_t>(r->as_array().size());
      if (in.b) n.ranges[kObject].push_back(in);
    }
  }
  auto dep_required = [&](const json::Value& map, std::string_view kw, bool schemas_too) {
    Instr req = n.make(OpCode::DependentRequired, kw);
    Instr sch = n.make(OpCode::DependentSchemas, kw);
    req.a = static_cast<std::uint32_t>(program_.dep_required.size());
    sch.a = static_cast<std::uint32_t>(program_.dep_schemas.size());
    if (!map.is_object()) throw SchemaError(n.where(kw), "\"" + std::string(kw) + "\" must be object");
    for (const json::Member& m : map.as_object()) {
      if (m.value.is_array()) {
        DepRequired dep{m.key, {}};
        for (const json::Value& name : m.value.as_array()) {
          if (name.is_string()) dep.required.push_back(name.as_string());
        }
        program_.dep_required.push_back(std::move(dep));
      } else if (schemas_too) {
        program_.dep_schemas.push_back(DepSchema{m.key, n.sub(m.value)});
      }
    }
    req.b = static_cast<std::uint32_t>(program_.dep_required.size()) - req.a;
    sch.b = static_cast<std::uint32_t>(program_.dep_schemas.size()) - sch.a;
    if (req.b) n.ranges[kObject].push_back(req);
    if (sch.b) n.ranges[kObject].push_back(sch);
  };
  if (const json::Value* deps = n.d != Dialect::V1 ? n.v.find("dependencies") : nullptr) {
    dep_required(*deps, "dependencies", true);
  }
  if (!n.legacy) {
    if (const json::Value* deps = n.v.find("dependentRequired"); deps && n.validation) dep_required(*deps, "dependentRequired", false);
  }
  if (n.applicator) {
    if (n.d != Dialect::Draft4) {
      if (const json::Value* pn = n.v.find("propertyNames")) {
        Instr in = n.make(OpCode::PropertyNames, "propertyNames");
        in.a = n.sub(*pn);
        n.ranges[kObject].push_back(in);
      }
    }
    if (!n.legacy) {
      if (const json::Value* ds = n.v.find("dependentSchemas")) {
        if (!ds->is_object()) throw SchemaError(n.where("dependentSchemas"), "\"dependentSchemas\" must be object");
        Instr in = n.make(OpCode::DependentSchemas, "dependentSchemas");
        in.a = static_cast<std::uint32_t>(program_.dep_schemas.size());
        for (const json::Member& m : ds->as_object()) program_.dep_schemas.push_back(DepSchema{m.key, n.sub(m.value)});
        in.b = static_cast<std::uint32_t>(ds->as_object().size());
        n.ranges[kObject].push_back(in);
      }
    }
  }
}

/// `properties`, `patternProperties` and `additionalProperties` as one
/// PropTable (with `required` fused into it when every name is listed).
void Compiler::compile_properties(NodeDraft& n) {
  if (!n.applicator) return;
  const json::Value* props = n.v.find("properties");
  const json::Value* patterns = n.v.find("patternProperties");
  const json::Value* additional = n.v.find("additionalProperties");
  if (props || patterns || additional) {
    PropTable table;
    if (props) {
      if (!props->is_object()) throw SchemaError(n.where("properties"), "\"properties\" must be object");
      for (const json::Member& m : props->as_object()) {
        PropTable::Entry entry;
        entry.name = m.key;
        entry.node = n.sub(m.value);
        table.entries.push_back(std::move(entry));
      }
    }
    if (patterns) {
      if (!patterns->is_object()) throw SchemaError(n.where("patternProperties"), "\"patternProperties\" must be object");
      for (const json::Member& m : patterns->as_object()) {
        std::string p = n.where("patternProperties");
        json::append_pointer(p, m.key);
        table.patterns.push_back(PropTable::PatternEntry{regex_for(m.key, p), n.sub(m.value), intern("#" + p)});
      }
    }
    table.names_only = table.patterns.empty();
    if (additional) {
      table.additional = n.sub(*additional);
      table.additional_false = additional->is_bool() && !additional->as_bool();
      table.additional_path = n.path("additionalProperties");
    }
    index_entries(table);
    // Fuse `required` into this pass when every required name is a listed
    // property: the fast evaluator then checks presence while matching.
    for (Instr& req : n.ranges[kObject]) {
      if (req.op != OpCode::Required || req.b > 64) continue;
      bool all_listed = true;
      for (std::uint32_t k = 0; k < req.b && all_listed; ++k) {
        const std::string& name = program_.names[req.a + k];
        bool found = false;
        for (std::size_t e = 0; e < table.entries.size() && !found; ++e) {
          if (table.entries[e].name == name) {
            table.entries[e].required_bits |= 1ull << k;
            found = true;
          }
        }
        all_listed = found;
      }
      if (all_listed) {
        req.flags |= 2;
        table.required_all = 0;
        for (const PropTable::Entry& e : table.entries) table.required_all |= e.required_bits;
      } else {
        for (PropTable::Entry& e : table.entries) e.required_bits = 0;
      }
      break;
    }
    Instr in = n.make(OpCode::Properties, props ? "properties" : patterns ? "patternProperties" : "additionalProperties");
    in.a = static_cast<std::uint32_t>(program_.prop_tables.size());
    program_.prop_tables.push_back(std::move(table));
    n.ranges[kObject].push_back(in);
  }
}

/// `unevaluatedItems` and `unevaluatedProperties` (2019-09 and later).
void Compiler::compile_unevaluated(NodeDraft& n) {
  if (!n.legacy) {
    if (const json::Value* u = n.v.find("unevaluatedItems")) {
      Instr in = n.make(OpCode::UnevaluatedItems, "unevaluatedItems");
      in.a = n.sub(*u);
      if (u->is_bool() && !u->as_bool()) in.flags = 1;
      n.ranges[kArray].push_back(in);
      n.node.flags |= kNodeUnevaluatedItems;
    }
    if (const json::Value* u = n.v.find("unevaluatedProperties")) {
      Instr in = n.make(OpCode::UnevaluatedProperties, "unevaluatedProperties");
      in.a = n.sub(*u);
      if (u->is_bool() && !u->as_bool()) in.flags = 1;
      n.ranges[kObject].push_back(in);
      n.node.flags |= kNodeUnevaluatedProps;
    }
  }
}

void Compiler::compile_node(std::uint32_t index, const json::Value& v, const SubInfo& info) {
  if (!internal_ && info.dialect == Dialect::V1) check_v1_keywords(v, info);
  if (!internal_ && options_.strict && info.doc == 0) check_strict(v, info);
  const Dialect d = info.dialect;
  NodeDraft n{*this, v, info, d, is_legacy(d), (info.vocab & kVocabValidation) != 0, (info.vocab & kVocabApplicator) != 0, {}, {}};
  n.node.resource = info.resource;
  n.node.type_path = intern("#" + info.pointer + "/type");
  if (v.is_bool()) {
    if (!v.as_bool()) {
      n.node.flags |= kNodeFalse;
      n.node.type_path = intern("#" + info.pointer);
    }
  } else if (!compile_references(n)) {
    compile_any_type(n);
    compile_scalars(n);
    compile_arrays(n);
    compile_objects(n);
    compile_properties(n);
    compile_unevaluated(n);
  }
  Node& out = program_.nodes[index];
  std::uint32_t at = static_cast<std::uint32_t>(program_.instrs.size());
  for (int r = 0; r < kRangeCount; ++r) {
    n.node.begin[r] = at;
    program_.instrs.insert(program_.instrs.end(), n.ranges[r].begin(), n.ranges[r].end());
    at += static_cast<std::uint32_t>(n.ranges[r].size());
  }
  n.node.begin[kRangeCount] = at;
  out = n.node;
}


}  // namespace weld::schema
