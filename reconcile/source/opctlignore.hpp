// .opctlignore: files a source leaves out, in gitignore syntax (globs, `**`,
// a leading `/` anchors, a trailing `/` means directories only, `!` re-includes,
// `#` comments). Paths are '/'-separated and relative to the tree's root.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace opctl::source {

inline constexpr std::string_view k_ignore_file_name = ".opctlignore";

class IgnoreRules {
 public:
  // Adds the lines of one ignore file that lives in directory `base` ("" for the root);
  // its patterns apply to the paths below `base`, and later rules win over earlier ones.
  void add(std::string_view text, std::string_view base = {});

  // True when `path` or one of its parent directories is excluded. As in git, a file
  // inside an excluded directory cannot be re-included.
  bool ignored(std::string_view path, bool is_directory) const;

  bool empty() const { return rules_.empty(); }
  // True when rules with this `base` were added already.
  bool loaded(std::string_view base) const;

 private:
  struct Rule {
    std::string base;
    std::vector<std::string> segments;  // the pattern split at '/'; "**" spans directories
    bool negated = false;
    bool directory_only = false;
  };
  // +1 excluded, -1 re-included, 0 no rule matched.
  int decide(std::string_view path, bool is_directory) const;

  std::vector<Rule> rules_;
};

// One path segment against one glob segment: '*', '?', '[a-z]', '[!x]', '\' escapes.
bool glob_segment_match(std::string_view pattern, std::string_view name);

}  // namespace opctl::source
