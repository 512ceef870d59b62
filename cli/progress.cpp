#include "progress.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace opctl::cli {
namespace {

// How often the ticker looks: the live line's seconds move at this pace.
constexpr std::chrono::milliseconds k_tick{250};
// The live line is redrawn at most this often for a status that changes within its phase.
constexpr std::chrono::milliseconds k_redraw{100};

std::size_t terminal_width(int fd) {
  winsize size{};
  if (ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 10) return size.ws_col - 1;  // never wrap
  return 150;
}

}  // namespace

ProgressSettings progress_settings(bool quiet, bool verbose, std::chrono::milliseconds interval) {
  ProgressSettings settings;
  if (quiet || verbose || interval.count() <= 0) return settings;
  settings.live = isatty(fileno(stderr)) != 0;
  if (settings.live) settings.width = terminal_width(fileno(stderr));
  settings.interval = interval;
  return settings;
}

std::string elapsed_text(std::chrono::seconds elapsed) {
  auto seconds = elapsed.count();
  if (seconds < 60) return fmt::format("{}s", seconds);
  if (seconds < 3600) return fmt::format("{}m{:02}s", seconds / 60, seconds % 60);
  return fmt::format("{}h{:02}m", seconds / 3600, seconds % 3600 / 60);
}

ProgressDisplay::ProgressDisplay(ProgressSettings settings, std::FILE* out, std::FILE* err,
                                 const Clock* clock, bool tick_by_itself)
    : settings_(settings), out_(out), err_(err), clock_(clock ? *clock : system_clock_) {
  since_ = last_output_ = clock_.steady_now();
  if (enabled() && tick_by_itself) ticker_ = std::thread([this] { run_ticker(); });
}

ProgressDisplay::~ProgressDisplay() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_signal_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  erase();
}

void ProgressDisplay::show(const ProgressStatus& status) {
  if (!enabled()) return;
  std::lock_guard lock(mutex_);
  auto now = clock_.steady_now();
  bool new_phase = !showing_ || status.phase != status_.phase;
  if (new_phase) since_ = now;
  status_ = status;
  showing_ = true;
  // Thousands of outcomes a second would each redraw: between phases the ticker catches up.
  if (settings_.live && (new_phase || now - last_draw_ >= k_redraw)) draw();
}

void ProgressDisplay::idle() {
  if (!enabled()) return;
  std::lock_guard lock(mutex_);
  showing_ = false;
  erase();
}

void ProgressDisplay::line(std::FILE* stream, const std::string& text) {
  std::lock_guard lock(mutex_);
  // The live line is on stderr: a line to stdout that is not the terminal leaves it alone.
  bool over_live_line = !drawn_.empty() && (stream == err_ || isatty(fileno(stream)) != 0);
  if (over_live_line) erase();
  std::fputs((text + "\n").c_str(), stream);
  std::fflush(stream);
  last_output_ = clock_.steady_now();
  if (over_live_line) draw();
}

void ProgressDisplay::tick() {
  std::lock_guard lock(mutex_);
  if (!showing_) return;
  if (settings_.live) {
    draw();
    return;
  }
  auto now = clock_.steady_now();
  if (settings_.interval.count() <= 0 || now - last_output_ < settings_.interval) return;
  std::fputs((rendered() + "\n").c_str(), err_);
  std::fflush(err_);
  last_output_ = now;
}

std::string ProgressDisplay::rendered() const {
  auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(clock_.steady_now() - since_);
  std::string text = fmt::format("{} ({})", status_.head, elapsed_text(elapsed));
  if (!status_.detail.empty()) text += ": " + status_.detail;
  return text;
}

// Under the lock. Writes only when the text changed: most ticks change nothing.
void ProgressDisplay::draw() {
  if (!showing_) return;
  std::string text = rendered();
  if (text.size() > settings_.width) text = text.substr(0, settings_.width - 3) + "...";
  if (text == drawn_) return;
  std::fputs(("\r\033[2K" + text).c_str(), err_);
  std::fflush(err_);
  drawn_ = text;
  last_draw_ = clock_.steady_now();
}

// Under the lock (or once the ticker is gone).
void ProgressDisplay::erase() {
  if (drawn_.empty()) return;
  std::fputs("\r\033[2K", err_);
  std::fflush(err_);
  drawn_.clear();
}

void ProgressDisplay::run_ticker() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    stop_signal_.wait_for(lock, k_tick, [this] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    tick();
    lock.lock();
  }
}

}  // namespace opctl::cli
