#include "apply/lease_lock.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <iomanip>
#include <sstream>

#include "kube/api_error.hpp"
#include "kube/rest_mapper.hpp"
#include "model/error.hpp"

namespace opctl::apply {

using model::Json;
using SystemClock = std::chrono::system_clock;

std::string default_lease_holder() {
  const char* host = std::getenv("HOSTNAME");
  std::string name = host != nullptr && host[0] != '\0' ? host : "";
  if (name.empty()) {
    char buffer[256] = {};
    if (gethostname(buffer, sizeof(buffer) - 1) == 0) name = buffer;
  }
  return fmt::format("{}/{}", name.empty() ? "unknown" : name, getpid());
}

std::string format_micro_time(SystemClock::time_point time) {
  auto seconds = SystemClock::to_time_t(time);
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(time.time_since_epoch()).count() % 1000000;
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%S", &parts);
  return fmt::format("{}.{:06d}Z", buffer, micros);
}

std::optional<SystemClock::time_point> parse_micro_time(const std::string& text) {
  std::tm parts{};
  std::istringstream in(text);
  in >> std::get_time(&parts, "%Y-%m-%dT%H:%M:%S");
  if (in.fail()) return std::nullopt;
  auto time = SystemClock::from_time_t(timegm(&parts));
  if (in.peek() == '.') {
    in.get();
    std::string digits;
    while (std::isdigit(in.peek())) digits += static_cast<char>(in.get());
    digits = (digits + "000000").substr(0, 6);
    time += std::chrono::microseconds(std::stol(digits));
  }
  return time;
}

LeaseLock::LeaseLock(std::unique_ptr<kube::HttpTransport> transport, LeaseSettings settings)
    : transport_(std::move(transport)), settings_(std::move(settings)) {}

std::unique_ptr<LeaseLock> LeaseLock::acquire(std::unique_ptr<kube::HttpTransport> transport,
                                              LeaseSettings settings) {
  std::unique_ptr<LeaseLock> lock(new LeaseLock(std::move(transport), std::move(settings)));
  lock->take();
  lock->renewer_ = std::thread([raw = lock.get()] { raw->renew_until_stopped(); });
  return lock;
}

std::string LeaseLock::path() const {
  return fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases/{}", kube::url_escape(settings_.namespace_name),
                     kube::url_escape(settings_.name));
}

bool LeaseLock::write(Json lease) {
  kube::HttpRequest request;
  request.method = "PUT";
  request.path = path();
  request.content_type = "application/json";
  request.body = lease.dump();
  auto response = transport_->send(request);
  auto status = kube::decode_status(response, "PUT " + request.path);
  if (status.reason == kube::ApiReason::conflict) return false;
  if (!status.ok()) throw kube::ApiError(status);
  current_ = Json::parse(response.body);
  return true;
}

void LeaseLock::take() {
  std::string where = settings_.namespace_name + "/" + settings_.name;
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto now = SystemClock::now();
    kube::HttpRequest get;
    get.path = path();
    auto response = transport_->send(get);
    auto status = kube::decode_status(response, "GET " + get.path);
    Json spec = {{"holderIdentity", settings_.holder},
                 {"leaseDurationSeconds", settings_.duration.count()},
                 {"acquireTime", format_micro_time(now)},
                 {"renewTime", format_micro_time(now)}};
    if (status.reason == kube::ApiReason::not_found) {
      kube::HttpRequest create;
      create.method = "POST";
      create.path = fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases",
                                kube::url_escape(settings_.namespace_name));
      create.content_type = "application/json";
      create.retryable = false;
      create.body = Json{{"apiVersion", "coordination.k8s.io/v1"},
                         {"kind", "Lease"},
                         {"metadata", {{"name", settings_.name}, {"namespace", settings_.namespace_name}}},
                         {"spec", spec}}
                        .dump();
      auto created = transport_->send(create);
      auto create_status = kube::decode_status(created, "POST " + create.path);
      if (create_status.reason == kube::ApiReason::already_exists) continue;
      if (!create_status.ok()) throw kube::ApiError(create_status);
      current_ = Json::parse(created.body);
      held_ = true;
      return;
    }
    if (!status.ok()) throw kube::ApiError(status);
    Json lease = Json::parse(response.body);
    const Json& current_spec = lease.value("spec", Json::object());
    std::string holder = current_spec.value("holderIdentity", "");
    auto renewed = parse_micro_time(current_spec.value("renewTime", ""));
    auto duration = std::chrono::seconds(current_spec.value("leaseDurationSeconds", 0));
    bool live = !holder.empty() && holder != settings_.holder && renewed && *renewed + duration > now;
    if (live) {
      auto age = std::chrono::duration_cast<std::chrono::seconds>(now - *renewed).count();
      auto left = std::chrono::duration_cast<std::chrono::seconds>(*renewed + duration - now).count();
      throw Error(ErrorCategory::lock_held,
                  fmt::format("another run holds the lease {}: holder \"{}\", renewed {}s ago, expires in {}s; "
                              "nothing was changed",
                              where, holder, age, left));
    }
    int transitions = current_spec.value("leaseTransitions", 0);
    spec["leaseTransitions"] = holder == settings_.holder ? transitions : transitions + 1;
    lease["spec"] = spec;
    if (write(lease)) {
      held_ = true;
      return;
    }
    // Someone else wrote it between our read and our write: look again.
  }
  throw Error(ErrorCategory::lock_held, fmt::format("could not take the lease {}: it keeps changing", where));
}

void LeaseLock::renew_until_stopped() {
  auto interval = std::max(std::chrono::seconds(1), settings_.duration / 3);
  std::unique_lock<std::mutex> guard(mutex_);
  while (!stop_signal_.wait_for(guard, interval, [this] { return stopping_; })) {
    try {
      Json lease = current_;
      lease["spec"]["renewTime"] = format_micro_time(SystemClock::now());
      if (!write(lease)) held_ = false;
    } catch (const Error&) {
      // A failed renewal is retried on the next tick; the lease lasts 3 intervals.
    }
  }
}

LeaseLock::~LeaseLock() {
  {
    std::lock_guard<std::mutex> guard(mutex_);
    stopping_ = true;
  }
  stop_signal_.notify_all();
  if (renewer_.joinable()) renewer_.join();
  if (!held_) return;
  try {
    Json lease = current_;
    lease["spec"]["holderIdentity"] = "";
    lease["spec"]["renewTime"] = format_micro_time(SystemClock::now());
    write(lease);
  } catch (const Error&) {
    // Not released: the next run takes it over once it expires.
  }
}

}  // namespace opctl::apply
