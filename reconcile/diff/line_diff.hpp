// A unified diff of two texts, line by line (Myers' algorithm), as `diff -u`
// prints it, without the file header.
#pragma once

#include <string>
#include <vector>

namespace opctl::diff {

enum class LineKind { same, removed, added };

struct DiffLine {
  LineKind kind;
  std::string text;
};

// The edit script from `before` to `after`, every line included.
std::vector<DiffLine> diff_lines(const std::vector<std::string>& before,
                                 const std::vector<std::string>& after);

std::vector<std::string> split_lines(const std::string& text);

// Hunks with `context` unchanged lines around each change, "@@ -a,b +c,d @@"
// headers, and lines prefixed with ' ', '-' or '+'. Empty when equal.
std::string unified_diff(const std::string& before, const std::string& after, int context = 3);

}  // namespace opctl::diff
