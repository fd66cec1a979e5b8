#pragma once
/// \file
/// The one way weld reads a whole file or stream it was given:
/// a regular file only (a FIFO, socket, device or directory is refused
/// without blocking on it — `stat` first, the open non-blocking, `fstat` of
/// what was opened), and never more than a cap, for files (`--json-schema
/// @file`, settings, transcripts, instance files, caches) and streams
/// (standard input) alike.
///
/// \code
///   weld::Result<std::string> text = weld::read_regular_file(path, 4 << 20);
///   if (!text) return weld::Error{ErrorCode::Config, "Settings file: " + text.error().message, path};
/// \endcode

#include <cstdint>
#include <string>
#include <string_view>

#include "weld/base/result.h"

namespace weld {

/// Reads `path` (symbolic links followed) when it is a regular file of at
/// most `max_bytes`. Error codes and messages (no trailing period):
/// "io" `could not read "PATH": <reason>`, "not_regular"
/// `"PATH" is not a regular file`, "too_large" `"PATH" is N bytes (more than
/// MAX)`. `size`, when given, receives the size seen (for "too_large").
Result<std::string> read_regular_file(const std::string& path, std::uint64_t max_bytes, std::uint64_t* size = nullptr);

/// Opens `path` for reading under the rules of `read_regular_file` (a
/// regular file of at most `max_bytes` by its size; same errors) and
/// returns the descriptor, for a caller that reads it piece by piece
/// (`read_some`) and closes it. `size` receives the file's size.
Result<int> open_regular_file(const std::string& path, std::uint64_t max_bytes, std::uint64_t* size = nullptr);

/// One read of at most `size` bytes from `fd` into `buffer`: the count, 0 at
/// the end (and for a closed descriptor, EBADF). EINTR is retried, a
/// non-blocking descriptor waited for. Error "io" `could not read WHAT: <reason>`.
Result<std::size_t> read_some(int fd, char* buffer, std::size_t size, std::string_view what);

/// Reads `fd` to its end, at most `max_bytes`. Errors: "io"
/// `could not read WHAT: <reason>`, "too_large" `WHAT is more than MAX bytes`.
/// EINTR is retried; EBADF (a closed descriptor) reads as empty.
Result<std::string> read_stream(int fd, std::uint64_t max_bytes, std::string_view what);

}  // namespace weld
