// What one round of the KindRunner reads, listed once per kind and namespace
// rather than once per custom resource: the parents (and related objects of
// the kinds it reconciles) and the children, grouped by the owner-uid label.
// A no-op pass over 200 Clusters and 200 Backups in a namespace then costs a
// LIST (or a few pages) per kind instead of a GET and a LIST per child kind
// for every resource.
//
// The lists are taken when a round first needs them and serve that round
// only (the next round lists again). Within a round, each resource's children
// are written by that resource's pass alone, so a list taken earlier in the
// round still holds them as they were; a parent's status the round wrote is
// remembered, so a resource that reads it as related (a Backup its Cluster)
// sees it as it would have with a GET.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "kube/api_client.hpp"

namespace opctl::kinds {

class RoundReads {
 public:
  // `reconciled_kinds`: the kinds whose resources the round reconciles; a
  // related object of one of them is read from the round's list of its kind.
  RoundReads(kube::ApiClient& client, std::set<model::GroupVersionKind> reconciled_kinds)
      : client_(client), reconciled_kinds_(std::move(reconciled_kinds)) {}

  // Whether a related object of this kind is read with object() (the round lists its kind) rather than by
  // name.
  bool lists_related(const model::GroupVersionKind& gvk) const { return reconciled_kinds_.contains(gvk); }

  // The object as this round's list of its collection holds it; nullopt
  // when it does not exist. A collection the caller may not list (RBAC that
  // grants a get by name only) is read by name instead. Throws
  // kube::ApiError when neither read answers.
  std::optional<model::Json> object(const kube::ResourceInfo& resource, const std::string& namespace_name,
                                    const std::string& name);

  // The objects of `resources` in `namespace_name` labelled as owned by
  // `uid`, handed over once a round. The collections this round has not
  // read yet are listed together (concurrently), each once, by the presence
  // of the owner-uid label. Throws kube::ApiError when a list fails.
  std::vector<model::Json> owned(const std::vector<kube::ResourceInfo>& resources,
                                 const std::string& namespace_name, const std::string& uid);

  // `object` as this round's write left it: later reads in the round see it.
  void remember(const kube::ResourceInfo& resource, const model::Json& object);

 private:
  // (group, resource, namespace)
  using CollectionKey = std::tuple<std::string, std::string, std::string>;
  static CollectionKey key_of(const kube::ResourceInfo& resource, const std::string& namespace_name);

  struct Collection {
    bool listable = true;
    std::map<std::string, model::Json> by_name;
  };

  kube::ApiClient& client_;
  std::set<model::GroupVersionKind> reconciled_kinds_;
  std::map<CollectionKey, Collection> collections_;
  // The owned objects of each collection, by owner uid.
  std::map<CollectionKey, std::map<std::string, std::vector<model::Json>>> owned_;
};

}  // namespace opctl::kinds
