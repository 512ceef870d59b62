#include "kube/watch_stream.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "kube/api_client.hpp"
#include "kube/retry_policy.hpp"

namespace opctl::kube {
namespace {

using Clock = std::chrono::steady_clock;

std::string metadata_field(const model::Json& object, const char* key) {
  if (!object.is_object() || !object.contains("metadata") || !object["metadata"].is_object()) return "";
  const auto& metadata = object["metadata"];
  return metadata.contains(key) && metadata[key].is_string() ? metadata[key].get<std::string>() : "";
}

// One watch from start to stop: list, stream, resume, list again after a 410.
class Watcher {
 public:
  Watcher(ApiClient& client, HttpTransport& transport, const ResourceInfo& info, std::string namespace_name,
          const WatchOptions& options, const WatchHandler& handler)
      : client_(client),
        transport_(transport),
        info_(info),
        namespace_(std::move(namespace_name)),
        options_(options),
        handler_(handler) {}

  WatchResult run() {
    deadline_ = Clock::now() + options_.timeout;
    result_.resource_version = options_.resource_version;
    if (result_.resource_version.empty() && !relist()) return result_;
    int failures = 0;
    while (Clock::now() < deadline_) {
      auto started = Clock::now();
      HttpResponse response = stream_once();
      if (result_.stopped) return result_;
      if (gone_ || response.status == 410) {
        ++result_.relists;
        if (!relist()) return result_;
        failures = 0;
        continue;
      }
      if (response.status >= 400 && !is_retryable_status(response.status))
        throw ApiError(decode_status(response, what()));  // 403, 404, ...: reconnecting cannot help
      bool progressed = events_ > 0;
      if (ended_cleanly(response, started)) {
        failures = 0;
        continue;
      }
      failures = progressed ? 1 : failures + 1;
      if (failures >= options_.max_failures) throw ApiError(give_up(response, failures));
      auto delay = options_.retry_delay * (1LL << std::min(failures - 1, 10));
      std::this_thread::sleep_for(
          std::min<Clock::duration>(delay, std::max<Clock::duration>(deadline_ - Clock::now(), {})));
    }
    return result_;
  }

 private:
  // The list that starts a watch, or the one after a 410: reports the
  // difference from what the handler saw. False when the handler stopped.
  bool relist() {
    ListOptions list{options_.label_selector, options_.field_selector, 500};
    ListResult listed = client_.list_with_version(info_, namespace_, list);
    result_.resource_version = listed.resource_version;
    for (const auto& event : state_.replace(listed.items))
      if (handler_(event) == WatchControl::stop) {
        result_.stopped = true;
        return false;
      }
    return true;
  }

  HttpResponse stream_once() {
    events_ = 0;
    gone_ = false;
    error_.reset();
    lines_.clear();
    HttpRequest request = watch_request();
    ++result_.connects;
    HttpResponse response = transport_.stream(request, [&](std::string_view chunk) {
      return lines_.feed(chunk, [&](std::string_view line) { return on_line(line); });
    });
    if (error_ && !gone_) {
      if (!is_retryable_status(error_->code)) throw ApiError(*error_);
      response.status = error_->code;  // e.g. a 500 in the stream: resume like a failed connect
    }
    return response;
  }

  HttpRequest watch_request() const {
    auto remaining =
        std::chrono::duration_cast<std::chrono::seconds>(deadline_ - Clock::now()) + std::chrono::seconds(1);
    auto server_timeout = std::clamp(remaining, std::chrono::seconds(1),
                                     std::max(options_.request_timeout, std::chrono::seconds(1)));
    HttpRequest request;
    request.path = collection_path(info_, namespace_) +
                   fmt::format("?watch=1&allowWatchBookmarks=true&timeoutSeconds={}", server_timeout.count());
    if (!result_.resource_version.empty())
      request.path += "&resourceVersion=" + url_escape(result_.resource_version);
    if (!options_.label_selector.empty())
      request.path += "&labelSelector=" + url_escape(options_.label_selector);
    if (!options_.field_selector.empty())
      request.path += "&fieldSelector=" + url_escape(options_.field_selector);
    // The server ends the stream after timeoutSeconds; the client allows some slack on top.
    request.timeout = server_timeout + std::chrono::seconds(30);
    return request;
  }

  // One event; false stops reading the stream.
  bool on_line(std::string_view line) {
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) return true;
    model::Json event = model::Json::parse(line, nullptr, false);
    if (!event.is_object() || !event.contains("type") || !event["type"].is_string()) {
      error_ = ApiStatus{0,
                         ApiReason::other,
                         fmt::format("{}: the server sent a watch line that is not an event: {}", what(),
                                     std::string(line.substr(0, 200))),
                         {}};
      return false;
    }
    std::string type = event["type"];
    model::Json object = event.contains("object") ? event["object"] : model::Json::object();
    if (type == "ERROR") return on_error(object);
    if (std::string version = metadata_field(object, "resourceVersion"); !version.empty())
      result_.resource_version = version;
    if (type == "BOOKMARK") {
      ++result_.bookmarks;
      return true;
    }
    ++events_;
    if (!object.contains("apiVersion")) object["apiVersion"] = info_.gvk.api_version();
    if (!object.contains("kind")) object["kind"] = info_.gvk.kind;
    WatchEvent watch_event{type, std::move(object)};
    state_.record(watch_event);
    if (handler_(watch_event) == WatchControl::stop) {
      result_.stopped = true;
      return false;
    }
    return true;
  }

  bool on_error(const model::Json& status) {
    long code = status.is_object() && status.contains("code") && status["code"].is_number()
                    ? status["code"].get<long>()
                    : 500;
    if (code == 410) {
      gone_ = true;
      return false;
    }
    HttpResponse response{code, status.dump(), "", 1};
    error_ = decode_status(response, what());
    return false;
  }

  // The server ended a stream that worked (timeoutSeconds ran out): resume.
  // A 200 that ends at once without events counts as a failure, so a broken
  // server cannot make the watch spin.
  bool ended_cleanly(const HttpResponse& response, Clock::time_point started) const {
    if (response.status != 200 || !response.transport_error.empty()) return false;
    return events_ > 0 || Clock::now() - started >= std::chrono::seconds(1);
  }

  ApiStatus give_up(const HttpResponse& response, int failures) const {
    ApiStatus status = decode_status(response, what());
    if (status.ok()) {  // a 200 stream that broke off
      status.reason = ApiReason::unreachable;
      status.message = fmt::format("{}: the stream broke off: {}", what(), response.transport_error);
    }
    status.message +=
        fmt::format(" (watch gave up after {} failed connects in a row, at resourceVersion \"{}\")", failures,
                    result_.resource_version);
    return status;
  }

  std::string what() const { return "WATCH " + collection_path(info_, namespace_); }

  ApiClient& client_;
  HttpTransport& transport_;
  const ResourceInfo& info_;
  std::string namespace_;
  const WatchOptions& options_;
  const WatchHandler& handler_;
  Clock::time_point deadline_;
  WatchResult result_;
  WatchState state_;
  LineSplitter lines_;
  int events_ = 0;                  // events in the current stream
  bool gone_ = false;               // the server said the resourceVersion is too old
  std::optional<ApiStatus> error_;  // an ERROR event other than 410
};

}  // namespace

bool LineSplitter::feed(std::string_view chunk, const std::function<bool(std::string_view)>& on_line) {
  while (!chunk.empty()) {
    std::size_t newline = chunk.find('\n');
    if (newline == std::string_view::npos) {
      partial_.append(chunk);
      return true;
    }
    bool keep_going;
    if (partial_.empty()) {
      keep_going = on_line(chunk.substr(0, newline));
    } else {
      partial_.append(chunk.substr(0, newline));
      std::string line = std::move(partial_);
      partial_.clear();
      keep_going = on_line(line);
    }
    chunk.remove_prefix(newline + 1);
    if (!keep_going) return false;
  }
  return true;
}

std::string watch_key(const model::Json& object) {
  return metadata_field(object, "namespace") + "/" + metadata_field(object, "name");
}

void WatchState::record(const WatchEvent& event) {
  if (event.type == "DELETED") {
    objects_.erase(watch_key(event.object));
  } else {
    objects_[watch_key(event.object)] = event.object;
  }
}

std::vector<WatchEvent> WatchState::replace(const std::vector<model::Json>& listed) {
  std::map<std::string, const model::Json*> now;
  for (const auto& object : listed) now[watch_key(object)] = &object;
  std::vector<WatchEvent> events;
  for (const auto& [key, object] : objects_)
    if (!now.contains(key)) events.push_back({"DELETED", object});
  for (const auto& [key, object] : now) {
    auto known = objects_.find(key);
    if (known == objects_.end()) {
      events.push_back({"ADDED", *object});
    } else if (metadata_field(known->second, "resourceVersion") !=
               metadata_field(*object, "resourceVersion")) {
      events.push_back({"MODIFIED", *object});
    }
  }
  for (const auto& event : events) record(event);
  return events;
}

WatchResult ApiClient::watch(const ResourceInfo& info, const std::string& namespace_name,
                             const WatchOptions& options, const WatchHandler& handler) {
  return Watcher(*this, transport_, info, namespace_name, options, handler).run();
}

}  // namespace opctl::kube
