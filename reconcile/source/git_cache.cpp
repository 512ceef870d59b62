#include "source/git_cache.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "model/error.hpp"
#include "source/git_digest.hpp"

namespace opctl::source {

namespace fs = std::filesystem;

namespace {

constexpr const char* k_branch_refspec = "+refs/heads/*:refs/remotes/origin/*";
constexpr const char* k_tag_refspec = "+refs/tags/*:refs/tags/*";

// The cache directory is the user's to choose (--cache-dir, XDG_CACHE_HOME): a failure there is input to fix.
[[noreturn]] void cache_failure(const fs::path& path, const std::string& what) {
  throw InvalidInputError({Problem{"", 0, "", "git cache " + path.string() + ": " + what}});
}

RepositoryPtr create_cache(const fs::path& entry, const std::string& fetch_url) {
  git_repository_init_options options = GIT_REPOSITORY_INIT_OPTIONS_INIT;
  options.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_MKPATH;
  git_repository* raw = nullptr;
  if (int code = git_repository_init_ext(&raw, entry.c_str(), &options); code < 0)
    cache_failure(entry, "cannot create: " + last_git_failure(code).message);
  RepositoryPtr repository(raw);
  git_remote* remote = nullptr;
  int code = git_remote_create_with_fetchspec(&remote, repository.get(), "origin", fetch_url.c_str(),
                                              k_branch_refspec);
  RemotePtr owned(remote);
  if (code >= 0) code = git_remote_add_fetch(repository.get(), "origin", k_tag_refspec);
  if (code < 0) cache_failure(entry, "cannot configure remote: " + last_git_failure(code).message);
  return repository;
}

// Why the cache at `entry` cannot be used for `fetch_url`, or empty when it can.
std::string cache_problem(git_repository* repository, const std::string& fetch_url) {
  if (!git_repository_is_bare(repository)) return "it is not a bare repository";
  git_remote* raw = nullptr;
  if (int code = git_remote_lookup(&raw, repository, "origin"); code < 0)
    return "it has no remote \"origin\" (" + last_git_failure(code).message + ")";
  RemotePtr remote(raw);
  const char* url = git_remote_url(remote.get());
  if (url == nullptr || fetch_url != url) return "it belongs to " + std::string(url ? url : "no URL");
  return {};
}

}  // namespace

CacheEnvironment CacheEnvironment::from_process() {
  auto get = [](const char* name) {
    const char* value = std::getenv(name);
    return std::string(value ? value : "");
  };
  return {get("XDG_CACHE_HOME"), get("HOME")};
}

fs::path cache_root(const std::string& cache_dir, const CacheEnvironment& environment) {
  if (!cache_dir.empty()) return fs::path(cache_dir);
  // The XDG spec says a relative $XDG_CACHE_HOME is invalid and must be ignored.
  if (!environment.xdg_cache_home.empty() && fs::path(environment.xdg_cache_home).is_absolute())
    return fs::path(environment.xdg_cache_home) / "opctl" / "git";
  if (environment.home.empty())
    throw InvalidInputError({Problem{"", 0, "", "neither XDG_CACHE_HOME nor HOME is set: give --cache-dir"}});
  return fs::path(environment.home) / ".cache" / "opctl" / "git";
}

std::string cache_entry_name(std::string_view fetch_url) {
  std::string_view trimmed = fetch_url;
  while (!trimmed.empty() && trimmed.back() == '/')
    trimmed.remove_suffix(1);
  auto start = trimmed.find_last_of("/:");
  std::string_view base = start == std::string_view::npos ? trimmed : trimmed.substr(start + 1);
  if (base.ends_with(".git")) base.remove_suffix(4);
  std::string readable;
  for (char c : base.substr(0, 40))
    readable.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ? c
                                                                                                       : '_');
  if (readable.empty() || readable.starts_with('.')) readable = "repo" + readable;
  return readable + "-" + to_hex(sha256(fetch_url)).substr(0, 32);
}

CacheLock::CacheLock(const fs::path& entry, const std::function<void(const std::string&)>& on_wait) {
  std::error_code error;
  fs::create_directories(entry.parent_path(), error);
  if (error) cache_failure(entry.parent_path(), "cannot create: " + error.message());
  std::string lock_file = entry.string() + ".lock";
  fd_ = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) cache_failure(lock_file, std::string("cannot open lock file: ") + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
  if (on_wait) on_wait("waiting for another opctl run to release " + lock_file);
  while (::flock(fd_, LOCK_EX) < 0) {
    if (errno == EINTR) continue;
    int saved = errno;
    ::close(fd_);
    cache_failure(lock_file, std::string("cannot lock: ") + std::strerror(saved));
  }
}

CacheLock::~CacheLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

RepositoryPtr open_cache(const fs::path& entry, const std::string& fetch_url, const WarningSink& warn) {
  if (!fs::exists(entry)) return create_cache(entry, fetch_url);
  git_repository* raw = nullptr;
  std::string problem;
  if (int code = git_repository_open_bare(&raw, entry.c_str()); code < 0) {
    problem = "it is not a usable git repository (" + last_git_failure(code).message + ")";
  } else {
    RepositoryPtr repository(raw);
    problem = cache_problem(repository.get(), fetch_url);
    if (problem.empty()) return repository;
  }
  warn("git cache " + entry.string() + " is replaced: " + problem + "; cloning " + fetch_url + " again");
  std::error_code error;
  fs::remove_all(entry, error);
  if (error) cache_failure(entry, "cannot remove: " + error.message());
  return create_cache(entry, fetch_url);
}

bool cache_is_readable(git_repository& repository) {
  git_reference_iterator* raw_iterator = nullptr;
  if (git_reference_iterator_new(&raw_iterator, &repository) < 0) return false;
  std::unique_ptr<git_reference_iterator, GitFree<git_reference_iterator_free>> iterator(raw_iterator);
  git_reference* raw = nullptr;
  int code = 0;
  while ((code = git_reference_next(&raw, iterator.get())) == 0) {
    ReferencePtr reference(raw);
    if (git_reference_type(reference.get()) != GIT_REFERENCE_DIRECT) continue;
    git_object* peeled = nullptr;
    if (git_reference_peel(&peeled, reference.get(), GIT_OBJECT_ANY) < 0) return false;
    ObjectPtr target(peeled);
    if (git_object_type(target.get()) != GIT_OBJECT_COMMIT) continue;
    git_tree* tree = nullptr;
    if (git_commit_tree(&tree, reinterpret_cast<git_commit*>(target.get())) < 0) return false;
    TreePtr owned(tree);
  }
  return code == GIT_ITEROVER;
}

}  // namespace opctl::source
