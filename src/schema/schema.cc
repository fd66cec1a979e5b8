// Schema: the public face of the compiler and evaluator (schema.h).
#include "weld/schema/schema.h"

#include "compiler.h"
#include "evaluator.h"
#include "integers.h"

namespace weld::schema {

Schema Schema::compile(const json::Value& schema, const CompileOptions& options) {
  auto program = std::make_shared<Program>();
  program->source = schema;
  program->validation_budget = options.validation_budget;
  Compiler compiler(options, *program, false);
  compiler.run();
  return Schema(std::move(program));
}

Schema compile_meta_schema(const json::Value& schema) {
  auto program = std::make_shared<Program>();
  program->source = schema;
  CompileOptions options;
  options.strict = false;
  options.assert_formats = false;
  Compiler compiler(options, *program, true);
  compiler.run();
  return Schema(std::move(program));
}

bool Schema::is_valid(const json::Value& instance) const { return evaluate_fast(*program_, instance); }

bool Schema::is_valid(const json::Tape& instance) const { return evaluate_fast(*program_, instance); }

ValidationResult Schema::validate(const json::Value& instance, Collect collect) const {
  ValidationResult result;
  if (evaluate_fast(*program_, instance)) return result;
  result.valid = false;
  evaluate_collect(*program_, instance, collect == Collect::All, result.violations);
  if (result.violations.empty()) {
    // Only possible when the fast pass hit the depth limit and the
    // collecting pass (other frame sizes) just did not: same verdict, said.
    // (The work budget cannot differ: the collecting pass does at least
    // the fast pass's work.)
    result.violations.push_back(depth_violation("", "#"));
  }
  if (collect == Collect::First && result.violations.size() > 1) result.violations.resize(1);
  return result;
}

std::optional<bool> Schema::is_valid_at(std::string_view pointer, const json::Value& instance) const {
  // Indexed once, on the first call.
  std::call_once(program_->pointer_index_once, [&] {
    for (std::uint32_t i = 0; i < program_->nodes.size(); ++i) {
      // The first node at a pointer: the main document's.
      program_->node_by_pointer.emplace(node_pointer(*program_, i).substr(1), i);
    }
  });
  auto it = program_->node_by_pointer.find(std::string(pointer));
  if (it == program_->node_by_pointer.end()) return std::nullopt;
  return evaluate_node_fast(*program_, it->second, instance);
}

void Schema::write_integers(json::Value& instance) const { schema::write_integers(*program_, instance); }

Dialect Schema::dialect() const { return program_->dialect; }
const std::vector<Warning>& Schema::warnings() const { return program_->warnings; }
const json::Value& Schema::source() const { return program_->source; }

Schema::Schema(std::shared_ptr<const Program> program) : program_(std::move(program)) {}
Schema::Schema(Schema&&) noexcept = default;
Schema& Schema::operator=(Schema&&) noexcept = default;
Schema::~Schema() = default;

}  // namespace weld::schema
