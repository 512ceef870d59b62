#include "kind_defaults.hpp"

namespace opctl::cli {

kinds::BuiltinKindOptions builtin_kind_options(const CommonOptions& options) {
  kinds::BuiltinKindOptions builtin;
  builtin.default_postgres_image = !options.default_postgres_image.empty()
                                       ? options.default_postgres_image
                                       : options.config.cluster_defaults.image_name.value_or("");
  return builtin;
}

kinds::KindRegistry run_registry(const CommonOptions& options) {
  return kinds::make_registry(options.config.kinds, builtin_kind_options(options));
}

}  // namespace opctl::cli
