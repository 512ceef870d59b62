#include "common_options.hpp"

#include <cstdlib>

namespace opctl::cli {

void add_source_flags(CLI::App& command, CommonOptions& options) {
  auto& source = options.source;
  auto& git = source.credentials;
  command.add_option("--repo", source.repo, "Git repository URL (https://, ssh://, git@host:repo, file://) or local path");
  command.add_option("--ref", source.ref, "Branch, tag or commit SHA (default: the remote's default branch)");
  command.add_option("--path", source.path,
                     "Sub-directory of the repository; without --repo, the directory (or file) of manifests");
  command.add_option("--cache-dir", source.cache_dir, "Where git clones are cached (default: $XDG_CACHE_HOME/opctl/git)");
  command.add_option("--git-token-file", git.token_file, "File holding an HTTPS token (also: OPCTL_GIT_TOKEN)");
  command.add_option("--git-basic-auth-file", git.basic_auth_file, "File holding username:password for HTTPS");
  command.add_option("--git-ssh-key-file", git.ssh_key_file, "Private key for SSH (default: ssh-agent)");
  command.add_option("--git-ssh-passphrase-file", git.ssh_passphrase_file, "File holding the SSH key's passphrase");
  command.add_option("--git-known-hosts-file", git.known_hosts_file,
                     "known_hosts file to verify SSH host keys (default: ~/.ssh/known_hosts)");
  command.add_flag("--git-insecure-ignore-host-key", git.insecure_ignore_host_key,
                   "Do not verify the SSH host key (unsafe)");
}

void finish_source_options(CommonOptions& options) {
  if (options.source.repo.empty() && options.source.path.empty())
    throw CLI::ValidationError("--path", "either --repo or --path is required");
  if (const char* token = std::getenv("OPCTL_GIT_TOKEN"); token != nullptr) options.source.credentials.token = token;
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
