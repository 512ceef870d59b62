// The labels and metadata every object `opctl install` makes carries, so
// `kubectl get all -l app.kubernetes.io/name=opctl` finds them.
#pragma once

#include <string>

#include "install/install_options.hpp"
#include "model/object.hpp"

namespace opctl::install {

model::Json install_labels(const InstallOptions& options);
// metadata with name, labels and (when not empty) namespace.
model::Json install_metadata(const InstallOptions& options, const std::string& name,
                             const std::string& namespace_name);

}  // namespace opctl::install
