// Exit codes, the contract pipelines branch on (documented in opctl(1)).
#pragma once

#include "model/error.hpp"

namespace opctl::cli {

inline constexpr int k_exit_ok = 0;
inline constexpr int k_exit_differences = 1;  // diff --exit-code only
inline constexpr int k_exit_invalid_input = 2;
inline constexpr int k_exit_cluster_error = 3;
inline constexpr int k_exit_lock_held = 4;
inline constexpr int k_exit_timeout = 5;
// reconcile stopped by SIGINT or SIGTERM: 128 + the signal (130, 143), what a
// shell reports for a process the signal killed, so callers see no difference.
inline constexpr int k_exit_signal_base = 128;

inline int exit_code_for(ErrorCategory category) {
  switch (category) {
    case ErrorCategory::invalid_input:
      return k_exit_invalid_input;
    case ErrorCategory::cluster:
      return k_exit_cluster_error;
    case ErrorCategory::lock_held:
      return k_exit_lock_held;
    case ErrorCategory::timeout:
      return k_exit_timeout;
    case ErrorCategory::internal:
      return k_exit_cluster_error;
  }
  return k_exit_cluster_error;
}

}  // namespace opctl::cli
