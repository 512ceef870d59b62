#include "kinds/cluster/cluster_annotations.hpp"

#include <fmt/format.h>

namespace opctl::kinds::cluster {

using model::Json;

std::optional<std::string> annotation_text(const Json& object, const char* key) {
  Json::json_pointer at("/metadata/annotations");
  if (!object.is_object() || !object.contains(at) || !object[at].is_object()) return std::nullopt;
  const Json& annotations = object[at];
  if (!annotations.contains(key) || !annotations[key].is_string()) return std::nullopt;
  return annotations[key].get<std::string>();
}

ParsedAnnotation<bool> parse_hibernation(const std::optional<std::string>& text) {
  if (!text || *text == "off") return {false, ""};
  if (*text == "on") return {true, ""};
  return {false, fmt::format("{}: \"{}\" must be \"on\" or \"off\"", k_hibernation_annotation, *text)};
}

ParsedAnnotation<FencedInstances> parse_fenced_instances(const std::optional<std::string>& text) {
  if (!text || text->empty()) return {};
  auto invalid = [&](const std::string& why) {
    return ParsedAnnotation<FencedInstances>{
        {},
        fmt::format("{}: {} (want a JSON list of instance names, or [\"*\"] for all, e.g. [\"{}\"]); got {}",
                    k_fenced_instances_annotation, why, "db-1", *text)};
  };
  Json list = Json::parse(*text, nullptr, false);
  if (list.is_discarded()) return invalid("not JSON");
  if (!list.is_array()) return invalid("not a list");
  FencedInstances fenced;
  for (const auto& entry : list) {
    if (!entry.is_string() || entry.get<std::string>().empty())
      return invalid("every entry must be a non-empty string");
    if (entry.get<std::string>() == "*")
      fenced.all = true;
    else
      fenced.names.insert(entry.get<std::string>());
  }
  return {fenced, ""};
}

}  // namespace opctl::kinds::cluster
