// The evaluator: Program x JSON -> verdict (docs/design.md, "Conventions"). One
// switch over flat instructions; subschemas are node indices. Annotation
// tracking (for unevaluated*) only happens below a node that needs it.
#include "evaluator.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "instance_access.h"
#include "number.h"
#include "weld/json/number.h"
#include "weld/json/pointer.h"
#include "weld/json/serialize.h"
#include "weld/json/utf8.h"
#include "weld/schema/format.h"

namespace weld::schema {
namespace {

/// Deepest nesting of subschema evaluations, and the most stack the
/// evaluation may use. A schema that recurses without consuming the instance
/// ({"$ref": "#"}) stops here instead of overflowing the stack. Bytes rather than levels, because frame sizes differ between
/// optimised and sanitizer builds; 2 MiB leaves room on any thread with the
/// usual 8 MiB stack.
constexpr int kMaxDepth = 20000;
constexpr std::uintptr_t kMaxStackBytes = 2u << 20;

/// The work bound of one validation, counted in subschema evaluations: a
/// schema whose `$ref`s fan out (each level referring to the next twice)
/// costs 2^depth evaluations of the same pairs. Past kMemoAfter the fast
/// pass remembers verdicts of (subschema, value) pairs; past the budget,
/// Program::validation_budget (CompileOptions, 2^20 by default) plus
/// kBudgetPerValue per value of the instance, the validation fails with
/// kBudgetMessage instead of running on (a tenth of a second to a second at
/// the default, depending on the keywords). Real schemas stay far below:
/// every jsonschema-benchmark set validates all its instances within 64
/// evaluations per value and no base, memo off.
constexpr std::uint64_t kMemoAfter = 1u << 16;
constexpr std::uint64_t kBudgetPerValue = 1024;

constexpr std::string_view kDepthMessage =
    "exceeds the maximum schema evaluation depth: the schema nests too deeply or recurses without consuming the "
    "instance";
constexpr std::string_view kBudgetMessage =
    "exceeds the validation work budget: the schema's references and applicators fan out into too many "
    "evaluations for this instance";
/// The keywords of those two violations: no schema keyword failed, a bound
/// of the evaluation did (named as Ajv names a false schema's).
constexpr std::string_view kDepthKeyword = "depth limit";
constexpr std::string_view kBudgetKeyword = "work budget";

/// Why an evaluation stopped early.
enum class Abort : std::uint8_t { None, Depth, Budget };

/// Which members/items of one instance some keyword has evaluated.
struct Annot {
  std::vector<std::uint8_t> marks;
  void merge(const Annot& other) {
    for (std::size_t i = 0; i < marks.size() && i < other.marks.size(); ++i) marks[i] |= other.marks[i];
  }
};

/// The dynamic scope: resource indices, outermost first. Inline storage so
/// that validating with $dynamicRef does not allocate.
class Scope {
 public:
  bool empty() const { return size_ == 0; }
  std::uint32_t back() const { return at(size_ - 1); }
  void push_back(std::uint32_t r) {
    if (size_ < kInline) {
      inline_[size_] = r;
    } else {
      overflow_.push_back(r);
    }
    ++size_;
  }
  void pop_back() {
    --size_;
    if (size_ >= kInline) overflow_.pop_back();
  }
  std::size_t size() const { return size_; }
  std::uint32_t at(std::size_t i) const { return i < kInline ? inline_[i] : overflow_[i - kInline]; }

 private:
  static constexpr std::size_t kInline = 64;
  std::uint32_t inline_[kInline];
  std::size_t size_ = 0;
  std::vector<std::uint32_t> overflow_;
};

struct Seg {
  std::string_view key;  // an object member (data() non-null), else the array index
  std::size_t index;
};

std::string number_text(double x) {
  char buf[64];
  if (std::floor(x) == x && std::fabs(x) < 1e17) {
    auto r = std::to_chars(buf, buf + sizeof buf, static_cast<std::int64_t>(x));
    return std::string(buf, r.ptr);
  }
  auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

json::Value number_value(double x) {
  if (std::floor(x) == x && std::fabs(x) < 9e18) return json::Value(static_cast<std::int64_t>(x));
  return json::Value(x);
}

/// A number of the schema as a message prints it: an integer (int64 or
/// beyond) by its digits, a double as number_text does.
std::string limit_text(const json::Value& limit) {
  if (limit.is_integer()) return std::to_string(limit.as_integer());
  if (const std::string* digits = limit.big_integer_digits()) return *digits;
  return number_text(limit.as_double());
}

/// A number of the schema as a `params` value: itself, except an integral
/// double, given as an integer as Ajv (JavaScript) would.
json::Value limit_value(const json::Value& limit) {
  if (limit.is_integer() || limit.big_integer_digits() != nullptr) return limit;
  return number_value(limit.as_real());
}

bool is_integral(double x) { return std::isfinite(x) && std::floor(x) == x; }

inline std::size_t string_length_at_least(std::string_view s, std::size_t limit) {
  // Code points <= bytes; only count when the bytes cannot decide.
  if (s.size() < limit) return false;
  if (s.size() / 4 >= limit) return true;
  return json::count_code_points(s) >= limit;
}

/// Structural hash agreeing with JSON equality (1 == 1.0, member order
/// ignored), for uniqueItems on long arrays.
template <typename In>
std::uint64_t hash_value(typename In::Ref v) {
  auto mix = [](std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
  };
  switch (In::type(v)) {
    case json::Type::Null: return 0x1234;
    case json::Type::Boolean: return In::boolean(v) ? 0x2345 : 0x3456;
    case json::Type::Integer:
    case json::Type::Real: {
      double d = In::type(v) == json::Type::Integer ? static_cast<double>(In::integer(v)) : In::real(v);
      if (d == 0) d = 0;  // -0.0 == 0.0
      std::uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      return mix(bits ^ 0x4567);
    }
    case json::Type::String: {
      std::string_view text = In::string(v);
      return hash_name(text.data(), text.size());
    }
    case json::Type::Array: {
      std::uint64_t h = 0x5678;
      auto items = In::items(v);
      typename In::Ref item;
      while (In::next(items, item)) h = mix(h * 31 + hash_value<In>(item));
      return h;
    }
    case json::Type::Object: {
      std::uint64_t h = 0x6789;
      auto members = In::members(v);
      std::string_view key;
      typename In::Ref value;
      while (In::next(members, key, value)) h += mix(hash_name(key.data(), key.size()) * 31 + hash_value<In>(value));
      return h;
    }
  }
  return 0;
}

/// The items of an array, for random access: up to 16 without allocating.
template <typename In>
class ItemList {
 public:
  explicit ItemList(typename In::Ref array) : size_(In::count(array)) {
    if (size_ > kInline) heap_.resize(size_);
    typename In::Ref* out = size_ > kInline ? heap_.data() : inline_;
    auto items = In::items(array);
    for (std::size_t i = 0; i < size_; ++i) In::next(items, out[i]);
  }
  std::size_t size() const { return size_; }
  typename In::Ref operator[](std::size_t i) const { return size_ > kInline ? heap_[i] : inline_[i]; }

 private:
  static constexpr std::size_t kInline = 16;
  std::size_t size_;
  typename In::Ref inline_[kInline];
  std::vector<typename In::Ref> heap_;
};

/// True when some two items are equal (JSON equality).
template <typename In>
bool has_duplicates(const ItemList<In>& array) {
  const std::size_t n = array.size();
  if (n <= 12) {
    for (std::size_t i = 1; i < n; ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        if (In::equal(array[i], array[j])) return true;
      }
    }
    return false;
  }
  std::vector<std::pair<std::uint64_t, std::uint32_t>> hashed(n);
  for (std::size_t i = 0; i < n; ++i) hashed[i] = {hash_value<In>(array[i]), static_cast<std::uint32_t>(i)};
  std::sort(hashed.begin(), hashed.end());
  for (std::size_t i = 1; i < n; ++i) {
    for (std::size_t j = i; j-- > 0 && hashed[j].first == hashed[i].first;) {
      if (In::equal(array[hashed[i].second], array[hashed[j].second])) return true;
    }
  }
  return false;
}

/// The entry of `key` in a by_length_indexed table, or kNone.
__attribute__((always_inline)) inline std::uint32_t entry_by_length(const PropTable& table, std::string_view key) {
  const std::size_t size = key.size();
  if (size >= PropTable::kByLength) return kNone;
  const std::uint8_t e = table.by_length[size];
  if (e == PropTable::kNoEntry) return kNone;
  const PropTable::Entry& entry = table.entries[e];
  return same_key(key.data(), size, entry.words, entry.name) ? e : kNone;
}

/// The entry of `key` in table, or kNone.
__attribute__((always_inline)) inline std::uint32_t find_entry(const PropTable& table, std::string_view key) {
  const std::size_t size = key.size();
  if (table.by_length_indexed) return entry_by_length(table, key);
  if (table.perfect_seed != 0) {
    const std::uint32_t e = table.buckets[perfect_slot(table, key.data(), size)];
    if (e == kNone) return kNone;
    const PropTable::Entry& entry = table.entries[e];
    return entry.name.size() == size && same_key(key.data(), size, entry.words, entry.name) ? e : kNone;
  }
  if (!table.buckets.empty()) {
    std::uint64_t h = hash_key(key.data(), size) & table.bucket_mask;
    while (table.buckets[h] != kNone) {
      const PropTable::Entry& entry = table.entries[table.buckets[h]];
      if (entry.name.size() == size && same_key(key.data(), size, entry.words, entry.name)) return table.buckets[h];
      h = (h + 1) & table.bucket_mask;
    }
    return kNone;
  }
  const std::uint32_t count = static_cast<std::uint32_t>(table.entries.size());
  for (std::uint32_t e = 0; e < count; ++e) {
    const PropTable::Entry& entry = table.entries[e];
    if (entry.name.size() == size && same_key(key.data(), size, entry.words, entry.name)) {
      return e;
    }
  }
  return kNone;
}

template <bool kCollect, typename In>
class Evaluator {
  using Ref = typename In::Ref;

 public:
  Evaluator(const Program& program, std::vector<Violation>* out, bool all)
      : p_(program) {
    if constexpr (kCollect) {
      out_ = out;
      all_ = all;
    }
    stack_base_ = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  }

  /// Evaluates node `index` against `v`; `ann` collects the members/items
  /// evaluated (only below a node with unevaluated*).
  bool node(std::uint32_t index, Ref v, Annot* ann) {
    if constexpr (!kCollect) {
      const Node& n = p_.nodes[index];
      const std::uint8_t kind = n.fast_kind;
      if (kind == kFastTypeOnly) return type_matches(n.fast_type_mask, v);
      if (kind != kFastGeneral && ann == nullptr) {
        if (__builtin_expect(++steps_ > step_limit_, 0)) return work_bound(index, v, ann);
        switch (kind) {
          case kFastLeaf: return leaf(n, v);
          case kFastUnion: return union_of(n, v);
          case kFastPlainObject: return plain_object(n, v);
          case kFastRecord: return record(n, v);
          default: return plain_array(n, v);
        }
      }
    }
    // The work bound: past kMemoAfter subschema evaluations in one
    // validation, each goes through the memo and the budget (work_bound).
    if (__builtin_expect(++steps_ > step_limit_, 0)) return work_bound(index, v, ann);
    return node_eval(index, v, ann);
  }

 private:
  bool node_eval(std::uint32_t index, Ref v, Annot* ann) {
    if constexpr (!kCollect) {
      // The fast path: no error reporting, no own annotations, no dynamic
      // scope to keep.
      const Node& n = p_.nodes[index];
      const std::uint8_t flags = n.flags;
      if (!(flags & (kNodeFalse | kNodeUnevaluatedItems | kNodeUnevaluatedProps))) {
        if (stack_abort()) return false;
        if (!p_.uses_dynamic_scope) return run_fast(n, v, ann);
        if (!scope_.empty() && scope_.back() == n.resource) return run_fast(n, v, ann);
        scope_.push_back(n.resource);
        bool ok = run_fast(n, v, ann);
        scope_.pop_back();
        return ok;
      }
    }
    return node_full(index, v, ann);
  }

  /// Past kMemoAfter evaluations (a schema whose references fan out, or a
  /// large instance): the budget is set from the instance's size, and a
  /// (subschema, value) pair whose verdict cannot depend on anything else
  /// (fast pass, no annotations asked for, no dynamic scope) is evaluated
  /// once, so fan-out costs the schema's size times the instance's instead
  /// of 2^depth. Past the budget the validation fails, saying so.
  __attribute__((noinline)) bool work_bound(std::uint32_t index, Ref v, Annot* ann) {
    if constexpr (kCollect) {
      if (abort_ != Abort::None) return false;  // stopped: nothing more to evaluate or list
    }
    if (budget_ == 0) {
      budget_ = p_.validation_budget + kBudgetPerValue * (root_ != nullptr ? count_values(root_) : 1);
      step_limit_ = 0;  // every evaluation from now on comes here
      bound_ = new Bound();
    }
    if (steps_ > budget_) {
      if constexpr (kCollect) {
        abort_at(Abort::Budget, index);
      } else if (abort_ == Abort::None) {
        abort_ = Abort::Budget;
      }
      return false;
    }
    if (ann != nullptr || p_.uses_dynamic_scope) return node_eval(index, v, ann);
    if constexpr (kCollect) {
      // A subtree the (memoised) fast pass accepts has no violation to
      // collect: only failing paths are walked for their errors.
      auto& fast = bound_->fast;
      if (!fast) {
        fast = std::make_unique<Evaluator<false, In>>(p_, nullptr, false);
        fast->stack_base_ = stack_base_;  // its stack is this one's, whatever depth it was made at
        fast->set_root(root_);
      }
      if (fast->node(index, v, nullptr) && fast->abort_ == Abort::None) return true;
      // A pair that failed before and whose errors are still listed (no
      // applicator dropped errors since) would only list them again.
      const MemoKey key{index, In::identity(v)};
      if (auto it = bound_->failed.find(key); it != bound_->failed.end() && it->second == truncations_) return false;
      bool ok = node_eval(index, v, ann);
      if (!ok) bound_->failed[key] = truncations_;
      return ok;
    }
    const MemoKey key{index, In::identity(v)};
    if (auto it = bound_->memo.find(key); it != bound_->memo.end()) return it->second;
    bool ok = node_eval(index, v, ann);
    if (abort_ == Abort::None) bound_->memo.emplace(key, ok);
    return ok;
  }

  static std::uint64_t count_values(Ref v) {
    std::uint64_t count = 1;
    if (In::type(v) == json::Type::Array) {
      auto items = In::items(v);
      Ref item;
      while (In::next(items, item)) count += count_values(item);
    } else if (In::type(v) == json::Type::Object) {
      auto members = In::members(v);
      std::string_view key;
      Ref value;
      while (In::next(members, key, value)) count += count_values(value);
    }
    return count;
  }

 public:
  /// The instance being validated (for the budget's size).
  void set_root(Ref root) { root_ = root; }
  /// The frame the stack limit counts from.
  std::uintptr_t stack_base_ = 0;

 private:
  __attribute__((always_inline)) static bool type_matches(std::uint8_t mask, Ref v) {
    json::Type t = In::type(v);
    if (mask & (1u << static_cast<unsigned>(t))) return true;
    return t == json::Type::Real && (mask & kTypeIntegralReal) && is_integral(In::real(v));
  }
  bool node_full(std::uint32_t index, Ref v, Annot* ann);
  /// True when this validation has used more than kMaxStackBytes of the
  /// thread's stack (measured from the frame `validate` started in).
  /// Inlined, so the frame measured is the caller's.
  __attribute__((always_inline)) bool stack_exhausted() const {
    return stack_base_ - reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)) > kMaxStackBytes;
  }
  /// The fast pass's stack bound: true, with the validation aborted, when
  /// the stack is exhausted. Inlined, as stack_exhausted.
  __attribute__((always_inline)) bool stack_abort() {
    if (!stack_exhausted()) return false;
    abort_ = Abort::Depth;
    return true;
  }
  /// Fast pass of a kNodePlainObject node: its type, then its one
  /// PropTable pass on objects, without the general node's dispatch.
  bool plain_object(const Node& n, Ref v) {
    if (In::type(v) != json::Type::Object) return type_matches(n.type_mask, v);
    if (!(n.type_mask & kTypeObject)) return false;
    if (stack_abort()) return false;
    return properties_by_name(p_.prop_tables[n.operand], v);
  }
  /// Fast pass of a kFastRecord node: its type, then its members.
  __attribute__((noinline)) bool record(const Node& n, Ref v) { return record_of(p_, n, v); }

 public:
  /// The fast pass of a kFastRecord node, which needs none of an
  /// evaluator's state (no subschema call, so no stack or work bound).
  __attribute__((always_inline)) static bool record_of(const Program& p, const Node& n, Ref v) {
    if (In::type(v) != json::Type::Object) return type_matches(n.type_mask, v);
    if (!(n.type_mask & kTypeObject)) return false;
    return record_members(p.prop_tables[n.operand], v);
  }

 private:
  /// The members of an object against a PropTable::record table: each
  /// member's type (its entry's, or the additional members'), then
  /// `required`. No subschema is called, so no stack bound is needed.
  __attribute__((always_inline)) static bool record_members(const PropTable& table, Ref v) {
    auto run = [&](auto lookup) __attribute__((always_inline)) {
      std::uint64_t required_seen = 0;
      auto members = In::members(v);
      std::string_view key;
      Ref value;
      while (In::next(members, key, value)) {
        const std::uint32_t entry = lookup(key);
        std::uint8_t mask;
        if (entry != kNone) {
          const PropTable::Entry& e = table.entries[entry];
          required_seen |= e.required_bits;
          mask = e.type_mask;
        } else {
          mask = table.record_additional_mask;
        }
        if (!type_matches(mask, value)) return false;
      }
      return required_seen == table.required_all;
    };
    if (table.by_length_indexed) {
      return run([&](std::string_view key) __attribute__((always_inline)) { return entry_by_length(table, key); });
    }
    return run([&](std::string_view key) __attribute__((always_inline)) { return find_entry(table, key); });
  }
  /// Fast pass of a kNodePlainArray node: its type, then its elements.
  __attribute__((noinline)) bool plain_array(const Node& n, Ref v) {
    if (In::type(v) != json::Type::Array) return type_matches(n.type_mask, v);
    if (!(n.type_mask & kTypeArray)) return false;
    if (stack_abort()) return false;
    auto items = In::items(v);
    Ref item;
    const Node& rest = p_.nodes[n.operand];
    if (rest.flags & kNodeTypeOnly) {
      while (In::next(items, item)) {
        if (!type_matches(rest.fast_type_mask, item)) return false;
      }
      return true;
    }
    if (rest.fast_kind == kFastRecord) {
      // As node() would, without a call per element.
      while (In::next(items, item)) {
        if (__builtin_expect(++steps_ > step_limit_, 0)) {
          if (!work_bound(n.operand, item, nullptr)) return false;
        } else if (!record_of(p_, rest, item)) {
          return false;
        }
      }
      return true;
    }
    while (In::next(items, item)) {
      if (!node(n.operand, item, nullptr)) return false;
    }
    return true;
  }
  /// The fast pass of a node: its type, then its instructions for any type
  /// and for v's type, each decided by `check` (instr, or leaf_instr for a
  /// leaf).
  template <typename Check>
  __attribute__((always_inline)) bool run_fast(const Node& n, Ref v, Check check) {
    if (n.type_mask != kTypeAll && !type_matches(n.type_mask, v)) return false;
    for (std::uint32_t i = n.begin[0], end = n.begin[1]; i < end; ++i) {
      if (!check(p_.instrs[i])) return false;
    }
    static constexpr std::uint8_t kRange[7] = {0, 0, 1, 1, 2, 3, 4};
    const std::uint32_t range = kRange[static_cast<unsigned>(In::type(v))];
    if (range) {
      for (std::uint32_t i = n.begin[range], end = n.begin[range + 1]; i < end; ++i) {
        if (!check(p_.instrs[i])) return false;
      }
    }
    return true;
  }
  __attribute__((always_inline)) bool run_fast(const Node& n, Ref v, Annot* ann) {
    return run_fast(n, v, [&](const Instr& in) __attribute__((always_inline)) { return instr(in, v, ann); });
  }
  /// Fast pass of a kNodeUnion node: its type, then its anyOf or oneOf.
  __attribute__((noinline)) bool union_of(const Node& n, Ref v) {
    if (n.type_mask != kTypeAll && !type_matches(n.type_mask, v)) return false;
    if (stack_abort()) return false;
    const Instr& in = p_.instrs[n.begin[0]];
    return in.op == OpCode::AnyOf ? any_of_fast(in, v) : one_of_fast(in, v);
  }
  /// Fast pass of a kNodeLeaf node, outside node_eval: a leaf has no
  /// subschema, so it needs no stack bound, dynamic scope or annotations.
  __attribute__((noinline)) bool leaf(const Node& n, Ref v) {
    return run_fast(n, v, [&](const Instr& in) __attribute__((always_inline)) { return leaf_instr(in, v); });
  }
  /// `const`: a string compared here, anything else by JSON equality.
  bool const_equal(const Instr& in, Ref v) const {
    const json::Value& value = p_.values[in.a];
    if (value.is_string() && In::type(v) == json::Type::String) {
      const std::string& text = value.as_string();
      const std::string_view str = In::string(v);
      return text.size() == str.size() && equal_bytes(text.data(), str.data(), str.size());
    }
    return In::equal(value, v);
  }
  __attribute__((always_inline)) bool leaf_instr(const Instr& in, Ref v) {
    switch (in.op) {
      case OpCode::Enum: return enum_contains(in, v);
      case OpCode::Const: return const_equal(in, v);
      case OpCode::MinItems: return In::count(v) >= in.a;
      case OpCode::MaxItems: return In::count(v) <= in.a;
      default: return instr_slow(in, v, nullptr);
    }
  }
  __attribute__((always_inline)) bool instr(const Instr& in, Ref v, Annot* ann);
  __attribute__((noinline)) bool instr_slow(const Instr& in, Ref v, Annot* ann);
  // One function per keyword (the collecting pass and the fast pass's
  // rarer keywords), dispatched by instr_slow.
  bool enum_keyword(const Instr& in, Ref v, Annot* ann);
  bool dynamic_ref(const Instr& in, Ref v, Annot* ann);
  bool all_of(const Instr& in, Ref v, Annot* ann);
  bool any_of(const Instr& in, Ref v, Annot* ann);
  bool one_of(const Instr& in, Ref v, Annot* ann);
  bool not_schema(const Instr& in, Ref v, Annot* ann);
  bool if_then_else(const Instr& in, Ref v, Annot* ann);
  bool number_bound(const Instr& in, Ref v, Annot* ann);
  bool pattern(const Instr& in, Ref v, Annot* ann);
  bool format(const Instr& in, Ref v, Annot* ann);
  bool unique_items(const Instr& in, Ref v, Annot* ann);
  bool contains(const Instr& in, Ref v, Annot* ann);
  bool unevaluated_items(const Instr& in, Ref v, Annot* ann);
  bool required(const Instr& in, Ref v, Annot* ann);
  bool dependent_required(const Instr& in, Ref v, Annot* ann);
  bool dependent_schemas(const Instr& in, Ref v, Annot* ann);
  bool property_names(const Instr& in, Ref v, Annot* ann);
  bool unevaluated_properties(const Instr& in, Ref v, Annot* ann);
  __attribute__((noinline)) bool properties(const Instr& in, Ref v, Annot* ann);
  bool properties_by_name(const PropTable& table, Ref v);
  bool additional_only(const PropTable& table, Ref v);
  __attribute__((noinline)) bool items(const Instr& in, Ref v, Annot* ann);
  bool enum_contains(const Instr& in, Ref v) const;
  /// Fast pass, no annotations: does branch `node` (a node_lists entry)
  /// accept `v`? Its type is checked here, so that a union whose branches
  /// differ by type costs no call for the branches of other types.
  bool branch(std::uint32_t index, Ref v) {
    const Node& n = p_.nodes[index];
    if (!type_matches(n.fast_type_mask, v)) return false;
    return (n.flags & kNodeTypeOnly) || node(index, v, nullptr);
  }
  __attribute__((noinline)) bool any_of_fast(const Instr& in, Ref v) {
    for (std::uint32_t k = in.a; k < in.a + in.b; ++k) {
      if (branch(p_.node_lists[k], v)) return true;
    }
    return false;
  }
  __attribute__((noinline)) bool one_of_fast(const Instr& in, Ref v) {
    bool passed = false;
    for (std::uint32_t k = in.a; k < in.a + in.b; ++k) {
      if (!branch(p_.node_lists[k], v)) continue;
      if (passed) return false;
      passed = true;
    }
    return passed;
  }
  /// Fast pass, no annotations: `if` decides which of `then` / `else`
  /// (kNone: none) must accept v.
  __attribute__((noinline)) bool if_then_else_fast(const Instr& in, Ref v) {
    const std::uint32_t then_or_else = node(in.a, v, nullptr) ? in.b : in.c;
    return then_or_else == kNone || node(then_or_else, v, nullptr);
  }
  Regex::Match search(std::uint32_t regex, std::string_view subject) const {
    if (const auto& simple = p_.simple_patterns[regex]) {
      int r = match_simple_pattern(*simple, subject);
      if (r >= 0) return r ? Regex::Match::Yes : Regex::Match::No;
    }
    return p_.regexes[regex].search(subject);
  }

  /// Continue after a failure? (collect mode with all errors, until the
  /// validation is stopped)
  bool keep_going() const {
    if constexpr (kCollect) return all_ && abort_ == Abort::None;
    return false;
  }

  std::size_t mark() const {
    if constexpr (kCollect) return out_->size();
    return 0;
  }
  void rewind(std::size_t m) {
    if constexpr (kCollect) {
      if (m < out_->size()) ++truncations_;
      out_->resize(m);
    }
  }
  void push(std::string_view key) {
    if constexpr (kCollect) path_.push_back(Seg{key, 0});
  }
  void push(std::size_t index) {
    if constexpr (kCollect) path_.push_back(Seg{std::string_view(), index});
  }
  void pop() {
    if constexpr (kCollect) path_.pop_back();
  }
  std::string instance_path() const {
    std::string p;
    for (const Seg& s : path_) {
      if (s.key.data() != nullptr) {
        json::append_pointer(p, s.key);
      } else {
        json::append_pointer(p, s.index);
      }
    }
    return p;
  }
  void fail_at(std::string_view keyword, std::uint32_t path, json::Value params, std::string message) {
    if constexpr (kCollect) {
      if (abort_ != Abort::None) return;  // a stopped validation reports only why it stopped
      out_->push_back(Violation{instance_path(), p_.strings[path], std::string(keyword), std::move(params), std::move(message)});
    }
  }
  /// Records a violation of `in`; params/message are lambdas so the fast
  /// evaluator never builds them.
  template <typename Params, typename Message>
  void fail(const Instr& in, Params&& params, Message&& message) {
    if constexpr (kCollect) {
      if (abort_ == Abort::None) fail_at(p_.strings[in.keyword], in.path, params(), message());
    }
  }
  static json::Value empty_params() { return json::Value(json::Object{}); }
  /// A length or count bound as the schema wrote it (kInstrClampedBound).
  std::string count_text(const Instr& in) const {
    return (in.flags & kInstrClampedBound) ? limit_text(p_.values[in.b]) : std::to_string(in.a);
  }
  json::Value count_value(const Instr& in) const {
    return (in.flags & kInstrClampedBound) ? limit_value(p_.values[in.b]) : json::Value(static_cast<std::int64_t>(in.a));
  }

  const Program& p_;
  /// Where violations go and whether all of them are wanted (the
  /// collecting pass; nothing in the fast pass).
  struct NoOut {};
  [[no_unique_address]] std::conditional_t<kCollect, std::vector<Violation>*, NoOut> out_;
  [[no_unique_address]] std::conditional_t<kCollect, bool, NoOut> all_;
  /// The instance path of the collecting pass (nothing in the fast pass).
  struct NoPath {};
  [[no_unique_address]] std::conditional_t<kCollect, std::vector<Seg>, NoPath> path_;
  /// The collecting pass's node under evaluation, while depth_ > 0: where
  /// an abort says it was (nothing in the fast pass).
  struct NoNode {};
  [[no_unique_address]] std::conditional_t<kCollect, std::uint32_t, NoNode> current_{};
  Scope scope_;
  int depth_ = 0;
  Ref root_ = nullptr;
  std::uint64_t steps_ = 0;
  std::uint64_t step_limit_ = std::min(kMemoAfter, p_.validation_budget);
  std::uint64_t budget_ = 0;
  struct MemoKey {
    std::uint32_t node;
    const void* value;
    bool operator==(const MemoKey& other) const { return node == other.node && value == other.value; }
  };
  struct MemoHash {
    std::size_t operator()(const MemoKey& key) const {
      return std::hash<const void*>()(key.value) * 0x9E3779B97F4A7C15ull ^ key.node;
    }
  };
  /// What the work bound keeps (work_bound), made only when a validation
  /// gets that far: an evaluator stays cheap to make for the common case.
  struct Bound {
    std::unordered_map<MemoKey, bool, MemoHash> memo;
    /// The collecting pass's fast verdicts.
    std::unique_ptr<Evaluator<false, In>> fast;
    /// Collecting pass: failed pairs and the truncation count when their
    /// errors were listed.
    std::unordered_map<MemoKey, std::uint64_t, MemoHash> failed;
  };
  /// Owned (a raw pointer, freed out of line by release_bound in
  /// ~Evaluator): dropping an evaluator that never got that far then costs
  /// a test, not the inlined destructors of the Bound's maps, which a
  /// std::unique_ptr brings along even when null (a twentieth of a small
  /// validation's instructions).
  Bound* bound_ = nullptr;
  __attribute__((noinline)) static void release_bound(Bound* bound) { delete bound; }

 public:
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;
  ~Evaluator() {
    if (__builtin_expect(bound_ != nullptr, 0)) release_bound(bound_);
  }

 private:
  /// Rewinds that dropped errors (collecting pass).
  std::uint64_t truncations_ = 0;

 public:
  /// Set once the depth limit or the work budget was hit: the verdict is
  /// then "invalid" no matter what the applicators above made of the
  /// failure (a `not` must not turn it into a pass), so every entry point
  /// agrees. The collecting pass then evaluates and lists nothing more.
  Abort abort_ = Abort::None;
  /// The collecting pass's violation of the abort (abort_at), which
  /// evaluate_collect reports alone (nothing in the fast pass).
  struct NoViolation {};
  [[no_unique_address]] std::conditional_t<kCollect, Violation, NoViolation> abort_violation_;

 private:
  /// The collecting pass's stop on entering node `index` (the fast pass
  /// only sets abort_); the first stop counts. It keeps the violation
  /// saying where: the subschema under evaluation then (the one that
  /// recursed, rather than the sibling it was entering), and the value.
  __attribute__((noinline, cold)) void abort_at(Abort why, std::uint32_t index) {
    static_assert(kCollect);
    if (abort_ != Abort::None) return;
    abort_ = why;
    std::string at = node_pointer(p_, depth_ > 0 ? current_ : index);
    abort_violation_ = why == Abort::Depth ? depth_violation(instance_path(), std::move(at))
                                           : budget_violation(instance_path(), std::move(at));
  }
};

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::node_full(std::uint32_t index, Ref v, Annot* ann) {
  if constexpr (kCollect) {
    if (abort_ != Abort::None) return false;  // stopped: nothing more to evaluate or list
  }
  const Node& n = p_.nodes[index];
  if (n.flags & kNodeFalse) {
    if constexpr (kCollect) {
      out_->push_back(Violation{instance_path(), p_.strings[n.type_path], "false schema", empty_params(), "boolean schema is false"});
    }
    return false;
  }
  if (depth_ >= kMaxDepth || stack_exhausted()) {
    if constexpr (kCollect) {
      abort_at(Abort::Depth, index);
    } else {
      abort_ = Abort::Depth;
    }
    return false;
  }
  ++depth_;
  [[maybe_unused]] std::uint32_t outer = 0;
  if constexpr (kCollect) outer = std::exchange(current_, index);
  bool pushed = false;
  if (p_.uses_dynamic_scope && (scope_.empty() || scope_.back() != n.resource)) {
    scope_.push_back(n.resource);
    pushed = true;
  }
  bool ok = true;
  json::Type t = In::type(v);
  Annot local;
  Annot* a = ann;
  std::uint32_t range = 0;
  if (n.type_mask != kTypeAll) {
    if (!type_matches(n.type_mask, v)) {
      ok = false;
      if constexpr (kCollect) {
        const json::Value& tv = p_.values[n.type_value];
        std::string names;
        if (tv.is_string()) {
          names = tv.as_string();
        } else {
          for (const json::Value& name : tv.as_array()) {
            if (!names.empty()) names += ',';
            if (name.is_string()) names += name.as_string();
          }
        }
        out_->push_back(Violation{instance_path(), p_.strings[n.type_path], "type",
                                  json::Value(json::Object{{"type", tv}}), "must be " + names});
      }
      if (!keep_going()) goto done;
    }
  }
  switch (t) {
    case json::Type::Integer:
    case json::Type::Real: range = 1; break;
    case json::Type::String: range = 2; break;
    case json::Type::Array:
      range = 3;
      if (n.flags & kNodeUnevaluatedItems) {
        local.marks.assign(In::count(v), 0);
        a = &local;
      }
      break;
    case json::Type::Object:
      range = 4;
      if (n.flags & kNodeUnevaluatedProps) {
        local.marks.assign(In::count(v), 0);
        a = &local;
      }
      break;
    default: break;
  }
  for (std::uint32_t i = n.begin[0]; i < n.begin[1]; ++i) {
    if (!instr(p_.instrs[i], v, a)) {
      ok = false;
      if (!keep_going()) goto done;
    }
  }
  if (range) {
    for (std::uint32_t i = n.begin[range]; i < n.begin[range + 1]; ++i) {
      if (!instr(p_.instrs[i], v, a)) {
        ok = false;
        if (!keep_going()) goto done;
      }
    }
  }
  if (ok && ann && a == &local) ann->merge(local);
done:
  if constexpr (kCollect) current_ = outer;
  if (pushed) scope_.pop_back();
  --depth_;
  return ok;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::properties_by_name(const PropTable& table, Ref v) {
  // As properties() below, for a table without patternProperties when no
  // annotations are asked for: a member is its entry, else additional.
  if (table.entries.empty()) return additional_only(table, v);
  constexpr std::size_t kDeferMax = 32;
  Ref deferred_value[kDeferMax];
  std::uint32_t deferred_node[kDeferMax];
  std::size_t deferred = 0;
  std::uint64_t required_seen = 0;
  auto members = In::members(v);
  std::string_view key;
  Ref value;
  while (In::next(members, key, value)) {
    const std::uint32_t entry = find_entry(table, key);
    std::uint32_t child;
    if (entry != kNone) {
      const PropTable::Entry& e = table.entries[entry];
      required_seen |= e.required_bits;
      if (e.node_flags & kNodeTypeOnly) {
        if (!type_matches(e.type_mask, value)) return false;
        continue;
      }
      child = e.node;
      if (!(e.node_flags & kNodeLeaf) && deferred < kDeferMax) {
        deferred_value[deferred] = value;
        deferred_node[deferred++] = child;
        continue;
      }
    } else {
      if (table.additional == kNone) continue;
      if (table.additional_false) return false;
      if (table.additional_flags & kNodeTypeOnly) {
        if (!type_matches(table.additional_type_mask, value)) return false;
        continue;
      }
      child = table.additional;
    }
    if (!node(child, value, nullptr)) return false;
  }
  if (required_seen != table.required_all) return false;
  for (std::size_t d = 0; d < deferred; ++d) {
    if (!node(deferred_node[d], deferred_value[d], nullptr)) return false;
  }
  return true;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::additional_only(const PropTable& table, Ref v) {
  // A map ({"additionalProperties": S} alone): every member is S's.
  if (table.additional == kNone) return true;
  if (table.additional_false) return In::count(v) == 0;
  auto members = In::members(v);
  std::string_view key;
  Ref value;
  if (table.additional_flags & kNodeTypeOnly) {
    while (In::next(members, key, value)) {
      if (!type_matches(table.additional_type_mask, value)) return false;
    }
    return true;
  }
  while (In::next(members, key, value)) {
    if (!node(table.additional, value, nullptr)) return false;
  }
  return true;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::properties(const Instr& in, Ref v, Annot* ann) {
  // (The fast pass without annotations sends a names-only table to
  // properties_by_name before it gets here: instr().)
  const PropTable& table = p_.prop_tables[in.a];
  bool ok = true;
  // Fast mode: leaf subschemas (const/enum/type/bounds) first, the rest
  // after, so a failing discriminator rejects a oneOf branch before deep
  // members are walked.
  constexpr std::size_t kDeferMax = 32;
  Ref deferred_value[kDeferMax];
  std::uint32_t deferred_node[kDeferMax];
  std::size_t deferred = 0;
  std::uint64_t required_seen = 0;
  auto members = In::members(v);
  std::string_view key;
  Ref value;
  for (std::size_t m = 0; In::next(members, key, value); ++m) {
    bool matched = false;
    std::uint32_t entry = find_entry(table, key);
    if (entry != kNone) {
      matched = true;
      const PropTable::Entry& e = table.entries[entry];
      std::uint32_t child = e.node;
      if constexpr (!kCollect) {
        required_seen |= e.required_bits;
        if (e.node_flags & kNodeTypeOnly) {
          if (!type_matches(e.type_mask, value)) return false;
          child = kNone;
        } else if (!(e.node_flags & kNodeLeaf) && deferred < kDeferMax) {
          deferred_value[deferred] = value;
          deferred_node[deferred++] = child;
          child = kNone;
        }
      }
      if (child != kNone) {
        push(key);
        bool sub_ok = node(child, value, nullptr);
        pop();
        if (!sub_ok) {
          ok = false;
          if (!keep_going()) return false;
        }
      }
    }
    for (const PropTable::PatternEntry& pe : table.patterns) {
      Regex::Match r = search(pe.regex, key);
      if (r == Regex::Match::BudgetExceeded) {
        if constexpr (kCollect) {
          push(key);
          fail_at("patternProperties", pe.path, json::Value(json::Object{{"pattern", p_.regexes[pe.regex].pattern()}}),
                  "pattern " + json::quote(p_.regexes[pe.regex].pattern()) + " exceeded its step budget");
          pop();
        }
        ok = false;
        if (!keep_going()) return false;
        continue;
      }
      if (r != Regex::Match::Yes) continue;
      matched = true;
      push(key);
      bool sub_ok = node(pe.node, value, nullptr);
      pop();
      if (!sub_ok) {
        ok = false;
        if (!keep_going()) return false;
      }
    }
    if (!matched && table.additional != kNone) {
      matched = true;
      if (table.additional_false) {
        if constexpr (kCollect) {
          fail_at("additionalProperties", table.additional_path,
                  json::Value(json::Object{{"additionalProperty", key}}), "must NOT have additional properties");
        }
        ok = false;
        if (!keep_going()) return false;
      } else {
        push(key);
        bool sub_ok = node(table.additional, value, nullptr);
        pop();
        if (!sub_ok) {
          ok = false;
          if (!keep_going()) return false;
        }
      }
    }
    if (ann && matched) ann->marks[m] = 1;
  }
  if constexpr (!kCollect) {
    if (required_seen != table.required_all) return false;
    for (std::size_t d = 0; d < deferred; ++d) {
      if (!node(deferred_node[d], deferred_value[d], nullptr)) return false;
    }
  }
  return ok;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::items(const Instr& in, Ref v, Annot* ann) {
  const std::size_t size = In::count(v);
  auto items = In::items(v);
  Ref item = nullptr;
  bool ok = true;
  std::size_t prefix = std::min<std::size_t>(in.b, size);
  for (std::size_t i = 0; i < prefix; ++i) {
    In::next(items, item);
    push(i);
    bool sub_ok = node(p_.node_lists[in.a + i], item, nullptr);
    pop();
    if (!sub_ok) {
      ok = false;
      if (!keep_going()) return false;
    }
  }
  if (ann) {
    for (std::size_t i = 0; i < prefix; ++i) ann->marks[i] = 1;
  }
  if (in.c == kNone || size <= in.b) return ok;
  if (in.flags & 1) {
    fail(in, [&] { return json::Value(json::Object{{"limit", static_cast<std::int64_t>(in.b)}}); },
         [&] { return "must NOT have more than " + std::to_string(in.b) + " items"; });
    return false;
  }
  if constexpr (!kCollect) {
    // A rest schema that is only a type (arrays of strings): checked here.
    const Node& rest = p_.nodes[in.c];
    if (rest.flags & kNodeTypeOnly) {
      for (std::size_t i = in.b; i < size; ++i) {
        In::next(items, item);
        if (!type_matches(rest.fast_type_mask, item)) return false;
      }
      if (ann) {
        for (std::size_t i = 0; i < size; ++i) ann->marks[i] = 1;
      }
      return true;
    }
  }
  for (std::size_t i = in.b; i < size; ++i) {
    In::next(items, item);
    push(i);
    bool sub_ok = node(in.c, item, nullptr);
    pop();
    if (!sub_ok) {
      ok = false;
      if (!keep_going()) return false;
    }
  }
  if (ann && ok) {
    for (std::size_t i = 0; i < size; ++i) ann->marks[i] = 1;
  }
  return ok;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::enum_contains(const Instr& in, Ref v) const {
  if (in.d == kNone) {
    if (In::type(v) == json::Type::String) {
      // A string equals only a string: compared here, without a call.
      const std::string_view str = In::string(v);
      for (std::uint32_t k = in.a; k < in.a + in.b; ++k) {
        const json::Value& member = p_.values[k];
        if (!member.is_string()) continue;
        const std::string& text = member.as_string();
        if (text.size() == str.size() && equal_bytes(text.data(), str.data(), str.size())) return true;
      }
      return false;
    }
    for (std::uint32_t k = in.a; k < in.a + in.b; ++k) {
      if (In::equal(p_.values[k], v)) return true;
    }
    return false;
  }
  const EnumSet& set = p_.enum_sets[in.d];
  if (In::type(v) == json::Type::String) {
    std::string_view str = In::string(v);
    std::uint64_t h = hash_name(str.data(), str.size()) & set.mask;
    while (set.buckets[h] != kNone) {
      if (p_.values[set.buckets[h]].as_string() == str) return true;
      h = (h + 1) & set.mask;
    }
    return false;
  }
  for (std::uint32_t k : set.others) {
    if (In::equal(p_.values[k], v)) return true;
  }
  return false;
}

template <bool kCollect, typename In>
inline bool Evaluator<kCollect, In>::instr(const Instr& in, Ref v, Annot* ann) {
  if constexpr (!kCollect) {
    // The common cheap checks inline; everything else out of line.
    switch (in.op) {
      case OpCode::Ref: return node(in.a, v, ann);
      case OpCode::Properties: {
        const PropTable& table = p_.prop_tables[in.a];
        if (table.names_only && ann == nullptr) return properties_by_name(table, v);
        return properties(in, v, ann);
      }
      case OpCode::Items: return items(in, v, ann);
      case OpCode::Required:
        if (in.flags & 2) return true;
        break;
      case OpCode::Enum: return enum_contains(in, v);
      case OpCode::Const: return const_equal(in, v);
      case OpCode::AnyOf:
        if (ann == nullptr) return any_of_fast(in, v);
        break;
      case OpCode::OneOf:
        if (ann == nullptr) return one_of_fast(in, v);
        break;
      case OpCode::IfThenElse:
        if (ann == nullptr) return if_then_else_fast(in, v);
        break;
      case OpCode::MinItems: return In::count(v) >= in.a;
      case OpCode::MaxItems: return In::count(v) <= in.a;
      default: break;
    }
  }
  return instr_slow(in, v, ann);
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::enum_keyword(const Instr& in, Ref v, Annot* ann) {
  if (enum_contains(in, v)) return true;
  fail(in, [&] { return json::Value(json::Object{{"allowedValues", p_.values[in.c]}}); },
       [] { return std::string("must be equal to one of the allowed values"); });
  return false;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::dynamic_ref(const Instr& in, Ref v, Annot* ann) {
  const DynamicRef& ref = p_.dynamic_refs[in.a];
  std::uint32_t target = ref.static_node;
  if (!ref.candidates.empty()) {
    bool found = false;
    for (std::size_t si = 0; si < scope_.size(); ++si) {
      const std::uint32_t resource = scope_.at(si);
      for (const auto& [r, candidate] : ref.candidates) {
        if (r == resource) {
          target = candidate;
          found = true;
          break;
        }
      }
      if (found) break;
    }
  }
  if (target == kNone) {
    // v1: no resource in the dynamic scope defines the anchor, and the
    // one the reference names does not either.
    fail(in, [] { return empty_params(); },
         [] { return std::string("$dynamicRef has no $dynamicAnchor of its name in the dynamic scope"); });
    return false;
  }
  return node(target, v, ann);
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::all_of(const Instr& in, Ref v, Annot* ann) {
  bool ok = true;
  for (std::uint32_t k = in.a; k < in.a + in.b; ++k) {
    if (!node(p_.node_lists[k], v, ann)) {
      ok = false;
      if (!keep_going()) return false;
    }
  }
  return ok;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::any_of(const Instr& in, Ref v, Annot* ann) {
  std::size_t m = mark();
  bool any = false;
  for (std::uint32_t k = in.a; k < in.a + in.b; ++k) {
    if (ann) {
      Annot tmp;
      tmp.marks.assign(ann->marks.size(), 0);
      if (node(p_.node_lists[k], v, &tmp)) {
        any = true;
        ann->merge(tmp);
      }
    } else if (node(p_.node_lists[k], v, nullptr)) {
      any = true;
      break;
    }
  }
  if (any) {
    rewind(m);
    return true;
  }
  fail(in, [] { return empty_params(); }, [] { return std::string("must match a schema in anyOf"); });
  return false;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::one_of(const Instr& in, Ref v, Annot* ann) {
  std::size_t m = mark();
  int passing = 0;
  std::int64_t first = -1, second = -1;
  Annot chosen;
  for (std::uint32_t k = in.a; k < in.a + in.b; ++k) {
    bool valid;
    if (ann) {
      Annot tmp;
      tmp.marks.assign(ann->marks.size(), 0);
      valid = node(p_.node_lists[k], v, &tmp);
      if (valid && passing == 0) chosen = std::move(tmp);
    } else {
      valid = node(p_.node_lists[k], v, nullptr);
    }
    if (valid) {
      ++passing;
      if (first < 0) {
        first = k - in.a;
      } else {
        second = k - in.a;
        break;
      }
    }
  }
  if (passing == 1) {
    rewind(m);
    if (ann) ann->merge(chosen);
    return true;
  }
  if (passing > 1) rewind(m);
  fail(in,
       [&] {
         json::Value passing_schemas = nullptr;
         if (second >= 0) passing_schemas = json::Value(json::Array{json::Value(first), json::Value(second)});
         return json::Value(json::Object{{"passingSchemas", passing_schemas}});
       },
       [] { return std::string("must match exactly one schema in oneOf"); });
  return false;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::not_schema(const Instr& in, Ref v, Annot* ann) {
  std::size_t m = mark();
  bool valid = node(in.a, v, nullptr);
  rewind(m);
  if (!valid) return true;
  fail(in, [] { return empty_params(); }, [] { return std::string("must NOT be valid"); });
  return false;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::if_then_else(const Instr& in, Ref v, Annot* ann) {
  if (!ann && in.b == kNone && in.c == kNone) return true;
  std::size_t m = mark();
  Annot tmp;
  if (ann) tmp.marks.assign(ann->marks.size(), 0);
  bool cond = node(in.a, v, ann ? &tmp : nullptr);
  rewind(m);
  if (cond && ann) ann->merge(tmp);
  std::uint32_t branch = cond ? in.b : in.c;
  if (branch == kNone) return true;
  if (node(branch, v, ann)) return true;
  fail(in, [&] { return json::Value(json::Object{{"failingKeyword", cond ? "then" : "else"}}); },
       [&] { return std::string(cond ? "must match \"then\" schema" : "must match \"else\" schema"); });
  return false;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::number_bound(const Instr& in, Ref v, Annot* ann) {
  // Exact: `num` holds the bound exactly unless kInstrExactBound, and
  // long double holds any int64 or double; an integer beyond int64
  // (json::BigInteger) is compared by its digits.
  int c;
  if (!(in.flags & kInstrExactBound) && !In::big_integer(v)) {
    long double x = In::type(v) == json::Type::Integer ? static_cast<long double>(In::integer(v))
                                                         : static_cast<long double>(In::real(v));
    long double limit = in.num;
    c = x < limit ? -1 : x > limit ? 1 : 0;
  } else {
    c = json::compare_numbers(In::number(v), p_.values[in.a]);
  }
  bool exclusive = in.op == OpCode::ExclusiveMinimum || in.op == OpCode::ExclusiveMaximum ||
                   (in.flags & kInstrDraft4Exclusive);
  bool is_min = in.op == OpCode::Minimum || in.op == OpCode::ExclusiveMinimum;
  bool ok = is_min ? (exclusive ? c > 0 : c >= 0) : (exclusive ? c < 0 : c <= 0);
  if (ok) return true;
  fail(in,
       [&] {
         const char* cmp = is_min ? (exclusive ? ">" : ">=") : (exclusive ? "<" : "<=");
         return json::Value(json::Object{{"comparison", cmp}, {"limit", limit_value(p_.values[in.a])}});
       },
       [&] {
         const char* cmp = is_min ? (exclusive ? ">" : ">=") : (exclusive ? "<" : "<=");
         return "must be " + std::string(cmp) + " " + limit_text(p_.values[in.a]);
       });
  return false;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::pattern(const Instr& in, Ref v, Annot* ann) {
  Regex::Match r = search(in.a, In::string(v));
  if (r == Regex::Match::Yes) return true;
  const std::string& pattern = p_.strings[in.b];
  if (r == Regex::Match::BudgetExceeded) {
    fail(in, [&] { return json::Value(json::Object{{"pattern", pattern}}); },
         [&] { return "pattern " + json::quote(pattern) + " exceeded its step budget; the string could not be checked"; });
  } else {
    fail(in, [&] { return json::Value(json::Object{{"pattern", pattern}}); },
         [&] { return "must match pattern " + json::quote(pattern); });
  }
  return false;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::format(const Instr& in, Ref v, Annot* ann) {
  const std::string& name = p_.strings[in.a];
  if (check_format(static_cast<FormatId>(in.b), In::string(v))) return true;
  fail(in, [&] { return json::Value(json::Object{{"format", name}}); },
       [&] { return "must match format " + json::quote(name); });
  return false;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::unique_items(const Instr& in, Ref v, Annot* ann) {
  const ItemList<In> array(v);
  if (!has_duplicates(array)) return true;
  for (std::size_t i = array.size(); i-- > 1;) {
    for (std::size_t j = i; j-- > 0;) {
      if (In::equal(array[i], array[j])) {
        fail(in,
             [&] {
               return json::Value(json::Object{{"i", static_cast<std::int64_t>(i)}, {"j", static_cast<std::int64_t>(j)}});
             },
             [&] {
               return "must NOT have duplicate items (items ## " + std::to_string(j) + " and " + std::to_string(i) +
                      " are identical)";
             });
        return false;
      }
    }
  }
  return true;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::contains(const Instr& in, Ref v, Annot* ann) {
  auto items = In::items(v);
  Ref item;
  std::size_t m = mark();
  std::uint32_t count = 0;
  bool track = ann && (in.flags & 1);
  for (std::size_t i = 0; In::next(items, item); ++i) {
    if (node(in.a, item, nullptr)) {
      ++count;
      if (track) ann->marks[i] = 1;
      if (!track && in.c == kNone && count >= in.b) break;
      if (!track && in.c != kNone && count > in.c) break;
    }
  }
  rewind(m);
  if (count >= in.b && (in.c == kNone || count <= in.c)) return true;
  fail(in,
       [&] {
         const bool clamped = in.flags & kInstrClampedBound;
         json::Value params = json::Object{
             {"minContains", clamped ? limit_value(p_.values[in.d]) : json::Value(static_cast<std::int64_t>(in.b))}};
         if (in.c != kNone) {
           params.set("maxContains",
                      clamped ? limit_value(p_.values[in.d + 1]) : json::Value(static_cast<std::int64_t>(in.c)));
         }
         return params;
       },
       [&] {
         const bool clamped = in.flags & kInstrClampedBound;
         std::string min = clamped ? limit_text(p_.values[in.d]) : std::to_string(in.b);
         if (in.c == kNone) return "must contain at least " + min + " valid item(s)";
         std::string max = clamped ? limit_text(p_.values[in.d + 1]) : std::to_string(in.c);
         return "must contain at least " + min + " and no more than " + max + " valid item(s)";
       });
  return false;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::unevaluated_items(const Instr& in, Ref v, Annot* ann) {
  auto items = In::items(v);
  Ref item;
  bool ok = true;
  for (std::size_t i = 0; In::next(items, item); ++i) {
    if (ann->marks[i]) continue;
    if (in.flags & 1) {
      std::size_t evaluated = i;
      fail(in, [&] { return json::Value(json::Object{{"limit", static_cast<std::int64_t>(evaluated)}}); },
           [&] { return "must NOT have more than " + std::to_string(evaluated) + " items"; });
      return false;
    }
    push(i);
    bool sub_ok = node(in.a, item, nullptr);
    pop();
    if (!sub_ok) {
      ok = false;
      if (!keep_going()) return false;
    }
  }
  if (ok) std::fill(ann->marks.begin(), ann->marks.end(), 1);
  return ok;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::required(const Instr& in, Ref v, Annot* ann) {
  if (!kCollect && (in.flags & 2)) return true;  // checked inside the Properties pass
  bool ok = true;
  for (std::uint32_t k = in.a; k < in.a + in.b; ++k) {
    const std::string& name = p_.names[k];
    if (In::find(v, name)) continue;
    fail(in, [&] { return json::Value(json::Object{{"missingProperty", name}}); },
         [&] { return "must have required property '" + name + "'"; });
    ok = false;
    if (!keep_going()) return false;
  }
  return ok;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::dependent_required(const Instr& in, Ref v, Annot* ann) {
  bool ok = true;
  for (std::uint32_t k = in.a; k < in.a + in.b; ++k) {
    const DepRequired& dep = p_.dep_required[k];
    if (!In::find(v, dep.property)) continue;
    for (const std::string& name : dep.required) {
      if (In::find(v, name)) continue;
      fail(in,
           [&] {
             std::string deps;
             for (const std::string& d : dep.required) deps += (deps.empty() ? "" : ", ") + d;
             return json::Value(json::Object{{"property", dep.property},
                                             {"missingProperty", name},
                                             {"depsCount", static_cast<std::int64_t>(dep.required.size())},
                                             {"deps", deps}});
           },
           [&] {
             std::string deps;
             for (const std::string& d : dep.required) deps += (deps.empty() ? "" : ", ") + d;
             return std::string("must have ") + (dep.required.size() == 1 ? "property " : "properties ") + deps +
                    " when property " + dep.property + " is present";
           });
      ok = false;
      if (!keep_going()) return false;
    }
  }
  return ok;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::dependent_schemas(const Instr& in, Ref v, Annot* ann) {
  bool ok = true;
  for (std::uint32_t k = in.a; k < in.a + in.b; ++k) {
    const DepSchema& dep = p_.dep_schemas[k];
    if (!In::find(v, dep.property)) continue;
    if (!node(dep.node, v, ann)) {
      ok = false;
      if (!keep_going()) return false;
    }
  }
  return ok;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::property_names(const Instr& in, Ref v, Annot* ann) {
  bool ok = true;
  auto members = In::members(v);
  std::string_view key;
  Ref value;
  if constexpr (!kCollect) {
    if (in.flags & kInstrNamesByPattern) {
      const Node& n = p_.nodes[in.a];
      while (In::next(members, key, value)) {
        for (std::uint32_t i = n.begin[2]; i < n.begin[3]; ++i) {
          if (search(p_.instrs[i].a, key) != Regex::Match::Yes) return false;
        }
      }
      return true;
    }
  }
  while (In::next(members, key, value)) {
    typename In::Key name(key);
    if (node(in.a, name.ref(), nullptr)) continue;
    fail(in, [&] { return json::Value(json::Object{{"propertyName", key}}); },
         [] { return std::string("property name must be valid"); });
    ok = false;
    if (!keep_going()) return false;
  }
  return ok;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::unevaluated_properties(const Instr& in, Ref v, Annot* ann) {
  auto members = In::members(v);
  std::string_view key;
  Ref value;
  bool ok = true;
  for (std::size_t i = 0; In::next(members, key, value); ++i) {
    if (ann->marks[i]) continue;
    if (in.flags & 1) {
      fail(in, [&] { return json::Value(json::Object{{"unevaluatedProperty", key}}); },
           [] { return std::string("must NOT have unevaluated properties"); });
      ok = false;
      if (!keep_going()) return false;
      continue;
    }
    push(key);
    bool sub_ok = node(in.a, value, nullptr);
    pop();
    if (!sub_ok) {
      ok = false;
      if (!keep_going()) return false;
    }
  }
  if (ok) std::fill(ann->marks.begin(), ann->marks.end(), 1);
  return ok;
}

template <bool kCollect, typename In>
bool Evaluator<kCollect, In>::instr_slow(const Instr& in, Ref v, Annot* ann) {
  switch (in.op) {
    case OpCode::Enum: return enum_keyword(in, v, ann);
    case OpCode::Const:
      if (In::equal(p_.values[in.a], v)) return true;
      fail(in, [&] { return json::Value(json::Object{{"allowedValue", p_.values[in.a]}}); },
           [] { return std::string("must be equal to constant"); });
      return false;
    case OpCode::Ref: return node(in.a, v, ann);
    case OpCode::DynamicRef: return dynamic_ref(in, v, ann);
    case OpCode::AllOf: return all_of(in, v, ann);
    case OpCode::AnyOf: return any_of(in, v, ann);
    case OpCode::OneOf: return one_of(in, v, ann);
    case OpCode::Not: return not_schema(in, v, ann);
    case OpCode::IfThenElse: return if_then_else(in, v, ann);
    case OpCode::Minimum:
    case OpCode::Maximum:
    case OpCode::ExclusiveMinimum:
    case OpCode::ExclusiveMaximum: return number_bound(in, v, ann);
    case OpCode::MultipleOf:
      if (is_multiple_of(In::number(v), p_.values[in.a])) return true;
      fail(in, [&] { return json::Value(json::Object{{"multipleOf", p_.values[in.a]}}); },
           [&] { return "must be multiple of " + limit_text(p_.values[in.a]); });
      return false;
    case OpCode::MinLength:
      if (string_length_at_least(In::string(v), in.a)) return true;
      fail(in, [&] { return json::Value(json::Object{{"limit", count_value(in)}}); },
           [&] { return "must NOT have fewer than " + count_text(in) + " characters"; });
      return false;
    case OpCode::MaxLength:
      if (!string_length_at_least(In::string(v), static_cast<std::size_t>(in.a) + 1)) return true;
      fail(in, [&] { return json::Value(json::Object{{"limit", count_value(in)}}); },
           [&] { return "must NOT have more than " + count_text(in) + " characters"; });
      return false;
    case OpCode::Pattern: return pattern(in, v, ann);
    case OpCode::Format: return format(in, v, ann);
    case OpCode::MinItems:
      if (In::count(v) >= in.a) return true;
      fail(in, [&] { return json::Value(json::Object{{"limit", count_value(in)}}); },
           [&] { return "must NOT have fewer than " + count_text(in) + " items"; });
      return false;
    case OpCode::MaxItems:
      if (In::count(v) <= in.a) return true;
      fail(in, [&] { return json::Value(json::Object{{"limit", count_value(in)}}); },
           [&] { return "must NOT have more than " + count_text(in) + " items"; });
      return false;
    case OpCode::UniqueItems: return unique_items(in, v, ann);
    case OpCode::Items: return items(in, v, ann);
    case OpCode::Contains: return contains(in, v, ann);
    case OpCode::UnevaluatedItems: return unevaluated_items(in, v, ann);
    case OpCode::MinProperties:
      if (In::count(v) >= in.a) return true;
      fail(in, [&] { return json::Value(json::Object{{"limit", count_value(in)}}); },
           [&] { return "must NOT have fewer than " + count_text(in) + " properties"; });
      return false;
    case OpCode::MaxProperties:
      if (In::count(v) <= in.a) return true;
      fail(in, [&] { return json::Value(json::Object{{"limit", count_value(in)}}); },
           [&] { return "must NOT have more than " + count_text(in) + " properties"; });
      return false;
    case OpCode::Required: return required(in, v, ann);
    case OpCode::DependentRequired: return dependent_required(in, v, ann);
    case OpCode::DependentSchemas: return dependent_schemas(in, v, ann);
    case OpCode::PropertyNames: return property_names(in, v, ann);
    case OpCode::Properties: return properties(in, v, ann);
    case OpCode::UnevaluatedProperties: return unevaluated_properties(in, v, ann);
  }
  return true;
}

}  // namespace

namespace {

/// The fast pass from node `index` by an evaluator made for it.
template <typename In>
__attribute__((noinline)) bool fast_by_evaluator(const Program& program, std::uint32_t index, typename In::Ref v) {
  Evaluator<false, In> evaluator(program, nullptr, false);
  evaluator.set_root(v);
  bool ok = evaluator.node(index, v, nullptr);
  return ok && evaluator.abort_ == Abort::None;
}

/// The fast pass from node `index`. A record needs none of an evaluator's
/// state, so it is decided without making one: a small schema's validation
/// is then mostly its own checks.
template <typename In>
inline bool fast_from(const Program& program, std::uint32_t index, typename In::Ref v) {
  const Node& n = program.nodes[index];
  if (n.fast_kind == kFastRecord) return Evaluator<false, In>::record_of(program, n, v);
  return fast_by_evaluator<In>(program, index, v);
}

}  // namespace

bool evaluate_fast(const Program& program, const json::Value& instance) {
  return fast_from<ValueAccess>(program, program.root, &instance);
}

bool evaluate_node_fast(const Program& program, std::uint32_t node, const json::Value& instance) {
  return fast_from<ValueAccess>(program, node, &instance);
}

bool evaluate_fast(const Program& program, const json::Tape& instance) {
  return fast_from<TapeAccess>(program, program.root, &instance.root());
}

bool TapeAccess::equal(const json::Value& a, Ref b) {
  if (a.is_number() && (b->type == json::Type::Integer || b->type == json::Type::Real)) return a == number(b);
  if (a.type() != b->type) return false;
  switch (b->type) {
    case json::Type::Null: return true;
    case json::Type::Boolean: return a.as_bool() == b->boolean;
    case json::Type::String: return std::string_view(a.as_string()) == b->text_view();
    case json::Type::Array: {
      const json::Array& array = a.as_array();
      if (array.size() != b->size) return false;
      Items items = TapeAccess::items(b);
      Ref item = nullptr;
      for (const json::Value& element : array) {
        next(items, item);
        if (!equal(element, item)) return false;
      }
      return true;
    }
    case json::Type::Object: {
      if (a.size() != b->size) return false;
      Members members = TapeAccess::members(b);
      std::string_view key;
      Ref value;
      while (next(members, key, value)) {
        const json::Value* other = a.find(key);
        if (other == nullptr || !equal(*other, value)) return false;
      }
      return true;
    }
    default: return false;
  }
}

bool TapeAccess::equal(Ref a, Ref b) {
  const bool a_number = a->type == json::Type::Integer || a->type == json::Type::Real;
  const bool b_number = b->type == json::Type::Integer || b->type == json::Type::Real;
  if (a_number && b_number) return number(a) == number(b);
  if (a->type != b->type) return false;
  switch (a->type) {
    case json::Type::Null: return true;
    case json::Type::Boolean: return a->boolean == b->boolean;
    case json::Type::String: return a->text_view() == b->text_view();
    case json::Type::Array: {
      if (a->size != b->size) return false;
      Items left = items(a), right = items(b);
      Ref x, y;
      while (next(left, x) && next(right, y)) {
        if (!equal(x, y)) return false;
      }
      return true;
    }
    case json::Type::Object: {
      if (a->size != b->size) return false;
      Members members = TapeAccess::members(a);
      std::string_view key;
      Ref value;
      while (next(members, key, value)) {
        Ref other = find(b, key);
        if (other == nullptr || !equal(value, other)) return false;
      }
      return true;
    }
    default: return false;
  }
}

bool evaluate_collect(const Program& program, const json::Value& instance, bool all, std::vector<Violation>& out) {
  const std::size_t start = out.size();
  Evaluator<true, ValueAccess> evaluator(program, &out, all);
  evaluator.set_root(&instance);
  bool ok = evaluator.node(program.root, &instance, nullptr);
  if (evaluator.abort_ != Abort::None) {
    // What was listed before the stop is partial, and may hold errors an
    // applicator above would have dropped had it finished (a later anyOf
    // branch passing): the stop is reported alone.
    out.resize(start);
    Violation& stop = evaluator.abort_violation_;
    if (stop.message.empty()) stop = depth_violation("", "#");  // a stop that did not say where (none known)
    out.push_back(std::move(stop));
    return false;
  }
  return ok;
}

Violation depth_violation(std::string instance_path, std::string schema_path) {
  return Violation{std::move(instance_path), std::move(schema_path), std::string(kDepthKeyword),
                   json::Value(json::Object{}), std::string(kDepthMessage)};
}

Violation budget_violation(std::string instance_path, std::string schema_path) {
  return Violation{std::move(instance_path), std::move(schema_path), std::string(kBudgetKeyword),
                   json::Value(json::Object{}), std::string(kBudgetMessage)};
}

std::string node_pointer(const Program& program, std::uint32_t node) {
  // A node's type path is "#<pointer>/type", a false schema's "#<pointer>".
  std::string path = program.strings[program.nodes[node].type_path];
  if (!(program.nodes[node].flags & kNodeFalse)) path.resize(path.size() - 5);
  return path;
}

}  // namespace weld::schema
