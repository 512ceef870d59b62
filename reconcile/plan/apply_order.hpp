// The order in which objects are applied: by wave (opctl.io/wave), then by
// kind (Namespaces, CRDs, RBAC, ServiceAccounts, config, storage, Services,
// workloads, custom resources, the rest), then by name.
#pragma once

#include <string>
#include <vector>

#include "model/object.hpp"

namespace opctl::plan {

inline constexpr const char* k_wave_annotation = "opctl.io/wave";

// The rank of a kind inside a wave; lower is applied first.
int kind_rank(const model::GroupVersionKind& gvk);

// The object's opctl.io/wave (0 without one). Throws InvalidInputError
// naming the file and line when it is not an integer.
long wave_of(const model::Object& object);

// The wave a live object was applied in; 0 when it has none or it is not an
// integer (a live object is never refused for it).
long wave_of_live(const model::Json& live);

// True for kinds that no built-in API group serves.
bool is_custom_kind(const model::GroupVersionKind& gvk);

// Objects that can be applied together, concurrently.
struct ApplyGroup {
  long wave = 0;
  int rank = 0;
  std::vector<std::size_t> members;  // indices into the objects given
};

// Groups in apply order. Throws InvalidInputError when a wave annotation is
// not an integer.
std::vector<ApplyGroup> order_for_apply(const std::vector<model::Object>& objects);

}  // namespace opctl::plan
