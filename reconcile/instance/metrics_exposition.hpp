// Prometheus's text exposition format (version 0.0.4) for the instance
// manager's exporter: metric families collected in order, # HELP and # TYPE
// once per family, label values escaped, and a series (a family and a label
// set) at most once. Pure: the collector fills it, the HTTP server sends it.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace opctl::instance {

enum class MetricType { gauge, counter };

using MetricLabels = std::vector<std::pair<std::string, std::string>>;

class MetricFamilies {
 public:
  // Declares a family; a second declaration with the same type is a no-op.
  // Returns an error message (a name the format does not allow, the family
  // already declared with another type); empty when declared.
  std::string declare(const std::string& name, MetricType type, const std::string& help);
  // One sample of a declared family. Returns an error message (an undeclared
  // family, a bad label name, a series already there); empty when added.
  std::string add(const std::string& name, const MetricLabels& labels, double value);
  // Every family of `other` into this one, all or nothing: an error message
  // (a family or series this one has already) leaves this one unchanged.
  std::string merge(const MetricFamilies& other);

  bool has(const std::string& name) const { return index_.contains(name); }
  std::string text() const;

 private:
  struct Sample {
    std::string labels;  // rendered: name="value",... in the order given
    double value = 0;
  };
  struct Family {
    std::string name;
    MetricType type = MetricType::gauge;
    std::string help;
    std::vector<Sample> samples;
    std::map<std::string, std::size_t> series;  // rendered labels -> sample
  };
  std::vector<Family> families_;
  std::map<std::string, std::size_t> index_;
};

// [a-zA-Z_:][a-zA-Z0-9_:]*
bool valid_metric_name(const std::string& name);
// [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__" (reserved by Prometheus)
bool valid_label_name(const std::string& name);
// A sample value: integers without an exponent, NaN, +Inf, -Inf.
std::string format_metric_value(double value);

}  // namespace opctl::instance
