#pragma once
/// \file
/// Tools the model may call during a run (docs/run.md, "Tools and permissions"): the `Tool` interface,
/// what a tool gets to work with, and what it returns. A tool failure is a
/// result with `is_error`, never an exception or a crash.

#include <memory>
#include <string>
#include <vector>

#include "weld/json/value.h"
#include "weld/provider/model.h"

namespace weld::agent {

/// What a tool may use while it runs.
struct ToolContext {
  /// Absolute directory the run started in: relative paths resolve against
  /// it, and file tools stay inside it.
  std::string cwd;
  /// Set when the run is cancelled (signal, wall-time budget); long tools
  /// (run_shell_command) poll it and stop.
  const provider::CancelToken* cancel = nullptr;
};

/// The outcome of one tool call, sent back to the model.
struct ToolOutput {
  std::string content;
  bool is_error = false;
};

/// A tool offered to the model.
///
/// \code
///   std::unique_ptr<weld::agent::Tool> tool = weld::agent::make_read_file_tool();
///   weld::agent::ToolOutput out = tool->run(weld::json::Object{{"path", "README.md"}}, context);
/// \endcode
class Tool {
 public:
  virtual ~Tool() = default;
  /// Name the model calls it by ("read_file").
  virtual std::string name() const = 0;
  /// What it does, for the model.
  virtual std::string description() const = 0;
  /// JSON Schema of its arguments (a root object).
  virtual json::Value parameters() const = 0;
  /// True for tools that change something (write_file, edit,
  /// run_shell_command): offered only when the approval mode allows.
  virtual bool has_side_effects() const = 0;
  /// Runs the tool. `arguments` is the parsed argument object (already
  /// checked against `parameters()` by the caller). Never throws.
  virtual ToolOutput run(const json::Value& arguments, const ToolContext& context) const = 0;

  /// The declaration sent to the model.
  provider::ToolSpec spec() const { return {name(), description(), parameters()}; }
};

/// Built-in tools (docs/run.md, "Tools and permissions"). Read-only:
std::unique_ptr<Tool> make_read_file_tool();
std::unique_ptr<Tool> make_list_directory_tool();
std::unique_ptr<Tool> make_glob_tool();
std::unique_ptr<Tool> make_grep_search_tool();
/// With side effects:
std::unique_ptr<Tool> make_write_file_tool();
std::unique_ptr<Tool> make_edit_tool();
std::unique_ptr<Tool> make_run_shell_command_tool();

/// Every built-in tool, read-only ones first.
std::vector<std::unique_ptr<Tool>> make_builtin_tools();

}  // namespace weld::agent
