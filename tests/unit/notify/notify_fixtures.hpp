// A pass and entries to build notifications from, shared by the notify tests.
#pragma once

#include "config/run_config.hpp"
#include "notify/pass_event.hpp"

namespace opctl::testing {

inline notify::PassEvent changed_pass() {
  notify::PassEvent event;
  event.set_name = "shop";
  event.result = "succeeded";
  event.repo = "https://github.com/acme/ops.git";
  event.ref = "main";
  event.commit = "0123456789abcdef0123456789abcdef01234567";
  event.path = "prod";
  event.created = 2;
  event.configured = 1;
  event.unchanged = 7;
  event.started = std::chrono::sys_days{std::chrono::year{2026} / 12 / 4} + std::chrono::hours(22);
  event.duration = std::chrono::milliseconds(1500);
  return event;
}

inline notify::PassEvent failed_pass() {
  notify::PassEvent event = changed_pass();
  event.result = "failed";
  event.created = 0;
  event.configured = 0;
  event.failed = 1;
  event.message = "1 object failed";
  event.failures = {{"ConfigMap shop/settings", "admission webhook \"deny\" denied <the> request & more"}};
  return event;
}

inline config::Notification entry_of(config::NotificationType type) {
  config::Notification entry;
  entry.type = type;
  entry.line = 12;
  return entry;
}

}  // namespace opctl::testing
