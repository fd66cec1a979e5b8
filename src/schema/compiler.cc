// Schema compiler, part 1: documents, resources, identifiers and reference
// resolution ($ref, $dynamicRef, $anchor, $id; docs/schema.md, "References").
#include "compiler.h"

#include "metaschemas.h"
#include "weld/schema/uri.h"
#include "weld/base/text.h"
#include "weld/json/parse.h"
#include "weld/json/pointer.h"

namespace weld::schema {
namespace {

enum class Slot { None, Schema, SchemaArray, SchemaMap, SchemaOrArray, Dependencies };

Slot subschema_slot(std::string_view kw, Dialect d) {
  bool d6 = d != Dialect::Draft4;
  bool d7 = d6 && d != Dialect::Draft6;
  bool d2019 = d == Dialect::Draft2019_09 || is_2020_or_later(d);
  bool d2020 = is_2020_or_later(d);
  if (kw == "additionalProperties" || kw == "not" || kw == "additionalItems") return Slot::Schema;
  if (kw == "items") return d2020 ? Slot::SchemaOrArray : Slot::SchemaOrArray;
  if (kw == "allOf" || kw == "anyOf" || kw == "oneOf") return Slot::SchemaArray;
  if (kw == "properties" || kw == "patternProperties") return Slot::SchemaMap;
  if (d != Dialect::V1 && kw == "definitions") return Slot::SchemaMap;
  if (d != Dialect::V1 && kw == "dependencies") return Slot::Dependencies;
  if (d6 && (kw == "contains" || kw == "propertyNames")) return Slot::Schema;
  if (d7 && (kw == "if" || kw == "then" || kw == "else")) return Slot::Schema;
  if (d2019 && (kw == "unevaluatedItems" || kw == "unevaluatedProperties" || kw == "contentSchema")) return Slot::Schema;
  if (d2019 && (kw == "$defs" || kw == "dependentSchemas")) return Slot::SchemaMap;
  if (d2020 && kw == "prefixItems") return Slot::SchemaArray;
  return Slot::None;
}

bool is_schema_value(const json::Value& v) { return v.is_object() || v.is_bool(); }

}  // namespace

std::optional<Dialect> dialect_from_uri(std::string_view uri) {
  if (!uri.empty() && uri.back() == '#') uri.remove_suffix(1);
  if (uri == "http://json-schema.org/draft-04/schema" || uri == "https://json-schema.org/draft-04/schema") return Dialect::Draft4;
  if (uri == "http://json-schema.org/draft-06/schema" || uri == "https://json-schema.org/draft-06/schema") return Dialect::Draft6;
  if (uri == "http://json-schema.org/draft-07/schema" || uri == "https://json-schema.org/draft-07/schema") return Dialect::Draft7;
  if (uri == "https://json-schema.org/draft/2019-09/schema" || uri == "http://json-schema.org/draft/2019-09/schema") return Dialect::Draft2019_09;
  if (uri == "https://json-schema.org/draft/2020-12/schema" || uri == "http://json-schema.org/draft/2020-12/schema") return Dialect::Draft2020_12;
  if (uri == "http://json-schema.org/schema" || uri == "https://json-schema.org/schema") return Dialect::Draft2020_12;
  if (uri == "https://json-schema.org/v1" || uri == "https://json-schema.org/v1/2026") return Dialect::V1;
  return std::nullopt;
}

std::optional<Dialect> parse_dialect_name(std::string_view name) {
  if (name == "draft4" || name == "draft-04") return Dialect::Draft4;
  if (name == "draft6" || name == "draft-06") return Dialect::Draft6;
  if (name == "draft7" || name == "draft-07") return Dialect::Draft7;
  if (name == "2019-09" || name == "draft2019-09") return Dialect::Draft2019_09;
  if (name == "2020-12" || name == "draft2020-12") return Dialect::Draft2020_12;
  if (name == "v1") return Dialect::V1;
  return std::nullopt;
}

std::string_view dialect_name(Dialect dialect) {
  switch (dialect) {
    case Dialect::Draft4: return "draft4";
    case Dialect::Draft6: return "draft6";
    case Dialect::Draft7: return "draft7";
    case Dialect::Draft2019_09: return "2019-09";
    case Dialect::Draft2020_12: return "2020-12";
    case Dialect::V1: return "v1";
  }
  return "2020-12";
}

namespace {

/// The size of `v` written as compact JSON, near enough (escapes are not
/// counted): what a remote document weighs against max_remote_bytes.
std::size_t json_size(const json::Value& v) {
  switch (v.type()) {
    case json::Type::Null:
    case json::Type::Boolean: return 5;
    case json::Type::Integer:
    case json::Type::Real: return 8;
    case json::Type::String: return v.as_string().size() + 2;
    case json::Type::Array: {
      std::size_t size = 2;
      for (const json::Value& item : v.as_array()) size += json_size(item) + 1;
      return size;
    }
    case json::Type::Object: {
      std::size_t size = 2;
      for (const json::Member& member : v.as_object()) size += member.key.size() + 4 + json_size(member.value);
      return size;
    }
  }
  return 0;
}

}  // namespace

std::optional<json::Value> Compiler::fetch(std::string_view uri, const std::string& where) {
  if (!options_.resolver) return std::nullopt;
  if (remote_documents_ >= options_.max_remote_documents) {
    throw SchemaError(where, "more than " + std::to_string(options_.max_remote_documents) +
                                 " remote documents referenced (the limit) at \"" + std::string(uri) + "\"");
  }
  std::optional<json::Value> doc = options_.resolver(uri);
  if (!doc) return doc;
  ++remote_documents_;
  remote_bytes_ += json_size(*doc);
  if (remote_bytes_ > options_.max_remote_bytes) {
    throw SchemaError(where, "remote documents referenced exceed " + std::to_string(options_.max_remote_bytes) +
                                 " bytes in total (the limit) at \"" + std::string(uri) + "\"");
  }
  return doc;
}

Compiler::Compiler(const CompileOptions& options, Program& program, bool internal)
    : options_(options), program_(program), internal_(internal) {}

std::uint32_t Compiler::add_document(const json::Value* doc, const std::string& uri, Dialect dialect,
                                     std::uint8_t vocab) {
  std::uint32_t doc_index = doc_count_++;
  SubInfo info;
  info.base = std::string(strip_fragment(uri));
  info.dialect = dialect;
  info.vocab = vocab;
  info.doc = doc_index;
  info.resource = static_cast<std::uint32_t>(resources_.size());
  resources_.push_back(ResourceInfo{info.base, doc, false, {}});
  if (!uris_.count(info.base)) uris_[info.base] = doc;
  walk(*doc, info, true);
  return doc_index;
}

Dialect Compiler::dialect_of_metaschema(const std::string& uri, std::uint8_t& vocab, const std::string& where,
                                        int depth) {
  if (auto d = dialect_from_uri(uri)) {
    vocab = kVocabAll;
    return *d;
  }
  if (depth > 8) throw SchemaError(where, "\"$schema\" meta-schema chain is too deep at \"" + uri + "\"");
  const json::Value* meta = nullptr;
  auto it = uris_.find(std::string(strip_fragment(uri)));
  if (it != uris_.end()) meta = it->second;
  if (!meta) {
    std::optional<json::Value> doc = fetch(strip_fragment(uri), where);
    if (!doc) throw SchemaError(where, "unknown \"$schema\" \"" + uri + "\"");
    owned_docs_.push_back(std::make_unique<json::Value>(std::move(*doc)));
    meta = owned_docs_.back().get();
    std::uint8_t meta_vocab = kVocabAll;
    Dialect meta_dialect = Dialect::Draft2020_12;
    if (const json::Value* s = meta->find("$schema"); s && s->is_string() && s->as_string() != uri) {
      meta_dialect = dialect_of_metaschema(s->as_string(), meta_vocab, where, depth + 1);
    }
    add_document(meta, std::string(strip_fragment(uri)), meta_dialect, meta_vocab);
  }
  Dialect result = Dialect::Draft2020_12;
  if (const json::Value* s = meta->find("$schema"); s && s->is_string() && strip_fragment(s->as_string()) != strip_fragment(uri)) {
    std::uint8_t ignored;
    result = dialect_of_metaschema(s->as_string(), ignored, where, depth + 1);
  }
  vocab = kVocabAll;
  if (const json::Value* v = meta->find("$vocabulary"); v && v->is_object()) {
    vocab = 0;
    for (const json::Member& m : v->as_object()) {
      std::string_view k = m.key;
      if (k.ends_with("/vocab/validation")) vocab |= kVocabValidation;
      if (k.ends_with("/vocab/applicator")) vocab |= kVocabApplicator;
    }
    vocab |= static_cast<std::uint8_t>(~(kVocabValidation | kVocabApplicator));
  }
  return result;
}

void Compiler::walk(const json::Value& v, const SubInfo& parent, bool is_doc_root) {
  if (!is_schema_value(v)) return;
  if (info_.count(&v)) return;
  SubInfo info = parent;
  if (!v.is_object()) {
    info_[&v] = info;
    return;
  }
  // `$schema` switches dialect at a resource root (cross-draft documents).
  const json::Value* schema_kw = v.find("$schema");
  std::string_view id_key = info.dialect == Dialect::Draft4 ? "id" : "$id";
  const json::Value* id = v.find(id_key);
  bool legacy = info.dialect == Dialect::Draft4 || info.dialect == Dialect::Draft6 || info.dialect == Dialect::Draft7;
  if (legacy && v.find("$ref")) id = nullptr;  // draft <= 7: siblings of $ref are ignored, $id too
  if (schema_kw && schema_kw->is_string() && (is_doc_root || (id && id->is_string()))) {
    std::uint8_t vocab = kVocabAll;
    Dialect d = dialect_of_metaschema(schema_kw->as_string(), vocab, info.pointer + "/$schema", 0);
    info.dialect = d;
    info.vocab = vocab;
    legacy = d == Dialect::Draft4 || d == Dialect::Draft6 || d == Dialect::Draft7;
    id_key = d == Dialect::Draft4 ? "id" : "$id";
    id = v.find(id_key);
    if (legacy && v.find("$ref")) id = nullptr;
  }
  if (id && id->is_string()) {
    const std::string& text = id->as_string();
    if (legacy && !text.empty() && text[0] == '#') {
      uris_.emplace(info.base + text, &v);
    } else {
      std::string resolved = resolve_uri(info.base, text);
      std::string_view without, fragment;
      bool has_fragment = false;
      split_fragment(resolved, without, fragment, &has_fragment);
      std::string new_base(without);
      if (new_base != info.base || is_doc_root) {
        if (!is_doc_root) {
          info.resource = static_cast<std::uint32_t>(resources_.size());
          resources_.push_back(ResourceInfo{new_base, &v, false, {}});
        } else {
          resources_[info.resource].uri = new_base;
        }
        info.base = new_base;
      }
      uris_.emplace(new_base, &v);
      if (legacy && has_fragment && !fragment.empty()) uris_.emplace(new_base + "#" + std::string(fragment), &v);
    }
  }
  if (!legacy) {
    if (const json::Value* a = v.find("$anchor"); a && a->is_string()) uris_.emplace(info.base + "#" + a->as_string(), &v);
    if (is_2020_or_later(info.dialect)) {
      if (const json::Value* a = v.find("$dynamicAnchor"); a && a->is_string()) {
        uris_.emplace(info.base + "#" + a->as_string(), &v);
        resources_[info.resource].dynamic_anchors.emplace(a->as_string(), &v);
      }
    } else if (const json::Value* a = v.find("$recursiveAnchor"); a && a->is_bool() && a->as_bool()) {
      if (resources_[info.resource].root == &v) resources_[info.resource].recursive_anchor = true;
    }
  }
  info_[&v] = info;
  walk_children(v, info);
}

void Compiler::walk_children(const json::Value& v, const SubInfo& info) {
  for (const json::Member& m : v.as_object()) {
    Slot slot = subschema_slot(m.key, info.dialect);
    if (slot == Slot::None) continue;
    SubInfo child = info;
    std::string base_pointer = info.pointer;
    json::append_pointer(base_pointer, m.key);
    const json::Value& value = m.value;
    auto visit = [&](const json::Value& sub, std::string pointer) {
      child.pointer = std::move(pointer);
      walk(sub, child, false);
    };
    if (slot == Slot::Schema || (slot == Slot::SchemaOrArray && !value.is_array())) {
      visit(value, base_pointer);
    } else if (slot == Slot::SchemaArray || slot == Slot::SchemaOrArray) {
      if (!value.is_array()) continue;
      for (std::size_t i = 0; i < value.as_array().size(); ++i) {
        std::string p = base_pointer;
        json::append_pointer(p, i);
        visit(value.as_array()[i], std::move(p));
      }
    } else if (slot == Slot::SchemaMap || slot == Slot::Dependencies) {
      if (!value.is_object()) continue;
      for (const json::Member& entry : value.as_object()) {
        if (!is_schema_value(entry.value)) continue;
        std::string p = base_pointer;
        json::append_pointer(p, entry.key);
        visit(entry.value, std::move(p));
      }
    }
  }
}

const json::Value* Compiler::load_document(const std::string& uri, Dialect dialect, const std::string& where) {
  std::optional<json::Value> doc;
  std::string_view builtin = builtin_document(uri);
  if (!builtin.empty()) {
    auto parsed = json::parse(builtin);
    if (parsed) doc = std::move(*parsed);
  } else {
    doc = fetch(uri, where);
  }
  if (!doc) throw SchemaError(where, "cannot resolve remote reference \"" + uri + "\"");
  owned_docs_.push_back(std::make_unique<json::Value>(std::move(*doc)));
  const json::Value* root = owned_docs_.back().get();
  std::uint8_t vocab = kVocabAll;
  if (const json::Value* s = root->is_object() ? root->find("$schema") : nullptr; s && s->is_string()) {
    // walk() switches the dialect at the root; pick a sane starting point.
    if (auto d = dialect_from_uri(s->as_string())) dialect = *d;
  }
  add_document(root, uri, dialect, vocab);
  return root;
}

const json::Value* Compiler::resolve_reference(const std::string& uri, const std::string& where, Dialect dialect) {
  std::string_view without, fragment;
  split_fragment(uri, without, fragment);
  std::string doc_uri(without);
  const json::Value* resource = nullptr;
  if (auto it = uris_.find(doc_uri); it != uris_.end()) {
    resource = it->second;
  } else {
    resource = load_document(doc_uri, dialect, where);
  }
  if (fragment.empty()) return resource;
  if (fragment[0] != '/') {
    auto it = uris_.find(doc_uri + "#" + std::string(fragment));
    if (it == uris_.end()) {
      std::string decoded = percent_decode(fragment);
      it = uris_.find(doc_uri + "#" + decoded);
      if (it == uris_.end()) throw SchemaError(where, "cannot resolve reference \"" + uri + "\"");
    }
    return it->second;
  }
  std::vector<std::string> tokens;
  if (!json::split_pointer(percent_decode(fragment), tokens)) {
    throw SchemaError(where, "invalid JSON Pointer in reference \"" + uri + "\"");
  }
  const json::Value* cur = resource;
  const SubInfo* last = &info_.at(resource);
  std::string pointer = last->pointer;
  for (const std::string& token : tokens) {
    const json::Value* next = nullptr;
    if (cur->is_object()) {
      next = cur->find(token);
    } else if (cur->is_array()) {
      std::size_t index = 0;
      bool ok = !token.empty() && token.size() < 10 && (token == "0" || token[0] != '0');
      for (char c : token) ok = ok && c >= '0' && c <= '9';
      if (ok) {
        index = std::stoul(token);
        if (index < cur->as_array().size()) next = &cur->as_array()[index];
      }
    }
    if (!next) throw SchemaError(where, "cannot resolve reference \"" + uri + "\"");
    json::append_pointer(pointer, token);
    cur = next;
    if (auto it = info_.find(cur); it != info_.end()) last = &it->second;
  }
  if (!info_.count(cur)) {
    if (!is_schema_value(*cur)) throw SchemaError(where, "reference \"" + uri + "\" does not point to a schema");
    SubInfo sub = *last;
    sub.pointer = pointer;
    walk(*cur, sub, false);
  }
  return cur;
}

Dialect Compiler::pick_root_dialect(const json::Value& root, std::uint8_t& vocab) {
  vocab = kVocabAll;
  if (root.is_object()) {
    if (const json::Value* s = root.find("$schema")) {
      if (!s->is_string()) throw SchemaError("/$schema", "\"$schema\" must be string");
      return dialect_of_metaschema(s->as_string(), vocab, "/$schema", 0);
    }
  }
  if (options_.default_dialect) return *options_.default_dialect;
  // docs/schema.md, "Dialects": 2020-12 unless a draft-07-only form appears.
  bool legacy_form = false;
  std::vector<const json::Value*> stack{&root};
  std::size_t visited = 0;
  while (!stack.empty() && !legacy_form && visited < 1000000) {
    const json::Value* v = stack.back();
    stack.pop_back();
    ++visited;
    if (!v->is_object()) continue;
    for (const json::Member& m : v->as_object()) {
      if ((m.key == "items" && m.value.is_array()) || m.key == "additionalItems" || m.key == "dependencies") {
        legacy_form = true;
        break;
      }
      Slot slot = subschema_slot(m.key, Dialect::Draft2020_12);
      if (slot == Slot::Schema || slot == Slot::SchemaOrArray) {
        if (m.value.is_array()) {
          for (const json::Value& e : m.value.as_array()) stack.push_back(&e);
        } else {
          stack.push_back(&m.value);
        }
      } else if (slot == Slot::SchemaArray && m.value.is_array()) {
        for (const json::Value& e : m.value.as_array()) stack.push_back(&e);
      } else if (slot == Slot::SchemaMap && m.value.is_object()) {
        for (const json::Member& e : m.value.as_object()) stack.push_back(&e.value);
      }
    }
  }
  return legacy_form ? Dialect::Draft7 : Dialect::Draft2020_12;
}

void Compiler::run() {
  const json::Value& root = program_.source;
  if (!is_schema_value(root)) throw SchemaError("", "schema must be an object or a boolean");
  std::uint8_t vocab = kVocabAll;
  Dialect dialect = pick_root_dialect(root, vocab);
  program_.dialect = dialect;
  if (!internal_) meta_validate(root, dialect);
  add_document(&root, "", dialect, vocab);
  program_.root = node_for(&root);
  while (true) {
    while (!worklist_.empty()) {
      auto [index, v] = worklist_.back();
      worklist_.pop_back();
      compile_node(index, *v, info_.at(v));
    }
    std::size_t before = program_.nodes.size();
    finish_dynamic_refs();
    if (worklist_.empty() && program_.nodes.size() == before) break;
  }
  program_.resource_count = static_cast<std::uint32_t>(resources_.size());
  optimize();
}

namespace {

bool is_leaf_op(OpCode op) {
  switch (op) {
    case OpCode::Enum: case OpCode::Const: case OpCode::Minimum: case OpCode::Maximum:
    case OpCode::ExclusiveMinimum: case OpCode::ExclusiveMaximum: case OpCode::MultipleOf:
    case OpCode::MinLength: case OpCode::MaxLength: case OpCode::MinItems: case OpCode::MaxItems:
    case OpCode::MinProperties: case OpCode::MaxProperties: case OpCode::Required:
      return true;
    default: return false;
  }
}

/// Nodes only the general evaluator decides (the `false` schema, and the
/// ones that keep annotations of their own): no fast-pass shortcut applies.
constexpr std::uint8_t kNodeGeneralOnly = kNodeFalse | kNodeUnevaluatedItems | kNodeUnevaluatedProps;

/// The node's one instruction when it has exactly one and it applies to
/// any type (an `anyOf`, a `$ref` …), else nullptr.
const Instr* sole_any_type_instruction(const Program& p, const Node& n) {
  if (n.begin[5] - n.begin[0] != 1 || n.begin[1] - n.begin[0] != 1) return nullptr;
  return &p.instrs[n.begin[0]];
}

/// The node's one instruction when it is an `anyOf` or a `oneOf`, else
/// nullptr.
const Instr* sole_union(const Program& p, const Node& n) {
  const Instr* in = sole_any_type_instruction(p, n);
  return in && (in->op == OpCode::AnyOf || in->op == OpCode::OneOf) ? in : nullptr;
}

/// True when n has no instruction for any type, and none for a type other
/// than `kept` that its type check lets through (`{"type": "object",
/// "minItems": 1}`): on any value but a `kept` one, its verdict is its
/// type check.
bool only_type_checks_besides(const Node& n, int kept) {
  if (n.begin[0] != n.begin[1]) return false;
  static constexpr std::uint8_t kTypesOfRange[5] = {0, kTypeInteger | kTypeReal | kTypeIntegralReal, kTypeString,
                                                    kTypeArray, kTypeObject};
  for (int range = 1; range <= 4; ++range) {
    if (range != kept && n.begin[range] != n.begin[range + 1] && (n.type_mask & kTypesOfRange[range])) return false;
  }
  return true;
}

/// Sets kNodePlainObject (and Node::operand) on the nodes whose whole work
/// on an object is one names-only PropTable pass, and whose verdict on
/// any other type is their type check: no keyword of another type it
/// admits, no `required` left outside the pass, no annotations, no
/// dynamic scope.
void mark_plain_objects(Program& p) {
  if (p.uses_dynamic_scope) return;
  for (Node& n : p.nodes) {
    if ((n.flags & kNodeGeneralOnly) || !only_type_checks_besides(n, 4)) continue;
    std::uint32_t table = kNone;
    bool plain = true;
    for (std::uint32_t i = n.begin[4]; i < n.begin[5] && plain; ++i) {
      const Instr& in = p.instrs[i];
      if (in.op == OpCode::Required && (in.flags & 2)) continue;
      plain = in.op == OpCode::Properties && table == kNone && p.prop_tables[in.a].names_only;
      table = in.a;
    }
    if (!plain || table == kNone) continue;
    n.flags |= kNodePlainObject;
    n.operand = table;
  }
}

/// For the fast pass, a node whose only instruction is an `anyOf` of
/// type-only branches, or a `oneOf` of type-only branches no value can
/// match twice, is type-only: its fast_type_mask is the union of theirs
/// (within its own). Repeated until nothing changes, since a folded node
/// can be the branch of another.
void fold_type_unions(Program& p) {
  for (bool changed = true; changed;) {
    changed = false;
    for (Node& n : p.nodes) {
      if (n.flags & (kNodeTypeOnly | kNodeGeneralOnly)) continue;
      const Instr* in = sole_union(p, n);
      if (in == nullptr || in->b == 0) continue;
      std::uint8_t types = 0;
      bool foldable = true;
      for (std::uint32_t k = in->a; k < in->a + in->b && foldable; ++k) {
        const Node& branch = p.nodes[p.node_lists[k]];
        // Every mask that admits a real (Real, IntegralReal) also admits
        // Integer, so two masks some value matches both share a bit.
        foldable = (branch.flags & kNodeTypeOnly) && (in->op == OpCode::AnyOf || !(types & branch.fast_type_mask));
        types |= branch.fast_type_mask;
      }
      if (!foldable) continue;
      n.fast_type_mask = n.type_mask & types;
      n.flags |= kNodeTypeOnly | kNodeLeaf;
      changed = true;
    }
  }
}

/// Marks kNodeUnion: nodes whose only instruction is an `anyOf` or a
/// `oneOf` (not folded into a type mask).
void mark_unions(Program& p) {
  if (p.uses_dynamic_scope) return;
  for (Node& n : p.nodes) {
    if (!(n.flags & (kNodeTypeOnly | kNodeGeneralOnly)) && sole_union(p, n)) n.flags |= kNodeUnion;
  }
}

/// Marks kNodePlainArray: nodes whose only instruction is an `items` with
/// no prefix and a rest schema that is not `false`.
void mark_plain_arrays(Program& p) {
  if (p.uses_dynamic_scope) return;
  for (Node& n : p.nodes) {
    if ((n.flags & (kNodeGeneralOnly | kNodePlainObject)) || !only_type_checks_besides(n, 3)) continue;
    if (n.begin[4] - n.begin[3] != 1) continue;
    const Instr& in = p.instrs[n.begin[3]];
    if (in.op != OpCode::Items || in.b != 0 || in.c == kNone || (in.flags & 1)) continue;
    n.flags |= kNodePlainArray;
    n.operand = in.c;
  }
}

/// Sets PropTable::record and each node's fast_kind (after the flags and
/// the entries' copies of them are final).
void set_fast_kinds(Program& p) {
  for (PropTable& t : p.prop_tables) {
    bool record = t.names_only && !t.entries.empty();
    for (const auto& e : t.entries) record = record && (e.node_flags & kNodeTypeOnly);
    if (t.additional_false) {
      t.record_additional_mask = 0;
    } else if (t.additional != kNone) {
      record = record && (t.additional_flags & kNodeTypeOnly);
      t.record_additional_mask = t.additional_type_mask;
    }
    t.record = record;
  }
  for (Node& n : p.nodes) {
    const std::uint8_t f = n.flags;
    if (f & kNodeTypeOnly) {
      n.fast_kind = kFastTypeOnly;
    } else if (f & kNodeLeaf) {
      n.fast_kind = kFastLeaf;
    } else if (f & kNodeUnion) {
      n.fast_kind = kFastUnion;
    } else if (f & kNodePlainObject) {
      n.fast_kind = p.prop_tables[n.operand].record ? kFastRecord : kFastPlainObject;
    } else if (f & kNodePlainArray) {
      n.fast_kind = kFastPlainArray;
    } else {
      n.fast_kind = kFastGeneral;
    }
  }
}

/// Sets kInstrNamesByPattern on the `propertyNames` whose subschema, on a
/// string, is decided by its patterns alone (and accepts strings).
void mark_names_by_pattern(Program& p) {
  for (Instr& in : p.instrs) {
    if (in.op != OpCode::PropertyNames) continue;
    const Node& n = p.nodes[in.a];
    bool by_pattern = !p.uses_dynamic_scope && !(n.flags & kNodeGeneralOnly) && (n.type_mask & kTypeString) &&
                      n.begin[0] == n.begin[1];
    for (std::uint32_t i = n.begin[2]; i < n.begin[3] && by_pattern; ++i) by_pattern = p.instrs[i].op == OpCode::Pattern;
    if (by_pattern) in.flags |= kInstrNamesByPattern;
  }
}

}  // namespace

void Compiler::optimize() {
  Program& p = program_;
  for (Node& n : p.nodes) {
    bool leaf = !(n.flags & kNodeGeneralOnly);
    for (std::uint32_t i = n.begin[0]; i < n.begin[5] && leaf; ++i) leaf = is_leaf_op(p.instrs[i].op);
    if (leaf) n.flags |= kNodeLeaf;
    if (n.begin[0] == n.begin[5] && !(n.flags & kNodeGeneralOnly)) n.flags |= kNodeTypeOnly;
    n.fast_type_mask = n.type_mask;
  }
  auto fill_entry_flags = [&] {
    for (PropTable& t : p.prop_tables) {
      for (auto& e : t.entries) {
        e.words = key_words(e.name.data(), e.name.size());
        e.node_flags = p.nodes[e.node].flags;
        e.type_mask = p.nodes[e.node].fast_type_mask;
      }
      if (t.additional != kNone) {
        t.additional_flags = p.nodes[t.additional].flags;
        t.additional_type_mask = p.nodes[t.additional].fast_type_mask;
      }
    }
  };
  // A node that only forwards — a lone `$ref`, or an `allOf` of one
  // subschema — is replaced by its target everywhere (neither adds an error
  // or annotation of its own, and the target's instructions carry their own
  // schema paths).
  auto forward = [&](const Node& n) -> std::uint32_t {
    const Instr* in = sole_any_type_instruction(p, n);
    if (n.type_mask != kTypeAll || (n.flags & kNodeGeneralOnly) || in == nullptr) return kNone;
    if (in->op == OpCode::Ref) return in->a;
    if (in->op == OpCode::AllOf && in->b == 1) return p.node_lists[in->a];
    return kNone;
  };
  auto target = [&](std::uint32_t n) {
    for (int hops = 0; hops < 64 && n != kNone; ++hops) {
      std::uint32_t next = forward(p.nodes[n]);
      if (next == kNone || next == n) break;
      // Skipping n must not lose the resource it enters: only when its
      // target enters the same one.
      if (p.uses_dynamic_scope && p.nodes[next].resource != p.nodes[n].resource) break;
      n = next;
    }
    return n;
  };
  auto remap = [&](std::uint32_t& n) {
    if (n != kNone) n = target(n);
  };
  for (Instr& in : p.instrs) {
    switch (in.op) {
      case OpCode::Ref: case OpCode::Not: case OpCode::Contains: case OpCode::UnevaluatedItems:
      case OpCode::PropertyNames: case OpCode::UnevaluatedProperties:
        remap(in.a);
        break;
      case OpCode::IfThenElse: remap(in.a); remap(in.b); remap(in.c); break;
      case OpCode::Items: remap(in.c); break;
      default: break;
    }
  }
  for (std::uint32_t& n : p.node_lists) remap(n);
  for (PropTable& t : p.prop_tables) {
    for (auto& e : t.entries) remap(e.node);
    for (auto& e : t.patterns) remap(e.node);
    remap(t.additional);
  }
  for (DepSchema& d : p.dep_schemas) remap(d.node);
  remap(p.root);
  fold_type_unions(p);
  mark_plain_objects(p);
  mark_plain_arrays(p);
  mark_unions(p);
  fill_entry_flags();
  set_fast_kinds(p);
  mark_names_by_pattern(p);
}

}  // namespace weld::schema
