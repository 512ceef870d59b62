// --metrics-push URL: the run's metrics sent to a Prometheus Pushgateway, grouped by job "opctl" and the set.
#pragma once

#include <string>

namespace opctl::cli {

struct MetricsPush {
  std::string url;  // the Pushgateway, e.g. http://pushgateway:9091 (a path prefix is kept)
  // At most one holds the Authorization header's value ("Bearer TOKEN", "Basic ..."): a file, or an
  // environment variable (opctl.yaml's spec.metrics.push.authEnv); both may be empty.
  std::string auth_file;
  std::string auth_env;
};

// Where the metrics of `set` go: URL/metrics/job/opctl/set/<set>, the set percent-encoded, or in the
// Pushgateway's base64 form (set@base64/...) when it is empty or holds a '/', which no encoding hides from
// it.
std::string pushgateway_group_url(const std::string& url, const std::string& set);

// PUTs `text` (text format 0.0.4) to the set's group, replacing what the last run pushed there. Throws
// Error (cluster) naming the URL (credentials removed) and the answer; never prints the credentials.
void push_metrics(const MetricsPush& push, const std::string& set, const std::string& text);

}  // namespace opctl::cli
