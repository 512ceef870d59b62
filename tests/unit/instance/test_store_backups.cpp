#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "instance/store_backups.hpp"
#include "model/object.hpp"

using namespace opctl::instance;
using opctl::model::Json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// A stand-in for barman-cloud-backup: records its arguments, then exits as $FAKE_EXIT says (the manager's
// process handling is what this tests; the e2e tests run the real tool against a real S3 server).
struct FakeTool {
  fs::path dir;
  FakeTool() {
    char pattern[] = "/tmp/opctl-store-backups-XXXXXX";
    dir = mkdtemp(pattern);
    std::ofstream script(dir / "fake-barman");
    script << "#!/bin/sh\necho \"$@\" > '" << (dir / "args").string() << "'\n"
           << "if [ -f '" << (dir / "fail").string()
           << "' ]; then echo 'ERROR: Bucket backups does not exist' "
           << ">&2; exit 3; fi\nexit 0\n";
    script.close();
    fs::permissions(dir / "fake-barman", fs::perms::owner_all);
  }
  ~FakeTool() { fs::remove_all(dir); }
  std::vector<std::string> command() const {
    return {(dir / "fake-barman").string(), "--gzip", "s3://backups/shop", "db"};
  }
  std::string args() const {
    std::ifstream in(dir / "args");
    std::string line;
    std::getline(in, line);
    return line;
  }
};

// Waits for the running backup to exit and hands it to `backups`, as the manager's main loop does.
void reap(StoreBackups& backups) {
  int status = 0;
  pid_t pid = waitpid(-1, &status, 0);
  REQUIRE(pid > 0);
  CHECK(backups.reaped(pid, status));
}

Json outcomes_of(const StoreBackups& backups) {
  return Json::parse(backups.report());
}

}  // namespace

TEST_CASE("the primary runs one backup per request, oldest first, named after the request's Pod",
          "[instance][store]") {
  FakeTool tool;
  StoreBackups backups(tool.command(), (tool.dir / "log").string());
  auto now = std::chrono::steady_clock::now();
  std::vector<BackupRequest> requests = {{"nightly-1", "uid-1"}, {"nightly-2", "uid-2"}};
  std::vector<std::string> connection = {"--host", "/run/opctl", "--port", "5432", "--user", "postgres"};
  backups.step(requests, connection, "", now);
  CHECK(backups.running());
  CHECK(outcomes_of(backups)["uid-1"]["phase"] == "running");
  CHECK(outcomes_of(backups)["uid-2"]["phase"] == "waiting");
  backups.step(requests, connection, "", now);  // one at a time
  reap(backups);
  CHECK(tool.args() ==
        "--name nightly-1 --immediate-checkpoint --host /run/opctl --port 5432 --user postgres --gzip "
        "s3://backups/shop db");
  CHECK(outcomes_of(backups)["uid-1"]["phase"] == "completed");
  std::ofstream{tool.dir / "fail"}.put('x');  // the next run fails as the tool does on a missing bucket
  backups.step(requests, connection, "", now);
  CHECK(outcomes_of(backups)["uid-2"]["phase"] == "running");
  reap(backups);
  Json report = outcomes_of(backups);
  CHECK(report["uid-2"]["phase"] == "failed");
  CHECK(report["uid-2"]["message"] ==
        "barman-cloud-backup exited with status 3: ERROR: Bucket backups does not exist");
  // A request whose Pod is gone is forgotten; with none left, there is nothing to report.
  backups.step({}, connection, "", now);
  CHECK(backups.report().empty());
}

TEST_CASE("while the archive is not usable a request waits, says why, and fails after the limit",
          "[instance][store]") {
  FakeTool tool;
  StoreBackups backups(tool.command(), (tool.dir / "log").string());
  auto now = std::chrono::steady_clock::now();
  std::vector<BackupRequest> requests = {{"nightly-1", "uid-1"}};
  backups.step(requests, {}, "the WAL archive is not checked yet", now);
  CHECK_FALSE(backups.running());
  Json report = outcomes_of(backups);
  CHECK(report["uid-1"]["phase"] == "waiting");
  CHECK(report["uid-1"]["message"] == "the WAL archive is not checked yet");
  backups.step(requests, {}, "the WAL archive is not usable: denied", now + StoreBackups::k_wait_limit + 1s);
  report = outcomes_of(backups);
  CHECK(report["uid-1"]["phase"] == "failed");
  CHECK(report["uid-1"]["message"] == "no backup was taken: the WAL archive is not usable: denied");
  CHECK_FALSE(backups.running());
}

TEST_CASE("without a command there is no store, and nothing runs", "[instance][store]") {
  StoreBackups backups({}, "/nonexistent/log");
  CHECK_FALSE(backups.enabled());
  backups.step({{"nightly-1", "uid-1"}}, {}, "", std::chrono::steady_clock::now());
  CHECK_FALSE(backups.running());
  CHECK(backups.report().empty());
  CHECK_FALSE(backups.reaped(12345, 0));
}
