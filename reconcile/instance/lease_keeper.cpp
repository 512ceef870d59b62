#include "instance/lease_keeper.hpp"

#include <fmt/format.h>

#include <ctime>

#include "model/error.hpp"

namespace opctl::instance {

std::string lease_time_now() {
  auto now = std::chrono::system_clock::now();
  auto seconds = std::chrono::system_clock::to_time_t(now);
  auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &parts);
  return fmt::format("{}.{:06d}Z", text, micros);
}

LeaseKeeper::LeaseKeeper(LeaseStore& store, std::string self, WriteDeadline& deadline)
    : store_(store), self_(std::move(self)), deadline_(deadline) {
  renewer_ = std::thread([this] { renew_until_stopped(); });
}

LeaseKeeper::~LeaseKeeper() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  renewer_.join();
}

void LeaseKeeper::set_timings(const LeaseTimings& timings) {
  std::lock_guard lock(mutex_);
  timings_ = timings;
}

std::optional<LeaseRecord> LeaseKeeper::observe() {
  std::lock_guard lock(mutex_);
  auto record = store_.read();
  if (record) timer_.observe(*record, SteadyClock::now());
  return record;
}

std::chrono::milliseconds LeaseKeeper::expired_for() const {
  std::lock_guard lock(mutex_);
  return timer_.expired_for(SteadyClock::now());
}

bool LeaseKeeper::acquire(const LeaseRecord& seen, std::string& why_not) {
  std::lock_guard lock(mutex_);
  if (held_ && SteadyClock::now() < valid_until_) return true;
  LeaseRecord record = seen;
  record.holder = self_;
  record.renew_time = lease_time_now();
  record.duration_seconds = static_cast<int>(timings_.duration.count());
  if (seen.holder != self_) record.transitions = seen.transitions + 1;
  auto sent = SteadyClock::now();
  switch (store_.write(record, why_not)) {
    case WriteOutcome::written:
      held_ = record;
      valid_until_ = sent + timings_.renew_deadline;
      // Before anything may accept writes: the watchdog's deadline.
      deadline_.set(valid_until_);
      quorum_ = record.quorum;
      timeline_ = record.timeline;
      problem_.clear();
      timer_.observe(record, sent);
      ++renewals_;
      return true;
    case WriteOutcome::conflict:
      why_not = "another instance wrote the Lease first";
      return false;
    case WriteOutcome::failed:
      return false;
  }
  return false;
}

bool LeaseKeeper::holds() const {
  std::lock_guard lock(mutex_);
  return held_ && SteadyClock::now() < valid_until_;
}

std::string LeaseKeeper::problem() const {
  std::lock_guard lock(mutex_);
  return problem_;
}

void LeaseKeeper::publish(const SyncQuorum& quorum, const std::string& timeline) {
  std::lock_guard lock(mutex_);
  quorum_ = quorum;
  timeline_ = timeline;
}

bool LeaseKeeper::published(const SyncQuorum& quorum) const {
  std::lock_guard lock(mutex_);
  return held_ && held_->quorum == quorum;
}

bool LeaseKeeper::renew_now() {
  std::unique_lock lock(mutex_);
  if (!held_) return false;
  std::uint64_t before = renewals_;
  renew_requested_ = true;
  wake_.notify_all();
  wake_.wait_for(lock, timings_.retry_period, [&] { return renewals_ != before || !held_ || stopping_; });
  return renewals_ != before && held_.has_value();
}

bool LeaseKeeper::hand_over(const std::string& to, std::string& why_not) {
  std::lock_guard lock(mutex_);
  if (!held_) {
    why_not = "this instance does not hold the Lease";
    return false;
  }
  LeaseRecord record = *held_;
  record.holder = to;
  record.renew_time = to.empty() ? "" : lease_time_now();
  record.transitions = held_->transitions + 1;
  record.quorum = quorum_;
  record.timeline = timeline_;
  auto outcome = store_.write(record, why_not);
  if (outcome == WriteOutcome::conflict) {
    // The pass may have touched its metadata: write again on the fresh version if the holding is unchanged.
    auto fresh = store_.read();
    if (fresh && fresh->same_holding(*held_)) {
      record.resource_version = fresh->resource_version;
      outcome = store_.write(record, why_not);
    }
  }
  if (outcome != WriteOutcome::written) return false;
  held_.reset();
  deadline_.clear();
  timer_.observe(record, SteadyClock::now());
  return true;
}

void LeaseKeeper::release_deadline() {
  std::lock_guard lock(mutex_);
  if (held_ && SteadyClock::now() < valid_until_) return;  // held after all: nothing to release
  held_.reset();
  deadline_.clear();
}

void LeaseKeeper::lose_locked(const std::string& why) {
  held_.reset();
  problem_ = why;
  // Past already: the watchdog stops a PostgreSQL still running, whatever the main loop is doing.
  deadline_.set(SteadyClock::now() - std::chrono::seconds(1));
}

void LeaseKeeper::renew_locked() {
  LeaseRecord record = *held_;
  record.renew_time = lease_time_now();
  record.duration_seconds = static_cast<int>(timings_.duration.count());
  record.quorum = quorum_;
  record.timeline = timeline_;
  auto sent = SteadyClock::now();
  std::string error;
  auto outcome = store_.write(record, error);
  if (outcome == WriteOutcome::conflict) {
    try {
      auto fresh = store_.read();
      if (!fresh || fresh->holder != self_) {
        lose_locked(fresh ? fmt::format("{} took the primary Lease",
                                        fresh->holder.empty() ? "nobody (it was freed)" : fresh->holder)
                          : "the primary Lease was deleted");
        return;
      }
      if (fresh->renew_time == record.renew_time) {
        record = *fresh;  // our write landed; its answer was lost
        outcome = WriteOutcome::written;
      } else if (fresh->same_holding(*held_)) {
        record.resource_version = fresh->resource_version;  // only metadata changed (the pass)
        outcome = store_.write(record, error);
      }
    } catch (const Error& failure) {
      error = failure.what();
    }
  }
  if (outcome == WriteOutcome::written) {
    held_ = record;
    valid_until_ = sent + timings_.renew_deadline;
    deadline_.set(valid_until_);
    problem_.clear();
    ++renewals_;
    wake_.notify_all();
    return;
  }
  problem_ = "cannot renew the primary Lease: " + error;
  if (SteadyClock::now() >= valid_until_)
    lose_locked(fmt::format("could not renew the primary Lease within its renew deadline ({}s): {}",
                            timings_.renew_deadline.count(), error));
}

void LeaseKeeper::renew_until_stopped() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    auto period = held_ ? timings_.retry_period : std::chrono::seconds(1);
    wake_.wait_for(lock, period, [&] { return stopping_ || renew_requested_; });
    if (stopping_) break;
    renew_requested_ = false;
    if (!held_) continue;
    try {
      renew_locked();
    } catch (const Error& failure) {
      problem_ = std::string("cannot renew the primary Lease: ") + failure.what();
      if (SteadyClock::now() >= valid_until_) lose_locked(problem_);
    }
  }
}

}  // namespace opctl::instance
