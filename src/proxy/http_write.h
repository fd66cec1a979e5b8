#pragma once
// The one writer of what the proxy sends a client at the HTTP level: the
// response head (status line and fields) and the chunked framing of a body
// (docs/proxy.md). Every answer — a relayed one, a welded one, a stream, an
// error, the shutdown's 503 — is framed here.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace weld::proxy::http_write {

/// A response head to write.
struct Head {
  int status = 200;
  /// The reason phrase; empty: the standard one for `status`.
  std::string_view reason;
  /// The Content-Type field's value; empty: no such field (a relayed head
  /// carries its own in `fields`).
  std::string_view content_type;
  /// An event stream: `Cache-Control: no-cache` follows the content type.
  bool no_cache = false;
  /// Content-Length, when the body's length is known.
  std::optional<std::size_t> content_length;
  /// Other fields, "name: value\r\n" each, written after the length.
  std::string_view fields;
  /// `Transfer-Encoding: chunked` (the body is then framed by `chunk`).
  bool chunked = false;
  /// The Connection field line(s) ("Connection: close\r\n"), last.
  std::string_view connection;
};

/// Appends `head` and the blank line that ends it.
void head(std::string& out, const Head& head);

/// The chunk-size line of a chunk of `size` bytes ("1a\r\n").
std::string chunk_size_line(std::size_t size);

/// Appends `data` as one chunk (nothing for empty data: an empty chunk
/// would end the body).
void chunk(std::string& out, std::string_view data);

/// The last chunk, which ends a chunked body.
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";

}  // namespace weld::proxy::http_write
