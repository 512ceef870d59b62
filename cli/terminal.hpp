// What the terminal can show: colour only on a TTY, and never with NO_COLOR.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace opctl::cli {

inline bool use_color(bool no_color_flag) {
  if (no_color_flag) return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && no_color[0] != '\0') return false;
  return isatty(fileno(stdout)) != 0;
}

struct Palette {
  bool enabled = false;
  std::string green(const std::string& text) const { return wrap("32", text); }
  std::string yellow(const std::string& text) const { return wrap("33", text); }
  std::string red(const std::string& text) const { return wrap("31", text); }
  std::string dim(const std::string& text) const { return wrap("2", text); }
  std::string bold(const std::string& text) const { return wrap("1", text); }

 private:
  std::string wrap(const char* code, const std::string& text) const {
    return enabled ? std::string("\033[") + code + "m" + text + "\033[0m" : text;
  }
};

}  // namespace opctl::cli
