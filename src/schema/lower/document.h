#pragma once
// The original schema as the lowering and its mapping read it: every
// subschema by its JSON Pointer, and references resolved to pointers within
// the document (`#/…`, `#anchor`, `$id`-relative ones). A reference that
// leaves the document resolves to nothing (the lowering then asks for JSON
// text there).

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "weld/json/value.h"

namespace weld::schema::lowering {

class Document {
 public:
  explicit Document(const json::Value& root);

  const json::Value& root() const { return root_; }
  /// The subschema at `pointer`; nullptr when there is none.
  const json::Value* at(const std::string& pointer) const;
  /// The pointer a `$ref` (or `$dynamicRef`) written at `pointer` names;
  /// nullopt when it leaves the document or names nothing.
  std::optional<std::string> resolve(const std::string& pointer, std::string_view ref) const;

  /// Calls `visit(keyword, pointer)` for every subschema position directly
  /// below the schema at `pointer` (properties/x, items, anyOf/0, …).
  static void for_each_child(const json::Value& schema, const std::string& pointer,
                             const std::function<void(const json::Value&, const std::string&)>& visit);

 private:
  void index(const json::Value& schema, const std::string& pointer, const std::string& base);

  const json::Value& root_;
  std::unordered_map<std::string, std::string> base_of_;   // pointer -> base URI
  std::unordered_map<std::string, std::string> pointer_of_;  // absolute URI (with #anchor) -> pointer
  std::unordered_map<std::string, const json::Value*> schema_at_;
};

}  // namespace weld::schema::lowering
