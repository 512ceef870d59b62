#include "source/git_fetch.hpp"

#include "model/error.hpp"
#include "source/git_cache.hpp"
#include "source/git_refs.hpp"

namespace opctl::source {

namespace {

[[noreturn]] void fetch_failed(git_repository& repository, int code, const AuthSession& session,
                               const std::string& context) {
  GitFailure failure = last_git_failure(code);
  std::string reason = session.failure.empty() ? failure.message : session.failure;
  // The cache's own objects are read while negotiating; if those are damaged, clone again.
  if (session.failure.empty() && !cache_is_readable(repository))
    throw CacheCorrupted("fetch failed (" + one_line(reason, *session.auth) + ")");
  if (failure.code == GIT_ECERTIFICATE && session.failure.empty())
    reason += " (for a private certificate authority, set SSL_CERT_FILE to its certificate)";
  throw ClusterError("cannot fetch " + context + ": " + one_line(reason, *session.auth));
}

void remember_default_branch(git_repository& repository, const std::string& default_branch) {
  if (!default_branch.starts_with("refs/heads/")) return;
  std::string target = std::string(k_remote_branches) + branch_short_name(default_branch);
  git_reference* raw = nullptr;
  if (git_reference_symbolic_create(&raw, &repository, "refs/remotes/origin/HEAD", target.c_str(), 1,
                                    "opctl: remote HEAD") == 0)
    git_reference_free(raw);
}

// libgit2 calls this for every chunk of the pack; a progress observer must never stop the fetch.
int transfer_progress(const git_indexer_progress* stats, void* payload) {
  auto& session = *static_cast<AuthSession*>(payload);
  try {
    if (session.on_transfer && stats != nullptr) session.on_transfer(*stats);
  } catch (...) {  // NOLINT(bugprone-empty-catch): showing progress is best effort
  }
  return 0;
}

}  // namespace

std::string one_line(const std::string& message, const GitAuth& auth) {
  std::string text;
  bool blank = false;
  for (char c : message) {
    bool space = c == '\n' || c == '\r' || c == '\t' || c == ' ';
    if (space && !text.empty()) blank = true;
    if (space) continue;
    if (blank) text.push_back(' ');
    blank = false;
    text.push_back(c);
  }
  return redact_credentials(text, auth.secrets);
}

FetchResult fetch_origin(git_repository& repository, const GitUrl& url, const GitAuth& auth,
                         const std::string& context,
                         const std::function<void(const git_indexer_progress&)>& on_transfer) {
  git_remote* raw = nullptr;
  check_cache(git_remote_lookup(&raw, &repository, "origin"), "remote origin");
  RemotePtr remote(raw);
  AuthSession session;
  session.url = &url;
  session.auth = &auth;
  session.on_transfer = on_transfer;
  git_remote_callbacks callbacks = auth_callbacks(session);
  callbacks.transfer_progress = transfer_progress;
  git_proxy_options proxy = GIT_PROXY_OPTIONS_INIT;
  proxy.type = GIT_PROXY_AUTO;  // http(s)_proxy / no_proxy from the environment, as git does
  if (int code = git_remote_connect(remote.get(), GIT_DIRECTION_FETCH, &callbacks, &proxy, nullptr); code < 0)
    fetch_failed(repository, code, session, context);

  FetchResult result;
  GitBuffer head;
  if (git_remote_default_branch(&head.buffer, remote.get()) == 0) result.default_branch = head.str();

  git_fetch_options options = GIT_FETCH_OPTIONS_INIT;
  options.callbacks = callbacks;
  options.proxy_opts = proxy;
  options.prune = GIT_FETCH_PRUNE;                        // deleted branches and tags do not linger
  options.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;  // the tag refspec fetches every tag already
  if (int code = git_remote_fetch(remote.get(), nullptr, &options, "opctl: fetch"); code < 0)
    fetch_failed(repository, code, session, context);
  const git_indexer_progress* stats = git_remote_stats(remote.get());
  result.received_objects = stats->received_objects;
  remember_default_branch(repository, result.default_branch);
  return result;
}

}  // namespace opctl::source
