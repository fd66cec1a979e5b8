#include "loopback_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace weld::provider::testing {
namespace {

std::string status_line(int status) {
  const char* reason = status == 200 ? "OK" : status == 429 ? "Too Many Requests" : "Status";
  return "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\n";
}

bool write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

ScriptedResponse plain_response(int status, const std::string& content_type, const std::string& body,
                                const std::vector<std::pair<std::string, std::string>>& headers) {
  std::string head = status_line(status);
  head += "Content-Type: " + content_type + "\r\n";
  for (const auto& [k, v] : headers) head += k + ": " + v + "\r\n";
  head += "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
  return {{{Action::Kind::Write, head + body, {}}}};
}

ScriptedResponse sse_response(const std::vector<std::string>& chunks, std::chrono::milliseconds pause,
                              bool terminate, int status) {
  ScriptedResponse response;
  std::string head = status_line(status) +
                     "Content-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                     "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
  response.actions.push_back({Action::Kind::Write, head, {}});
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    if (i > 0 && pause.count() > 0) response.actions.push_back({Action::Kind::Pause, "", pause});
    if (chunks[i].empty()) continue;
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", chunks[i].size());
    response.actions.push_back({Action::Kind::Write, size + chunks[i] + "\r\n", {}});
  }
  if (terminate) response.actions.push_back({Action::Kind::Write, "0\r\n\r\n", {}});
  return response;
}

LoopbackServer::LoopbackServer(std::vector<ScriptedResponse> script) : script_(std::move(script)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::listen(listen_fd_, 16);
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { serve(); });
}

LoopbackServer::~LoopbackServer() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  ::close(listen_fd_);
}

std::vector<RecordedRequest> LoopbackServer::requests() {
  std::lock_guard<std::mutex> lock(mutex_);
  return requests_;
}

bool LoopbackServer::wait_for_requests(std::size_t n, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  return cv_.wait_for(lock, timeout, [&] { return requests_.size() >= n; });
}

bool LoopbackServer::pause_or_stop(std::chrono::milliseconds duration) {
  std::unique_lock<std::mutex> lock(mutex_);
  return !cv_.wait_for(lock, duration, [&] { return stop_; });
}

void LoopbackServer::serve() {
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stop_) return;
    }
    pollfd pfd{listen_fd_, POLLIN, 0};
    if (::poll(&pfd, 1, 20) <= 0) continue;
    int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    handle(fd);
    ::close(fd);
  }
}

void LoopbackServer::handle(int fd) {
  std::string data;
  char buf[65536];
  std::size_t header_end = std::string::npos;
  std::size_t content_length = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  RecordedRequest request;
  for (;;) {
    if (std::chrono::steady_clock::now() > deadline) return;
    pollfd pfd{fd, POLLIN, 0};
    if (::poll(&pfd, 1, 20) <= 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stop_) return;
      continue;
    }
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return;
    data.append(buf, static_cast<std::size_t>(n));
    if (header_end == std::string::npos) {
      header_end = data.find("\r\n\r\n");
      if (header_end == std::string::npos) continue;
      std::string head = data.substr(0, header_end);
      std::size_t line_end = head.find("\r\n");
      std::string first = head.substr(0, line_end);
      std::size_t sp1 = first.find(' '), sp2 = first.rfind(' ');
      request.method = first.substr(0, sp1);
      request.target = first.substr(sp1 + 1, sp2 - sp1 - 1);
      std::size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
      while (pos < head.size()) {
        std::size_t end = head.find("\r\n", pos);
        if (end == std::string::npos) end = head.size();
        std::string line = head.substr(pos, end - pos);
        std::size_t colon = line.find(':');
        if (colon != std::string::npos) {
          std::string value = line.substr(colon + 1);
          while (!value.empty() && value.front() == ' ') value.erase(0, 1);
          request.headers.emplace_back(lower(line.substr(0, colon)), value);
        }
        pos = end + 2;
      }
      std::string cl = request.header("content-length");
      content_length = cl.empty() ? 0 : std::stoul(cl);
    }
    if (data.size() >= header_end + 4 + content_length) break;
  }
  request.body = data.substr(header_end + 4, content_length);
  ScriptedResponse response;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    requests_.push_back(request);
    if (next_ < script_.size()) {
      response = script_[next_++];
    } else {
      response = plain_response(500, "application/json",
                                R"({"error":{"message":"script exhausted","type":"server_error"}})");
    }
  }
  cv_.notify_all();
  for (const Action& action : response.actions) {
    if (action.kind == Action::Kind::Pause) {
      if (!pause_or_stop(action.pause)) return;
    } else if (!write_all(fd, action.bytes)) {
      return;
    }
  }
}

int unused_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  int port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

}  // namespace weld::provider::testing
