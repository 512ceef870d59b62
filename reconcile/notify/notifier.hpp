// Sends a finished pass to the entries of opctl.yaml's spec.notifications
// that want it (on: failure, change, success, always). Credentials are read
// at send time from a file or the environment and appear in no message. A
// notification that cannot be sent is a warning: the pass's result and exit
// code stay what they were.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "model/clock.hpp"
#include "notify/http_poster.hpp"
#include "notify/pass_event.hpp"

namespace opctl::notify {

struct NotifierOptions {
  HttpPoster* poster = nullptr;
  const Clock* clock = nullptr;  // the waits between attempts
  std::string config_file;       // where the entries are, for messages
  // The environment (tokenEnv, urlEnv): nullopt when a variable is not set.
  std::function<std::optional<std::string>(const std::string&)> environment;
  std::function<void(const std::string&)> on_warning;
  std::function<void(const std::string&)> on_sent;  // for --verbose; may be unset
};

// True when one of the entry's triggers matches: failure (the pass did not
// succeed), change (it created, configured or pruned something), success, always.
bool wants(const config::Notification& entry, const PassEvent& event);

// "the slack notification (opctl.yaml:12)", or "notification ops (...)" when named.
std::string notification_label(const config::Notification& entry, const std::string& config_file);

// The request for one entry, its credential read. Throws NotificationError.
HttpRequest notification_request(const config::Notification& entry, const PassEvent& event,
                                 const NotifierOptions& options);

void send_notifications(const std::vector<config::Notification>& entries, const PassEvent& event,
                        const NotifierOptions& options);

}  // namespace opctl::notify
