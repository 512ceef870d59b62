// The kube layer against a real control plane. Probes its prerequisites
// first and says why it cannot run (exit 77, which ctest reports as skipped).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <iostream>

#include "testenv.hpp"

int main(int argc, char* argv[]) {
  std::string missing = opctl::integration::missing_prerequisite();
  if (!missing.empty()) {
    std::cerr << "opctl_integration_tests cannot run: " << missing << "\n";
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
