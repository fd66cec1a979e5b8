#pragma once
// What a lowering decided, by pointer into the original schema: the tables
// `map_back` and `map_forward` (map.cc) read to move a value between the two
// shapes. lower.cc writes them.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "document.h"
#include "weld/schema/lower.h"
#include "weld/schema/schema.h"

namespace weld::schema {

/// How many times one reference may be expanded along a path when the
/// target has no references of its own (Anthropic, Gemini): a recursive
/// schema is unrolled this far, then its value is asked for as JSON text.
inline constexpr int kUnrollRecursion = 3;

struct Lowering::State {
  Target target = Target::Tool;
  LowerOptions options;
  json::Value original;
  json::Value lowered;
  std::vector<Change> changes;
  /// The original, compiled: union branches are told apart by validating.
  std::optional<Schema> compiled;
  /// The root is wrapped as {"value": …}.
  bool wrapped = false;
  /// Subschemas (pointers) whose values are asked for as JSON text.
  std::set<std::string> text;
  /// Maps written as [{"key","value"}] entries.
  std::set<std::string> entries;
  /// Objects whose other properties sit in a member of their own (keep_open):
  /// object pointer -> member name.
  std::map<std::string, std::string> extra_member;
  /// Objects whose optional properties were made required and nullable.
  std::map<std::string, std::set<std::string>> nullable;
  /// Objects lowered from an allOf merge: owner pointer -> (property name ->
  /// the property's pointer in whichever part lists it). Their nullable
  /// and other-properties decisions are recorded at the owner.
  struct Merge {
    std::map<std::string, std::string> properties;
    /// The part whose items, unions and additionalProperties were taken.
    std::string structural;
  };
  std::map<std::string, Merge> merged;
  /// Objects whose properties were copied into each union branch: mapped
  /// through the branch only.
  std::set<std::string> distributed;
  /// Tuples (closed prefixItems) written as objects {"0": …, "1": …}.
  std::set<std::string> tuples;
  /// References are expanded in place (targets without $ref), with
  /// recursion cut after kUnrollRecursion expansions.
  bool inline_refs = false;
  /// The original is draft-07 or older: the siblings of $ref are ignored.
  bool legacy_refs = false;
  /// Some recursion was cut (inline_refs): values below it are JSON text.
  bool unrolled = false;
  /// Where it was cut: the chain of $ref sites expanded, and the site.
  std::set<std::string> cuts;
  static std::string cut_key(const std::vector<std::string>& sites, const std::string& site) {
    std::string key;
    for (const std::string& s : sites) key += s + "\n";
    return key + site;
  }

  /// Only valid while lowering/mapping (points into `original`).
  std::optional<lowering::Document> document;
};

}  // namespace weld::schema
