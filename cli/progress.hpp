// Progress of long work, on stderr: on a terminal one live line, cleared and
// redrawn around every line printed above it; elsewhere (CI logs) the same
// text as a plain line whenever nothing was printed for an interval. A ticker
// thread keeps both going while the work itself is silent (a health wait, a
// stalled fetch); every line printed while progress is shown goes through here.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include "model/clock.hpp"

namespace opctl::cli {

struct ProgressSettings {
  bool live = false;                      // stderr is a terminal: one line redrawn in place
  std::chrono::milliseconds interval{0};  // elsewhere: a line after this long without output; 0: none
  std::size_t width = 150;                // the live line is cut to this many characters
};

inline constexpr std::chrono::seconds k_default_progress_interval{10};

// What the user asked for and stderr is: -q, and an interval of 0, show no
// progress; -v neither (its request log is the progress, and a live line
// would tear its lines); a terminal gets the live line.
ProgressSettings progress_settings(bool quiet, bool verbose, std::chrono::milliseconds interval);

// What the work is doing. `phase` names it: the elapsed time shown restarts
// when it changes. Shown as "head (elapsed)" or "head (elapsed): detail".
struct ProgressStatus {
  std::string phase;
  std::string head;
  std::string detail;
};

// "9s", "1m05s", "2h03m".
std::string elapsed_text(std::chrono::seconds elapsed);

class ProgressDisplay {
 public:
  // `out` and `err` are stdout and stderr but for tests; `tick_by_itself`
  // false leaves tick() to the caller (tests, with a fake clock).
  explicit ProgressDisplay(ProgressSettings settings, std::FILE* out = stdout, std::FILE* err = stderr,
                           const Clock* clock = nullptr, bool tick_by_itself = true);
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  bool enabled() const { return settings_.live || settings_.interval.count() > 0; }

  void show(const ProgressStatus& status);
  // Nothing worth showing now: the live line goes, periodic lines stop.
  void idle();
  // One whole line of output on `stream` (stdout or stderr), printed above the live line.
  void line(std::FILE* stream, const std::string& text);
  // Redraws the live line, or prints the status when nothing was printed for the interval.
  void tick();

 private:
  std::string rendered() const;
  void draw();
  void erase();
  void run_ticker();

  ProgressSettings settings_;
  std::FILE* out_;
  std::FILE* err_;
  SystemClock system_clock_;
  const Clock& clock_;
  std::mutex mutex_;
  ProgressStatus status_;
  bool showing_ = false;                               // a status is set
  std::chrono::steady_clock::time_point since_;        // the phase began
  std::chrono::steady_clock::time_point last_output_;  // anything was last printed
  std::chrono::steady_clock::time_point last_draw_;    // the live line was last drawn
  std::string drawn_;                                  // what the live line shows now; empty: nothing
  std::condition_variable stop_signal_;
  bool stopping_ = false;
  std::thread ticker_;
};

}  // namespace opctl::cli
