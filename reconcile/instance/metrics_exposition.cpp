#include "instance/metrics_exposition.hpp"

#include <fmt/format.h>

#include <cmath>

#include "model/metric_text.hpp"

namespace opctl::instance {
namespace {

bool name_character(char c, bool first, bool colon) {
  bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
  return letter || (!first && c >= '0' && c <= '9');
}

bool valid_name(const std::string& name, bool colon) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i)
    if (!name_character(name[i], i == 0, colon)) return false;
  return true;
}

// HELP text: backslash and newline escaped (quotes are not, in HELP).
std::string escape_help(const std::string& help) {
  std::string out;
  for (char c : help) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

const char* type_name(MetricType type) {
  return type == MetricType::counter ? "counter" : "gauge";
}

}  // namespace

bool valid_metric_name(const std::string& name) {
  return valid_name(name, true);
}

bool valid_label_name(const std::string& name) {
  return valid_name(name, false) && !name.starts_with("__");
}

std::string format_metric_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == std::floor(value) && std::fabs(value) < 1e15)
    return fmt::format("{}", static_cast<long long>(value));
  return fmt::format("{}", value);
}

std::string MetricFamilies::declare(const std::string& name, MetricType type, const std::string& help) {
  if (!valid_metric_name(name)) return fmt::format("\"{}\" is not a valid metric name", name);
  if (auto found = index_.find(name); found != index_.end()) {
    if (families_[found->second].type == type) return "";
    return fmt::format("metric {} is already a {}", name, type_name(families_[found->second].type));
  }
  index_[name] = families_.size();
  families_.push_back({name, type, help, {}, {}});
  return "";
}

std::string MetricFamilies::add(const std::string& name, const MetricLabels& labels, double value) {
  auto found = index_.find(name);
  if (found == index_.end()) return fmt::format("metric {} is not declared", name);
  std::string rendered;
  for (const auto& [label, label_value] : labels) {
    if (!valid_label_name(label)) return fmt::format("\"{}\" is not a valid label name", label);
    for (const auto& [other, unused] : labels)
      if (&other != &label && other == label) return fmt::format("label {} appears twice", label);
    if (!rendered.empty()) rendered += ',';
    rendered += fmt::format("{}=\"{}\"", label, model::escape_metric_label(label_value));
  }
  Family& family = families_[found->second];
  if (family.series.contains(rendered))
    return fmt::format("metric {} has the series {{{}}} twice", name, rendered);
  family.series[rendered] = family.samples.size();
  family.samples.push_back({rendered, value});
  return "";
}

std::string MetricFamilies::merge(const MetricFamilies& other) {
  for (const Family& family : other.families_) {
    auto found = index_.find(family.name);
    if (found == index_.end()) continue;
    const Family& mine = families_[found->second];
    if (mine.type != family.type)
      return fmt::format("metric {} is already a {}", family.name, type_name(mine.type));
    for (const Sample& sample : family.samples)
      if (mine.series.contains(sample.labels))
        return fmt::format("metric {} has the series {{{}}} already", family.name, sample.labels);
  }
  for (const Family& family : other.families_) {
    declare(family.name, family.type, family.help);
    Family& mine = families_[index_[family.name]];
    for (const Sample& sample : family.samples) {
      mine.series[sample.labels] = mine.samples.size();
      mine.samples.push_back(sample);
    }
  }
  return "";
}

std::string MetricFamilies::text() const {
  std::string out;
  for (const Family& family : families_) {
    if (family.samples.empty()) continue;
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", family.name, escape_help(family.help), family.name,
                       type_name(family.type));
    for (const Sample& sample : family.samples) {
      out += family.name;
      if (!sample.labels.empty()) out += "{" + sample.labels + "}";
      out += " " + format_metric_value(sample.value) + "\n";
    }
  }
  return out;
}

}  // namespace opctl::instance
