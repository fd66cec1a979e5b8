#include "client_request.h"

namespace weld::proxy {

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
