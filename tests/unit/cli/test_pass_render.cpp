// The RunReport (JSON and Markdown) says which commit a pass was made from
// and whether its signature was checked, so a pipeline can audit it.
#include <catch2/catch.hpp>

#include "pass_render.hpp"

namespace cli = opctl::cli;
namespace source = opctl::source;
using opctl::apply::PassReport;

namespace {

source::SourceRevision revision_at(const std::string& commit) {
  source::SourceRevision revision;
  revision.repo = "https://git.example/ops.git";
  revision.ref = "main";
  revision.commit = commit;
  revision.subject = "Scale web to 3";
  revision.path = "apps";
  return revision;
}

}  // namespace

TEST_CASE("the run report names the commit's verified signer", "[passrender]") {
  // Given a commit whose SSH signature --verify-commits checked, we should name the principal and the key.
  auto revision = revision_at("0123456789abcdef0123456789abcdef01234567");
  revision.signer = {"ssh", true, "alice@example.com", "ED25519 SHA256:c2lnbmVk"};
  auto json = cli::render_pass_json(PassReport{}, revision);
  CHECK(json["source"]["commit"] == revision.commit);
  CHECK(json["source"]["signature"] == opctl::model::Json{{"format", "ssh"},
                                                          {"verified", true},
                                                          {"principal", "alice@example.com"},
                                                          {"key", "ED25519 SHA256:c2lnbmVk"}});
  CHECK_THAT(cli::render_pass_markdown(PassReport{}, revision),
             Catch::Contains("Signature: alice@example.com (ssh key ED25519 SHA256:c2lnbmVk, verified)\n"));
}

TEST_CASE("the run report says when a commit is unsigned or its signature was not checked", "[passrender]") {
  auto revision = revision_at("0123456789abcdef0123456789abcdef01234567");
  CHECK(cli::render_pass_json(PassReport{}, revision)["source"]["signature"]["format"] == "none");
  CHECK_THAT(cli::render_pass_markdown(PassReport{}, revision), Catch::Contains("Signature: unsigned\n"));

  revision.signer.format = "openpgp";
  auto json = cli::render_pass_json(PassReport{}, revision);
  CHECK(json["source"]["signature"]["format"] == "openpgp");
  CHECK(json["source"]["signature"]["verified"] == false);
  CHECK_THAT(cli::render_pass_markdown(PassReport{}, revision),
             Catch::Contains("Signature: not verified (openpgp signature; --verify-commits is off)\n"));
}

TEST_CASE("a run from a plain directory has no signature in its report", "[passrender]") {
  auto revision = revision_at("");
  revision.repo.clear();
  CHECK_FALSE(cli::render_pass_json(PassReport{}, revision)["source"].contains("signature"));
  CHECK_THAT(cli::render_pass_markdown(PassReport{}, revision), !Catch::Contains("Signature:"));
}
