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
using WallClock = std::chrono::system_clock;

std::string default_lease_holder() {
  const char* host = std::getenv("HOSTNAME");
  std::string name = host != nullptr && host[0] != '\0' ? host : "";
  if (name.empty()) {
    char buffer[256] = {};
    if (gethostname(buffer, sizeof(buffer) - 1) == 0) name = buffer;
  }
  return fmt::format("{}/{}", name.empty() ? "unknown" : name, getpid());
}

std::string format_micro_time(WallClock::time_point time) {
  auto seconds = WallClock::to_time_t(time);
  auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(time.time_since_epoch()).count() % 1000000;
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%S", &parts);
  return fmt::format("{}.{:06d}Z", buffer, micros);
}

std::optional<WallClock::time_point> parse_micro_time(const std::string& text) {
  std::tm parts{};
  std::istringstream in(text);
  in >> std::get_time(&parts, "%Y-%m-%dT%H:%M:%S");
  if (in.fail()) return std::nullopt;
  auto time = WallClock::from_time_t(timegm(&parts));
  if (in.peek() == '.') {
    in.get();
    std::string digits;
    while (std::isdigit(in.peek()))
      digits += static_cast<char>(in.get());
    digits = (digits + "000000").substr(0, 6);
    time += std::chrono::microseconds(std::stol(digits));
  }
  return time;
}

LeaseLock::LeaseLock(std::unique_ptr<kube::HttpTransport> transport, LeaseSettings settings,
                     std::unique_ptr<Clock> clock)
    : transport_(std::move(transport)),
      settings_(std::move(settings)),
      clock_(clock ? std::move(clock) : std::make_unique<opctl::SystemClock>()) {}

std::unique_ptr<LeaseLock> LeaseLock::acquire(std::unique_ptr<kube::HttpTransport> transport,
                                              LeaseSettings settings, std::unique_ptr<Clock> clock) {
  std::unique_ptr<LeaseLock> lock(new LeaseLock(std::move(transport), std::move(settings), std::move(clock)));
  lock->take();
  if (lock->settings_.renew_in_background)
    lock->renewer_ = std::thread([raw = lock.get()] { raw->renew_until_stopped(); });
  return lock;
}

std::string LeaseLock::path() const {
  return fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases/{}",
                     kube::url_escape(settings_.namespace_name), kube::url_escape(settings_.name));
}

std::string LeaseLock::where() const {
  return settings_.namespace_name + "/" + settings_.name;
}

// A PUT carries current_'s resourceVersion: it fails with Conflict when anyone
// wrote the Lease since we did.
kube::ApiStatus LeaseLock::put(const Json& lease) {
  kube::HttpRequest request;
  request.method = "PUT";
  request.path = path();
  request.content_type = "application/json";
  request.body = lease.dump();
  auto response = transport_->send(request);
  auto status = kube::decode_status(response, "PUT " + request.path);
  if (status.ok()) current_ = Json::parse(response.body);
  return status;
}

namespace {
std::string missing_namespace_message(const std::string& where, const std::string& namespace_name) {
  return fmt::format(
      "cannot create the Lease {}: its namespace \"{}\" does not exist. Create it first, or set "
      "`namespace:` in opctl.yaml to an existing namespace (a Namespace the set itself contains is "
      "created before the Lease)",
      where, namespace_name);
}
}  // namespace

void LeaseLock::take() {
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto steady = clock_->steady_now();
    auto now = clock_->wall_now();
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
      create.body = Json{
          {"apiVersion", "coordination.k8s.io/v1"},
          {"kind", "Lease"},
          {"metadata", {{"name", settings_.name}, {"namespace", settings_.namespace_name}}},
          {"spec",
           spec}}.dump();
      auto created = transport_->send(create);
      auto create_status = kube::decode_status(created, "POST " + create.path);
      if (create_status.reason == kube::ApiReason::already_exists) continue;
      if (create_status.reason == kube::ApiReason::not_found)
        throw ClusterError(missing_namespace_message(where(), settings_.namespace_name));
      if (!create_status.ok()) throw kube::ApiError(create_status);
      current_ = Json::parse(created.body);
      renewed_at_ = steady;
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
      throw Error(
          ErrorCategory::lock_held,
          fmt::format("another run holds the lease {}: holder \"{}\", renewed {}s ago, expires in {}s; "
                      "nothing was changed",
                      where(), holder, age, left));
    }
    int transitions = current_spec.value("leaseTransitions", 0);
    spec["leaseTransitions"] = holder == settings_.holder ? transitions : transitions + 1;
    lease["spec"] = spec;
    auto written = put(lease);
    if (written.ok()) {
      renewed_at_ = steady;
      held_ = true;
      return;
    }
    if (written.reason != kube::ApiReason::conflict) throw kube::ApiError(written);
    // Someone else wrote it between our read and our write: look again.
  }
  throw Error(ErrorCategory::lock_held,
              fmt::format("could not take the lease {}: it keeps changing", where()));
}

// One renewal, with mutex_ held. A Conflict means someone wrote the Lease
// since we did; anything else is transient until the lease expires.
void LeaseLock::renew() {
  auto sent = clock_->steady_now();
  Json lease = current_;
  std::string renew_time = format_micro_time(clock_->wall_now());
  lease["spec"]["renewTime"] = renew_time;
  try {
    auto status = put(lease);
    if (status.ok()) {
      renewed_at_ = sent;
      last_error_.clear();
    } else if (status.reason == kube::ApiReason::conflict) {
      after_conflict(renew_time);
    } else {
      last_error_ = status.describe();
    }
  } catch (const Error& error) {
    last_error_ = error.what();
  }
}

// A Conflict on renewal: either our own renewal landed but its answer was
// lost (the transport sent it again), or another run wrote the Lease.
void LeaseLock::after_conflict(const std::string& written_renew_time) {
  kube::HttpRequest get;
  get.path = path();
  auto response = transport_->send(get);
  auto status = kube::decode_status(response, "GET " + get.path);
  if (!status.ok()) {
    lost_ = fmt::format("lost the Lease {}: it was changed by someone else and cannot be read back ({})",
                        where(), status.describe());
    held_ = false;
    return;
  }
  Json lease = Json::parse(response.body);
  const Json& spec = lease.value("spec", Json::object());
  std::string holder = spec.value("holderIdentity", "");
  if (holder == settings_.holder && spec.value("renewTime", "") == written_renew_time) {
    current_ = std::move(lease);
    return;  // a retried renewal of ours: still held, renewed_at_ unchanged (conservative)
  }
  lost_ = fmt::format("lost the Lease {} to {}", where(),
                      holder.empty() ? "nobody (it was released)" : "\"" + holder + "\"");
  held_ = false;
}

void LeaseLock::ensure_held() {
  std::lock_guard<std::mutex> guard(mutex_);
  auto since = [&] { return clock_->steady_now() - renewed_at_; };
  if (lost_.empty() && since() >= settings_.duration / 3) renew();
  if (lost_.empty() && since() >= settings_.duration) {
    lost_ = fmt::format(
        "lost the Lease {}: not renewed for {}s, longer than its duration of {}s (last error: {})", where(),
        std::chrono::duration_cast<std::chrono::seconds>(since()).count(), settings_.duration.count(),
        last_error_.empty() ? "none" : last_error_);
    held_ = false;
  }
  if (!lost_.empty())
    throw LeaseLostError(
        lost_ +
        "; stopped writing. Another run may be reconciling this set: let it finish, then run "
        "again");
}

void LeaseLock::renew_until_stopped() {
  auto interval = std::max(std::chrono::seconds(1), settings_.duration / 3);
  std::unique_lock<std::mutex> guard(mutex_);
  while (!stop_signal_.wait_for(guard, interval, [this] { return stopping_; }))
    if (lost_.empty()) renew();
}

LeaseLock::~LeaseLock() {
  {
    std::lock_guard<std::mutex> guard(mutex_);
    stopping_ = true;
  }
  stop_signal_.notify_all();
  if (renewer_.joinable()) renewer_.join();
  if (!held_) return;
  Json lease = current_;
  lease["spec"]["holderIdentity"] = "";
  lease["spec"]["renewTime"] = format_micro_time(clock_->wall_now());
  try {
    put(lease);  // a Conflict means someone else has it now: nothing to release
  } catch (const Error&) {
    // Not released: the next run takes it over once it expires.
  }
}

}  // namespace opctl::apply
