// SIGTERM and SIGINT during `opctl reconcile`. The handler only records the
// signal in an async-signal-safe flag (the one piece of global state opctl
// has); the pass reads it before every batch of writes, stops, records the
// run as interrupted and releases its Lease. A second signal kills at once.
#pragma once

#include <csignal>

namespace opctl::cli {

class StopSignals {
 public:
  StopSignals();   // installs the handlers
  ~StopSignals();  // restores the previous ones
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  bool requested() const;
  // 128 + the signal, as shells report it: 130 for SIGINT, 143 for SIGTERM.
  int exit_code() const;

 private:
  struct sigaction previous_term_ {};
  struct sigaction previous_int_ {};
};

}  // namespace opctl::cli
