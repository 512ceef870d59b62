#include "apply/set_pin.hpp"

#include <fmt/format.h>

#include "model/error.hpp"

namespace opctl::apply {

using model::Json;

Json SetPin::to_json() const {
  return {{"commit", commit},
          {"revision", revision},
          {"ref", ref},
          {"refCommit", ref_commit},
          {"untilNewCommit", until_new_commit},
          {"by", by},
          {"time", time}};
}

std::optional<SetPin> SetPin::parse(const std::string& text) {
  if (text.empty()) return std::nullopt;
  Json json = Json::parse(text, nullptr, false);
  if (!json.is_object() || !json.contains("commit") || !json["commit"].is_string()) return std::nullopt;
  SetPin pin;
  pin.commit = json.value("commit", "");
  pin.revision = json.value("revision", "");
  pin.ref = json.value("ref", "");
  pin.ref_commit = json.value("refCommit", "");
  pin.until_new_commit = json.value("untilNewCommit", false);
  pin.by = json.value("by", "");
  pin.time = json.value("time", "");
  if (pin.commit.empty()) return std::nullopt;
  return pin;
}

std::optional<SetPin> SetPin::of(const std::optional<Json>& parent) {
  if (!parent) return std::nullopt;
  const Json& metadata = parent->value("metadata", Json::object());
  return parse(metadata.value("annotations", Json::object()).value(k_pin_annotation, ""));
}

void check_pin_unchanged(const std::optional<Json>& parent, const PinAction& action, const std::string& set) {
  if (action.kind == PinAction::Kind::pin || !action.check_expected) return;
  auto pin = SetPin::of(parent);
  std::string found = pin ? pin->commit : "";
  if (found == action.expected_commit) return;
  throw Error(ErrorCategory::lock_held,
              found.empty()
                  ? fmt::format("the set {} was unpinned while this run loaded its source; nothing was "
                                "changed, run again",
                                set)
                  : fmt::format("the set {} was pinned at {} (by {}) while this run loaded its source; "
                                "nothing was changed, run again",
                                set, found, pin->by));
}

std::string pin_after(const std::string& found, const PinAction& action) {
  switch (action.kind) {
    case PinAction::Kind::pin:
      return action.pin.to_json().dump();
    case PinAction::Kind::unpin:
      return "";
    case PinAction::Kind::keep:
      break;
  }
  return found;
}

PinDecision decide_pin(const std::optional<SetPin>& pin, const std::string& head_commit) {
  if (!pin) return {};
  if (pin->until_new_commit && !head_commit.empty() && !pin->ref_commit.empty() &&
      head_commit != pin->ref_commit)
    return {"", true};
  return {pin->commit, false};
}

}  // namespace opctl::apply
