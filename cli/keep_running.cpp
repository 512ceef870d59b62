#include "keep_running.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <set>

#include "apply/applyset_store.hpp"
#include "build_info.hpp"
#include "config_values.hpp"
#include "kind_defaults.hpp"
#include "kinds/kind_registry.hpp"
#include "kinds/kind_runner.hpp"
#include "pass_render.hpp"
#include "set_lease.hpp"
#include "stop_signals.hpp"
#include "terminal.hpp"

namespace opctl::cli {
namespace {

std::string counted(std::size_t n, const std::string& kind) {
  return fmt::format("{} {}{}", n, kind, n == 1 ? "" : "s");
}

std::string counts(const std::map<std::string, std::size_t>& by_kind) {
  std::vector<std::string> parts;
  for (const auto& [kind, n] : by_kind)
    parts.push_back(counted(n, kind));
  return fmt::format("{}", fmt::join(parts, ", "));
}

void warn(const CommonOptions& options, const Palette& palette, const std::string& line) {
  if (!options.quiet) std::cerr << palette.yellow("warning: " + line) << "\n";
}

// The reconcilers' run under the Lease; the members are not empty.
void run_members(const CommonOptions& options, const KeepRunningOptions& keep, ClusterConnection& connection,
                 const kinds::KindRegistry& registry, const std::vector<model::Object>& members) {
  Palette palette{use_color(options.no_color)};
  StopSignals signals;  // before the Lease, so a signal never leaves it held
  auto parent = applyset_parent_of(options.config);
  auto lease = lock_set(options, connection, parent);
  kinds::RunnerOptions runner;
  runner.applyset_id = parent.id();
  // One round: the pass has failed already, so --wait has nothing to converge to.
  runner.wait = false;
  runner.deadline = std::chrono::steady_clock::now() + pass_timeout(options);
  runner.delete_propagation = options.delete_propagation;
  runner.stop_requested = [&signals] { return signals.requested(); };
  runner.on_outcome = [&](const apply::ObjectOutcome& outcome) {
    bool failed = outcome.action == apply::Action::failed;
    if (!keep.text || (options.quiet && !failed)) return;
    (failed ? std::cerr : std::cout) << outcome_line(outcome, palette) << "\n" << std::flush;
  };
  SystemClock clock;
  auto random = kinds::system_random();
  apply::PassReport report;
  try {
    kinds::KindRunner(*connection.client, registry, {clock, *random}, runner).run_live(members, report);
  } catch (const Error& error) {
    warn(options, palette, std::string("keeping the custom resources running stopped: ") + error.what());
  }
  connection.client->set_write_gate(nullptr);
  lease.reset();
  if (auto line = kept_running_line(members, report); !line.empty())
    std::cerr << line << " (nothing of the set was applied)\n";
}

}  // namespace

std::vector<model::Object> set_custom_resources(kube::ApiClient& client, const plan::ApplySetParent& parent,
                                                const kinds::KindRegistry& registry) {
  apply::ApplySetStore store(client, parent, std::string("opctl/v") + k_version);
  auto live_parent = store.read();
  if (!live_parent) return {};  // the set was never applied
  // Of the inventory's group-kinds, the custom kinds; in its namespaces, one LIST each by the set's
  // label: what opctl install's least-privilege RBAC allows (a LIST across namespaces it does not).
  auto inventory = plan::ApplySetInventory::from_parent(*live_parent);
  std::erase_if(inventory.group_kinds, [&registry](const plan::GroupKind& group_kind) {
    return registry.find({group_kind.group, "", group_kind.kind}) == nullptr;
  });
  std::vector<model::Object> members;
  for (auto& member : store.members(inventory))
    members.emplace_back(std::move(member));
  return members;
}

std::string why_not_keep_running(const CommonOptions& options) {
  if (!options.keep_running) return "--no-keep-running";
  if (!options.set_named) return "the set has no name";
  if (options.config.file.empty() && !options.source_config_checked)
    return "the set's name and namespace may come from an opctl.yaml in the source, which could not be "
           "read (give -f to name the set without its source)";
  return "";
}

std::string kept_running_line(const std::vector<model::Object>& members, const apply::PassReport& report) {
  std::set<model::ObjectKey> keys;
  for (const auto& member : members)
    keys.insert(member.key());
  std::map<std::string, std::size_t> kept, failed;
  for (const auto& outcome : report.outcomes)
    if (keys.contains(outcome.key))
      ++(outcome.action == apply::Action::failed ? failed : kept)[outcome.key.kind];
  std::size_t total = 0;
  for (const auto& [kind, n] : kept)
    total += n;
  std::string line;
  if (total > 0)
    line = fmt::format("kept {} running from {} live spec", counts(kept), total == 1 ? "its" : "their");
  if (!failed.empty())
    line += fmt::format("{}could not keep {} running (see above)", line.empty() ? "" : "; ", counts(failed));
  return line;
}

void keep_running(const CommonOptions& options, const KeepRunningOptions& keep) {
  Palette palette{use_color(options.no_color)};
  try {
    ClusterConnection connected;
    ClusterConnection* connection = keep.connection;
    if (connection == nullptr) {
      connected = connect(options);
      connection = &connected;
    }
    auto registry = run_registry(options);
    // Discovery from the disk cache may predate the CRDs: a kind it lacks is asked of the server once.
    for (const auto& reconciler : registry.all())
      connection->mapper->find(reconciler->kind());
    auto members = set_custom_resources(*connection->client, applyset_parent_of(options.config), registry);
    if (members.empty()) return;
    run_members(options, keep, *connection, registry, members);
  } catch (const Error& error) {
    std::string why =
        error.category() == ErrorCategory::lock_held ? "another run holds the set's Lease: " : "";
    warn(options, palette, "the set's custom resources were not kept running: " + why + error.what());
  }
}

}  // namespace opctl::cli
