// Progress on stderr: a live line on a terminal that never swallows the lines
// printed above it, and elsewhere a plain line only after a silent interval.
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "progress.hpp"
#include "support/fake_clock.hpp"

namespace cli = opctl::cli;
using namespace std::chrono_literals;

namespace {

// A stream the display writes to, read back whole.
struct Captured {
  std::FILE* file = std::tmpfile();
  ~Captured() { std::fclose(file); }
  std::string text() const {
    std::fflush(file);
    std::rewind(file);
    std::string out;
    for (int c = std::fgetc(file); c != EOF; c = std::fgetc(file))
      out.push_back(static_cast<char>(c));
    return out;
  }
};

const cli::ProgressStatus k_waiting{"wave 1 wait", "wave 1: waiting for 1 object",
                                    "apps/Deployment shop/web"};

}  // namespace

TEST_CASE("elapsed time reads as seconds, minutes and hours", "[progress]") {
  CHECK(cli::elapsed_text(9s) == "9s");
  CHECK(cli::elapsed_text(65s) == "1m05s");
  CHECK(cli::elapsed_text(7380s) == "2h03m");
}

TEST_CASE("without a terminal a progress line comes only after an interval without output", "[progress]") {
  // Given a wait that prints nothing, we should print its status once per silent interval, with its age.
  opctl::testing::FakeClock clock;
  Captured out, err;
  cli::ProgressDisplay display({false, 10s}, out.file, err.file, &clock, false);
  display.show(k_waiting);
  clock.advance(9s);
  display.tick();
  CHECK(err.text().empty());
  clock.advance(1s);
  display.tick();
  CHECK(err.text() == "wave 1: waiting for 1 object (10s): apps/Deployment shop/web\n");
  clock.advance(5s);
  display.line(out.file, "ConfigMap shop/a created");  // output restarts the interval
  clock.advance(9s);
  display.tick();
  CHECK(err.text() == "wave 1: waiting for 1 object (10s): apps/Deployment shop/web\n");
  clock.advance(1s);
  display.tick();
  CHECK(err.text() ==
        "wave 1: waiting for 1 object (10s): apps/Deployment shop/web\n"
        "wave 1: waiting for 1 object (25s): apps/Deployment shop/web\n");
  CHECK(out.text() == "ConfigMap shop/a created\n");
  display.idle();
  clock.advance(60s);
  display.tick();
  CHECK(err.text().find("(85s)") == std::string::npos);  // idle: nothing more
}

TEST_CASE("a new phase restarts the elapsed time, the same phase keeps it", "[progress]") {
  opctl::testing::FakeClock clock;
  Captured out, err;
  cli::ProgressDisplay display({false, 10s}, out.file, err.file, &clock, false);
  display.show({"wave 0 apply", "wave 0: applying", ""});
  clock.advance(8s);
  display.show({"wave 0 apply", "wave 0: applying, 3/4 done", ""});
  clock.advance(4s);
  display.tick();
  CHECK(err.text() == "wave 0: applying, 3/4 done (12s)\n");
  display.show(k_waiting);
  clock.advance(10s);
  display.tick();
  CHECK(err.text().ends_with("wave 1: waiting for 1 object (10s): apps/Deployment shop/web\n"));
}

TEST_CASE("on a terminal the live line is redrawn after a line printed above it", "[progress]") {
  // Given a live line and a per-object line on stderr, we should clear, print the line, and draw it again.
  opctl::testing::FakeClock clock;
  Captured out, err;
  cli::ProgressDisplay display({true, 10s, 150}, out.file, err.file, &clock, false);
  display.show(k_waiting);
  std::string live = "wave 1: waiting for 1 object (0s): apps/Deployment shop/web";
  CHECK(err.text() == "\r\033[2K" + live);
  display.line(err.file, "warning: something");
  CHECK(err.text() == "\r\033[2K" + live + "\r\033[2Kwarning: something\n\r\033[2K" + live);
  clock.advance(3s);
  display.tick();
  CHECK(err.text().ends_with("\r\033[2Kwave 1: waiting for 1 object (3s): apps/Deployment shop/web"));
  display.idle();
  CHECK(err.text().ends_with("(3s): apps/Deployment shop/web\r\033[2K"));
}

TEST_CASE("the live line is cut to the terminal's width", "[progress]") {
  opctl::testing::FakeClock clock;
  Captured out, err;
  cli::ProgressDisplay display({true, 10s, 20}, out.file, err.file, &clock, false);
  display.show(k_waiting);
  CHECK(err.text() == "\r\033[2Kwave 1: waiting f...");  // 20 characters
}

TEST_CASE("no progress is shown when quiet or with an interval of 0", "[progress]") {
  CHECK_FALSE(cli::ProgressDisplay(cli::progress_settings(true, false, 10s)).enabled());
  CHECK_FALSE(cli::ProgressDisplay(cli::progress_settings(false, false, 0s)).enabled());
  CHECK_FALSE(cli::ProgressDisplay(cli::progress_settings(false, true, 10s)).enabled());
  CHECK(cli::progress_settings(false, false, 10s).interval == 10s);
}
