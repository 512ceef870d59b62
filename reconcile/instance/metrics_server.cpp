#include "instance/metrics_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>

#include "instance/instance_error.hpp"

namespace opctl::instance {
namespace {

using Clock = std::chrono::steady_clock;

std::string http_response(int status, const char* reason, const std::string& content_type,
                          const std::string& body) {
  return fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}", status,
      reason, content_type, body.size(), body);
}

std::string plain_response(int status, const char* reason) {
  return http_response(status, reason, "text/plain; charset=utf-8", std::string(reason) + "\n");
}

int remaining_ms(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

// Waits for `events` on `fd` until the deadline; false on timeout or error.
bool wait_for_socket(int fd, short events, Clock::time_point deadline) {
  while (true) {
    pollfd entry{fd, events, 0};
    int ready = poll(&entry, 1, remaining_ms(deadline));
    if (ready > 0) return true;
    if (ready == 0 || errno != EINTR) return false;
  }
}

void send_all(int client, const std::string& data, Clock::time_point deadline) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    if (!wait_for_socket(client, POLLOUT, deadline)) return;
    ssize_t written = send(client, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;
    sent += static_cast<std::size_t>(written);
  }
}

// A listening socket on `address` (sockaddr_in or sockaddr_in6); -1 with errno set when it cannot be had.
template <typename Address>
int try_listen(const Address& address, bool dual_stack) {
  int fd = socket(reinterpret_cast<const sockaddr*>(&address)->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int on = 1, off = 0;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  if (dual_stack) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 && listen(fd, 16) == 0)
    return fd;
  int saved = errno;
  close(fd);
  errno = saved;
  return -1;
}

// Every address: IPv6 taking IPv4 too, or IPv4 alone where the Pod's network has no IPv6.
int bind_listener(const MetricsServerOptions& options) {
  sockaddr_in6 v6{};
  v6.sin6_family = AF_INET6;
  v6.sin6_port = htons(static_cast<uint16_t>(options.port));
  v6.sin6_addr = in6addr_any;
  sockaddr_in v4{};
  v4.sin_family = AF_INET;
  v4.sin_port = htons(static_cast<uint16_t>(options.port));
  v4.sin_addr.s_addr = htonl(INADDR_ANY);
  int fd = -1;
  if (options.address.empty()) {
    fd = try_listen(v6, true);
    if (fd < 0) fd = try_listen(v4, false);
  } else if (inet_pton(AF_INET6, options.address.c_str(), &v6.sin6_addr) == 1) {
    fd = try_listen(v6, false);
  } else if (inet_pton(AF_INET, options.address.c_str(), &v4.sin_addr) == 1) {
    fd = try_listen(v4, false);
  } else {
    throw InstanceError(fmt::format("the metrics address \"{}\" is not an IP address", options.address));
  }
  if (fd < 0)
    throw InstanceError(fmt::format("cannot listen on {} port {}: {}",
                                    options.address.empty() ? "every address" : options.address, options.port,
                                    std::strerror(errno)));
  return fd;
}

int bound_port(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return 0;
  if (address.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port);
}

}  // namespace

std::string metrics_response(const std::string& request, const MetricsHandler& handler) {
  auto line_end = request.find("\r\n");
  if (line_end == std::string::npos || request.find("\r\n\r\n") == std::string::npos) return "";
  std::string line = request.substr(0, line_end);
  auto first_space = line.find(' ');
  auto second_space = first_space == std::string::npos ? first_space : line.find(' ', first_space + 1);
  if (second_space == std::string::npos || !line.substr(second_space + 1).starts_with("HTTP/1."))
    return plain_response(400, "Bad Request");
  std::string method = line.substr(0, first_space);
  std::string target = line.substr(first_space + 1, second_space - first_space - 1);
  std::string path = target.substr(0, target.find('?'));
  if (path != "/metrics" && path != "/healthz") return plain_response(404, "Not Found");
  if (method != "GET") return plain_response(405, "Method Not Allowed");
  if (path == "/healthz") return http_response(200, "OK", "text/plain; charset=utf-8", "ok\n");
  try {
    return http_response(200, "OK", "text/plain; version=0.0.4; charset=utf-8", handler());
  } catch (const std::exception&) {
    return plain_response(500, "Internal Server Error");
  }
}

MetricsServer::MetricsServer(const MetricsServerOptions& options, MetricsHandler handler)
    : options_(options), handler_(std::move(handler)) {
  listener_ = bind_listener(options_);
  port_ = bound_port(listener_);
  int pipe_ends[2];
  if (pipe2(pipe_ends, O_CLOEXEC) != 0) {
    close(listener_);
    throw InstanceError(fmt::format("cannot create the metrics server's pipe: {}", std::strerror(errno)));
  }
  stop_read_ = pipe_ends[0];
  stop_write_ = pipe_ends[1];
  thread_ = std::thread([this] { serve(); });
}

MetricsServer::~MetricsServer() {
  char stop = 1;
  if (write(stop_write_, &stop, 1) < 0) {
    // The thread then runs until the process ends; nothing else to do here.
  }
  if (thread_.joinable()) thread_.join();
  close(stop_read_);
  close(stop_write_);
  close(listener_);
}

void MetricsServer::serve() {
  while (true) {
    pollfd entries[2] = {{listener_, POLLIN, 0}, {stop_read_, POLLIN, 0}};
    if (poll(entries, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (entries[1].revents != 0) return;
    if ((entries[0].revents & POLLIN) == 0) continue;
    int client = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (client < 0) continue;
    answer(client);
    close(client);
  }
}

void MetricsServer::answer(int client) {
  auto read_deadline = Clock::now() + options_.read_timeout;
  std::string request;
  std::string response;
  char buffer[2048];
  while (response.empty()) {
    if (!wait_for_socket(client, POLLIN, read_deadline)) return;  // too slow: closed without an answer
    ssize_t received = recv(client, buffer, sizeof buffer, 0);
    if (received < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (received <= 0) return;
    request.append(buffer, static_cast<std::size_t>(received));
    if (request.size() > options_.max_request_bytes) {
      response = plain_response(431, "Request Header Fields Too Large");
      break;
    }
    response = metrics_response(request, handler_);
  }
  send_all(client, response, Clock::now() + options_.write_timeout);
}

}  // namespace opctl::instance
