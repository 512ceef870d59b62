// Holds the primary Lease for the instance manager: renews it on a thread of
// its own every retry period, never behind PostgreSQL work (a step can spend
// minutes in pg_basebackup or a slow query), and moves the write deadline
// (write_deadline.hpp) forward after every renewal that landed. A holder
// that cannot renew by its renew deadline stops holding; the watchdog has
// stopped PostgreSQL by then, and the main loop stops it too.
//
// The main loop observes the Lease every step (observe), times its expiry
// (leadership.hpp), takes it with a conditional write (acquire), and gives it
// away only after PostgreSQL is down (hand_over).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "instance/leadership.hpp"
#include "instance/primary_lease.hpp"
#include "instance/write_deadline.hpp"

namespace opctl::instance {

class LeaseKeeper {
 public:
  using SteadyClock = std::chrono::steady_clock;
  LeaseKeeper(LeaseStore& store, std::string self, WriteDeadline& deadline);
  ~LeaseKeeper();
  LeaseKeeper(const LeaseKeeper&) = delete;
  LeaseKeeper& operator=(const LeaseKeeper&) = delete;

  // From the Cluster's spec; a holder writes the duration at its next renewal.
  void set_timings(const LeaseTimings& timings);

  // Reads the Lease now and times it; nullopt while it does not exist.
  // Throws an opctl::Error when it cannot be read.
  std::optional<LeaseRecord> observe();
  // How long the holding last observed has been expired (see ExpiryTimer).
  std::chrono::milliseconds expired_for() const;

  // Takes the Lease as observed in `seen` with a conditional write naming
  // this instance (keeping the previous holder's published quorum until
  // this one publishes its own). True when it holds it now; otherwise
  // `why_not` says why.
  bool acquire(const LeaseRecord& seen, std::string& why_not);
  // Holds it, and the last renewal is within the renew deadline.
  bool holds() const;
  // Why the last renewal failed, or why the Lease was lost; empty when fine.
  std::string problem() const;

  // What the next renewals publish: the synchronous standbys and the timeline.
  void publish(const SyncQuorum& quorum, const std::string& timeline);
  // A renewal that landed carried `quorum`.
  bool published(const SyncQuorum& quorum) const;
  // Makes the next renewal happen now and waits for it (up to a retry period); true when it landed.
  bool renew_now();

  // Gives the Lease to `to` (empty: frees it) and stops holding. Only once
  // PostgreSQL no longer accepts writes. False (and why) when the write failed.
  bool hand_over(const std::string& to, std::string& why_not);
  // PostgreSQL was stopped after the Lease was lost: the write deadline goes
  // (a standby started next must not be stopped by the watchdog), and a
  // holding past its deadline is given up (taken again only by a new write).
  void release_deadline();

 private:
  void renew_until_stopped();
  // One renewal, with mutex_ held.
  void renew_locked();
  void lose_locked(const std::string& why);

  LeaseStore& store_;
  std::string self_;
  WriteDeadline& deadline_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool renew_requested_ = false;
  LeaseTimings timings_;
  ExpiryTimer timer_;
  std::optional<LeaseRecord> held_;  // as last written while held
  SteadyClock::time_point valid_until_{};
  std::uint64_t renewals_ = 0;
  SyncQuorum quorum_;
  std::string timeline_;
  std::string problem_;
  std::thread renewer_;
};

// A Lease's renewTime (RFC 3339 with microseconds, as the API server writes MicroTime).
std::string lease_time_now();

}  // namespace opctl::instance
