// The PostgreSQL instance image a Cluster runs when its spec names none, and
// that a Backup's Jobs run when its Cluster cannot be read: one name, so a
// Backup never runs other binaries than the instances it backs up.
#pragma once

namespace opctl::kinds {

inline constexpr const char* k_default_postgres_image = "ghcr.io/opctl/postgresql:15-0.1.0";

}  // namespace opctl::kinds
