#include "kinds/conditions.hpp"

namespace opctl::kinds {

using model::Json;

model::Json merge_conditions(const std::vector<Condition>& desired, const Json& live, long generation,
                             TimePoint now) {
  Json merged = Json::array();
  for (const auto& condition : desired) {
    std::string status = condition.status ? "True" : "False";
    std::string since = format_time(now);
    if (live.is_array())
      for (const auto& previous : live)
        if (previous.value("type", "") == condition.type && previous.value("status", "") == status &&
            previous.contains("lastTransitionTime"))
          since = previous.value("lastTransitionTime", since);
    merged.push_back({{"type", condition.type},
                      {"status", status},
                      {"reason", condition.reason.empty() ? std::string("Unknown") : condition.reason},
                      {"message", condition.message},
                      {"lastTransitionTime", since},
                      {"observedGeneration", generation}});
  }
  return merged;
}

const Json* find_condition(const Json& object, const std::string& type) {
  if (!object.contains("status") || !object["status"].is_object()) return nullptr;
  const Json& status = object["status"];
  if (!status.contains("conditions") || !status["conditions"].is_array()) return nullptr;
  for (const auto& condition : status["conditions"])
    if (condition.is_object() && condition.value("type", "") == type) return &condition;
  return nullptr;
}

bool condition_true(const Json& object, const std::string& type) {
  const Json* condition = find_condition(object, type);
  return condition != nullptr && condition->value("status", "") == "True";
}

std::vector<Condition> conditions_from_json(const Json& conditions) {
  std::vector<Condition> result;
  if (!conditions.is_array()) return result;
  for (const auto& item : conditions) {
    if (!item.is_object() || !item.contains("type") || !item["type"].is_string()) continue;
    result.push_back(
        {item["type"].get<std::string>(), item.value("status", "") == "True",
         item.contains("reason") && item["reason"].is_string() ? item["reason"].get<std::string>() : "",
         item.contains("message") && item["message"].is_string() ? item["message"].get<std::string>() : ""});
  }
  return result;
}

}  // namespace opctl::kinds
