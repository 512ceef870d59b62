#include "source/git_known_hosts.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "model/ascii_case.hpp"
#include "model/base64.hpp"
#include "source/git_digest.hpp"

namespace opctl::source {

namespace {

std::vector<std::string> split_words(std::string_view line) {
  std::istringstream stream{std::string(line)};
  std::vector<std::string> words;
  for (std::string word; stream >> word;)
    words.push_back(word);
  return words;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::istringstream stream(text);
  for (std::string part; std::getline(stream, part, ',');)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

// OpenSSH's match_pattern: '*' any run, '?' any one character.
bool wildcard_match(std::string_view pattern, std::string_view text) {
  if (pattern.empty()) return text.empty();
  if (pattern[0] == '*') {
    for (std::size_t skip = 0; skip <= text.size(); ++skip)
      if (wildcard_match(pattern.substr(1), text.substr(skip))) return true;
    return false;
  }
  if (text.empty()) return false;
  if (pattern[0] != '?' && pattern[0] != text[0]) return false;
  return wildcard_match(pattern.substr(1), text.substr(1));
}

bool hashed_match(std::string_view pattern, const std::string& name) {
  // |1|base64(salt)|base64(HMAC-SHA1(salt, name))
  auto separator = pattern.find('|', 3);
  if (!pattern.starts_with("|1|") || separator == std::string_view::npos) return false;
  auto salt = model::base64_decode(pattern.substr(3, separator - 3));
  auto hash = model::base64_decode(pattern.substr(separator + 1));
  return salt && hash && hmac_sha1(*salt, name) == *hash;
}

bool pattern_matches(std::string_view pattern, const std::string& name) {
  if (pattern.starts_with('|')) return hashed_match(pattern, name);
  return wildcard_match(model::ascii_lower(pattern), name);
}

}  // namespace

std::optional<KnownHost> parse_known_hosts_line(std::string_view line) {
  auto words = split_words(line);
  if (words.empty() || words[0].starts_with('#')) return std::nullopt;
  KnownHost entry;
  std::size_t first = 0;
  if (words[0] == "@cert-authority")
    entry.marker = KnownHost::Marker::cert_authority, first = 1;
  else if (words[0] == "@revoked")
    entry.marker = KnownHost::Marker::revoked, first = 1;
  else if (words[0].starts_with('@'))
    return std::nullopt;
  if (words.size() < first + 3) return std::nullopt;
  auto key = model::base64_decode(words[first + 2]);
  if (!key || key_blob_type(*key) != words[first + 1]) return std::nullopt;
  entry.patterns = split_commas(words[first]);
  entry.key_type = words[first + 1];
  entry.key = std::move(*key);
  return entry;
}

std::vector<KnownHost> parse_known_hosts(std::string_view text) {
  std::vector<KnownHost> entries;
  std::istringstream stream{std::string(text)};
  for (std::string line; std::getline(stream, line);)
    if (auto entry = parse_known_hosts_line(line)) entries.push_back(std::move(*entry));
  return entries;
}

std::string known_hosts_name(std::string_view host, int port) {
  std::string name = model::ascii_lower(host);
  return port == 22 || port <= 0 ? name : "[" + name + "]:" + std::to_string(port);
}

bool host_matches(const KnownHost& entry, std::string_view host, int port) {
  std::string name = known_hosts_name(host, port);
  bool matched = false;
  for (const auto& pattern : entry.patterns) {
    bool negated = pattern.starts_with('!');
    if (!pattern_matches(negated ? std::string_view(pattern).substr(1) : std::string_view(pattern), name))
      continue;
    if (negated) return false;  // a matching negation rejects the whole line, as in OpenSSH
    matched = true;
  }
  return matched;
}

HostKeyCheck check_host_key(const std::vector<KnownHost>& entries, std::string_view host, int port,
                            std::string_view key_type, std::string_view key) {
  HostKeyCheck check;
  bool same_type_listed = false, trusted = false;
  for (const auto& entry : entries) {
    if (entry.marker == KnownHost::Marker::cert_authority || !host_matches(entry, host, port)) continue;
    if (entry.marker == KnownHost::Marker::revoked) {
      if (entry.key == key) return {HostKeyVerdict::revoked, {}};
      continue;
    }
    if (std::find(check.listed_types.begin(), check.listed_types.end(), entry.key_type) ==
        check.listed_types.end())
      check.listed_types.push_back(entry.key_type);
    if (entry.key_type == key_type) same_type_listed = true;
    if (entry.key == key) trusted = true;
  }
  if (trusted)
    check.verdict = HostKeyVerdict::trusted;
  else if (same_type_listed)
    check.verdict = HostKeyVerdict::mismatch;
  else if (!check.listed_types.empty())
    check.verdict = HostKeyVerdict::other_type;
  return check;
}

std::string key_blob_type(std::string_view key) {
  if (key.size() < 4) return {};
  std::size_t length = 0;
  for (std::size_t i = 0; i < 4; ++i)
    length = (length << 8) | static_cast<unsigned char>(key[i]);
  if (length == 0 || length > key.size() - 4) return {};
  return std::string(key.substr(4, length));
}

std::string key_fingerprint(std::string_view key) {
  std::string encoded = model::base64_encode(sha256(key));
  while (encoded.ends_with('='))
    encoded.pop_back();
  return "SHA256:" + encoded;
}

}  // namespace opctl::source
