#pragma once
/// \file
/// The evaluator: Program x JSON -> verdict (+ Ajv-shaped violations).
/// Two instantiations: a fast one that only decides (no paths, no messages,
/// no allocation on the valid path) and a collecting one run only when the
/// fast one said "invalid".

#include <string>
#include <vector>

#include "program.h"
#include "weld/json/tape.h"

namespace weld::schema {

/// Fast verdict.
bool evaluate_fast(const Program& program, const json::Value& instance);

/// Fast verdict on an instance read from a Tape, in place.
bool evaluate_fast(const Program& program, const json::Tape& instance);

/// Fast verdict of one node of `program` on `instance`, from an empty
/// dynamic scope (as the root would be evaluated).
bool evaluate_node_fast(const Program& program, std::uint32_t node, const json::Value& instance);

/// Violations (all, or stopping at the first failing keyword); returns the verdict.
/// A validation stopped by the depth limit or the work budget appends
/// exactly one violation, that stop's (depth_violation, budget_violation):
/// what was listed before it is dropped.
bool evaluate_collect(const Program& program, const json::Value& instance, bool all, std::vector<Violation>& out);

/// The violation of a validation stopped by the depth limit: a subschema
/// entered too deeply (a schema that recurses without consuming the
/// instance). `schema_path` is that subschema (node_pointer), `instance_path`
/// the value it was entered at; the keyword is "depth limit", as Ajv names
/// a false schema's "false schema".
Violation depth_violation(std::string instance_path, std::string schema_path);

/// The violation of a validation stopped by the work budget
/// (Program::validation_budget): as depth_violation, keyword "work budget".
Violation budget_violation(std::string instance_path, std::string schema_path);

/// The location of node `node` in its document, as a schema path: "#" and
/// the node's JSON Pointer ("#/$defs/a").
std::string node_pointer(const Program& program, std::uint32_t node);

}  // namespace weld::schema
