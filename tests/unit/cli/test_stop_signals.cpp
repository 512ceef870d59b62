#include <catch2/catch.hpp>
#include <csignal>

#include "stop_signals.hpp"

using opctl::cli::StopSignals;

TEST_CASE("SIGTERM during a pass is remembered, not fatal, and maps to exit 143", "[stop_signals]") {
  // Given the handlers installed, a SIGTERM should only set the flag the pass reads.
  StopSignals signals;
  CHECK_FALSE(signals.requested());
  std::raise(SIGTERM);
  CHECK(signals.requested());
  CHECK(signals.exit_code() == 143);
}

TEST_CASE("SIGINT maps to exit 130, and a new pass starts with no stop requested", "[stop_signals]") {
  // Given an earlier pass saw a signal, a new one should start clean; SIGINT should give 130.
  StopSignals signals;
  CHECK_FALSE(signals.requested());
  std::raise(SIGINT);
  CHECK(signals.exit_code() == 130);
}

TEST_CASE("the previous handlers come back when the pass is over", "[stop_signals]") {
  // Given a handler of our own, installing and removing StopSignals should leave it in place.
  struct sigaction mine {};
  mine.sa_handler = SIG_IGN;
  struct sigaction before {};
  sigaction(SIGTERM, &mine, &before);
  { StopSignals signals; }
  struct sigaction after {};
  sigaction(SIGTERM, nullptr, &after);
  CHECK(after.sa_handler == SIG_IGN);
  sigaction(SIGTERM, &before, nullptr);
}
