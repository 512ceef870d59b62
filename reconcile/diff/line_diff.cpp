#include "diff/line_diff.hpp"

#include <fmt/format.h>

#include <sstream>

namespace opctl::diff {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    lines.push_back(line);
  return lines;
}

std::vector<DiffLine> diff_lines(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const int n = static_cast<int>(a.size());
  const int m = static_cast<int>(b.size());
  const int max = n + m;
  const int offset = max + 1;
  std::vector<int> v(2 * max + 3, 0);
  std::vector<std::vector<int>> trace;
  int found_d = -1;
  for (int d = 0; d <= max && found_d < 0; ++d) {
    trace.push_back(v);
    for (int k = -d; k <= d; k += 2) {
      int x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1])) ? v[offset + k + 1]
                                                                             : v[offset + k - 1] + 1;
      int y = x - k;
      while (x < n && y < m && a[x] == b[y])
        ++x, ++y;
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found_d = d;
        break;
      }
    }
  }
  // Walk the trace backwards to recover the script.
  std::vector<DiffLine> script;
  int x = n, y = m;
  for (int d = found_d; d > 0; --d) {
    const auto& previous = trace[d];
    int k = x - y;
    int previous_k =
        (k == -d || (k != d && previous[offset + k - 1] < previous[offset + k + 1])) ? k + 1 : k - 1;
    int previous_x = previous[offset + previous_k];
    int previous_y = previous_x - previous_k;
    while (x > previous_x && y > previous_y)
      script.push_back({LineKind::same, a[--x]}), --y;
    if (x == previous_x) {
      script.push_back({LineKind::added, b[--y]});
    } else {
      script.push_back({LineKind::removed, a[--x]});
    }
  }
  while (x > 0 && y > 0)
    script.push_back({LineKind::same, a[--x]}), --y;
  return {script.rbegin(), script.rend()};
}

std::string unified_diff(const std::string& before, const std::string& after, int context) {
  auto script = diff_lines(split_lines(before), split_lines(after));
  std::string out;
  const int size = static_cast<int>(script.size());
  int i = 0;
  while (i < size) {
    if (script[i].kind == LineKind::same) {
      ++i;
      continue;
    }
    // A hunk: from `context` lines before this change to `context` lines after
    // the last change that is within 2*context of the previous one.
    int start = std::max(0, i - context);
    int end = i;
    while (end < size) {
      int next_change = end;
      while (next_change < size && script[next_change].kind != LineKind::same)
        ++next_change;
      int following = next_change;
      while (following < size && script[following].kind == LineKind::same)
        ++following;
      if (following < size && following - next_change <= 2 * context) {
        end = following;
      } else {
        end = std::min(size, next_change + context);
        break;
      }
    }
    int before_start = 0, after_start = 0;
    for (int j = 0; j < start; ++j) {
      if (script[j].kind != LineKind::added) ++before_start;
      if (script[j].kind != LineKind::removed) ++after_start;
    }
    int before_count = 0, after_count = 0;
    std::string body;
    for (int j = start; j < end; ++j) {
      const auto& line = script[j];
      char marker = line.kind == LineKind::same ? ' ' : line.kind == LineKind::removed ? '-' : '+';
      if (line.kind != LineKind::added) ++before_count;
      if (line.kind != LineKind::removed) ++after_count;
      body += marker + line.text + "\n";
    }
    out += fmt::format("@@ -{},{} +{},{} @@\n", before_count ? before_start + 1 : before_start, before_count,
                       after_count ? after_start + 1 : after_start, after_count);
    out += body;
    i = end;
  }
  return out;
}

}  // namespace opctl::diff
