#include "source_render.hpp"

#include <fmt/format.h>

namespace opctl::cli {

nlohmann::json signature_json(const source::CommitSigner& signer) {
  return {{"format", signer.format.empty() ? "none" : signer.format},
          {"verified", signer.verified},
          {"principal", signer.principal},
          {"key", signer.key}};
}

nlohmann::json source_json(const source::SourceRevision& revision) {
  nlohmann::json source = {
      {"repo", revision.repo}, {"ref", revision.ref}, {"commit", revision.commit}, {"path", revision.path}};
  if (!revision.commit.empty()) source["signature"] = signature_json(revision.signer);
  return source;
}

std::string signature_text(const source::CommitSigner& signer) {
  if (signer.format.empty()) return "unsigned";
  if (!signer.verified)
    return fmt::format("not verified ({} signature; --verify-commits is off)", signer.format);
  return fmt::format("{} ({} key {}, verified)", signer.principal, signer.format, signer.key);
}

}  // namespace opctl::cli
