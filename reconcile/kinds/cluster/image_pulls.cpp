// An instance Pod whose image the kubelet cannot pull never starts, and the
// pass would only say it waits for the instance. The usual cause is the
// built-in default image, which no public registry serves: the phase reason
// (and with it the Ready and Progressing conditions' message) says so, with
// how to build, push and name an image. Not Degraded: a pull can succeed on
// the kubelet's next try (a registry that was down), and a Degraded Cluster
// fails the pass.
#include <fmt/format.h>

#include "kinds/cluster/cluster_pass.hpp"
#include "kinds/postgres_image.hpp"

namespace opctl::kinds::cluster {

void ClusterPass::report_image_pulls() {
  std::vector<std::string> failures;
  for (const auto& [serial, instance] : view_.instances)
    if (instance.has_live_pod())
      if (std::string failure = image_pull_failure(*instance.pod); !failure.empty())
        failures.push_back(instance.name + ": " + failure);
  if (failures.empty()) return;
  std::string message = fmt::format("the nodes cannot pull the instance image ({}); {}",
                                    fmt::join(failures, "; "), build_postgres_image_advice());
  plan_.phase_reason = plan_.phase_reason.empty() ? message : plan_.phase_reason + ": " + message;
}

}  // namespace opctl::kinds::cluster
