// Where a commit status goes when opctl.yaml does not say: the host and the
// repository path of the source's git URL, as GitHub and GitLab name them.
#pragma once

#include <optional>
#include <string>

namespace opctl::notify {

struct RepositoryUrl {
  std::string scheme;  // "https" (an ssh URL's API is reached over https)
  std::string host;    // with the port of an http(s) URL
  std::string path;    // "owner/repo", "group/subgroup/project": no leading '/', no ".git"
};

// https://host/owner/repo(.git), ssh://git@host[:port]/owner/repo.git and
// git@host:owner/repo.git; nullopt for a local path or anything else.
std::optional<RepositoryUrl> parse_repository_url(const std::string& url);

}  // namespace opctl::notify
