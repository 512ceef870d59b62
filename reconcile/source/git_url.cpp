#include "source/git_url.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>

#include "model/ascii_case.hpp"
#include "model/error.hpp"

namespace opctl::source {

namespace {

[[noreturn]] void malformed(std::string_view repo, std::string_view why) {
  throw InvalidInputError(
      {Problem{"", 0, "", "--repo " + redact_credentials(repo) + ": " + std::string(why)}});
}

std::string percent_decode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    int value = 0;
    if (text[i] == '%' && i + 2 < text.size() &&
        std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16).ptr == text.data() + i + 3) {
      out.push_back(static_cast<char>(value));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// Splits "user:password@host:port" into its parts; the host may be [v6].
void split_authority(std::string_view repo, std::string_view authority, GitUrl& url) {
  if (auto at = authority.rfind('@'); at != std::string_view::npos) {
    std::string_view userinfo = authority.substr(0, at);
    authority.remove_prefix(at + 1);
    auto colon = userinfo.find(':');
    url.username = percent_decode(userinfo.substr(0, colon));
    if (colon != std::string_view::npos) url.password = percent_decode(userinfo.substr(colon + 1));
  }
  std::string_view port;
  if (authority.starts_with('[')) {
    auto close = authority.find(']');
    if (close == std::string_view::npos) malformed(repo, "unterminated [ in the host");
    url.host = std::string(authority.substr(1, close - 1));
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') malformed(repo, "unexpected text after ]");
      port = authority.substr(close + 2);
    }
  } else {
    auto colon = authority.find(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (url.host.empty()) malformed(repo, "no host");
  if (!port.empty()) {
    auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), url.port);
    if (error != std::errc() || end != port.data() + port.size() || url.port <= 0 || url.port > 65535)
      malformed(repo, "invalid port");
  }
}

std::string host_and_port(const GitUrl& url) {
  std::string host = url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
  return url.port > 0 ? host + ":" + std::to_string(url.port) : host;
}

GitUrl parse_scheme_url(std::string_view repo, std::string_view scheme, std::string_view rest) {
  GitUrl url;
  std::string name = model::ascii_lower(scheme);
  if (name == "https")
    url.transport = GitTransport::https;
  else if (name == "http")
    url.transport = GitTransport::http;
  else if (name == "ssh" || name == "git+ssh" || name == "ssh+git")
    url.transport = GitTransport::ssh;
  else if (name == "git")
    url.transport = GitTransport::git;
  else if (name == "file")
    url.transport = GitTransport::file;
  else
    malformed(repo, "unsupported scheme \"" + name + "\" (use https, http, ssh, git or file)");
  if (url.transport == GitTransport::file) {
    url.path = percent_decode(rest);
    url.fetch_url = url.display = "file://" + std::string(rest);
    return url;
  }
  auto slash = rest.find('/');
  split_authority(repo, rest.substr(0, slash), url);
  url.path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  bool keep_user = url.transport == GitTransport::ssh && !url.username.empty();
  url.fetch_url = name + "://" + (keep_user ? url.username + "@" : "") + host_and_port(url) + url.path;
  url.display = url.fetch_url;
  return url;
}

// user@host:path, as scp and git understand it: a colon before any slash.
bool is_scp_like(std::string_view repo) {
  auto colon = repo.find(':');
  auto slash = repo.find('/');
  return colon != std::string_view::npos && colon > 0 && (slash == std::string_view::npos || colon < slash);
}

GitUrl parse_scp_like(std::string_view repo) {
  GitUrl url;
  url.transport = GitTransport::ssh;
  auto colon = repo.find(':');
  std::string_view authority = repo.substr(0, colon);
  if (auto bracket = repo.find(']'); authority.starts_with('[') && bracket != std::string_view::npos) {
    colon = repo.find(':', bracket);
    authority = repo.substr(0, colon);
  }
  if (auto at = authority.rfind('@'); at != std::string_view::npos) {
    url.username = std::string(authority.substr(0, at));
    authority.remove_prefix(at + 1);
  }
  url.host = std::string(authority.starts_with('[') ? authority.substr(1, authority.size() - 2) : authority);
  if (url.host.empty() || colon == std::string_view::npos) malformed(repo, "no host");
  url.path = std::string(repo.substr(colon + 1));
  if (url.path.empty()) malformed(repo, "no path after the colon");
  url.fetch_url = (url.username.empty() ? "" : url.username + "@") + std::string(authority) + ":" + url.path;
  url.display = url.fetch_url;
  return url;
}

}  // namespace

GitUrl parse_git_url(std::string_view repo, std::string_view cwd) {
  if (repo.empty()) malformed(repo, "empty");
  if (auto separator = repo.find("://"); separator != std::string_view::npos)
    return parse_scheme_url(repo, repo.substr(0, separator), repo.substr(separator + 3));
  if (is_scp_like(repo)) return parse_scp_like(repo);
  GitUrl url;
  url.transport = GitTransport::local;
  std::filesystem::path path(repo);
  if (path.is_relative()) path = std::filesystem::path(cwd) / path;
  url.path = path.lexically_normal().string();
  if (url.path.size() > 1 && url.path.ends_with('/')) url.path.pop_back();
  url.fetch_url = url.display = url.path;
  return url;
}

int ssh_port(const GitUrl& url) {
  return url.port > 0 ? url.port : 22;
}

}  // namespace opctl::source
