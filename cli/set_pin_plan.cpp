#include "set_pin_plan.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "apply/applyset_store.hpp"
#include "apply/lease_lock.hpp"
#include "build_info.hpp"
#include "cluster_connection.hpp"
#include "config_values.hpp"
#include "model/error.hpp"
#include "source/git_revision.hpp"
#include "source/git_worktree.hpp"

namespace opctl::cli {
namespace {

using model::Json;

bool git_source(const source::SourceOptions& source) {
  return !source.repo.empty() || source::work_tree_revision(source.path).has_value();
}

// "user@host": who ran the rollback, as the Lease names its holder by host.
std::string who() {
  const char* user = std::getenv("USER");
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  return fmt::format("{}@{}", user && *user ? user : "unknown", host[0] ? host : "unknown");
}

std::string without_dirty(std::string commit) {
  if (commit.ends_with("-dirty")) commit.resize(commit.size() - 6);
  return commit;
}

// The ref's head, as a pass that follows it would load (fetched for --repo, the
// checkout's HEAD for --path); nothing read. Sets followed_ref and head_commit.
void read_head(PinPlan& plan, const CommonOptions& common, bool tolerate_failure) {
  source::SourceOptions head = common.source;
  head.work_tree_ref.clear();
  try {
    source::SourceRevision revision = source::fetch_desired_source(head);
    plan.followed_ref = revision.ref;
    plan.head_commit = without_dirty(revision.commit);
  } catch (const Error& error) {
    if (!tolerate_failure) throw;
    if (common.source.on_warning)
      common.source.on_warning("cannot read the head the set follows (" + std::string(error.what()) +
                               "); the pin holds");
  }
}

void load_at(CommonOptions& common, const std::string& revision) {
  if (common.source.repo.empty()) {
    common.source.work_tree_ref = revision;
  } else {
    common.source.ref = revision;
  }
}

std::optional<apply::SetPin> live_pin(const CommonOptions& common) {
  ClusterConnection connection = connect(common);
  apply::ApplySetStore store(*connection.client, applyset_parent_of(common.config),
                             std::string("opctl/v") + k_version);
  return apply::SetPin::of(store.read());
}

std::string short_id(const std::string& commit) {
  return commit.empty() ? "?" : source::short_commit_id(commit);
}

void plan_rollback(PinPlan& plan, CommonOptions& common, const PinRequest& request) {
  read_head(plan, common, false);
  plan.action.kind = apply::PinAction::Kind::pin;
  apply::SetPin& pin = plan.action.pin;
  pin.revision = request.to;
  pin.ref = plan.followed_ref;
  pin.ref_commit = plan.head_commit;
  pin.until_new_commit = request.until_new_commit;
  pin.by = who();
  pin.time = apply::format_micro_time(std::chrono::system_clock::now()).substr(0, 19) + "Z";
  load_at(common, request.to);
  plan.planned = plan.reload = true;
}

void plan_pinned(PinPlan& plan, CommonOptions& common, const apply::SetPin& pin) {
  read_head(plan, common, true);
  std::string ref = pin.ref.empty() ? plan.followed_ref : pin.ref;
  auto decision = apply::decide_pin(pin, plan.head_commit);
  if (decision.lift) {
    plan.action.kind = apply::PinAction::Kind::unpin;
    plan.note = fmt::format("a new commit on {} ({}) lifted the pin at {}; the set follows {} again", ref,
                            short_id(plan.head_commit), short_id(pin.commit), ref);
    return;
  }
  plan.report = pin.to_json();
  plan.report["headCommit"] = plan.head_commit;
  plan.note = fmt::format(
      "the set is pinned at {} (rolled back to {} by {} at {}{}); {} is at {}; opctl rollback --unpin "
      "follows it again",
      short_id(pin.commit), pin.revision, pin.by, pin.time,
      pin.until_new_commit ? ", until a new commit" : "", ref, short_id(plan.head_commit));
  load_at(common, pin.commit);
  plan.reload = true;
}

}  // namespace

PinPlan plan_pin(CommonOptions& common, const PinRequest& request) {
  PinPlan plan;
  if ((request.rollback() || request.unpin) && !git_source(common.source))
    throw InvalidInputError(
        {Problem{common.source.path, 0, "",
                 "is a plain directory, in no git work tree: it has no revisions to roll back to; use "
                 "--repo, or --path inside a git checkout"}});
  if (request.rollback()) {
    plan_rollback(plan, common, request);
    return plan;
  }
  if (!common.set_named) return plan;  // planned once an opctl.yaml in the source names the set
  plan.planned = true;
  auto pin = live_pin(common);
  plan.action.check_expected = true;
  plan.action.expected_commit = pin ? pin->commit : "";
  if (request.unpin) {
    plan.action.kind = apply::PinAction::Kind::unpin;
    plan.note = pin ? fmt::format("unpinned: the set was pinned at {} (by {}); it follows {} again",
                                  short_id(pin->commit), pin->by,
                                  pin->ref.empty() ? std::string("its ref") : pin->ref)
                    : std::string("the set was not pinned");
    return plan;
  }
  if (pin) plan_pinned(plan, common, *pin);
  return plan;
}

void complete_pin_plan(PinPlan& plan, const CommonOptions& common, const PinRequest& request,
                       const source::SourceRevision& loaded) {
  if (!request.rollback() && !request.unpin) return;
  if (!common.set_named)
    throw InvalidInputError({Problem{"", 0, "--name",
                                     "rollback pins a named set, and this one has no name: give --name NAME "
                                     "or metadata.name in opctl.yaml"}});
  if (!request.rollback()) return;
  apply::SetPin& pin = plan.action.pin;
  pin.commit = without_dirty(loaded.commit);
  plan.report = pin.to_json();
  plan.report["headCommit"] = plan.head_commit;
  plan.note = fmt::format(
      "rolling back to {} (commit {}); the set stays pinned there {}", request.to, short_id(pin.commit),
      request.until_new_commit
          ? fmt::format("until a commit other than {} is on {}", short_id(pin.ref_commit), pin.ref)
          : std::string("until opctl rollback --unpin"));
}

apply::RunOrigin run_origin(const source::SourceRevision& loaded, const PinPlan& plan,
                            const PinRequest& request) {
  apply::RunOrigin origin;
  origin.revision = loaded.annotation();
  origin.repo = loaded.repo;
  origin.ref = plan.followed_ref.empty() ? loaded.ref : plan.followed_ref;
  origin.commit = loaded.commit;
  origin.path = loaded.path;
  origin.subject = loaded.subject;
  if (loaded.signer.verified)
    origin.signer = loaded.signer.key.empty()
                        ? loaded.signer.principal
                        : fmt::format("{} ({})", loaded.signer.principal, loaded.signer.key);
  if (plan.report.is_object()) origin.pinned = without_dirty(loaded.commit);
  origin.rollback = request.rollback();
  return origin;
}

}  // namespace opctl::cli
