// A real HTTP/1.1 server on 127.0.0.1 for tests of code that speaks HTTP
// (libcurl) without a network: a thread of the test accepts one connection
// at a time, records each request as it arrived on the wire, and answers
// with canned responses (one for all, or one per request in arrival order,
// the last repeated), each after an optional delay.
#pragma once

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace opctl::testing {

struct HttpRequestSeen {
  std::string method, target;
  std::vector<std::pair<std::string, std::string>> headers;  // in order, names lower-case
  std::string body;

  // Every value sent under `name` (lower-case), so a duplicate header shows.
  std::vector<std::string> header(const std::string& name) const {
    std::vector<std::string> values;
    for (const auto& [key, value] : headers)
      if (key == name) values.push_back(value);
    return values;
  }
};

struct HttpAnswer {
  int status = 200;
  std::string body;
  std::chrono::milliseconds delay{0};  // before answering, as a slow server would
  // Extra response headers, such as {"Retry-After", "1"}.
  std::vector<std::pair<std::string, std::string>> headers{};
};

class LoopbackHttpServer {
 public:
  explicit LoopbackHttpServer(HttpAnswer answer)
      : LoopbackHttpServer(std::vector<HttpAnswer>{std::move(answer)}) {}
  // The n-th request gets answers[n], those after the last the last one.
  explicit LoopbackHttpServer(std::vector<HttpAnswer> answers) : answers_(std::move(answers)) {
    if (answers_.empty()) throw std::invalid_argument("loopback server: no answer to give");
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);  // port 0: the kernel picks a free one
    socklen_t length = sizeof address;
    if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        ::listen(listener_, 8) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0)
      throw std::runtime_error("loopback server: cannot listen on 127.0.0.1");
    port_ = ntohs(address.sin_port);
    if (::pipe2(stop_, O_CLOEXEC) != 0) throw std::runtime_error("loopback server: cannot create a pipe");
    thread_ = std::thread([this] { serve(); });
  }
  LoopbackHttpServer(const LoopbackHttpServer&) = delete;
  LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;
  ~LoopbackHttpServer() {
    ::close(stop_[1]);  // wakes the thread wherever it waits
    thread_.join();
    ::close(stop_[0]);
    ::close(listener_);
  }

  std::string url(const std::string& target) const {
    return "http://127.0.0.1:" + std::to_string(port_) + target;
  }

  std::vector<HttpRequestSeen> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  // True when `fd` is readable within `wait`; false on timeout or when the test stops us.
  bool wait_for(int fd, std::chrono::milliseconds wait) const {
    pollfd fds[2] = {{fd, POLLIN, 0}, {stop_[0], POLLIN, 0}};
    return ::poll(fds, 2, static_cast<int>(wait.count())) > 0 && fds[1].revents == 0 && fds[0].revents != 0;
  }

  // Waits `delay` unless the test stops us first (then true).
  bool stopped_within(std::chrono::milliseconds delay) const {
    pollfd stop{stop_[0], POLLIN, 0};
    return delay.count() > 0 && ::poll(&stop, 1, static_cast<int>(delay.count())) > 0;
  }

  void serve() {
    while (wait_for(listener_, std::chrono::hours(1))) {
      int connection = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (connection < 0) continue;
      if (auto request = read_request(connection)) {
        std::size_t index = 0;
        {
          std::lock_guard lock(mutex_);
          index = requests_.size();
          requests_.push_back(*request);
        }
        const HttpAnswer& answer = answers_[std::min(index, answers_.size() - 1)];
        if (!stopped_within(answer.delay)) send_all(connection, response(answer));
      }
      ::close(connection);
    }
  }

  std::optional<HttpRequestSeen> read_request(int connection) const {
    std::string data;
    std::size_t head_end = std::string::npos;
    while ((head_end = data.find("\r\n\r\n")) == std::string::npos)
      if (!read_more(connection, data)) return std::nullopt;
    HttpRequestSeen request = parse_head(data.substr(0, head_end));
    std::size_t length = 0;
    for (const auto& value : request.header("content-length"))
      length = std::stoul(value);
    if (!request.header("expect").empty()) send_all(connection, "HTTP/1.1 100 Continue\r\n\r\n");
    request.body = data.substr(head_end + 4);
    while (request.body.size() < length)
      if (!read_more(connection, request.body)) return std::nullopt;
    return request;
  }

  bool read_more(int connection, std::string& data) const {
    if (!wait_for(connection, std::chrono::seconds(10))) return false;
    char buffer[65536];
    ssize_t count = ::recv(connection, buffer, sizeof buffer, 0);
    if (count <= 0) return false;
    data.append(buffer, std::size_t(count));
    return true;
  }

  static HttpRequestSeen parse_head(const std::string& head) {
    HttpRequestSeen request;
    std::size_t line_end = head.find("\r\n");
    std::string first = head.substr(0, line_end);
    request.method = first.substr(0, first.find(' '));
    request.target = first.substr(first.find(' ') + 1, first.rfind(' ') - first.find(' ') - 1);
    for (std::size_t at = line_end; at != std::string::npos && at < head.size();) {
      std::size_t next = head.find("\r\n", at + 2);
      std::string line = head.substr(at + 2, next == std::string::npos ? std::string::npos : next - at - 2);
      std::size_t colon = line.find(':');
      std::string name = line.substr(0, colon);
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
      std::string value = colon == std::string::npos ? "" : line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(' '));
      request.headers.emplace_back(name, value);
      at = next;
    }
    return request;
  }

  static std::string response(const HttpAnswer& answer) {
    std::string head =
        "HTTP/1.1 " + std::to_string(answer.status) + " Canned\r\nContent-Type: application/json\r\n";
    for (const auto& [name, value] : answer.headers)
      head += name + ": " + value + "\r\n";
    return head + "Content-Length: " + std::to_string(answer.body.size()) + "\r\nConnection: close\r\n\r\n" +
           answer.body;
  }

  static void send_all(int connection, const std::string& data) {
    for (std::size_t sent = 0; sent < data.size();) {
      ssize_t count = ::send(connection, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (count <= 0) return;
      sent += std::size_t(count);
    }
  }

  std::vector<HttpAnswer> answers_;
  int listener_ = -1;
  int stop_[2] = {-1, -1};
  unsigned short port_ = 0;
  mutable std::mutex mutex_;
  std::vector<HttpRequestSeen> requests_;
  std::thread thread_;
};

}  // namespace opctl::testing
