#include "pass_progress.hpp"

#include <fmt/format.h>

namespace opctl::cli {
namespace {

std::string objects(std::size_t count) {
  return fmt::format("{} object{}", count, count == 1 ? "" : "s");
}

std::string kind_label(const model::ObjectKey& key) {
  return key.group.empty() ? key.kind : key.group + "/" + key.kind;
}

}  // namespace

ProgressStatus planning_status(std::size_t total) {
  return {"plan", fmt::format("planning: reading the live state of {}", objects(total)), ""};
}

ProgressStatus applying_status(long wave, std::size_t wave_objects, std::size_t done, std::size_t total) {
  return {fmt::format("wave {} apply", wave),
          fmt::format("wave {}: applying {}, {}/{} done", wave, objects(wave_objects), std::min(done, total),
                      total),
          ""};
}

ProgressStatus waiting_status(long wave, const UnhealthyObjects& unhealthy, std::size_t done,
                              std::size_t total) {
  ProgressStatus status{fmt::format("wave {} wait", wave),
                        fmt::format("wave {}: waiting for {} to be healthy, {}/{} done", wave,
                                    objects(unhealthy.size()), std::min(done, total), total),
                        ""};
  if (unhealthy.empty()) return status;
  const auto& [key, health] = unhealthy.front();
  status.detail = key.to_string();
  if (!health.message.empty()) status.detail += " (" + health.message + ")";
  if (unhealthy.size() > 1) status.detail += fmt::format(" and {} more", unhealthy.size() - 1);
  return status;
}

ProgressStatus pruning_status(std::size_t candidates, std::size_t done, std::size_t total) {
  return {"prune", fmt::format("pruning {}, {}/{} done", objects(candidates), std::min(done, total), total),
          ""};
}

ProgressStatus custom_kinds_status(const std::string& waiting_for, std::size_t done, std::size_t total) {
  return {"custom kinds wait", fmt::format("custom resources, {}/{} done", std::min(done, total), total),
          waiting_for};
}

ProgressStatus transfer_status(const source::TransferProgress& progress) {
  ProgressStatus status{"fetch " + progress.repo, "fetching " + progress.repo, ""};
  if (progress.total_objects == 0) {
    status.detail = "connecting";  // libgit2 reports nothing before the remote's first answer
    return status;
  }
  if (progress.received_objects < progress.total_objects || progress.total_deltas == 0) {
    status.detail = fmt::format(
        "received {}/{} objects ({}%), {}", progress.received_objects, progress.total_objects,
        progress.received_objects * 100 / progress.total_objects, byte_size_text(progress.received_bytes));
  } else {
    status.detail =
        fmt::format("received {} objects, {}; resolving deltas {}/{}", progress.total_objects,
                    byte_size_text(progress.received_bytes), progress.indexed_deltas, progress.total_deltas);
  }
  return status;
}

bool transfer_finished(const source::TransferProgress& progress) {
  if (progress.done) return true;
  return progress.total_objects > 0 && progress.received_objects == progress.total_objects &&
         progress.indexed_objects == progress.total_objects &&
         progress.indexed_deltas == progress.total_deltas;
}

SourceProgress::SourceProgress(source::SourceOptions& source, ProgressDisplay& display, bool quiet)
    : source_(source), on_transfer_(source.on_transfer), on_warning_(source.on_warning) {
  source.on_transfer = [&display](const source::TransferProgress& progress) {
    if (transfer_finished(progress))
      display.idle();  // what follows (reading the commit) is quick
    else
      display.show(transfer_status(progress));
  };
  source.on_warning = [&display, quiet](const std::string& message) {
    if (!quiet) display.line(stderr, "warning: " + message);
  };
}

SourceProgress::~SourceProgress() {
  source_.on_transfer = std::move(on_transfer_);
  source_.on_warning = std::move(on_warning_);
}

ProgressSettings progress_settings(const CommonOptions& common) {
  return progress_settings(common.quiet, common.verbose, progress_interval(common));
}

std::string byte_size_text(std::size_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  if (bytes < 1024 * 1024) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  if (bytes < 1024ull * 1024 * 1024) return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024));
  return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024 * 1024));
}

bool UnchangedSummary::absorb(const apply::ObjectOutcome& outcome) {
  if (outcome.action != apply::Action::unchanged || !outcome.message.empty()) return false;
  ++counts_[kind_label(outcome.key)];
  return true;
}

std::vector<std::string> UnchangedSummary::lines() const {
  std::vector<std::string> out;
  for (const auto& [kind, count] : counts_)
    out.push_back(fmt::format("{}: {} unchanged", kind, count));
  return out;
}

}  // namespace opctl::cli
