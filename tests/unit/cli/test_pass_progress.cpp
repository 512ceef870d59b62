// The words of the progress line, and the per-kind summary of unchanged objects.
#include <catch2/catch.hpp>

#include "pass_progress.hpp"

namespace cli = opctl::cli;
namespace apply = opctl::apply;
using opctl::model::ObjectKey;

namespace {

apply::ObjectOutcome outcome(const std::string& group, const std::string& kind, const std::string& name,
                             apply::Action action, const std::string& message = "") {
  return {{group, kind, "shop", name}, "v1", {}, 0, action, message, {}};
}

std::string shown(const cli::ProgressStatus& status) {
  return status.detail.empty() ? status.head : status.head + ": " + status.detail;
}

}  // namespace

TEST_CASE("a wave's apply shows the objects done of the set", "[pass_progress]") {
  CHECK(shown(cli::planning_status(60)) == "planning: reading the live state of 60 objects");
  CHECK(shown(cli::applying_status(0, 40, 15, 60)) == "wave 0: applying 40 objects, 15/60 done");
  CHECK(shown(cli::applying_status(2, 1, 70, 60)) == "wave 2: applying 1 object, 60/60 done");
  CHECK(shown(cli::pruning_status(3, 60, 60)) == "pruning 3 objects, 60/60 done");
  CHECK(shown(cli::custom_kinds_status("", 60, 60)) == "custom resources, 60/60 done");
}

TEST_CASE("a wait names the first object not healthy, why, and how many more", "[pass_progress]") {
  cli::UnhealthyObjects unhealthy = {
      {ObjectKey{"apps", "Deployment", "shop", "web"},
       {apply::HealthState::progressing, "0 of 1 updated replicas are available"}},
      {ObjectKey{"batch", "Job", "shop", "migrate"}, {apply::HealthState::progressing, ""}}};
  auto status = cli::waiting_status(1, unhealthy, 15, 20);
  CHECK(shown(status) ==
        "wave 1: waiting for 2 objects to be healthy, 15/20 done: apps/Deployment shop/web (0 of 1 updated "
        "replicas are available) and 1 more");
  CHECK(status.phase == cli::waiting_status(1, {unhealthy[1]}, 16, 20).phase);  // the elapsed time goes on
}

TEST_CASE("a git transfer shows objects and bytes, then the deltas", "[pass_progress]") {
  // Before the remote's first answer: the fetch has begun, not finished.
  opctl::source::TransferProgress progress{.repo = "https://git.example/ops.git"};
  CHECK(shown(cli::transfer_status(progress)) == "fetching https://git.example/ops.git: connecting");
  CHECK_FALSE(cli::transfer_finished(progress));
  progress = {"https://git.example/ops.git", 400, 120, 100, 0, 0, 1572864, false};
  CHECK(shown(cli::transfer_status(progress)) ==
        "fetching https://git.example/ops.git: received 120/400 objects (30%), 1.5 MiB");
  CHECK_FALSE(cli::transfer_finished(progress));
  progress = {"https://git.example/ops.git", 400, 400, 400, 50, 10, 2097152, false};
  CHECK(shown(cli::transfer_status(progress)) ==
        "fetching https://git.example/ops.git: received 400 objects, 2.0 MiB; resolving deltas 10/50");
  progress.indexed_deltas = 50;
  CHECK(cli::transfer_finished(progress));
  // A fetch with nothing new never reports totals: its end says so.
  opctl::source::TransferProgress over{.repo = "https://git.example/ops.git"};
  over.done = true;
  CHECK(cli::transfer_finished(over));
  CHECK(cli::byte_size_text(300) == "300 B");
  CHECK(cli::byte_size_text(12 * 1024) == "12.0 KiB");
}

TEST_CASE("unchanged objects are counted per kind, other outcomes keep their lines", "[pass_progress]") {
  // Given a no-op pass, we should print one line per kind instead of one per object.
  cli::UnchangedSummary summary;
  CHECK(summary.absorb(outcome("", "ConfigMap", "a", apply::Action::unchanged)));
  CHECK(summary.absorb(outcome("", "ConfigMap", "b", apply::Action::unchanged)));
  CHECK(summary.absorb(outcome("apps", "Deployment", "web", apply::Action::unchanged)));
  CHECK_FALSE(summary.absorb(outcome("", "ConfigMap", "c", apply::Action::configured)));
  CHECK_FALSE(summary.absorb(
      outcome("", "Pod", "db-1", apply::Action::unchanged, "owned by opctl.io/Cluster shop/db")));
  CHECK(summary.lines() ==
        std::vector<std::string>{"ConfigMap: 2 unchanged", "apps/Deployment: 1 unchanged"});
  CHECK(cli::UnchangedSummary{}.lines().empty());
}
