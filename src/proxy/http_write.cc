#include "http_write.h"

#include <cstdio>

#include "asio.h"

namespace weld::proxy::http_write {

void head(std::string& out, const Head& head) {
  out += "HTTP/1.1 ";
  out += std::to_string(head.status);
  out += ' ';
  if (head.reason.empty()) {
    out += http::obsolete_reason(static_cast<http::status>(head.status));
  } else {
    out += head.reason;
  }
  out += "\r\n";
  if (!head.content_type.empty()) {
    out += "Content-Type: ";
    out += head.content_type;
    out += "\r\n";
  }
  if (head.no_cache) out += "Cache-Control: no-cache\r\n";
  if (head.content_length) {
    out += "Content-Length: ";
    out += std::to_string(*head.content_length);
    out += "\r\n";
  }
  out += head.fields;
  if (head.chunked) out += "Transfer-Encoding: chunked\r\n";
  out += head.connection;
  out += "\r\n";
}

std::string chunk_size_line(std::size_t size) {
  char hex[32];
  const int len = std::snprintf(hex, sizeof hex, "%zx\r\n", size);
  return std::string(hex, static_cast<std::size_t>(len));
}

void chunk(std::string& out, std::string_view data) {
  if (data.empty()) return;
  out += chunk_size_line(data.size());
  out += data;
  out += "\r\n";
}

}  // namespace weld::proxy::http_write
