// The annotations a user sets on a Cluster to stop it on purpose, read by the
// pass and by every instance manager alike (the contract is in
// opctl-cluster-kind(5)):
//   opctl.io/hibernation: "on" | "off"    every Pod goes, volumes stay
//   opctl.io/fenced-instances: JSON list  named instances stop serving, Pods stay
// The formats are CloudNativePG's (cnpg.io/hibernation, cnpg.io/fencedInstances).
#pragma once

#include <optional>
#include <set>
#include <string>

#include "model/object.hpp"

namespace opctl::kinds::cluster {

inline constexpr const char* k_hibernation_annotation = "opctl.io/hibernation";
inline constexpr const char* k_fenced_instances_annotation = "opctl.io/fenced-instances";

// Which instances are fenced: every one (`["*"]`), or those named.
struct FencedInstances {
  bool all = false;
  std::set<std::string> names;

  bool fences(const std::string& instance) const {
    return !instance.empty() && (all || names.count(instance) > 0);
  }
  bool any() const { return all || !names.empty(); }
  bool operator==(const FencedInstances&) const = default;
};

// A parsed annotation, or why its value cannot be read (`error`, naming the
// annotation and the value); `value` is then the default (nothing asked for).
template <typename T>
struct ParsedAnnotation {
  T value{};
  std::string error;
};

// "on" -> true; "off" or absent -> false; anything else is an error.
ParsedAnnotation<bool> parse_hibernation(const std::optional<std::string>& text);
// A JSON array of instance names, "*" meaning all; absent, "" or "[]" -> none.
ParsedAnnotation<FencedInstances> parse_fenced_instances(const std::optional<std::string>& text);

// The annotation's text on an object; nullopt when it is not set (or not a string).
std::optional<std::string> annotation_text(const model::Json& object, const char* key);

}  // namespace opctl::kinds::cluster
