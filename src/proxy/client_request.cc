#include "client_request.h"
#include "weld/base/text.h"

namespace weld::proxy {
namespace {

constexpr std::string_view kTogether = "malformed HTTP request: Transfer-Encoding together with Content-Length";

}  // namespace

ClientRequest::Refusal ClientRequest::refusal(error_code ec) const {
  if (refusal_) return *refusal_;
  // Beast refuses some conflicts itself (a Content-Length after "chunked",
  // a Transfer-Encoding after a Content-Length) before on_field_impl sees
  // the field: the same rule, the same words.
  if ((ec == http::error::bad_content_length && saw_transfer_encoding_) ||
      (ec == http::error::bad_transfer_encoding && saw_content_length_)) {
    return {400, std::string(kTogether)};
  }
  return {400, std::string(is_header_done() ? "malformed HTTP request body: " : "malformed HTTP request: ") +
                   ec.message()};
}

bool ClientRequest::check_framing(http::field name, std::string_view value, error_code& ec) {
  if (name == http::field::content_length) {
    saw_content_length_ = true;
  } else {
    saw_transfer_encoding_ = true;
    if (!transfer_encoding_.empty()) transfer_encoding_ += ", ";
    transfer_encoding_ += trim(value, kHttpSpace);
  }
  if (saw_content_length_ && saw_transfer_encoding_) {
    refusal_ = Refusal{400, std::string(kTogether)};
    ec = http::error::bad_transfer_encoding;
    return false;
  }
  return true;
}

void ClientRequest::on_header_impl(error_code& ec) {
  if (!saw_transfer_encoding_ || beast::iequals(transfer_encoding_, "chunked")) return;
  // Anything else: when chunked is not the last coding the body's length is
  // unknown (RFC 9112 §6.3: 400); when it is, the codings before it would
  // reach the upstream undeclared, since weld does not decode them (501).
  const std::string_view codings = transfer_encoding_;
  const std::size_t comma = codings.rfind(',');
  const std::string_view last = trim(comma == std::string_view::npos ? codings : codings.substr(comma + 1), kHttpSpace);
  if (beast::iequals(last, "chunked")) {
    refusal_ = Refusal{501, "Transfer-Encoding \"" + transfer_encoding_ + "\" is not supported: only chunked"};
  } else {
    refusal_ = Refusal{400, "malformed HTTP request: Transfer-Encoding \"" + transfer_encoding_ +
                                "\" does not end with chunked (the body length is unknown)"};
  }
  ec = http::error::bad_transfer_encoding;
}

std::string_view ClientRequest::operator[](http::field name) const {
  for (const Stored& f : fields_) {
    if (f.name == name) return view(f.value_at, f.value_len);
  }
  return {};
}

std::string_view ClientRequest::operator[](std::string_view name) const {
  const http::field known = http::string_to_field(name);
  if (known != http::field::unknown) return (*this)[known];
  for (const Stored& f : fields_) {
    if (f.name == http::field::unknown && beast::iequals(view(f.name_at, f.name_len), name)) {
      return view(f.value_at, f.value_len);
    }
  }
  return {};
}

void ClientRequest::on_body_init_impl(const boost::optional<std::uint64_t>& content_length, error_code& ec) {
  if (!content_length) return;
  if (*content_length > body_.max_size()) {
    ec = http::error::buffer_overflow;
    return;
  }
  body_.reserve(static_cast<std::size_t>(*content_length));
}

std::size_t ClientRequest::on_body_impl(std::string_view bytes, error_code& ec) {
  if (bytes.size() > body_.max_size() - body_.size()) {
    ec = http::error::buffer_overflow;
    return 0;
  }
  body_.append(bytes);
  return bytes.size();
}

}  // namespace weld::proxy
