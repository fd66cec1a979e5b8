#pragma once
// Shared helpers for the built-in tools: argument access with clear errors,
// and the one place where the workspace rule lives (docs/run.md, "File tools stay in the working directory"): every path a
// file tool touches — read, listed, searched, globbed, written, edited — is
// opened relative to a descriptor of the working directory and resolved by
// the kernel beneath it (openat2 RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS), or,
// on kernels without openat2, component by component with O_NOFOLLOW and the
// symbolic links followed here under the same rule. A path is refused when any
// route leads outside: "..", an absolute symbolic link (even one pointing back
// inside), a relative one climbing out, /proc magic links. Walks never descend
// into symbolic links to directories. Writes replace the directory entry
// (temporary file + rename), so a hard link to a file outside is never written
// through (docs/run.md "File tools").

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "weld/agent/tool.h"
#include "weld/base/result.h"
#include "weld/json/value.h"

namespace weld::agent::tools {

/// `arguments[key]` as a string. Missing and `required` → Error naming the
/// tool and parameter; missing and optional → nullopt (in the Result).
Result<std::optional<std::string>> string_arg(const json::Value& arguments, std::string_view tool,
                                              std::string_view key, bool required);
/// `arguments[key]` as a non-negative integer (a whole real is accepted).
Result<std::optional<std::int64_t>> integer_arg(const json::Value& arguments, std::string_view tool,
                                                std::string_view key);

/// An owned file descriptor (closed on destruction).
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();
  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

/// A path a tool was given, checked lexically against the workspace.
struct WorkspacePath {
  /// Normalised absolute path, for messages ("/work/ws/src/a.cc").
  std::string absolute;
  /// Relative to the workspace, no "." or ".." segments; "." for the root.
  std::string relative;
};

/// `text` (absolute, or relative to `cwd`) normalised; an Error when it
/// leaves `cwd` lexically. Symbolic links are judged when the path is opened
/// (open_in_workspace), never here.
Result<WorkspacePath> workspace_path(const std::string& cwd, std::string_view text);

/// How open_in_workspace resolves: the kernel's openat2, or the portable
/// component-wise walk (also used when the kernel has no openat2).
enum class Resolver { Auto, Kernel, Portable };

/// Opens `path.relative` beneath `cwd` with `flags` (O_CLOEXEC added),
/// following symbolic links only while they stay beneath; with
/// `follow_last = false` a final symbolic link is not followed (ELOOP, or the
/// link itself with O_PATH). Errors: "outside the workspace", "not found", …
/// naming `path.absolute`.
Result<Fd> open_in_workspace(const std::string& cwd, const WorkspacePath& path, int flags, mode_t mode = 0,
                             bool follow_last = true, Resolver resolver = Resolver::Auto);

/// `fstat` of `path` opened beneath `cwd` (O_PATH, links followed beneath).
Result<struct stat> stat_in_workspace(const std::string& cwd, const WorkspacePath& path);

/// Reads a whole regular file beneath `cwd`, at most `max_bytes` (an Error
/// naming the size otherwise). FIFOs, devices and directories are refused
/// without blocking.
Result<std::string> read_in_workspace(const std::string& cwd, const WorkspacePath& path, std::uint64_t max_bytes);

/// What write_in_workspace did.
enum class WriteOutcome { Created, Overwrote };

/// Writes `content` to `path` beneath `cwd`, creating parent directories. A
/// symbolic link as the final component is followed only while it stays
/// beneath (a dangling one pointing outside is refused). The file is written
/// to a temporary name and renamed over the entry (mode kept), so a hard link
/// is replaced, never written through.
Result<WriteOutcome> write_in_workspace(const std::string& cwd, const WorkspacePath& path, std::string_view content);

/// Counts of what a walk left out, for the tool's result.
struct WalkSkips {
  /// Symbolic links resolving outside the workspace (or dangling).
  std::size_t outside_links = 0;
  /// Symbolic links to directories (never descended into).
  std::size_t directory_links = 0;
  /// Stopped after this many entries (0: not stopped).
  std::size_t stopped_after = 0;
};

/// Walks the regular files beneath `dir` (skipping .git and node_modules),
/// each opened beneath `cwd` (read-only, non-blocking), sorted by name per
/// directory. `visit(fd, file)` returns false to stop. Symbolic links to
/// files are followed when they stay beneath; to directories, never.
Result<WalkSkips> walk_workspace(const std::string& cwd, const WorkspacePath& dir, const provider::CancelToken* cancel,
                                 const std::function<bool(int fd, const WorkspacePath& file)>& visit);

/// Reads at most `max_bytes` from `fd` (a regular file); nullopt when larger.
Result<std::optional<std::string>> read_fd_bounded(int fd, const std::string& shown, std::uint64_t max_bytes);

/// `path` relative to `cwd` for display ("." for cwd itself).
std::string display_path(const std::string& cwd, const std::string& path);

/// An error ToolOutput.
inline ToolOutput tool_error(std::string message) { return {std::move(message), true}; }

/// True when `data` looks binary (a NUL byte in the first 8 KiB).
bool looks_binary(std::string_view data);

/// Glob matching of a '/'-separated relative path: `*`, `?`, `[…]` within a
/// segment, `**` across segments.
bool glob_match(std::string_view pattern, std::string_view path);

}  // namespace weld::agent::tools
