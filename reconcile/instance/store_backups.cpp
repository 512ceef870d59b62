#include "instance/store_backups.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <set>

#include "instance/instance_error.hpp"
#include "model/object.hpp"

namespace opctl::instance {

StoreBackups::StoreBackups(std::vector<std::string> command, std::string log_path)
    : command_(std::move(command)), log_path_(std::move(log_path)) {}

void StoreBackups::step(const std::vector<BackupRequest>& requests,
                        const std::vector<std::string>& connection, const std::string& blocked,
                        std::chrono::steady_clock::time_point now) {
  if (!enabled()) return;
  std::set<std::string> listed;
  for (const auto& request : requests)
    listed.insert(request.uid);
  // A request whose Pod is gone needs no answer (its Job ended or was deleted); the running backup stays
  // listed until it ends, so its outcome is not lost.
  std::erase_if(outcomes_,
                [&](const auto& entry) { return !listed.count(entry.first) && entry.first != running_uid_; });
  for (const auto& request : requests)
    outcomes_.try_emplace(request.uid, BackupOutcome{request.pod, "waiting", "", now});
  if (running()) return;
  for (const auto& request : requests) {  // oldest first: the list is in creation order
    BackupOutcome& outcome = outcomes_[request.uid];
    if (outcome.phase != "waiting") continue;
    if (!blocked.empty()) {
      outcome.message = blocked;
      if (now - outcome.waiting_since > k_wait_limit) {
        outcome.phase = "failed";
        outcome.message = "no backup was taken: " + blocked;
      }
      continue;
    }
    start(request, connection);
    return;
  }
}

void StoreBackups::start(const BackupRequest& request, const std::vector<std::string>& connection) {
  // barman-cloud-backup [options] DESTINATION SERVER: the request's name (its
  // Pod's) names the backup, so the Job finds it in the store's list.
  std::vector<std::string> args = {command_.front(), "--name", request.pod, "--immediate-checkpoint"};
  args.insert(args.end(), connection.begin(), connection.end());
  args.insert(args.end(), command_.begin() + 1, command_.end());
  std::vector<char*> argv;
  for (auto& arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  int log = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (log < 0) throw InstanceError("cannot write " + log_path_);
  pid_t pid = fork();
  if (pid < 0) {
    close(log);
    throw InstanceError("cannot fork to run barman-cloud-backup");
  }
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    setpgid(0, 0);
    dup2(log, STDOUT_FILENO);
    dup2(log, STDERR_FILENO);
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, STDIN_FILENO);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  close(log);
  pid_ = pid;
  running_uid_ = request.uid;
  BackupOutcome& outcome = outcomes_[request.uid];
  outcome.phase = "running";
  outcome.message.clear();
}

bool StoreBackups::reaped(pid_t pid, int wait_status) {
  if (pid != pid_ || pid_ <= 0) return false;
  pid_ = -1;
  auto found = outcomes_.find(running_uid_);
  running_uid_.clear();
  if (found == outcomes_.end()) return true;
  bool success = WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0;
  found->second.phase = success ? "completed" : "failed";
  if (!success) {
    std::string words = last_words();
    found->second.message =
        WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 127
            ? std::string("barman-cloud-backup is not in the instance image")
            : "barman-cloud-backup " +
                  (WIFEXITED(wait_status) ? "exited with status " + std::to_string(WEXITSTATUS(wait_status))
                                          : "was killed by signal " + std::to_string(WTERMSIG(wait_status))) +
                  (words.empty() ? std::string() : ": " + words);
  }
  return true;
}

std::string StoreBackups::last_words() const {
  // The last line that says something: barman-cloud tools end a failure with an ERROR line.
  std::ifstream in(log_path_);
  std::string line, last, last_error;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    last = line;
    if (line.find("ERROR") != std::string::npos) last_error = line;
  }
  std::string words = last_error.empty() ? last : last_error;
  for (char& c : words)  // an annotation, one line
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  return words.size() > 300 ? words.substr(0, 300) + "..." : words;
}

std::string StoreBackups::report() const {
  if (outcomes_.empty()) return "";
  model::Json out = model::Json::object();
  for (const auto& [uid, outcome] : outcomes_) {
    model::Json entry = {{"pod", outcome.pod}, {"phase", outcome.phase}};
    if (!outcome.message.empty()) entry["message"] = outcome.message;
    out[uid] = std::move(entry);
  }
  return out.dump();
}

}  // namespace opctl::instance
