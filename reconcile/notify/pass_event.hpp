// A finished pass as the notifications see it: what the set is, which commit,
// how it ended and what it changed. The CLI fills it from the pass report.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace opctl::notify {

struct FailedObject {
  std::string object;  // "apps/Deployment shop/web"
  std::string message;
};

struct PassEvent {
  std::string set_name;  // empty for an unnamed set
  std::string result;    // succeeded, failed, timed-out, unhealthy, interrupted (apply::to_string)
  std::string message;   // why it did not succeed
  std::string repo, ref, commit,
      path;  // commit: full SHA; empty outside git, "-dirty" for a changed work tree
  std::size_t created = 0, configured = 0, pruned = 0, unchanged = 0, failed = 0;
  std::vector<FailedObject> failures;  // the first few
  std::chrono::system_clock::time_point started;
  std::chrono::milliseconds duration{0};

  bool succeeded() const { return result == "succeeded"; }
  bool changed() const { return created + configured + pruned > 0; }
};

}  // namespace opctl::notify
