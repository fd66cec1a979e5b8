// Schema::write_integers (schema.h): `36.0000000000000001` or `36.0` passes
// `type: "integer"` (JSON Schema counts a number with a zero fraction as an
// integer) but is written back as `36.0`, which typed decoders (Go's
// encoding/json into an int, serde into i64, Jackson into a long) refuse.
// Where a subschema that applies to a value and accepts it asks for an
// integer, the value is rewritten as an integer of the same value.
//
// Which subschemas apply follows evaluation: every one reached through
// `$ref`, `allOf`, properties and items; of `anyOf`/`oneOf` the branches the
// value passes; of `if` the branch taken. Each (subschema, value) pair is
// visited once, so a schema whose references fan out costs no more than its
// size times the instance's.
#include <set>
#include <utility>

#include "integers.h"

#include "evaluator.h"
#include "weld/json/number.h"
#include "weld/schema/schema.h"

namespace weld::schema {
namespace {

bool integer_only(std::uint8_t mask) { return (mask & kTypeIntegralReal) && !(mask & kTypeReal); }

/// True when `v` holds an integral double somewhere (the only values there
/// is anything to rewrite).
bool has_integral_real(const json::Value& v) {
  switch (v.type()) {
    case json::Type::Real: return v.big_integer_digits() == nullptr && json::integral_real_as_integer(v.as_real());
    case json::Type::Array:
      for (const json::Value& item : v.as_array()) {
        if (has_integral_real(item)) return true;
      }
      return false;
    case json::Type::Object:
      for (const json::Member& member : v.as_object()) {
        if (has_integral_real(member.value)) return true;
      }
      return false;
    default: return false;
  }
}

class IntegerWriter {
 public:
  explicit IntegerWriter(const Program& program) : p_(program) {}

  void visit(std::uint32_t index, json::Value& v) {
    // A chain of references longer than this (each pair is visited once,
    // so only a chain of distinct subschemas gets here) stops rewriting
    // rather than the stack.
    if (index == kNone || depth_ >= kMaxDepth || !visited_.emplace(index, &v).second) return;
    ++depth_;
    visit_node(index, v);
    --depth_;
  }

 private:
  static constexpr int kMaxDepth = 2000;

  void visit_node(std::uint32_t index, json::Value& v) {
    const Node& n = p_.nodes[index];
    if (n.flags & kNodeFalse) return;
    if (v.is_real() && integer_only(n.type_mask) && v.big_integer_digits() == nullptr) {
      if (std::optional<json::Value> integer = json::integral_real_as_integer(v.as_real())) {
        v = std::move(*integer);
        return;  // a number has nothing below it
      }
    }
    static constexpr std::uint8_t kRange[7] = {0, 0, 1, 1, 2, 3, 4};
    const std::uint32_t range = kRange[static_cast<unsigned>(v.type())];
    for (std::uint32_t i = n.begin[0]; i < n.begin[1]; ++i) instr(p_.instrs[i], v);
    if (range) {
      for (std::uint32_t i = n.begin[range]; i < n.begin[range + 1]; ++i) instr(p_.instrs[i], v);
    }
  }

  bool passes(std::uint32_t node, const json::Value& v) const { return evaluate_node_fast(p_, node, v); }

  void instr(const Instr& in, json::Value& v) {
    switch (in.op) {
      case OpCode::Ref: visit(in.a, v); break;
      case OpCode::DynamicRef: {
        // The static target, and every candidate the value passes (the
        // dynamic scope is not tracked here).
        const DynamicRef& ref = p_.dynamic_refs[in.a];
        visit(ref.static_node, v);
        for (const auto& candidate : ref.candidates) {
          if (passes(candidate.second, v)) visit(candidate.second, v);
        }
        break;
      }
      case OpCode::AllOf:
        for (std::uint32_t k = in.a; k < in.a + in.b; ++k) visit(p_.node_lists[k], v);
        break;
      case OpCode::AnyOf:
      case OpCode::OneOf:
        for (std::uint32_t k = in.a; k < in.a + in.b; ++k) {
          if (passes(p_.node_lists[k], v)) visit(p_.node_lists[k], v);
        }
        break;
      case OpCode::IfThenElse:
        if (passes(in.a, v)) {
          visit(in.a, v);
          visit(in.b, v);
        } else {
          visit(in.c, v);
        }
        break;
      case OpCode::Items: {
        json::Array& array = v.as_array();
        for (std::size_t i = 0; i < array.size(); ++i) visit(i < in.b ? p_.node_lists[in.a + i] : in.c, array[i]);
        break;
      }
      case OpCode::Contains:
      case OpCode::UnevaluatedItems:
        for (json::Value& item : v.as_array()) {
          if (passes(in.a, item)) visit(in.a, item);
        }
        break;
      case OpCode::UnevaluatedProperties:
        for (json::Member& member : v.as_object()) {
          if (passes(in.a, member.value)) visit(in.a, member.value);
        }
        break;
      case OpCode::DependentSchemas:
        for (std::uint32_t k = in.a; k < in.a + in.b; ++k) {
          if (v.find(p_.dep_schemas[k].property)) visit(p_.dep_schemas[k].node, v);
        }
        break;
      case OpCode::Properties: properties(p_.prop_tables[in.a], v); break;
      default: break;
    }
  }

  void properties(const PropTable& table, json::Value& v) {
    for (json::Member& member : v.as_object()) {
      bool matched = false;
      for (const PropTable::Entry& entry : table.entries) {
        if (entry.name == member.key) {
          visit(entry.node, member.value);
          matched = true;
          break;
        }
      }
      for (const PropTable::PatternEntry& pattern : table.patterns) {
        if (p_.regexes[pattern.regex].search(member.key) == Regex::Match::Yes) {
          visit(pattern.node, member.value);
          matched = true;
        }
      }
      if (!matched && !table.additional_false) visit(table.additional, member.value);
    }
  }

  const Program& p_;
  int depth_ = 0;
  std::set<std::pair<std::uint32_t, const json::Value*>> visited_;
};

}  // namespace

void write_integers(const Program& program, json::Value& instance) {
  if (!has_integral_real(instance)) return;
  IntegerWriter(program).visit(program.root, instance);
}

}  // namespace weld::schema
