// The messages a pass sends: opctl's own JSON for a generic webhook, and the
// incoming-webhook JSON Slack (and Mattermost, Rocket.Chat, Discord's /slack
// endpoint) reads. Pure functions of the entry and the pass.
#pragma once

#include <string>

#include "config/run_config.hpp"
#include "model/object.hpp"
#include "notify/pass_event.hpp"

namespace opctl::notify {

// "set shop succeeded at 1a2b3c4: 2 created, 1 configured, 0 pruned, 7 unchanged"
// or "set shop failed at 1a2b3c4: <why>".
std::string summary_line(const PassEvent& event);

// "info" for a pass that succeeded, "error" otherwise (Flux's severities).
const char* severity_of(const PassEvent& event);

model::Json webhook_payload(const config::Notification& entry, const PassEvent& event);
model::Json slack_payload(const config::Notification& entry, const PassEvent& event);

}  // namespace opctl::notify
