#include "validate/desired_index.hpp"

namespace opctl::validate {
namespace {

bool same_namespace(const std::string& a, const std::string& b) {
  return a.empty() || b.empty() || a == b;
}

}  // namespace

DesiredIndex::DesiredIndex(const std::vector<model::Object>& objects) : objects_(objects) {
  for (const auto& object : objects) {
    plan::GroupKind kind{object.gvk().group, object.kind()};
    by_kind_.emplace(kind, &object);
    by_name_.emplace(std::make_pair(kind, object.name()), &object);
  }
}

bool DesiredIndex::has_kind(const plan::GroupKind& kind) const {
  return by_kind_.contains(kind);
}

const model::Object* DesiredIndex::find(const plan::GroupKind& kind, const std::string& namespace_name,
                                        const std::string& name) const {
  auto [begin, end] = by_name_.equal_range(std::make_pair(kind, name));
  for (auto it = begin; it != end; ++it)
    if (same_namespace(it->second->namespace_name(), namespace_name)) return it->second;
  return nullptr;
}

std::vector<std::string> DesiredIndex::names(const plan::GroupKind& kind,
                                             const std::string& namespace_name) const {
  std::vector<std::string> found;
  auto [begin, end] = by_kind_.equal_range(kind);
  for (auto it = begin; it != end; ++it)
    if (same_namespace(it->second->namespace_name(), namespace_name)) found.push_back(it->second->name());
  return found;
}

}  // namespace opctl::validate
