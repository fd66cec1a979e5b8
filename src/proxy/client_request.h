#pragma once
// A client's request as the proxy reads it: a Beast basic_parser (framing,
// limits, keep-alive stay Beast's) that keeps the request line, the fields
// and the body itself. Beast's request_parser<string_body> stores each field
// in a basic_fields container (one allocation and a tree insert per field)
// that the proxy reads a handful of times; here the names and values go into
// one string and the fields are an array of offsets into it. Private to
// src/proxy.

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "asio.h"

namespace weld::proxy {

class ClientRequest final : public http::basic_parser<true> {
 public:
  /// One field as received (name spelled as the client spelled it).
  class Field {
   public:
    Field(http::field name, std::string_view name_string, std::string_view value)
        : name_(name), name_string_(name_string), value_(value) {}
    /// The known field, or http::field::unknown.
    http::field name() const { return name_; }
    std::string_view name_string() const { return name_string_; }
    std::string_view value() const { return value_; }

   private:
    http::field name_;
    std::string_view name_string_;
    std::string_view value_;
  };

  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Field;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Field;
    Iterator(const ClientRequest* request, std::size_t index) : request_(request), index_(index) {}
    Field operator*() const { return request_->field_at(index_); }
    Iterator& operator++() {
      ++index_;
      return *this;
    }
    bool operator==(const Iterator& other) const { return index_ == other.index_; }

   private:
    const ClientRequest* request_;
    std::size_t index_;
  };

  /// Why a request is refused, as the client is told (HTTP status and
  /// message).
  struct Refusal {
    int status = 400;
    std::string message;
  };

  ClientRequest() { fields_.reserve(16); }

  /// Why reading stopped with `ec` (an error of this parser: malformed
  /// head, a framing rule of RFC 9112 §6, a bad chunk): "malformed HTTP
  /// request: …" with a 400, or 501 for a transfer coding weld does not
  /// decode. Limits (header_limit, body_limit) are the caller's to word.
  Refusal refusal(error_code ec) const;

  http::verb method() const { return method_; }
  std::string_view method_string() const { return view(method_at_, method_len_); }
  std::string_view target() const { return view(target_at_, target_len_); }
  /// 10 for HTTP/1.0, 11 for HTTP/1.1.
  int version() const { return version_; }
  /// The first field `name`'s value; "" when absent.
  std::string_view operator[](http::field name) const;
  /// The first field named `name` (any case); "" when absent.
  std::string_view operator[](std::string_view name) const;
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, fields_.size()}; }
  /// Replaces the request target (with the origin-form the proxy forwards).
  void set_target(std::string_view target) {
    target_len_ = static_cast<std::uint32_t>(target.size());
    target_at_ = keep(target);
  }
  /// The body as received (complete once is_done()).
  std::string& body() { return body_; }
  const std::string& body() const { return body_; }

 private:
  struct Stored {
    http::field name;
    std::uint32_t name_at, name_len, value_at, value_len;
  };

  std::string_view view(std::uint32_t at, std::uint32_t len) const { return std::string_view(text_).substr(at, len); }
  Field field_at(std::size_t i) const {
    const Stored& f = fields_[i];
    return Field(f.name, view(f.name_at, f.name_len), view(f.value_at, f.value_len));
  }
  std::uint32_t keep(std::string_view s) {
    const auto at = static_cast<std::uint32_t>(text_.size());
    text_.append(s);
    return at;
  }

  void on_request_impl(http::verb method, std::string_view method_string, std::string_view target, int version,
                       error_code&) override {
    text_.reserve(method_string.size() + target.size() + 256);
    method_ = method;
    method_len_ = static_cast<std::uint32_t>(method_string.size());
    method_at_ = keep(method_string);
    target_len_ = static_cast<std::uint32_t>(target.size());
    target_at_ = keep(target);
    version_ = version;
  }
  void on_response_impl(int, std::string_view, int, error_code&) override {}
  void on_field_impl(http::field name, std::string_view name_string, std::string_view value, error_code& ec) override {
    // Trailer fields (after a chunked body) are dropped: only the head's
    // fields count, so a trailer can neither reach the upstream nor tag a
    // request (docs/proxy.md, "Errors and timeouts").
    if (is_header_done()) return;
    if (name == http::field::transfer_encoding || name == http::field::content_length) {
      if (!check_framing(name, value, ec)) return;
    }
    Stored f{name, 0, static_cast<std::uint32_t>(name_string.size()), 0, static_cast<std::uint32_t>(value.size())};
    f.name_at = keep(name_string);
    f.value_at = keep(value);
    fields_.push_back(f);
  }
  void on_header_impl(error_code& ec) override;
  void on_body_init_impl(const boost::optional<std::uint64_t>& content_length, error_code& ec) override;
  // RFC 9112 §6.1-6.3 on top of Beast's framing: Transfer-Encoding and
  // Content-Length never together; false (and `ec` set) when refused.
  bool check_framing(http::field name, std::string_view value, error_code& ec);
  std::size_t on_body_impl(std::string_view bytes, error_code& ec) override;
  void on_chunk_header_impl(std::uint64_t, std::string_view, error_code&) override {}
  std::size_t on_chunk_body_impl(std::uint64_t, std::string_view bytes, error_code& ec) override {
    return on_body_impl(bytes, ec);
  }
  void on_finish_impl(error_code&) override {}

  http::verb method_ = http::verb::unknown;
  std::uint32_t method_at_ = 0, method_len_ = 0, target_at_ = 0, target_len_ = 0;
  int version_ = 11;
  std::string text_;  // method, target, then each field's name and value
  std::vector<Stored> fields_;
  std::string body_;
  bool saw_content_length_ = false;
  std::string transfer_encoding_;  // every Transfer-Encoding field's value, joined by ", "
  bool saw_transfer_encoding_ = false;
  std::optional<Refusal> refusal_;  // set where a framing rule refused the request
};

}  // namespace weld::proxy
