#pragma once
// Flattening a schema place into one object of keywords for the generator:
// $ref followed, allOf merged, one anyOf/oneOf branch and one side of
// if/then/else chosen. Private to weld_sample.

#include <map>
#include <string>

#include "prng.h"
#include "weld/json/value.h"

namespace weld::sample {

/// Resolves `$ref`s inside one schema document: JSON Pointer fragments,
/// `$anchor`/`$dynamicAnchor` names, draft-07 `"$id": "#name"`, and `$id`s
/// of embedded resources (matched exactly, or by their last path segment).
class RefIndex {
 public:
  explicit RefIndex(const json::Value& root);
  /// The node `ref` points to, or nullptr.
  const json::Value* resolve(const std::string& ref) const;

 private:
  void index(const json::Value& node, int depth);
  const json::Value& root_;
  std::map<std::string, const json::Value*> anchors_;
  std::map<std::string, const json::Value*> ids_;
};

/// The flattened form of a schema place. Besides ordinary keywords it may
/// hold "__false" (the place admits nothing), "__not" (an array of `not`
/// schemas to avoid) and "__patterns" (every `pattern` met while merging).
struct Flattener {
  const RefIndex& refs;
  Prng& rng;
  /// Below this depth optional properties and longer arrays are sampled;
  /// at and beyond it the generator takes the smallest shapes (recursion).
  int soft_depth;

  /// Merges `schema` (and what it references) into `merged`.
  void merge_into(json::Value& merged, const json::Value& schema, int depth, int ref_depth) const;
};

}  // namespace weld::sample
