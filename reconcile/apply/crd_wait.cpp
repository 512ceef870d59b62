#include "apply/crd_wait.hpp"

#include "apply/health_rules.hpp"

namespace opctl::apply {
namespace {

bool established(const model::Json& crd) {
  return assess_health(crd).state == HealthState::healthy;
}

}  // namespace

std::vector<std::size_t> wait_until_established(kube::ApiClient& client, const Clock& clock,
                                                const std::vector<CrdToWait>& crds,
                                                std::chrono::steady_clock::time_point deadline) {
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < crds.size(); ++i)
    if (crds[i].current == nullptr || !established(*crds[i].current)) pending.push_back(i);
  while (!pending.empty() && clock.steady_now() < deadline) {
    clock.sleep_for(std::chrono::milliseconds(100));
    std::vector<kube::HttpRequest> gets;
    for (auto i : pending)
      gets.push_back(client.get_request(crds[i].resource, "", crds[i].name));
    auto results = client.execute(gets);
    std::vector<std::size_t> still;
    for (std::size_t j = 0; j < pending.size(); ++j)
      if (!results[j].ok() || !established(results[j].object)) still.push_back(pending[j]);
    pending = std::move(still);
  }
  return pending;
}

}  // namespace opctl::apply
