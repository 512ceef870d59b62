#include "stop_signals.hpp"

#include "exit_codes.hpp"

namespace opctl::cli {
namespace {

// Written only by the handler, read by the pass between batches.
volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void remember_stop_signal(int signal_number) {
  g_stop_signal = signal_number;
}

void install(int signal_number, struct sigaction& previous) {
  struct sigaction action {};
  action.sa_handler = remember_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND | SA_RESTART;  // the second signal takes the default action
  sigaction(signal_number, &action, &previous);
}

}  // namespace

StopSignals::StopSignals() {
  g_stop_signal = 0;
  install(SIGTERM, previous_term_);
  install(SIGINT, previous_int_);
}

StopSignals::~StopSignals() {
  sigaction(SIGTERM, &previous_term_, nullptr);
  sigaction(SIGINT, &previous_int_, nullptr);
}

bool StopSignals::requested() const {
  return g_stop_signal != 0;
}

int StopSignals::exit_code() const {
  return k_exit_signal_base + (g_stop_signal != 0 ? g_stop_signal : SIGTERM);
}

}  // namespace opctl::cli
