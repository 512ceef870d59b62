// Label selectors as kubectl's -l/--selector spells them ("app=web,tier!=db",
// "env in (prod,staging)", "!legacy"), parsed with the API machinery's grammar
// and matched against an object's metadata.labels.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace opctl::model {

enum class LabelOperator { equals, not_equals, in, not_in, exists, does_not_exist, greater_than, less_than };

// One comma-separated term; a selector holds when every term does.
struct LabelRequirement {
  std::string key;
  LabelOperator op = LabelOperator::exists;
  std::vector<std::string> values;  // one for =, !=, >, <; one or more for in/notin; none otherwise

  bool matches(const nlohmann::json& labels) const;
};

class LabelSelector {
 public:
  LabelSelector() = default;  // selects everything
  explicit LabelSelector(std::vector<LabelRequirement> requirements)
      : requirements_(std::move(requirements)) {}

  // `labels` is an object of strings (or null when the object has none).
  bool matches(const nlohmann::json& labels) const;
  // Reads metadata.labels of a whole object (desired or live).
  bool matches_object(const nlohmann::json& object) const;
  bool empty() const { return requirements_.empty(); }
  const std::vector<LabelRequirement>& requirements() const { return requirements_; }
  // The canonical text (kubectl's): "app=web,env in (prod,staging),!legacy".
  std::string to_string() const;

 private:
  std::vector<LabelRequirement> requirements_;
};

// Parses kubectl's selector syntax: key=value, key==value, key!=value, key in (a,b), key notin (a),
// key, !key, key>N, key<N, joined by commas (AND). An empty text selects everything. Throws
// InvalidInputError naming `field` (the flag or config field) and the 1-based character where the
// text goes wrong, with what was expected there.
LabelSelector parse_label_selector(std::string_view text, const std::string& field);

}  // namespace opctl::model
