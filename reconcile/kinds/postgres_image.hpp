// The PostgreSQL instance image a Cluster runs when its spec names none, and
// that a Backup's Jobs run when its Cluster cannot be read: one name, so a
// Backup never runs other binaries than the instances it backs up.
//
// No public registry serves the built-in name: a site builds
// deploy/postgresql.Dockerfile, pushes it, and says so once as its default
// (opctl.yaml spec.clusterDefaults.imageName, --default-postgres-image).
#pragma once

#include <string>

namespace opctl::kinds {

inline constexpr const char* k_default_postgres_image = "ghcr.io/opctl/postgresql:15-0.1.0";

// The site default when one is set, else k_default_postgres_image.
std::string postgres_image_or_default(const std::string& site_default);

// How to make an instance image a registry serves, for the warning of a
// Cluster that relies on the built-in name and for a Cluster whose Pod cannot
// pull its image: build, push, and name it.
std::string build_postgres_image_advice();

}  // namespace opctl::kinds
