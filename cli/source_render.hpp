// How reports show the commit a run was made from: whether it is signed, and
// by whom when --verify-commits checked it. One shape for `opctl fetch`, the
// RunReport and the DiffReport, so a pipeline reads it the same way in each.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "source/desired_source.hpp"

namespace opctl::cli {

// {"format", "verified", "principal", "key"}; format "none" when unsigned.
nlohmann::json signature_json(const source::CommitSigner& signer);

// The report's "source": {"repo", "ref", "commit", "path"} and, for a git
// commit, its "signature".
nlohmann::json source_json(const source::SourceRevision& revision);

// "unsigned", "not verified (ssh signature; --verify-commits is off)" or
// "alice@example.com (ssh key ED25519 SHA256:..., verified)".
std::string signature_text(const source::CommitSigner& signer);

}  // namespace opctl::cli
