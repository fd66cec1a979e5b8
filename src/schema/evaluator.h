#pragma once
/// \file
/// The evaluator: Program x JSON -> verdict (+ Ajv-shaped violations).
/// Two instantiations: a fast one that only decides (no paths, no messages,
/// no allocation on the valid path) and a collecting one run only when the
/// fast one said "invalid".

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
bool evaluate_collect(const Program& program, const json::Value& instance, bool all, std::vector<Violation>& out);

}  // namespace weld::schema
