// The git source end to end on local repositories built with libgit2 (no
// network, no git binary): refs, paths, ignore files, the cache and its repair,
// and the revision of a plain directory inside a work tree.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>

#include "model/error.hpp"
#include "source/desired_source.hpp"
#include "source/git_handles.hpp"
#include "source/git_source.hpp"

using namespace opctl::source;
namespace fs = std::filesystem;

namespace {

using Files = std::map<std::string, std::string>;

void check_git(int code) {
  if (code < 0) FAIL("libgit2: " << last_git_failure(code).message);
}

// Writes `files` (paths with '/') as nested trees; returns the root tree's id.
git_oid write_tree(git_repository* repository, const Files& files) {
  std::map<std::string, Files> directories;
  git_treebuilder* builder = nullptr;
  check_git(git_treebuilder_new(&builder, repository, nullptr));
  for (const auto& [path, content] : files) {
    auto slash = path.find('/');
    if (slash != std::string::npos) {
      directories[path.substr(0, slash)][path.substr(slash + 1)] = content;
      continue;
    }
    git_oid blob;
    check_git(git_blob_create_from_buffer(&blob, repository, content.data(), content.size()));
    check_git(git_treebuilder_insert(nullptr, builder, path.c_str(), &blob, GIT_FILEMODE_BLOB));
  }
  for (const auto& [name, below] : directories) {
    git_oid subtree = write_tree(repository, below);
    check_git(git_treebuilder_insert(nullptr, builder, name.c_str(), &subtree, GIT_FILEMODE_TREE));
  }
  git_oid tree;
  check_git(git_treebuilder_write(&tree, builder));
  git_treebuilder_free(builder);
  return tree;
}

// A bare "remote" repository the tests commit to directly.
struct Upstream {
  fs::path dir;
  RepositoryPtr repository;

  explicit Upstream(fs::path path) : dir(std::move(path)) {
    ensure_libgit2();
    git_repository* raw = nullptr;
    check_git(git_repository_init(&raw, dir.c_str(), 1));
    repository.reset(raw);
    check_git(git_repository_set_head(raw, "refs/heads/main"));
  }

  // Commits `files` on `branch`, on top of its tip unless `parentless` (a force push).
  std::string commit(const Files& files, const std::string& message, const std::string& branch = "main",
                     bool parentless = false) {
    git_oid tree_id = write_tree(repository.get(), files);
    git_tree* tree = nullptr;
    check_git(git_tree_lookup(&tree, repository.get(), &tree_id));
    git_signature* signature = nullptr;
    check_git(git_signature_new(&signature, "Ann Author", "ann@example.com", 1700000000, 120));
    git_commit* parent = nullptr;
    git_oid parent_id;
    std::string ref = "refs/heads/" + branch;
    if (!parentless && git_reference_name_to_id(&parent_id, repository.get(), ref.c_str()) == 0)
      check_git(git_commit_lookup(&parent, repository.get(), &parent_id));
    const git_commit* parents[] = {parent};
    git_oid id;
    check_git(git_commit_create(&id, repository.get(), nullptr, signature, signature, nullptr,
                                message.c_str(), tree, parent ? 1 : 0, parents));
    git_reference* reference = nullptr;
    check_git(git_reference_create(&reference, repository.get(), ref.c_str(), &id, 1, "test"));
    git_reference_free(reference);
    git_commit_free(parent);
    git_signature_free(signature);
    git_tree_free(tree);
    return git_oid_tostr_s(&id);
  }

  void tag(const std::string& name, const std::string& commit_id) {
    git_oid id;
    check_git(git_oid_fromstr(&id, commit_id.c_str()));
    git_object* target = nullptr;
    check_git(git_object_lookup(&target, repository.get(), &id, GIT_OBJECT_COMMIT));
    git_signature* signature = nullptr;
    check_git(git_signature_new(&signature, "Tagger", "t@example.com", 1700000000, 0));
    git_oid tag_id;
    check_git(git_tag_create(&tag_id, repository.get(), name.c_str(), target, signature, "release", 1));
    git_signature_free(signature);
    git_object_free(target);
  }
};

struct Sandbox {
  fs::path root = fs::temp_directory_path() / ("opctl-git-test-" + std::to_string(::getpid()));
  Upstream upstream{root / "upstream.git"};
  std::vector<std::string> warnings;

  ~Sandbox() { fs::remove_all(root); }

  SourceOptions options(const std::string& ref = "", const std::string& path = "") {
    SourceOptions options;
    options.repo = "file://" + upstream.dir.string();
    options.ref = ref;
    options.path = path;
    options.cache_dir = (root / "cache").string();
    options.on_warning = [this](const std::string& message) { warnings.push_back(message); };
    return options;
  }

  std::vector<std::string> paths(const DesiredSource& source) const {
    std::vector<std::string> out;
    for (const auto& file : source.files)
      out.push_back(file.path.substr(file.path.find(':', 8) + 1));
    return out;
  }

  fs::path cache_entry() const {
    for (const auto& entry : fs::directory_iterator(root / "cache"))
      if (entry.is_directory()) return entry.path();
    return {};
  }
};

const std::string k_config_map = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n";

ino_t inode_of(const fs::path& path) {
  struct stat status {};
  ::stat(path.c_str(), &status);
  return status.st_ino;
}

std::string error_of(const SourceOptions& options) {
  try {
    load_desired_source(options);
  } catch (const opctl::Error& error) {
    return error.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("the default branch is read from the commit's tree with its revision", "[git_source]") {
  // Given a repository with manifests and other files, we should read the manifests of main's tip.
  Sandbox sandbox;
  std::string sha = sandbox.upstream.commit(
      {{"apps/cm.yaml", k_config_map}, {"apps/readme.md", "x"}, {"apps/z.json", "{}"}, {"top.yml", "a: 1"}},
      "Add the app\n\nWith a body.");
  auto source = load_desired_source(sandbox.options("", "apps/"));
  CHECK(sandbox.paths(source) == std::vector<std::string>{"apps/cm.yaml", "apps/z.json"});
  CHECK(source.files[0].content == k_config_map);
  CHECK(source.files[0].path ==
        "file://" + sandbox.upstream.dir.string() + "@" + sha.substr(0, 7) + ":apps/cm.yaml");
  const auto& revision = source.revision;
  CHECK(revision.commit == sha);
  CHECK(revision.ref == "main");
  CHECK(revision.path == "apps");
  CHECK(revision.author == "Ann Author <ann@example.com>");
  CHECK(revision.time == "2023-11-15T00:13:20+02:00");
  CHECK(revision.subject == "Add the app");
  CHECK(revision.annotation() == "file://" + sandbox.upstream.dir.string() + "@" + sha + ":apps");
}

TEST_CASE("branches, tags, full and short commit ids resolve", "[git_source]") {
  Sandbox sandbox;
  std::string first = sandbox.upstream.commit({{"a.yaml", "1"}}, "first");
  sandbox.upstream.tag("v1", first);
  std::string second = sandbox.upstream.commit({{"a.yaml", "2"}}, "second");
  std::string feature = sandbox.upstream.commit({{"f.yaml", "f"}}, "feature", "feature/x");
  CHECK(load_desired_source(sandbox.options("v1")).revision.commit == first);
  CHECK(load_desired_source(sandbox.options("refs/tags/v1")).revision.commit == first);
  CHECK(load_desired_source(sandbox.options("main")).revision.commit == second);
  CHECK(load_desired_source(sandbox.options("feature/x")).revision.commit == feature);
  CHECK(load_desired_source(sandbox.options("refs/heads/feature/x")).revision.commit == feature);
  CHECK(load_desired_source(sandbox.options(first.substr(0, 8))).revision.commit == first);
  CHECK(load_desired_source(sandbox.options(first)).revision.commit == first);
}

TEST_CASE("unknown refs and missing paths are input errors naming repo and ref", "[git_source]") {
  Sandbox sandbox;
  sandbox.upstream.commit({{"a.yaml", "1"}}, "first");
  CHECK_THROWS_AS(load_desired_source(sandbox.options("nope")), opctl::InvalidInputError);
  CHECK_THAT(error_of(sandbox.options("nope")), Catch::Equals("repo file://" + sandbox.upstream.dir.string() +
                                                              " has no branch, tag or commit \"nope\""));
  CHECK_THAT(error_of(sandbox.options("main", "missing")), Catch::Contains("at ref main (commit "));
  CHECK_THAT(error_of(sandbox.options("main", "missing")), Catch::Contains("has no path \"missing\""));
  CHECK_THAT(error_of(sandbox.options("main", "../up")), Catch::Contains("leaves the repository"));
  auto options = sandbox.options();
  options.repo = (sandbox.root / "nothing-here").string();
  CHECK_THAT(error_of(options), Catch::EndsWith("does not exist"));
}

TEST_CASE("new commits and force pushes are fetched into the same cache", "[git_source]") {
  // Given a cached clone, we should see a new commit and then a rewritten branch without re-cloning.
  Sandbox sandbox;
  sandbox.upstream.commit({{"a.yaml", "1"}}, "first");
  load_desired_source(sandbox.options());
  fs::path entry = sandbox.cache_entry();
  auto inode = inode_of(entry / "objects");
  std::string second = sandbox.upstream.commit({{"a.yaml", "2"}}, "second");
  CHECK(load_desired_source(sandbox.options()).revision.commit == second);
  std::string rewritten = sandbox.upstream.commit({{"b.yaml", "b"}}, "rewritten", "main", true);
  auto source = load_desired_source(sandbox.options());
  CHECK(source.revision.commit == rewritten);
  CHECK(sandbox.paths(source) == std::vector<std::string>{"b.yaml"});
  CHECK(sandbox.cache_entry() == entry);
  CHECK(inode_of(entry / "objects") == inode);
  CHECK(sandbox.warnings.empty());
}

TEST_CASE("deleted branches and moved tags upstream are not served from the cache", "[git_source]") {
  // Given a cached branch that is deleted and a tag that is moved upstream, we should follow the remote.
  Sandbox sandbox;
  std::string first = sandbox.upstream.commit({{"a.yaml", "1"}}, "first");
  sandbox.upstream.tag("v1", first);
  sandbox.upstream.commit({{"b.yaml", "b"}}, "topic", "topic");
  load_desired_source(sandbox.options("topic"));
  CHECK(load_desired_source(sandbox.options("v1")).revision.commit == first);

  git_reference* topic = nullptr;
  check_git(git_reference_lookup(&topic, sandbox.upstream.repository.get(), "refs/heads/topic"));
  check_git(git_reference_delete(topic));
  git_reference_free(topic);
  std::string second = sandbox.upstream.commit({{"a.yaml", "2"}}, "second");
  check_git(git_tag_delete(sandbox.upstream.repository.get(), "v1"));
  sandbox.upstream.tag("v1", second);

  CHECK_THAT(error_of(sandbox.options("topic")), Catch::Contains("has no branch, tag or commit \"topic\""));
  CHECK(load_desired_source(sandbox.options("v1")).revision.commit == second);
}

TEST_CASE("a damaged cache is removed and cloned again with a warning", "[git_source]") {
  Sandbox sandbox;
  std::string sha = sandbox.upstream.commit({{"a.yaml", "1"}}, "first");
  load_desired_source(sandbox.options());
  fs::path entry = sandbox.cache_entry();
  SECTION("a missing HEAD") {
    fs::remove(entry / "HEAD");
  }
  SECTION("truncated packs and objects") {
    for (const auto& file : fs::recursive_directory_iterator(entry / "objects"))
      if (file.is_regular_file()) fs::resize_file(file.path(), 10);
  }
  SECTION("another URL's cache") {
    std::ofstream(entry / "config", std::ios::app)
        << "[remote \"origin\"]\n\turl = https://elsewhere/x.git\n";
  }
  auto source = load_desired_source(sandbox.options());
  CHECK(source.revision.commit == sha);
  REQUIRE(sandbox.warnings.size() == 1);
  CHECK_THAT(sandbox.warnings[0], Catch::StartsWith("git cache " + entry.string()));
  CHECK(load_desired_source(sandbox.options()).revision.commit == sha);
  CHECK(sandbox.warnings.size() == 1);
}

TEST_CASE(".opctlignore is honoured in git trees", "[git_source]") {
  Sandbox sandbox;
  sandbox.upstream.commit({{".opctlignore", "/apps/tests/\n"},
                           {"apps/.opctlignore", "*.draft.yaml\n"},
                           {"apps/a.yaml", "a"},
                           {"apps/b.draft.yaml", "b"},
                           {"apps/tests/t.yaml", "t"}},
                          "ignore");
  CHECK(sandbox.paths(load_desired_source(sandbox.options("", "apps"))) ==
        std::vector<std::string>{"apps/a.yaml"});
}

TEST_CASE("a single file may be the path", "[git_source]") {
  Sandbox sandbox;
  sandbox.upstream.commit({{"apps/a.yaml", "a"}}, "first");
  CHECK(sandbox.paths(load_desired_source(sandbox.options("", "apps/a.yaml"))) ==
        std::vector<std::string>{"apps/a.yaml"});
}

TEST_CASE("a plain directory in a work tree carries the work tree's revision", "[git_source]") {
  // Given a checkout (a non-bare repository), we should report HEAD and mark uncommitted changes as dirty.
  Sandbox sandbox;
  fs::path work = sandbox.root / "work";
  git_repository* raw = nullptr;
  check_git(git_repository_init(&raw, work.c_str(), 0));
  RepositoryPtr repository(raw);
  fs::create_directories(work / "deploy");
  std::ofstream(work / "deploy" / "cm.yaml") << k_config_map;
  git_index* index = nullptr;
  check_git(git_repository_index(&index, raw));
  check_git(git_index_add_bypath(index, "deploy/cm.yaml"));
  check_git(git_index_write(index));
  git_oid tree_id, commit_id;
  check_git(git_index_write_tree(&tree_id, index));
  git_index_free(index);
  git_tree* tree = nullptr;
  check_git(git_tree_lookup(&tree, raw, &tree_id));
  git_signature* signature = nullptr;
  check_git(git_signature_new(&signature, "Ann", "ann@example.com", 1700000000, 0));
  check_git(git_commit_create(&commit_id, raw, "HEAD", signature, signature, nullptr, "checkout", tree, 0,
                              nullptr));
  git_signature_free(signature);
  git_tree_free(tree);
  git_remote* remote = nullptr;
  check_git(git_remote_create(&remote, raw, "origin", "https://user:pw@git.example.com/team/repo.git"));
  git_remote_free(remote);

  SourceOptions options;
  options.path = (work / "deploy").string();
  auto clean = load_desired_source(options);
  CHECK(clean.revision.commit == git_oid_tostr_s(&commit_id));
  CHECK(clean.revision.repo == "https://git.example.com/team/repo.git");
  CHECK(clean.revision.path == "deploy");
  CHECK(clean.revision.subject == "checkout");
  CHECK_FALSE(clean.revision.ref.empty());
  std::ofstream(work / "deploy" / "new.yaml") << k_config_map;
  CHECK(load_desired_source(options).revision.commit == std::string(git_oid_tostr_s(&commit_id)) + "-dirty");
}

TEST_CASE("tree paths are normalised", "[git_source]") {
  CHECK(normalize_tree_path("./a//b/") == "a/b");
  CHECK(normalize_tree_path("/") == "");
  CHECK(normalize_tree_path(".") == "");
  CHECK(normalize_tree_path("a/../b") == "b");
  CHECK_THROWS_AS(normalize_tree_path("a/../../b"), opctl::InvalidInputError);
}

TEST_CASE("a fetch reports its transfer progress until every object arrived", "[git_source]") {
  // Given a repository the cache lacks, we should hear the objects arrive, ending with all of them.
  Sandbox sandbox;
  sandbox.upstream.commit({{"a.yaml", k_config_map}, {"b/c.yaml", k_config_map + "# c\n"}}, "first");
  std::vector<TransferProgress> reports;
  auto options = sandbox.options();
  options.on_transfer = [&reports](const TransferProgress& progress) { reports.push_back(progress); };
  load_desired_source(options);
  REQUIRE(reports.size() >= 2);
  CHECK(reports.front().total_objects == 0);  // the fetch began: nothing heard from the remote yet
  CHECK_FALSE(reports.front().done);
  const TransferProgress& last = reports.back();
  CHECK(last.done);
  CHECK(last.repo == "file://" + sandbox.upstream.dir.string());
  CHECK(last.total_objects >= 5);  // a commit, two trees and two blobs
  CHECK(last.received_objects == last.total_objects);
  CHECK(last.indexed_objects == last.total_objects);
  CHECK(last.received_bytes > 0);
  for (std::size_t i = 1; i < reports.size(); ++i)
    CHECK(reports[i].received_objects >= reports[i - 1].received_objects);
}
