// After a pass: its result to opctl.yaml's spec.notifications (see
// reconcile/notify/). A notification that fails is a warning line; the exit
// code stays the pass's.
#pragma once

#include <functional>
#include <string>

#include "apply/pass_report.hpp"
#include "common_options.hpp"
#include "model/error.hpp"
#include "source/desired_source.hpp"

namespace opctl::cli {

// Nothing for a dry run. Entries of an opctl.yaml read from a git source's
// commit are not sent (a commit could point a tokenEnv at any URL): they
// belong in a -f file.
void notify_pass(const CommonOptions& options, const apply::PassReport& report,
                 const source::SourceRevision& revision, const std::function<void(const std::string&)>& warn);

// The set could not be loaded (an invalid manifest, git unreachable): a failed
// pass that changed nothing, with the error as its message. For invalid input
// the commit is resolved again (the fetch worked), so a commit status marks
// the commit that broke the set.
void notify_load_failure(const CommonOptions& options, const Error& error,
                         const std::function<void(const std::string&)>& warn);

}  // namespace opctl::cli
