#include "install/object_metadata.hpp"

namespace opctl::install {

model::Json install_labels(const InstallOptions& options) {
  return {{"app.kubernetes.io/name", "opctl"}, {"app.kubernetes.io/instance", options.config_name}};
}

model::Json install_metadata(const InstallOptions& options, const std::string& name,
                             const std::string& namespace_name) {
  model::Json metadata = {{"name", name}, {"labels", install_labels(options)}};
  if (!namespace_name.empty()) metadata["namespace"] = namespace_name;
  return metadata;
}

}  // namespace opctl::install
