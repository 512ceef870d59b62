#include "diff/line_diff.hpp"

#include <fmt/format.h>
#include <git2.h>

#include <memory>
#include <sstream>
#include <stdexcept>

#include "source/git_handles.hpp"

namespace opctl::diff {

namespace {

struct PatchFree {
  void operator()(git_patch* patch) const { git_patch_free(patch); }
};
using PatchPtr = std::unique_ptr<git_patch, PatchFree>;

// Lines compare whole, so a text without its final newline gets one: the two
// renderings of one object must not differ by it.
std::string with_final_newline(const std::string& text) {
  if (text.empty() || text.back() == '\n') return text;
  return text + '\n';
}

}  // namespace

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    lines.push_back(line);
  return lines;
}

std::string unified_diff(const std::string& before, const std::string& after, int context) {
  if (before == after) return {};
  const std::string old_text = with_final_newline(before);
  const std::string new_text = with_final_newline(after);
  if (old_text == new_text) return {};

  source::ensure_libgit2();
  git_diff_options options = GIT_DIFF_OPTIONS_INIT;
  options.context_lines = static_cast<std::uint32_t>(context);
  options.interhunk_lines = 0;
  options.flags = GIT_DIFF_FORCE_TEXT;  // a value with a NUL byte is still text to show
  git_patch* raw = nullptr;
  if (git_patch_from_buffers(&raw, old_text.data(), old_text.size(), nullptr, new_text.data(),
                             new_text.size(), nullptr, &options) != 0) {
    const git_error* error = git_error_last();
    throw std::runtime_error(
        fmt::format("line diff failed: {}", error && error->message ? error->message : "unknown"));
  }
  PatchPtr patch(raw);

  std::string out;
  const std::size_t hunks = git_patch_num_hunks(patch.get());
  for (std::size_t h = 0; h < hunks; ++h) {
    const git_diff_hunk* hunk = nullptr;
    std::size_t lines = 0;
    git_patch_get_hunk(&hunk, &lines, patch.get(), h);
    out += fmt::format("@@ -{},{} +{},{} @@\n", hunk->old_start, hunk->old_lines, hunk->new_start,
                       hunk->new_lines);
    for (std::size_t l = 0; l < lines; ++l) {
      const git_diff_line* line = nullptr;
      git_patch_get_line_in_hunk(&line, patch.get(), h, l);
      if (line->origin != GIT_DIFF_LINE_CONTEXT && line->origin != GIT_DIFF_LINE_ADDITION &&
          line->origin != GIT_DIFF_LINE_DELETION)
        continue;  // "\ No newline at end of file": both sides end with one
      std::string_view content(line->content, line->content_len);
      if (!content.empty() && content.back() == '\n') content.remove_suffix(1);
      out += line->origin;
      out += content;
      out += '\n';
    }
  }
  return out;
}

}  // namespace opctl::diff
