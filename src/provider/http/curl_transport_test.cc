// The libcurl transport sends request bodies whole and unchanged, whatever
// their size: below, at and past libcurl's upload buffer (64 KB by default;
// curl_multi.cc sizes it to the body, up to libcurl's 2 MB cap), one after
// another over one kept-alive connection. The server is a plain socket
// reading HTTP/1.1 requests (Content-Length bodies) and answering each with
// the length it read; a corrupted, cut or padded body fails the comparison.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "weld/provider/http.h"

namespace weld::provider {
namespace {

using namespace std::chrono_literals;

// Accepts connections on 127.0.0.1 (one at a time) and records each
// request's body and the connection it came on.
class BodyServer {
 public:
  BodyServer() {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), size) != 0 || ::listen(listener_, 8) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
      ADD_FAILURE() << "cannot listen: " << std::strerror(errno);
      return;
    }
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~BodyServer() {
    stopping_ = true;
    ::shutdown(listener_, SHUT_RDWR);
    ::close(listener_);
    if (thread_.joinable()) thread_.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/upload"; }

  struct Received {
    std::string body;
    int connection;
  };
  std::vector<Received> received() {
    std::lock_guard lock(mutex_);
    return received_;
  }

 private:
  void serve() {
    for (int connection = 0; !stopping_; ++connection) {
      const int fd = ::accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      serve_connection(fd, connection);
      ::close(fd);
    }
  }

  // Answers requests until the client closes (or sends what is not one).
  void serve_connection(int fd, int connection) {
    std::string buffer;
    char chunk[1 << 16];
    for (;;) {
      std::size_t head_end;
      while ((head_end = buffer.find("\r\n\r\n")) == std::string::npos) {
        if (!read_more(fd, buffer, chunk, sizeof chunk)) return;
      }
      const std::string head = buffer.substr(0, head_end);
      buffer.erase(0, head_end + 4);
      const std::size_t at = head.find("Content-Length: ");
      const std::size_t length = at == std::string::npos ? 0 : std::stoul(head.substr(at + 16));
      while (buffer.size() < length) {
        if (!read_more(fd, buffer, chunk, sizeof chunk)) return;
      }
      {
        std::lock_guard lock(mutex_);
        received_.push_back({buffer.substr(0, length), connection});
      }
      buffer.erase(0, length);
      const std::string answer = std::to_string(length);
      const std::string reply = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(answer.size()) + "\r\n\r\n" + answer;
      if (::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(reply.size())) return;
    }
  }

  static bool read_more(int fd, std::string& buffer, char* chunk, std::size_t size) {
    const ssize_t n = ::recv(fd, chunk, size, 0);
    if (n <= 0) return false;
    buffer.append(chunk, static_cast<std::size_t>(n));
    return true;
  }

  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  std::mutex mutex_;
  std::vector<Received> received_;
};

class Collect final : public ResponseSink {
 public:
  void on_headers(int status, const HttpHeaders&) override { status_ = status; }
  bool on_body(std::string_view chunk) override {
    body_ += chunk;
    return true;
  }
  int status_ = 0;
  std::string body_;
};

// `size` bytes of every value, zero included, in no pattern a shift would keep.
std::string random_bytes(std::size_t size, unsigned seed) {
  std::mt19937 generator(seed);
  std::string bytes(size, '\0');
  for (char& byte : bytes) byte = static_cast<char>(generator() & 0xFF);
  return bytes;
}

TEST(CurlTransport, BodiesOfEverySizeArriveWholeOverOneConnection) {
  BodyServer server;
  std::unique_ptr<Transport> transport = make_curl_transport({});
  // Below, at and just past the default upload buffer; a telemetry batch;
  // past libcurl's 2 MB cap; then small again (the handle's buffer is reset).
  const std::vector<std::size_t> sizes = {0, 1000, 65536, 65537, 170'000, 1'000'000, 3'000'000, 10};
  std::vector<std::string> sent;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    HttpRequest request;
    request.url = server.url();
    request.body = random_bytes(sizes[i], static_cast<unsigned>(i + 1));
    request.headers = {{"Content-Type", "application/octet-stream"}};
    request.idle_timeout = 10s;
    Collect sink;
    CancelToken cancel;
    TransportOutcome outcome = transport->perform(request, sink, cancel);
    ASSERT_EQ(TransportOutcome::Kind::Complete, outcome.kind) << sizes[i] << " bytes: " << outcome.detail;
    EXPECT_EQ(200, sink.status_);
    EXPECT_EQ(std::to_string(sizes[i]), sink.body_);
    sent.push_back(std::move(request.body));
  }
  const std::vector<BodyServer::Received> received = server.received();
  ASSERT_EQ(sent.size(), received.size());
  for (std::size_t i = 0; i < sent.size(); ++i) {
    EXPECT_EQ(sent[i].size(), received[i].body.size()) << "request " << i;
    EXPECT_TRUE(sent[i] == received[i].body) << "request " << i << " (" << sent[i].size() << " bytes) arrived changed";
    EXPECT_EQ(0, received[i].connection) << "request " << i << " came on a new connection";
  }
}

}  // namespace
}  // namespace weld::provider
