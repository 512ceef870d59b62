// Custom resources of a CRD applied in this pass can be applied only once the
// CRD is Established (and discovery serves its kind): the pass waits for the
// CRDs of a batch before the next batch, polling them.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "kube/api_client.hpp"
#include "model/clock.hpp"

namespace opctl::apply {

struct CrdToWait {
  std::string name;
  kube::ResourceInfo resource;
  const model::Json* current = nullptr;  // as the server last answered; null when unknown
};

// Polls the CRDs not Established yet every 100 ms until they are or the
// deadline passes; returns the indices (into `crds`) still not Established.
std::vector<std::size_t> wait_until_established(kube::ApiClient& client, const Clock& clock,
                                                const std::vector<CrdToWait>& crds,
                                                std::chrono::steady_clock::time_point deadline);

}  // namespace opctl::apply
