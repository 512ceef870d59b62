// The instance's readiness, handed from the manager (PID 1) to the kubelet's
// exec probe (`opctl instance ready`) through a file in the run directory:
// present and fresh while the instance serves its role. A manager that hangs
// stops refreshing it, and the probe fails.
#pragma once

#include <chrono>
#include <string>

namespace opctl::instance {

inline constexpr std::chrono::seconds k_readiness_freshness{15};

std::string readiness_path(const std::string& run_dir);
// Writes (ready) or removes (not ready) the file; `role` is its content.
void publish_readiness(const std::string& run_dir, bool ready, const std::string& role);
// The probe's question: the file exists and was written within k_readiness_freshness.
bool readiness_published(const std::string& run_dir);

}  // namespace opctl::instance
