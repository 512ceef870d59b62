#include "validate/messages.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "model/edit_distance.hpp"

namespace opctl::validate {
namespace {

constexpr std::size_t k_max_shown = 40;

}  // namespace

std::string describe_value(const model::Json& value) {
  switch (value.type()) {
    case model::Json::value_t::string: {
      std::string text = value.get<std::string>();
      if (text.size() > k_max_shown) text = text.substr(0, k_max_shown) + "...";
      return fmt::format("the string \"{}\"", text);
    }
    case model::Json::value_t::boolean:
      return fmt::format("the boolean {}", value.dump());
    case model::Json::value_t::number_integer:
    case model::Json::value_t::number_unsigned:
    case model::Json::value_t::number_float:
      return fmt::format("the number {}", value.dump());
    case model::Json::value_t::array:
      return "a list";
    case model::Json::value_t::object:
      return "an object";
    case model::Json::value_t::null:
      return "null";
    default:
      return value.type_name();
  }
}

std::string closest_name(const std::string& name, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(1, std::min<std::size_t>(3, name.size() / 3)) + 1;
  for (const auto& candidate : candidates) {
    std::size_t distance = model::edit_distance(name, candidate, model::LetterCase::ignored);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
  std::string closest = closest_name(name, candidates);
  return closest.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", closest);
}

}  // namespace opctl::validate
