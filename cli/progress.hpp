// Live progress of a pass: on a terminal one line per wave rewritten in
// place; otherwise nothing but the plain per-object lines.
#pragma once

#include <cstdio>
#include <string>

namespace opctl::cli {

class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled) {}
  ~ProgressLine() { clear(); }

  void show(const std::string& text) {
    if (!enabled_) return;
    std::string line = text.size() > 150 ? text.substr(0, 147) + "..." : text;
    std::fprintf(stderr, "\r\033[2K%s", line.c_str());
    std::fflush(stderr);
    shown_ = true;
  }

  void clear() {
    if (!enabled_ || !shown_) return;
    std::fprintf(stderr, "\r\033[2K");
    std::fflush(stderr);
    shown_ = false;
  }

 private:
  bool enabled_;
  bool shown_ = false;
};

}  // namespace opctl::cli
