// opctl rollback: the normal reconcile pass (validation, prune guards, the
// Lease, the run record) at an earlier revision of the set's own source, after
// which the set stays pinned there; --unpin lets it follow its ref again.
#include "commands.hpp"
#include "reconcile_run.hpp"

namespace opctl::cli {

void register_rollback(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<ReconcileOptions>();
  auto* command = app.add_subcommand(
      "rollback", "Apply an earlier revision of the set's source and pin the set there (or --unpin it)");
  command->footer(
      "The pass is the one `opctl reconcile` runs, with the same flags, the same source (--repo and --path, "
      "or --path in a git checkout) and the same exit codes. Once it has started writing, the set is "
      "pinned: every later pass (the CronJob's too) applies the pinned commit instead of the head of the "
      "ref, and says so, until `opctl rollback --unpin` (or, with --until-new-commit, until the ref moves "
      "past the commit it was at). `opctl status` and `opctl history` show the pin.\n\n"
      "Examples:\n"
      "  opctl history -f opctl.yaml\n"
      "  opctl rollback -f opctl.yaml --to 3f2a9c1\n"
      "  opctl rollback --repo https://git.example/ops.git --path prod --name prod --to v1.4.0 "
      "--until-new-commit\n"
      "  opctl rollback -f opctl.yaml --unpin\n");
  auto* to = command->add_option("--to", options->pin.to,
                                 "The revision to apply and pin: a commit (full or short), a tag or a "
                                 "branch of --repo; with --path in a checkout, any revision git knows "
                                 "(HEAD~2)");
  command
      ->add_flag("--until-new-commit", options->pin.until_new_commit,
                 "Lift the pin by itself once the ref the set follows has a commit other than the one "
                 "it has now: the next pass after a new commit applies it")
      ->needs(to);
  auto* unpin = command->add_flag("--unpin", options->pin.unpin,
                                  "Remove the pin and apply the head of the ref the set follows");
  to->excludes(unpin);
  add_reconcile_flags(*command, *options);
  command->callback([options, &action] {
    if (options->pin.to.empty() && !options->pin.unpin)
      throw CLI::ValidationError("--to", "give --to REVISION, or --unpin");
    action = [options] { return run_reconcile(*options); };
  });
}

}  // namespace opctl::cli
