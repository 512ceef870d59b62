// A unified diff of two texts, line by line, as `diff -u` prints it, without
// the file header. The edit script comes from libgit2's xdiff (git's own diff):
// linear memory, and an object diffed against nothing costs one pass over it.
#pragma once

#include <string>
#include <vector>

namespace opctl::diff {

std::vector<std::string> split_lines(const std::string& text);

// Hunks with `context` unchanged lines around each change (changes at most
// 2*context lines apart share a hunk), "@@ -a,b +c,d @@" headers, and lines
// prefixed with ' ', '-' or '+'. Empty when equal. A missing final newline is
// not a difference.
std::string unified_diff(const std::string& before, const std::string& after, int context = 3);

}  // namespace opctl::diff
