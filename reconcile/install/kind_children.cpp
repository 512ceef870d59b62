#include "install/kind_children.hpp"

namespace opctl::install {
namespace {

// Fixed side effects: only the children's kinds, names and rules matter here.
class FixedClock : public Clock {
 public:
  std::chrono::steady_clock::time_point steady_now() const override { return {}; }
  std::chrono::system_clock::time_point wall_now() const override { return {}; }
  void sleep_for(std::chrono::milliseconds) const override {}
};

class FixedRandom : public kinds::RandomSource {
 public:
  std::string token(std::size_t length) override { return std::string(length, 'x'); }
};

}  // namespace

std::vector<model::Json> first_children(kinds::KindReconciler& reconciler, const model::Object& resource) {
  kinds::Observed observed;
  observed.parent = resource.body();
  observed.parent["metadata"]["uid"] = "00000000-0000-0000-0000-000000000000";
  observed.parent["metadata"]["generation"] = 1;
  FixedClock clock;
  FixedRandom random;
  kinds::Context context{clock, random};
  try {
    return reconciler.reconcile(observed, context).children;
  } catch (const std::exception&) {
    return {};  // the spec checks report what is wrong with the resource
  }
}

}  // namespace opctl::install
