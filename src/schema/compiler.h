#pragma once
/// \file
/// The schema compiler: indexes every schema resource (`$id`, anchors),
/// resolves references, validates against the dialect meta-schema, applies
/// the strict rules (docs/schema.md, "Strict mode") and emits a `Program`.

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "program.h"
#include "weld/schema/schema.h"

namespace weld::schema {

/// Vocabulary bits (2019-09 / 2020-12 `$vocabulary`); older dialects use all.
enum Vocab : std::uint8_t {
  kVocabValidation = 1,
  kVocabApplicator = 2,
  kVocabAll = 0xFF,
};

/// What the compiler knows about one subschema position.
struct SubInfo {
  std::string base;     // absolute base URI, no fragment
  std::string pointer;  // JSON Pointer from its document's root
  Dialect dialect;
  std::uint8_t vocab = kVocabAll;
  std::uint32_t resource = 0;
  std::uint32_t doc = 0;
};

struct ResourceInfo {
  std::string uri;
  const json::Value* root = nullptr;
  bool recursive_anchor = false;
  std::unordered_map<std::string, const json::Value*> dynamic_anchors;
};

class Compiler {
 public:
  Compiler(const CompileOptions& options, Program& program, bool internal);

  /// Compiles `program.source` into `program`.
  void run();

 private:
  // Indexing (compiler.cc).
  std::uint32_t add_document(const json::Value* doc, const std::string& uri, Dialect dialect, std::uint8_t vocab);
  void walk(const json::Value& v, const SubInfo& parent_like, bool is_doc_root);
  void walk_children(const json::Value& v, const SubInfo& info);
  const json::Value* load_document(const std::string& uri, Dialect dialect, const std::string& where);
  const json::Value* resolve_reference(const std::string& uri, const std::string& where, Dialect dialect);
  Dialect dialect_of_metaschema(const std::string& uri, std::uint8_t& vocab, const std::string& where, int depth);
  Dialect pick_root_dialect(const json::Value& root, std::uint8_t& vocab);
  /// Asks the resolver for `uri`, within CompileOptions::max_remote_documents
  /// and max_remote_bytes (a SchemaError at `where` past them).
  std::optional<json::Value> fetch(std::string_view uri, const std::string& where);

  // Node emission (compile_node.cc).
  std::uint32_t node_for(const json::Value* v);
  void compile_node(std::uint32_t index, const json::Value& v, const SubInfo& info);
  /// One function per keyword family (compile_node.cc), each adding to the
  /// draft's instruction ranges.
  struct NodeDraft;
  bool compile_references(NodeDraft& n);
  void compile_any_type(NodeDraft& n);
  void compile_scalars(NodeDraft& n);
  void compile_arrays(NodeDraft& n);
  void compile_objects(NodeDraft& n);
  void compile_properties(NodeDraft& n);
  void compile_unevaluated(NodeDraft& n);
  void finish_dynamic_refs();
  /// Post-pass: leaf flags, `$ref`-only nodes collapsed into their targets.
  void optimize();
  std::uint32_t intern(const std::string& s);
  std::uint32_t regex_for(const std::string& pattern, const std::string& where);

  // Strict rules (strict.cc).
  void check_strict(const json::Value& v, const SubInfo& info);
  /// The v1 dialect's own rule, strict mode or not: only its keywords and
  /// `x-` ones.
  void check_v1_keywords(const json::Value& v, const SubInfo& info);
  void meta_validate(const json::Value& root, Dialect dialect);

  const CompileOptions& options_;
  Program& program_;
  bool internal_;  // compiling a built-in meta-schema: no meta-validation, no strict rules

  std::vector<std::unique_ptr<json::Value>> owned_docs_;
  std::unordered_map<const json::Value*, SubInfo> info_;
  std::unordered_map<std::string, const json::Value*> uris_;
  std::vector<ResourceInfo> resources_;
  std::unordered_map<const json::Value*, std::uint32_t> node_of_;
  std::vector<std::pair<std::uint32_t, const json::Value*>> worklist_;
  std::unordered_map<std::string, std::uint32_t> interned_;
  std::unordered_map<std::string, std::uint32_t> regex_index_;
  struct PendingDynamic {
    std::uint32_t dynamic_ref;
    std::string anchor;  // empty for $recursiveRef
  };
  std::vector<PendingDynamic> pending_dynamic_;
  std::uint32_t doc_count_ = 0;
  std::size_t remote_documents_ = 0;
  std::size_t remote_bytes_ = 0;
};

/// 2020-12 and the dialects built on it (v1).
inline bool is_2020_or_later(Dialect d) { return d == Dialect::Draft2020_12 || d == Dialect::V1; }

/// Dialect named by a standard `$schema` URI; nullopt when not standard.
std::optional<Dialect> dialect_from_uri(std::string_view uri);

/// Ajv-style "strict mode" helpers shared with strict.cc.
bool is_known_keyword(std::string_view keyword, Dialect dialect);

}  // namespace weld::schema
