// The set as a tree of what each member owns, read from the cluster and shown
// as text: shared by `opctl tree` and `opctl status --tree`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "apply/applyset_store.hpp"
#include "apply/ownership_tree.hpp"
#include "kube/api_client.hpp"
#include "model/label_selector.hpp"
#include "model/object.hpp"
#include "plan/applyset.hpp"
#include "terminal.hpp"

namespace opctl::cli {

struct SetTreeInputs {
  kube::ApiClient& client;
  apply::ApplySetStore& store;
  const plan::ApplySetParent& parent;
  const std::optional<model::Json>& parent_object;  // as store.read() found it
  const std::vector<model::Object>& desired;        // the whole set, whatever the selector
  const model::LabelSelector& selector;  // -l: the members it selects and what they own; empty: all
  bool quiet = false;                    // no note on stderr for a kind whose children cannot be listed
};

// The members (read whole, for their health) and, from the set's namespaces,
// the objects whose ownerReferences name one of them, as a tree.
std::vector<apply::TreeWave> read_set_tree(const SetTreeInputs& inputs);

// "ApplySet <parent>", then each wave's objects with their children, one
// column of health for the whole tree.
void print_tree(const std::vector<apply::TreeWave>& waves, const std::string& parent, const Palette& palette);

}  // namespace opctl::cli
