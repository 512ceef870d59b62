// SOPS-encrypted manifests, decrypted in memory before anything else reads
// them: a file whose documents carry a `sops` block gets its ENC[...] values
// replaced by their plaintext, in place, so every line keeps its number.
#pragma once

#include <vector>

#include "model/error.hpp"
#include "source/manifest_file.hpp"
#include "source/sops_age.hpp"

namespace opctl::source {

using SopsOptions = sops::AgeIdentities;

// Decrypts each SOPS file among `files` (the others are returned as they
// are) and verifies its MAC. Throws InvalidInputError listing every problem
// of every file: a file that cannot be decrypted, a MAC that does not match
// (the file was changed after it was encrypted), a ciphertext in a file
// without a sops block, and a SOPS file holding anything but Secrets (a diff
// masks only a Secret's values). So a pass stops before anything is applied.
std::vector<ManifestFile> decrypt_sops_files(std::vector<ManifestFile> files, const SopsOptions& options);

}  // namespace opctl::source
