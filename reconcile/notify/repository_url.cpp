#include "notify/repository_url.hpp"

#include <regex>

namespace opctl::notify {
namespace {

std::string trimmed_path(std::string path) {
  while (!path.empty() && path.back() == '/')
    path.pop_back();
  if (path.ends_with(".git")) path.resize(path.size() - 4);
  while (!path.empty() && path.front() == '/')
    path.erase(0, 1);
  return path;
}

}  // namespace

std::optional<RepositoryUrl> parse_repository_url(const std::string& url) {
  // User information is skipped, never kept: the URL may carry a credential.
  static const std::regex k_http(R"((https?)://(?:[^@/]*@)?([^/]+)/(.+))");
  static const std::regex k_ssh(R"(ssh://(?:[^@/]*@)?([^/:]+)(?::\d+)?/(.+))");
  static const std::regex k_scp(R"((?:[^@/]+@)?([^/:]+):([^/].*))");
  std::smatch match;
  RepositoryUrl found;
  if (std::regex_match(url, match, k_http)) {
    found = {match[1], match[2], trimmed_path(match[3])};
  } else if (std::regex_match(url, match, k_ssh) || std::regex_match(url, match, k_scp)) {
    found = {"https", match[1], trimmed_path(match[2])};
  } else {
    return std::nullopt;
  }
  if (found.path.find('/') == std::string::npos) return std::nullopt;
  return found;
}

}  // namespace opctl::notify
