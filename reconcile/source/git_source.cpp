#include "source/git_source.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "model/error.hpp"
#include "source/commit_signature.hpp"
#include "source/git_cache.hpp"
#include "source/git_credentials.hpp"
#include "source/git_fetch.hpp"
#include "source/git_refs.hpp"
#include "source/git_revision.hpp"
#include "source/git_tree.hpp"
#include "source/git_url.hpp"
#include "source/kustomize.hpp"

namespace opctl::source {

namespace fs = std::filesystem;

namespace {

// What every attempt at loading needs, worked out once before touching the cache.
struct GitRequest {
  GitUrl url;
  GitAuth auth;
  std::string ref;
  std::string path;
  std::string context;  // "URL (ref X)" for messages
  CommitVerification verification;
  fs::path cache_entry;
  WarningSink warn;
  std::function<void(const std::string&)> progress;
  std::function<void(const TransferProgress&)> transfer;
  std::function<HelmSettings(const std::vector<ManifestFile>&)> helm_settings_of;
};

[[noreturn]] void invalid(const std::string& message) {
  throw InvalidInputError({Problem{"", 0, "", message}});
}

bool has_commit(git_repository& repository, const std::string& id) {
  git_oid oid;
  git_commit* raw = nullptr;
  if (git_oid_fromstr(&oid, id.c_str()) < 0 || git_commit_lookup(&raw, &repository, &oid) < 0) return false;
  git_commit_free(raw);
  return true;
}

// The kind of --path at the fetched commit: a directory or a file; anything
// else is input the user must fix.
GitTree::PathKind usable_path_kind(const GitTree& tree, const GitRequest& request,
                                   const SourceRevision& revision) {
  auto kind = tree.kind_of(request.path);
  if (kind == GitTree::PathKind::other)
    invalid(fmt::format("repo {} at ref {} (commit {}): path \"{}\" is a symbolic link or submodule",
                        revision.repo, revision.ref, short_commit_id(revision.commit), request.path));
  if (kind == GitTree::PathKind::missing)
    invalid(fmt::format("repo {} at ref {} (commit {}) has no path \"{}\"", revision.repo, revision.ref,
                        short_commit_id(revision.commit), request.path));
  return kind;
}

std::vector<ManifestFile> read_manifests(GitTree& tree, const GitRequest& request,
                                         const SourceRevision& revision) {
  if (usable_path_kind(tree, request, revision) == GitTree::PathKind::file)
    return {ManifestFile{tree.display(request.path), tree.read(request.path)}};
  CollectOptions options{load_ignore_rules(tree, request.path), render_kustomization, request.warn,
                         render_helm_chart, request.helm_settings_of};
  return collect_manifests(tree, request.path, options);
}

// The cache brought up to date and the ref resolved; members in this order so
// the commit is freed before its repository.
struct FetchedCommit {
  RepositoryPtr repository;
  ResolvedRef resolved;
  SourceRevision revision;

  GitTree tree() const {
    return GitTree(*repository, *resolved.commit,
                   revision.repo + "@" + short_commit_id(revision.commit) + ":");
  }
};

FetchedCommit fetch_commit(const GitRequest& request) {
  FetchedCommit out;
  out.repository = open_cache(request.cache_entry, request.url.fetch_url, request.warn);
  FetchResult fetched;
  // A full commit id names immutable content: once cached, no fetch is needed.
  if (!(is_full_commit_id(request.ref) && has_commit(*out.repository, request.ref))) {
    std::function<void(const git_indexer_progress&)> on_transfer;
    TransferProgress transfer{.repo = request.url.display};
    if (request.transfer) {
      // Nothing is heard from libgit2 until the remote answers: say the fetch has begun, so a connection that
      // stalls (a proxy, a firewall dropping packets, an ssh host that does not answer) is not silence.
      request.transfer(transfer);
      on_transfer = [&request, &transfer](const git_indexer_progress& stats) {
        transfer.total_objects = stats.total_objects;
        transfer.received_objects = stats.received_objects;
        transfer.indexed_objects = stats.indexed_objects;
        transfer.total_deltas = stats.total_deltas;
        transfer.indexed_deltas = stats.indexed_deltas;
        transfer.received_bytes = stats.received_bytes;
        request.transfer(transfer);
      };
    }
    fetched = fetch_origin(*out.repository, request.url, request.auth, request.context, on_transfer);
    if (request.transfer) {
      // Also when nothing was new, and libgit2 never reported a total.
      transfer.done = true;
      request.transfer(transfer);
    }
    if (request.progress)
      request.progress(fmt::format("fetched {}: {} new objects into {}", request.url.display,
                                   fetched.received_objects, request.cache_entry.string()));
  }
  out.resolved = resolve_ref(*out.repository, request.ref, fetched.default_branch, request.url.display);
  out.revision.repo = request.url.display;
  out.revision.ref = out.resolved.name;
  out.revision.path = request.path;
  describe_commit(*out.resolved.commit, out.revision);
  if (request.progress)
    request.progress(
        fmt::format("{} is commit {} ({})", request.context, out.revision.commit, out.revision.subject));
  // Before any file of the commit is read: an untrusted commit is never looked into.
  check_commit_signature(*out.repository, *out.resolved.commit, request.verification, out.revision);
  return out;
}

DesiredSource load_from_cache(const GitRequest& request) {
  FetchedCommit fetched = fetch_commit(request);
  GitTree tree = fetched.tree();
  DesiredSource source;
  source.files = read_manifests(tree, request, fetched.revision);
  source.revision = std::move(fetched.revision);
  return source;
}

SourceRevision check_from_cache(const GitRequest& request) {
  FetchedCommit fetched = fetch_commit(request);
  usable_path_kind(fetched.tree(), request, fetched.revision);
  return std::move(fetched.revision);
}

void default_warning(const std::string& message) {
  std::cerr << "warning: " << message << "\n";
}

GitRequest make_request(const SourceOptions& options) {
  GitRequest request;
  request.url = parse_git_url(options.repo, fs::current_path().string());
  if (request.url.transport == GitTransport::https) trust_certificates_from_environment();
  bool local = request.url.transport == GitTransport::local || request.url.transport == GitTransport::file;
  if (local && !fs::exists(request.url.path)) invalid("repo " + request.url.display + " does not exist");
  request.auth = plan_auth(request.url, options.credentials, AuthEnvironment::from_process());
  request.ref = options.ref;
  request.path = normalize_tree_path(options.path);
  request.context =
      request.url.display + " (ref " + (options.ref.empty() ? "default branch" : options.ref) + ")";
  request.verification = options.verification;
  request.cache_entry = cache_root(options.cache_dir, CacheEnvironment::from_process()) /
                        cache_entry_name(request.url.fetch_url);
  request.warn = options.on_warning ? options.on_warning : default_warning;
  request.progress = options.on_progress;
  request.transfer = options.on_transfer;
  request.helm_settings_of = options.helm_settings_of;
  return request;
}

// Runs `use` on the locked cache; a damaged cache is removed and cloned again, once.
template <typename Use>
auto with_cache(const SourceOptions& options, Use use) {
  ensure_libgit2();
  GitRequest request = make_request(options);
  CacheLock lock(request.cache_entry, request.progress);  // held for the fetch and the reads
  for (int attempt = 1;; ++attempt) {
    try {
      return use(request);
    } catch (const CacheCorrupted& damage) {
      if (attempt > 1)
        throw ClusterError("cannot read " + request.context + " after a fresh clone: " + damage.what());
      request.warn("git cache " + request.cache_entry.string() + " is damaged (" + damage.what() +
                   "); removing it and cloning " + request.url.display + " again");
      std::error_code error;
      fs::remove_all(request.cache_entry, error);
    }
  }
}

}  // namespace

std::string normalize_tree_path(const std::string& path) {
  std::string normal = fs::path(path).lexically_normal().generic_string();
  while (normal.starts_with('/'))
    normal.erase(0, 1);
  while (normal.ends_with('/'))
    normal.pop_back();
  if (normal == ".") normal.clear();
  if (normal == ".." || normal.starts_with("../")) invalid("--path \"" + path + "\" leaves the repository");
  return normal;
}

DesiredSource load_git_source(const SourceOptions& options) {
  return with_cache(options, load_from_cache);
}

SourceRevision fetch_git_source(const SourceOptions& options) {
  return with_cache(options, check_from_cache);
}

}  // namespace opctl::source
