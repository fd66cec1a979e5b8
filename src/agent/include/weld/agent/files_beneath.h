#pragma once
/// \file
/// Reading and writing files beneath a folder by the rule the run's file
/// tools follow (docs/run.md, "File tools stay in the working directory"):
/// no symbolic link leads out of the folder (a link pointing outside, or a
/// dangling one, is refused), and a file is written to a temporary name and
/// renamed over its entry, so a reader never sees half a file and a hard
/// link is replaced, never written through. `weld agents export` writes its
/// files this way.
///
/// \code
///   auto old = weld::agent::read_beneath(".claude", "agents/router.md", 1 << 20);
///   if (old && !*old) weld::agent::write_beneath(".claude", "agents/router.md", text);
/// \endcode

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "weld/base/result.h"

namespace weld::agent {

/// The content of `relative` beneath the folder `root` (which must exist),
/// or nullopt when there is no such entry. At most `max_bytes`. Errors: a
/// link leading out of `root` (code "outside"), not a regular file, too large.
Result<std::optional<std::string>> read_beneath(const std::string& root, std::string_view relative,
                                                std::uint64_t max_bytes);

/// Writes `content` to `relative` beneath the folder `root` (which must
/// exist), creating the folders between; atomically, through no link that
/// leads out of `root` (code "outside" then, and nothing is written).
Status write_beneath(const std::string& root, std::string_view relative, std::string_view content);

}  // namespace weld::agent
