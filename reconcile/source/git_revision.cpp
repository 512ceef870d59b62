#include "source/git_revision.hpp"

#include <fmt/format.h>

#include <ctime>

#include "model/error.hpp"
#include "source/git_refs.hpp"

namespace opctl::source {

namespace {

[[noreturn]] void unknown_ref(const std::string& repo, const std::string& why) {
  throw InvalidInputError({Problem{"", 0, "", "repo " + repo + " " + why}});
}

// The commit a reference points at (through annotated tags), or null when absent.
CommitPtr commit_of_reference(git_repository& repository, const std::string& name, const std::string& repo) {
  git_reference* raw = nullptr;
  int code = git_reference_lookup(&raw, &repository, name.c_str());
  if (code == GIT_ENOTFOUND || code == GIT_EINVALIDSPEC) return nullptr;
  check_cache(code, "reference " + name);
  ReferencePtr reference(raw);
  git_object* peeled = nullptr;
  code = git_reference_peel(&peeled, reference.get(), GIT_OBJECT_COMMIT);
  if (code == GIT_EPEEL || code == GIT_EINVALIDSPEC)
    unknown_ref(repo, "has " + name + ", but it does not point at a commit");
  check_cache(code, "reference " + name);
  return CommitPtr(reinterpret_cast<git_commit*>(peeled));
}

CommitPtr commit_by_id(git_repository& repository, const std::string& id, const std::string& repo) {
  git_oid oid;
  if (git_oid_fromstrn(&oid, id.c_str(), id.size()) < 0) return nullptr;
  git_commit* raw = nullptr;
  int code = git_commit_lookup_prefix(&raw, &repository, &oid, id.size());
  if (code == GIT_EAMBIGUOUS)
    unknown_ref(repo, "has more than one commit starting with \"" + id + "\"; give more digits");
  if (code < 0) return nullptr;
  return CommitPtr(raw);
}

std::string default_branch_reference(git_repository& repository, const std::string& default_branch) {
  if (default_branch.starts_with("refs/heads/"))
    return std::string(k_remote_branches) + branch_short_name(default_branch);
  git_reference* raw = nullptr;
  if (git_reference_lookup(&raw, &repository, "refs/remotes/origin/HEAD") < 0) return {};
  ReferencePtr head(raw);
  const char* target = git_reference_symbolic_target(head.get());
  return target ? target : "";
}

}  // namespace

ResolvedRef resolve_ref(git_repository& repository, const std::string& ref, const std::string& default_branch,
                        const std::string& repo_display) {
  if (ref.empty() || ref == "HEAD") {
    std::string name = default_branch_reference(repository, default_branch);
    if (name.empty())
      unknown_ref(repo_display, "has no default branch (its HEAD names no branch); give --ref");
    CommitPtr commit = commit_of_reference(repository, name, repo_display);
    if (!commit) unknown_ref(repo_display, "has no commits on its default branch " + branch_short_name(name));
    return {std::move(commit), branch_short_name(name)};
  }
  RefCandidates candidates = ref_candidates(ref);
  if (candidates.commit_first)
    if (CommitPtr commit = commit_by_id(repository, ref, repo_display)) return {std::move(commit), ref};
  for (const auto& name : candidates.references)
    if (CommitPtr commit = commit_of_reference(repository, name, repo_display))
      return {std::move(commit), ref};
  if (candidates.may_be_commit && !candidates.commit_first)
    if (CommitPtr commit = commit_by_id(repository, ref, repo_display)) return {std::move(commit), ref};
  unknown_ref(repo_display, "has no branch, tag or commit \"" + ref + "\"");
}

std::string rfc3339(std::int64_t seconds, int offset_minutes) {
  std::time_t local = static_cast<std::time_t>(seconds + std::int64_t{offset_minutes} * 60);
  std::tm parts{};
  gmtime_r(&local, &parts);
  std::string zone = "Z";
  if (offset_minutes != 0) {
    int magnitude = offset_minutes < 0 ? -offset_minutes : offset_minutes;
    zone = fmt::format("{}{:02}:{:02}", offset_minutes < 0 ? '-' : '+', magnitude / 60, magnitude % 60);
  }
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{}", parts.tm_year + 1900, parts.tm_mon + 1,
                     parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec, zone);
}

void describe_commit(git_commit& commit, SourceRevision& revision) {
  revision.commit = git_oid_tostr_s(git_commit_id(&commit));
  if (const git_signature* author = git_commit_author(&commit))
    revision.author =
        fmt::format("{} <{}>", author->name ? author->name : "", author->email ? author->email : "");
  // The committer's time: when the change landed on the branch, which is what a deployment follows.
  revision.time = rfc3339(git_commit_time(&commit), git_commit_time_offset(&commit));
  const char* summary = git_commit_summary(&commit);
  revision.subject = summary ? summary : "";
}

std::string short_commit_id(const std::string& full) {
  return full.substr(0, 7);
}

}  // namespace opctl::source
