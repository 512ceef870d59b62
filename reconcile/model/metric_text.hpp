// Text shared by the two Prometheus exposition writers (the run's metrics
// file and push, the instance manager's exporter), so both quote a label the
// same way.
#pragma once

#include <string>

namespace opctl::model {

// A label value as the exposition format quotes it: backslash, double quote and newline escaped.
std::string escape_metric_label(const std::string& value);

}  // namespace opctl::model
