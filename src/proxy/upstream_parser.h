#pragma once
// The parser for upstream responses. Beast's http::response_parser stores
// every field in a basic_fields container (one allocation and a tree insert
// per field) only for the proxy to read each field once, when it writes the
// head to the client. This parser keeps what the proxy uses as the fields
// arrive: the end-to-end fields already written out as "Name: value\r\n"
// lines, the status, and Content-Type. Framing (Content-Length, chunked,
// keep-alive, limits) stays Beast's basic_parser. Private to src/proxy.

#include <cstring>
#include <string>
#include <string_view>

#include "asio.h"

namespace weld::proxy {

/// True for the hop-by-hop fields a proxy must not pass on (RFC 9110 §7.6.1),
/// in either direction.
inline bool is_hop_by_hop(http::field name) {
  switch (name) {
    case http::field::connection:
    case http::field::keep_alive:
    case http::field::proxy_connection:
    case http::field::te:
    case http::field::trailer:
    case http::field::transfer_encoding:
    case http::field::upgrade:
    case http::field::proxy_authorization:
    case http::field::proxy_authenticate:
      return true;
    default:
      return false;
  }
}

/// Parses one upstream response. The body goes into a caller-provided buffer
/// (Beast's buffer_body semantics): set `body()` before each read; a full
/// buffer makes the parser stop with http::error::need_buffer, which
/// feed_parser() reports as progress.
class UpstreamParser final : public http::basic_parser<false> {
 public:
  /// Where the next body bytes go and how much room is left there.
  struct Body {
    char* data = nullptr;
    std::size_t size = 0;
  };

  int status() const { return status_; }
  std::string_view reason() const { return reason_; }
  /// The Content-Type field's value ("" when absent).
  std::string_view content_type() const { return content_type_; }
  /// The end-to-end fields, in the upstream's order and spelling, each as
  /// "Name: value\r\n" (hop-by-hop fields left out).
  std::string_view relayed_fields() const { return fields_; }
  Body& body() { return body_; }

 private:
  void on_request_impl(http::verb, std::string_view, std::string_view, int, error_code&) override {}
  void on_response_impl(int code, std::string_view reason, int, error_code&) override {
    status_ = code;
    reason_.assign(reason);
  }
  void on_field_impl(http::field name, std::string_view name_string, std::string_view value, error_code&) override {
    if (name == http::field::content_type) content_type_.assign(value);
    if (is_hop_by_hop(name)) return;
    // Room for a usual response head at once (growing from empty took
    // three allocations for four fields).
    if (fields_.capacity() < kFieldsRoom) fields_.reserve(kFieldsRoom);
    fields_.reserve(fields_.size() + name_string.size() + value.size() + 4);
    fields_.append(name_string);
    fields_.append(": ", 2);
    fields_.append(value);
    fields_.append("\r\n", 2);
  }
  void on_header_impl(error_code&) override {}
  void on_body_init_impl(const boost::optional<std::uint64_t>&, error_code&) override {}
  std::size_t on_body_impl(std::string_view bytes, error_code& ec) override {
    const std::size_t n = std::min(bytes.size(), body_.size);
    if (n > 0) std::memcpy(body_.data, bytes.data(), n);
    body_.data += n;
    body_.size -= n;
    if (n < bytes.size()) ec = http::error::need_buffer;
    return n;
  }
  void on_chunk_header_impl(std::uint64_t, std::string_view, error_code&) override {}
  std::size_t on_chunk_body_impl(std::uint64_t, std::string_view bytes, error_code& ec) override {
    return on_body_impl(bytes, ec);
  }
  void on_finish_impl(error_code&) override {}

  static constexpr std::size_t kFieldsRoom = 512;
  int status_ = 0;
  std::string reason_;
  std::string content_type_;
  std::string fields_;
  Body body_;
};

}  // namespace weld::proxy
