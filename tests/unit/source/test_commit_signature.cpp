// Commit signatures without a verifier process: what libgit2 reads from a
// commit, the signature formats, the settings that cannot work, and the
// refusals that need no ssh-keygen or gpgv (unsigned, X.509). The verifiers
// themselves run in tests/e2e/test_commit_signatures.py on real signatures.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "model/error.hpp"
#include "source/commit_signature.hpp"
#include "source/git_handles.hpp"
#include "source/git_revision.hpp"

using namespace opctl::source;
namespace fs = std::filesystem;

namespace {

void check(int code) {
  if (code < 0) FAIL("libgit2: " << last_git_failure(code).message);
}

constexpr const char* k_ssh_armor =
    "-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAAAAAQ==\n-----END SSH SIGNATURE-----\n";

// A bare repository holding commits written directly, signed with any text.
struct Repository {
  fs::path dir;
  RepositoryPtr handle;

  Repository() {
    ensure_libgit2();
    char pattern[] = "/tmp/opctl-test-signature-XXXXXX";
    REQUIRE(mkdtemp(pattern) != nullptr);
    dir = pattern;
    git_repository* raw = nullptr;
    check(git_repository_init(&raw, dir.c_str(), 1));
    handle.reset(raw);
  }
  ~Repository() {
    handle.reset();
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }

  // The commit object's text (what a signature signs), for an empty tree.
  std::string commit_text(const std::string& message) {
    git_treebuilder* builder = nullptr;
    check(git_treebuilder_new(&builder, handle.get(), nullptr));
    git_oid tree_id;
    check(git_treebuilder_write(&tree_id, builder));
    git_treebuilder_free(builder);
    git_tree* tree = nullptr;
    check(git_tree_lookup(&tree, handle.get(), &tree_id));
    git_signature* person = nullptr;
    check(git_signature_new(&person, "Ann Author", "ann@example.com", 1700000000, 0));
    GitBuffer text;
    check(git_commit_create_buffer(&text.buffer, handle.get(), person, person, nullptr, message.c_str(), tree,
                                   0, nullptr));
    git_signature_free(person);
    git_tree_free(tree);
    return text.str();
  }

  // A commit of `message` carrying `signature` (none when empty).
  CommitPtr commit(const std::string& message, const std::string& signature) {
    std::string text = commit_text(message);
    git_oid id;
    if (signature.empty())
      id = write_object(text);
    else
      check(git_commit_create_with_signature(&id, handle.get(), text.c_str(), signature.c_str(), nullptr));
    git_commit* raw = nullptr;
    check(git_commit_lookup(&raw, handle.get(), &id));
    return CommitPtr(raw);
  }

  git_oid write_object(const std::string& text) {
    git_odb* odb = nullptr;
    check(git_repository_odb(&odb, handle.get()));
    git_oid id;
    check(git_odb_write(&id, odb, text.data(), text.size(), GIT_OBJECT_COMMIT));
    git_odb_free(odb);
    return id;
  }
};

SourceRevision revision_of(git_commit& commit) {
  SourceRevision revision;
  revision.repo = "https://git.example/deploy.git";
  revision.ref = "main";
  describe_commit(commit, revision);
  return revision;
}

CommitVerification ssh_trust() {
  return {true, "/nonexistent/allowed_signers", ""};
}

}  // namespace

TEST_CASE("signature formats are told apart by their armor", "[commit_signature]") {
  CHECK(signature_format("") == SignatureFormat::none);
  CHECK(signature_format(k_ssh_armor) == SignatureFormat::ssh);
  CHECK(signature_format("-----BEGIN PGP SIGNATURE-----\n\niQ==\n-----END PGP SIGNATURE-----\n") ==
        SignatureFormat::openpgp);
  CHECK(signature_format("-----BEGIN SIGNED MESSAGE-----\nMII=\n") == SignatureFormat::x509);
  CHECK(signature_format("garbage") == SignatureFormat::unknown);
  CHECK(format_name(SignatureFormat::none).empty());
  CHECK(format_name(SignatureFormat::openpgp) == "openpgp");
}

TEST_CASE("the signature and the payload it signs are read from the commit", "[commit_signature]") {
  Repository repository;
  CommitPtr signed_commit = repository.commit("add web\n", k_ssh_armor);
  auto signature = read_commit_signature(*repository.handle, *signed_commit);
  CHECK(signature.format == SignatureFormat::ssh);
  CHECK(signature.signature == k_ssh_armor);
  // The payload is the commit as it was before signing: what `git commit -S` handed to the signer.
  CHECK(signature.payload == repository.commit_text("add web\n"));

  CommitPtr unsigned_commit = repository.commit("unsigned\n", "");
  CHECK(read_commit_signature(*repository.handle, *unsigned_commit).format == SignatureFormat::none);
}

TEST_CASE("without --verify-commits the signer records only whether the commit is signed",
          "[commit_signature]") {
  Repository repository;
  CommitPtr commit = repository.commit("add web\n", k_ssh_armor);
  SourceRevision revision = revision_of(*commit);
  check_commit_signature(*repository.handle, *commit, CommitVerification{}, revision);
  CHECK(revision.signer.format == "ssh");
  CHECK_FALSE(revision.signer.verified);
  CHECK(revision.signer.principal.empty());
}

TEST_CASE("an unsigned commit is refused, naming the commit and saying unsigned", "[commit_signature]") {
  Repository repository;
  CommitPtr commit = repository.commit("add web\n\nlong body\n", "");
  SourceRevision revision = revision_of(*commit);
  std::string short_sha = revision.commit.substr(0, 7);
  try {
    check_commit_signature(*repository.handle, *commit, ssh_trust(), revision);
    FAIL("an unsigned commit was accepted");
  } catch (const opctl::InvalidInputError& error) {
    REQUIRE(error.problems().size() == 1);
    CHECK(error.problems()[0].field == "--verify-commits");
    CHECK(error.problems()[0].message ==
          "repo https://git.example/deploy.git at ref main: commit " + short_sha +
              " (\"add web\") is unsigned; --verify-commits applies only commits signed by a trusted key");
    CHECK(error.category() == opctl::ErrorCategory::invalid_input);
  }
}

TEST_CASE("an X.509 signature is refused: opctl verifies SSH and OpenPGP only", "[commit_signature]") {
  Repository repository;
  CommitPtr commit =
      repository.commit("add web\n", "-----BEGIN SIGNED MESSAGE-----\nMII=\n-----END SIGNED MESSAGE-----\n");
  SourceRevision revision = revision_of(*commit);
  CHECK_THROWS_WITH(check_commit_signature(*repository.handle, *commit, ssh_trust(), revision),
                    Catch::Contains("(\"add web\") carries an X.509 (gpgsm) signature"));
  CHECK(revision.signer.format == "x509");
}

TEST_CASE("verification settings that cannot work are input errors", "[commit_signature]") {
  char pattern[] = "/tmp/opctl-test-trust-XXXXXX";
  REQUIRE(mkdtemp(pattern) != nullptr);
  fs::path dir = pattern;
  std::ofstream(dir / "allowed_signers") << "alice@example.com ssh-ed25519 AAAA\n";
  std::string allowed = (dir / "allowed_signers").string();

  SourceOptions options;
  options.repo = "https://git.example/deploy.git";
  SECTION("trust files without --verify-commits") {
    options.verification = {false, allowed, ""};
    CHECK_THROWS_WITH(check_verification_settings(options),
                      Catch::Contains("only takes effect with --verify-commits"));
  }
  SECTION("--verify-commits without a trust file") {
    options.verification = {true, "", ""};
    CHECK_THROWS_WITH(check_verification_settings(options), Catch::Contains("needs a trust file"));
  }
  SECTION("a trust file that cannot be read names it") {
    options.verification = {true, "", (dir / "missing.gpg").string()};
    CHECK_THROWS_WITH(check_verification_settings(options), Catch::Contains((dir / "missing.gpg").string()) &&
                                                                Catch::Contains("--verify-gpg-keyring"));
  }
  SECTION("a plain directory has no commit to verify") {
    options.repo.clear();
    options.path = dir.string();
    options.verification = {true, allowed, ""};
    CHECK_THROWS_WITH(check_verification_settings(options), Catch::Contains("needs a git source (--repo)"));
  }
  SECTION("a git source with a readable trust file, and no verification at all, are fine") {
    options.verification = {true, allowed, ""};
    CHECK_NOTHROW(check_verification_settings(options));
    options.verification = {};
    CHECK_NOTHROW(check_verification_settings(options));
  }
  fs::remove_all(dir);
}
