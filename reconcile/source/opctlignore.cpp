#include "source/opctlignore.hpp"

#include <sstream>

namespace opctl::source {

namespace {

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    auto end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) parts.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// Trailing blanks are dropped unless escaped with a backslash.
std::string trim_trailing_blanks(std::string line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n'))
    line.pop_back();
  std::size_t end = line.size();
  while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t')) {
    if (end >= 2 && line[end - 2] == '\\') break;
    --end;
  }
  line.resize(end);
  return line;
}

// Whole-path match: "**" matches any number of segments (at least one when it ends the pattern).
bool segments_match(const std::vector<std::string>& pattern, std::size_t p,
                    const std::vector<std::string>& path, std::size_t s) {
  if (p == pattern.size()) return s == path.size();
  if (pattern[p] == "**") {
    bool last = p + 1 == pattern.size();
    if (last) return s < path.size();
    for (std::size_t skip = s; skip <= path.size(); ++skip)
      if (segments_match(pattern, p + 1, path, skip)) return true;
    return false;
  }
  return s < path.size() && glob_segment_match(pattern[p], path[s]) &&
         segments_match(pattern, p + 1, path, s + 1);
}

// Matches a bracket expression at the start of `pattern`; returns its length, 0 if malformed.
std::size_t match_bracket(std::string_view pattern, char c, bool& matched) {
  std::size_t i = 1;
  bool negate = i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^');
  if (negate) ++i;
  bool found = false;
  for (bool first = true; i < pattern.size() && (first || pattern[i] != ']'); first = false) {
    char low = pattern[i];
    if (low == '\\' && i + 1 < pattern.size()) low = pattern[++i];
    char high = low;
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      high = pattern[i + 2];
      i += 2;
    }
    if (low <= c && c <= high) found = true;
    ++i;
  }
  if (i >= pattern.size()) return 0;
  matched = found != negate;
  return i + 1;
}

}  // namespace

bool glob_segment_match(std::string_view pattern, std::string_view name) {
  if (pattern.empty()) return name.empty();
  switch (pattern[0]) {
    case '*':
      for (std::size_t skip = 0; skip <= name.size(); ++skip)
        if (glob_segment_match(pattern.substr(1), name.substr(skip))) return true;
      return false;
    case '?':
      return !name.empty() && glob_segment_match(pattern.substr(1), name.substr(1));
    case '[': {
      bool matched = false;
      std::size_t length = name.empty() ? 0 : match_bracket(pattern, name[0], matched);
      if (length > 0) return matched && glob_segment_match(pattern.substr(length), name.substr(1));
      break;  // not a bracket expression: a literal '['
    }
    case '\\':
      if (pattern.size() > 1)
        return !name.empty() && name[0] == pattern[1] &&
               glob_segment_match(pattern.substr(2), name.substr(1));
      break;
    default:
      break;
  }
  return !name.empty() && name[0] == pattern[0] && glob_segment_match(pattern.substr(1), name.substr(1));
}

void IgnoreRules::add(std::string_view text, std::string_view base) {
  std::istringstream lines{std::string(text)};
  for (std::string raw; std::getline(lines, raw);) {
    std::string line = trim_trailing_blanks(raw);
    if (line.empty() || line.starts_with('#')) continue;
    Rule rule;
    rule.base = std::string(base);
    if (line.starts_with('!')) {
      rule.negated = true;
      line.erase(0, 1);
    } else if (line.starts_with("\\!") || line.starts_with("\\#")) {
      line.erase(0, 1);
    }
    if (line.ends_with('/')) {
      rule.directory_only = true;
      line.pop_back();
    }
    // A slash at the start or in the middle anchors the pattern to `base`; otherwise it matches at any depth.
    bool anchored = line.find('/') != std::string::npos;
    rule.segments = split_path(line);
    if (rule.segments.empty()) continue;
    if (!anchored) rule.segments.insert(rule.segments.begin(), "**");
    rules_.push_back(std::move(rule));
  }
}

int IgnoreRules::decide(std::string_view path, bool is_directory) const {
  for (auto rule = rules_.rbegin(); rule != rules_.rend(); ++rule) {
    if (rule->directory_only && !is_directory) continue;
    std::string_view relative = path;
    if (!rule->base.empty()) {
      if (!path.starts_with(rule->base) || path.size() <= rule->base.size() || path[rule->base.size()] != '/')
        continue;
      relative = path.substr(rule->base.size() + 1);
    }
    // A leading "**" may also match nothing: "**/x" matches "x".
    std::vector<std::string> parts = split_path(relative);
    if (segments_match(rule->segments, 0, parts, 0)) return rule->negated ? -1 : 1;
  }
  return 0;
}

bool IgnoreRules::loaded(std::string_view base) const {
  for (const auto& rule : rules_)
    if (rule.base == base) return true;
  return false;
}

bool IgnoreRules::ignored(std::string_view path, bool is_directory) const {
  if (rules_.empty()) return false;
  for (auto slash = path.find('/'); slash != std::string_view::npos; slash = path.find('/', slash + 1))
    if (decide(path.substr(0, slash), true) > 0) return true;
  return decide(path, is_directory) > 0;
}

}  // namespace opctl::source
