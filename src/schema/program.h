#pragma once
/// \file
/// The compiled form of a schema: plain data (docs/design.md,
/// "Conventions"). The compiler (compiler.cc) writes it, the evaluator
/// (evaluator.cc) only reads it. Nodes and instructions refer to each other
/// by index, so `$ref` cycles are just indices and a Program can be shared
/// read-only by any number of threads.

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <optional>
#include <string>
#include <vector>

#include "simple_pattern.h"
#include "weld/json/value.h"
#include "weld/schema/regex.h"
#include "weld/schema/schema.h"

namespace weld::schema {

inline constexpr std::uint32_t kNone = 0xFFFFFFFFu;

/// Instance type bits for `Node::type_mask` (bit = 1 << json::Type).
enum TypeBit : std::uint8_t {
  kTypeNull = 1 << 0,
  kTypeBoolean = 1 << 1,
  kTypeInteger = 1 << 2,
  kTypeReal = 1 << 3,
  kTypeString = 1 << 4,
  kTypeArray = 1 << 5,
  kTypeObject = 1 << 6,
  /// "integer" also admits reals with an integral value (1.0).
  kTypeIntegralReal = 1 << 7,
  kTypeAll = 0x7F,
};

enum class OpCode : std::uint8_t {
  // Any instance type.
  Enum,          // a = first value in Program::values, b = count
  Const,         // a = value index
  Ref,           // a = node
  DynamicRef,    // a = dynamic_refs index
  AllOf,         // a = first in node_lists, b = count
  AnyOf,         // a = first in node_lists, b = count
  OneOf,         // a = first in node_lists, b = count
  Not,           // a = node
  IfThenElse,    // a = if node, b = then node | kNone, c = else node | kNone
  // Numbers.
  Minimum,            // num, a = value; flags: kInstrDraft4Exclusive (reported as "minimum" with ">"),
                      // kInstrExactBound
  Maximum,            // num, a = value; flags as Minimum
  ExclusiveMinimum,   // num, a = value; flags: kInstrExactBound
  ExclusiveMaximum,   // num, a = value; flags: kInstrExactBound
  MultipleOf,         // num, a = value
  // Strings.
  MinLength,     // a = limit; flags: kInstrClampedBound (b = value)
  MaxLength,     // a = limit; as MinLength
  Pattern,       // a = regex index
  Format,        // a = string index (format name), b = FormatId
  // Arrays.
  MinItems,      // a = limit
  MaxItems,      // a = limit
  UniqueItems,
  Items,         // a = first prefix node in node_lists, b = prefix count, c = rest node | kNone;
                 // str2 = keyword of the rest ("items"/"additionalItems"); flags&1: rest is false
  Contains,      // a = node, b = min, c = max | kNone
  UnevaluatedItems,       // a = node
  // Objects.
  MinProperties,          // a = limit
  MaxProperties,          // a = limit
  Required,               // a = first in Program::names, b = count
  DependentRequired,      // a = first in dep_required, b = count
  DependentSchemas,       // a = first in dep_schemas, b = count
  PropertyNames,          // a = node
  Properties,             // a = prop_tables index
  UnevaluatedProperties,  // a = node
};

/// Instr::flags of the bounds.
enum InstrFlag : std::uint8_t {
  /// draft-04 `exclusiveMinimum: true` / `exclusiveMaximum: true` beside the bound.
  kInstrDraft4Exclusive = 1,
  /// The bound is an integer a double cannot hold (beyond 2^53): compared
  /// with json::compare_numbers, never through `num`.
  kInstrExactBound = 4,
  /// A length or count bound (MinLength … MaxProperties, Contains) beyond
  /// kMaxCount: decided as kMaxCount, printed from values[b] (Contains:
  /// values[d] and values[d + 1]).
  kInstrClampedBound = 8,
  /// PropertyNames whose subschema accepts strings and checks them with
  /// patterns alone (`{"pattern": "^.+$"}`): the fast pass matches each
  /// key's text without making a value of it.
  kInstrNamesByPattern = 16,
};

/// The largest length or count bound held in an Instr operand; larger
/// bounds decide the same (no instance is that large).
inline constexpr std::uint32_t kMaxCount = 0xFFFFFFFEu;

/// One keyword check with precomputed operands.
struct Instr {
  OpCode op;
  std::uint8_t flags = 0;
  std::uint32_t a = 0, b = 0, c = 0;
  /// Enum: index in Program::enum_sets, or kNone for a linear scan.
  std::uint32_t d = kNone;
  double num = 0;
  /// Index in Program::strings of the keyword name ("enum").
  std::uint32_t keyword = 0;
  /// Index in Program::strings of the Ajv schema path ("#/properties/x/enum").
  std::uint32_t path = 0;
};

enum NodeFlag : std::uint8_t {
  kNodeFalse = 1,                  // the boolean schema false
  kNodeUnevaluatedProps = 2,       // needs property annotations of its own
  kNodeUnevaluatedItems = 4,       // needs item annotations of its own
  kNodeLeaf = 8,                   // no subschemas: cheap to evaluate first
  kNodeTypeOnly = 16,              // fast pass: the check of fast_type_mask is all
  /// Only an `anyOf` or a `oneOf` (and the type check): the fast
  /// evaluator runs the union directly.
  kNodeUnion = 32,
  /// Only a names-only `properties` pass (with its fused `required`) on
  /// objects, any other type accepted or refused by type_mask alone:
  /// the fast evaluator runs Node::table directly.
  kNodePlainObject = 64,
  /// Only `items` (one schema for every element, no prefix) on arrays, any
  /// other type accepted or refused by type_mask alone: the fast evaluator
  /// loops over the elements directly.
  kNodePlainArray = 128,
};

/// How the fast pass runs a node (Node::fast_kind, set by the optimiser
/// from the flags above): Evaluator::node switches on it once instead of
/// testing the flags one by one.
enum FastKind : std::uint8_t {
  kFastGeneral = 0,  // node_eval: the node's instructions in turn
  kFastTypeOnly,     // fast_type_mask decides
  kFastLeaf,         // kNodeLeaf
  kFastUnion,        // kNodeUnion
  kFastPlainObject,  // kNodePlainObject
  /// kNodePlainObject whose table's members and additional members are
  /// all decided by a type mask (PropTable::record): no subschema call.
  kFastRecord,
  kFastPlainArray,  // kNodePlainArray
};

/// A large `enum`: its strings in an open-addressing table, the other
/// members (numbers compare as 1 == 1.0) scanned linearly.
struct EnumSet {
  std::vector<std::uint32_t> buckets;  // indices into Program::values, kNone = empty
  std::uint64_t mask = 0;
  std::vector<std::uint32_t> others;
};

/// A compiled subschema: a type check and five instruction ranges
/// [begin[k], begin[k+1]): any type, number, string, array, object.
struct alignas(16) Node {
  std::uint32_t begin[6] = {0, 0, 0, 0, 0, 0};
  std::uint8_t type_mask = kTypeAll;
  std::uint8_t flags = 0;
  /// The fast pass's type mask: type_mask, narrowed for an `anyOf`/`oneOf`
  /// of types alone (`{"oneOf": [{"type": "string"}, {"type": "boolean"}]}`),
  /// which the fast pass then decides as kNodeTypeOnly while the
  /// collecting pass still reports it as that keyword.
  std::uint8_t fast_type_mask = kTypeAll;
  std::uint8_t fast_kind = kFastGeneral;
  std::uint32_t resource = 0;
  /// Schema paths for the type check and the false schema.
  std::uint32_t type_path = 0;
  /// Index in Program::values of the `type` keyword value (for params).
  std::uint32_t type_value = kNone;
  /// kNodePlainObject: the index in Program::prop_tables of its pass;
  /// kNodePlainArray: the node of its elements.
  std::uint32_t operand = kNone;
};

/// The 8 (4) bytes at p as one word, in memory order.
__attribute__((always_inline)) inline std::uint64_t load8(const char* p) {
  std::uint64_t x;
  __builtin_memcpy(&x, p, 8);
  return x;
}
__attribute__((always_inline)) inline std::uint32_t load4(const char* p) {
  std::uint32_t x;
  __builtin_memcpy(&x, p, 4);
  return x;
}

/// Byte equality for short keys without a libc call (overlapping word loads).
__attribute__((always_inline)) inline bool equal_bytes(const char* a, const char* b, std::size_t n) {
  if (n >= 8) {
    for (; n > 8; a += 8, b += 8, n -= 8) {
      if (load8(a) != load8(b)) return false;
    }
    return load8(a + n - 8) == load8(b + n - 8);
  }
  if (n >= 4) return load4(a) == load4(b) && load4(a + n - 4) == load4(b + n - 4);
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

/// Two words that tell apart keys of one length (of up to 16 bytes; the
/// first and last 8 past that): the key's first and last 8 bytes (4 below
/// 8 bytes; three bytes below 4), read within the key.
struct KeyWords {
  std::uint64_t first = 0;
  std::uint64_t last = 0;
};
__attribute__((always_inline)) inline KeyWords key_words(const char* p, std::size_t n) {
  if (n >= 8) return {load8(p), load8(p + n - 8)};
  if (n >= 4) return {load4(p), load4(p + n - 4)};
  if (n == 0) return {};
  const auto byte = [&](std::size_t at) { return static_cast<std::uint64_t>(static_cast<unsigned char>(p[at])); };
  return {byte(0) | byte(n >> 1) << 8 | byte(n - 1) << 16, 0};
}

/// True when the n bytes at p are `name` (also n bytes long), whose
/// key_words are w.
__attribute__((always_inline)) inline bool same_key(const char* p, std::size_t n, const KeyWords& w,
                                                    const std::string& name) {
  const KeyWords k = key_words(p, n);
  if (k.first != w.first || k.last != w.last) return false;
  return n <= 16 || equal_bytes(name.data() + 8, p + 8, n - 16);
}

/// `properties` + `patternProperties` + `additionalProperties` of one
/// schema, evaluated in one pass over the instance's members.
struct PropTable {
  struct Entry {
    std::string name;
    std::uint32_t node;
    /// Copies of the target node's flags and type mask (filled by the
    /// optimiser) so the fast pass decides leaf/type-only members without
    /// touching the node.
    std::uint8_t node_flags = 0;
    std::uint8_t type_mask = kTypeAll;
    /// Bit k set when this entry is named by the k-th `required` name and
    /// the node's `required` is fused into this pass (Instr flags & 2).
    std::uint64_t required_bits = 0;
    /// key_words(name): a member's key is compared with these (same_key)
    /// without loading the name's bytes.
    KeyWords words;
  };
  std::vector<Entry> entries;  // schema order
  /// The OR of the entries' required_bits: every required name was seen.
  std::uint64_t required_all = 0;
  /// The entry lookup (find_entry): a collision-free table indexed by
  /// perfect_slot() when one was found (perfect_seed != 0), else an
  /// open-addressing table over hash_key() (empty when few entries).
  std::vector<std::uint32_t> buckets;
  std::uint64_t bucket_mask = 0;
  /// When the names' lengths are distinct and below kByLength (most
  /// tables), find_entry's only index: the entry of each name length, or
  /// kNoEntry. One load instead of a hash of the key.
  static constexpr std::size_t kByLength = 32;
  static constexpr std::uint8_t kNoEntry = 0xFF;
  bool by_length_indexed = false;
  std::uint8_t by_length[kByLength] = {};
  std::uint64_t perfect_seed = 0;
  std::uint8_t perfect_shift = 0;
  std::uint8_t perfect_pick = 0;
  /// No patternProperties: the fast pass matches members by name alone.
  bool names_only = true;
  struct PatternEntry {
    std::uint32_t regex;
    std::uint32_t node;
    std::uint32_t path;  // "#/patternProperties/<p>" for budget errors
  };
  std::vector<PatternEntry> patterns;
  std::uint32_t additional = kNone;  // node
  /// The additional node's flags and type mask, as Entry's.
  std::uint8_t additional_flags = 0;
  std::uint8_t additional_type_mask = kTypeAll;
  bool additional_false = false;
  std::uint32_t additional_path = 0;  // "#/additionalProperties"
  /// Every entry is type-only and the additional members are none, false
  /// or type-only (kFastRecord): a member's verdict is a type mask, its
  /// entry's or record_additional_mask (0 when additionalProperties is
  /// false, every type when there is none).
  bool record = false;
  std::uint8_t record_additional_mask = kTypeAll | kTypeIntegralReal;
};

struct DepRequired {
  std::string property;
  std::vector<std::string> required;
};

struct DepSchema {
  std::string property;
  std::uint32_t node;
};

/// `$dynamicRef` / `$recursiveRef`: the static target, and the resources
/// whose anchor can take over when they are in the dynamic scope.
struct DynamicRef {
  /// kNone (v1 only): no fallback; with no candidate in scope it fails.
  std::uint32_t static_node;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> candidates;  // (resource, node)
};

class Program {
 public:
  std::vector<Node> nodes;
  std::vector<Instr> instrs;
  std::vector<std::uint32_t> node_lists;
  std::vector<json::Value> values;
  std::vector<std::string> strings;
  std::vector<std::string> names;
  std::vector<PropTable> prop_tables;
  std::vector<DepRequired> dep_required;
  std::vector<DepSchema> dep_schemas;
  std::vector<DynamicRef> dynamic_refs;
  std::vector<EnumSet> enum_sets;
  std::vector<Regex> regexes;
  /// Parallel to `regexes`: the engine-free form when the pattern is simple.
  std::vector<std::optional<SimplePattern>> simple_patterns;
  std::uint32_t root = 0;
  /// True when `$dynamicRef`/`$recursiveRef` occur: the evaluator then keeps
  /// the dynamic scope.
  bool uses_dynamic_scope = false;
  std::uint32_t resource_count = 0;
  /// Schema::is_valid_at's index: node by JSON Pointer, built on first use.
  mutable std::once_flag pointer_index_once;
  mutable std::unordered_map<std::string, std::uint32_t> node_by_pointer;
  /// CompileOptions::validation_budget.
  std::uint64_t validation_budget = std::uint64_t{1} << 20;

  Dialect dialect = Dialect::Draft2020_12;
  std::vector<Warning> warnings;
  json::Value source;
};

/// The PropTable hash: length and the first and last two bytes, O(1) in
/// the key length (collisions are resolved by probing with a full compare).
inline std::uint64_t hash_key(const char* data, std::size_t size) {
  if (size == 0) return 0x9E3779B97F4A7C15ull;
  std::uint64_t x = size * 0x9E3779B97F4A7C15ull;
  x ^= static_cast<unsigned char>(data[0]) | (static_cast<std::uint64_t>(static_cast<unsigned char>(data[size - 1])) << 8) |
       (static_cast<std::uint64_t>(static_cast<unsigned char>(data[size / 2])) << 16) |
       (static_cast<std::uint64_t>(static_cast<unsigned char>(data[size > 1 ? 1 : 0])) << 24);
  x *= 0xBF58476D1CE4E5B9ull;
  return x ^ (x >> 29);
}

/// The perfect-hash signature of a key: its length and three of its bytes
/// (the first, the last and the one at `pick`, clamped to the key).
inline std::uint64_t key_signature(const char* data, std::size_t size, std::size_t pick) {
  if (size == 0) return 0;
  const std::size_t at = pick < size ? pick : size - 1;
  return size ^ (static_cast<std::uint64_t>(static_cast<unsigned char>(data[0])) << 16) ^
         (static_cast<std::uint64_t>(static_cast<unsigned char>(data[size - 1])) << 24) ^
         (static_cast<std::uint64_t>(static_cast<unsigned char>(data[at])) << 32);
}

/// The slot of a key in PropTable::buckets when the table is perfect.
inline std::uint64_t perfect_slot(const PropTable& table, const char* data, std::size_t size) {
  return (key_signature(data, size, table.perfect_pick) * table.perfect_seed) >> table.perfect_shift;
}

/// 64-bit FNV-1a, the hash of enum sets.
inline std::uint64_t hash_name(const char* data, std::size_t size) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < size; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace weld::schema
