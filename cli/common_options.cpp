#include "common_options.hpp"

namespace opctl::cli {

void add_source_flags(CLI::App& command, CommonOptions& options) {
  command.add_option("--path", options.path, "Directory (or file) holding the manifests")->required();
}

void add_cluster_flags(CLI::App& command, CommonOptions& options) {
  command.add_option("--kubeconfig", options.kubeconfig,
                     "Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster)");
  command.add_option("--context", options.context, "The kubeconfig context to use (default: current-context)");
  command.add_option("-n,--namespace", options.namespace_name,
                     "Namespace for namespaced objects that name none (default: the context's namespace)");
  command.add_option("--concurrency", options.concurrency, "Requests in flight at once (HTTP/2 streams)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  command.add_option("--qps", options.qps, "Client-side rate limit in requests per second (0: none)")
      ->capture_default_str();
  command.add_option("--burst", options.burst, "Requests allowed above --qps in a burst")->capture_default_str();
}

void add_output_flags(CLI::App& command, CommonOptions& options) {
  command.add_flag("--no-color", options.no_color, "Never colour the output (also: NO_COLOR set)");
  command.add_flag("-v,--verbose", options.verbose, "Log each API request (method, path, status) to stderr");
  command.add_flag("-q,--quiet", options.quiet, "Print only errors and the summary");
}

}  // namespace opctl::cli
