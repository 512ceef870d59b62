#include "kinds/postgres_image.hpp"

namespace opctl::kinds {

std::string postgres_image_or_default(const std::string& site_default) {
  return site_default.empty() ? std::string(k_default_postgres_image) : site_default;
}

std::string build_postgres_image_advice() {
  return "build deploy/postgresql.Dockerfile (after deploy/Dockerfile, see its header), push it to a "
         "registry the nodes pull from (docker build -f deploy/postgresql.Dockerfile -t "
         "REGISTRY/postgresql:15-0.1.0 . && docker push REGISTRY/postgresql:15-0.1.0), and name it in "
         "spec.imageName or once as the site default (opctl.yaml spec.clusterDefaults.imageName, or "
         "--default-postgres-image)";
}

}  // namespace opctl::kinds
