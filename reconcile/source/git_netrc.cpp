#include "source/git_netrc.hpp"

#include <sstream>
#include <vector>

namespace opctl::source {

namespace {

// Words separated by white space; "macdef" bodies (up to an empty line) are skipped.
std::vector<std::string> netrc_tokens(std::string_view text) {
  std::vector<std::string> tokens;
  std::istringstream lines{std::string(text)};
  bool in_macro = false;
  for (std::string line; std::getline(lines, line);) {
    if (in_macro) {
      in_macro = line.find_first_not_of(" \t\r") != std::string::npos;
      continue;
    }
    std::istringstream words(line);
    for (std::string word; words >> word;) {
      if (word.starts_with('#')) break;
      tokens.push_back(word);
      if (word == "macdef") in_macro = true;
    }
  }
  return tokens;
}

}  // namespace

std::optional<NetrcEntry> find_netrc_entry(std::string_view text, std::string_view host) {
  auto tokens = netrc_tokens(text);
  std::optional<NetrcEntry> found, fallback;
  NetrcEntry* current = nullptr;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string& token = tokens[i];
    bool has_value = i + 1 < tokens.size();
    if (token == "machine" && has_value) {
      if (found) break;
      current = tokens[++i] == host ? &found.emplace() : nullptr;
    } else if (token == "default") {
      if (found) break;
      current = fallback ? nullptr : &fallback.emplace();
    } else if (token == "login" && has_value) {
      if (current) current->login = tokens[i + 1];
      ++i;
    } else if ((token == "password" || token == "account" || token == "macdef") && has_value) {
      if (current && token == "password") current->password = tokens[i + 1];
      ++i;
    }
  }
  return found ? found : fallback;
}

}  // namespace opctl::source
