// The primary Lease's decisions as data: who may take it, when it counts as
// expired, what the holder publishes and how the Lease's JSON carries it.
#include <catch2/catch.hpp>

#include "instance/leadership.hpp"
#include "instance/postgres_settings.hpp"
#include "instance/primary_lease.hpp"

using namespace opctl::instance;
using namespace std::chrono_literals;
using opctl::model::Json;

namespace {

Lsn lsn(const char* text) {
  return *Lsn::parse(text);
}

PeerAnswer replica(const std::string& name, int timeline, const char* position) {
  return {name, true, true, timeline, lsn(position)};
}

PeerAnswer silent(const std::string& name) {
  return {name, false, true, 0, std::nullopt};
}

// db-2 on timeline 1 at 0/5000000; db-1 held the Lease, which expired a second ago.
CandidateView expired_view() {
  CandidateView view;
  view.self = "db-2";
  view.running_as_standby = true;
  view.timeline = 1;
  view.position = lsn("0/5000000");
  view.lease.holder = "db-1";
  view.lease.duration_seconds = 15;
  view.expired_for = 1000ms;
  view.target_primary = "db-1";
  view.peers = {silent("db-1"), replica("db-3", 1, "0/4000000")};
  return view;
}

}  // namespace

TEST_CASE("a fenced primary is never replaced, and a fenced or hibernating instance never takes the Lease",
          "[instance][fencing]") {
  // Given db-1's Lease expired (its Pod restarted while fenced), we should not take it while db-1 is
  // fenced, nor once it freed the Lease while still the Cluster's primary.
  CandidateView view = expired_view();
  REQUIRE(consider_candidacy(view).take);
  view.fenced.names = {"db-1"};
  auto decision = consider_candidacy(view);
  CHECK_FALSE(decision.take);
  CHECK(decision.reason ==
        "the primary db-1 is fenced (opctl.io/fenced-instances): no failover until it is unfenced");
  view.lease.holder = "";
  CHECK_FALSE(consider_candidacy(view).take);

  view = expired_view();
  view.fenced.all = true;
  CHECK_FALSE(consider_candidacy(view).take);

  view = expired_view();
  view.fenced.names = {"db-2"};
  CHECK(consider_candidacy(view).reason == "this instance is fenced (opctl.io/fenced-instances)");

  // Another replica fenced changes nothing for this one.
  view = expired_view();
  view.fenced.names = {"db-3"};
  CHECK(consider_candidacy(view).take);

  view = expired_view();
  view.hibernating = true;
  CHECK_FALSE(consider_candidacy(view).take);
  CHECK_THAT(consider_candidacy(view).reason, Catch::Contains("hibernates"));
}

TEST_CASE("a held Lease is never taken; an expired one by the furthest replica that answers", "[instance]") {
  CandidateView view = expired_view();
  auto decision = consider_candidacy(view);
  CHECK(decision.take);
  CHECK_THAT(decision.reason, Catch::Contains("expired (held by db-1)"));

  view.expired_for = 0ms;
  decision = consider_candidacy(view);
  CHECK_FALSE(decision.take);
  CHECK(decision.reason == "the primary Lease is held by db-1");

  view = expired_view();
  view.running_as_standby = false;
  CHECK_FALSE(consider_candidacy(view).take);

  // A peer further on the same timeline, or on a newer one, wins.
  view = expired_view();
  view.peers[1] = replica("db-3", 1, "0/6000000");
  decision = consider_candidacy(view);
  CHECK_FALSE(decision.take);
  CHECK_THAT(decision.reason, Catch::Contains("db-3 is further (timeline 1, 0/6000000)"));
  view.peers[1] = replica("db-3", 2, "0/1000000");
  CHECK_FALSE(consider_candidacy(view).take);

  // A peer that answers as a writable primary stops every candidate.
  view = expired_view();
  view.peers[0] = {"db-1", true, false, 1, lsn("0/5000000")};
  decision = consider_candidacy(view);
  CHECK_FALSE(decision.take);
  CHECK(decision.reason == "db-1 answers as a writable primary");

  // The holder's timeline on the Lease: a candidate on an older one cannot have its WAL.
  view = expired_view();
  view.lease.timeline = "2";
  CHECK_FALSE(consider_candidacy(view).take);
}

TEST_CASE("equal candidates agree on one: the Cluster's target, then the first name", "[instance]") {
  CandidateView view = expired_view();
  view.peers[1] = replica("db-3", 1, "0/5000000");
  CHECK(consider_candidacy(view).take);  // db-2 < db-3
  view.target_primary = "db-3";
  auto decision = consider_candidacy(view);
  CHECK_FALSE(decision.take);
  CHECK(decision.reason == "db-3 is as far as this instance and preferred");
  // Without a position of its own, never over a peer that has one.
  view = expired_view();
  view.position.reset();
  CHECK_FALSE(consider_candidacy(view).take);
}

TEST_CASE("an equal peer whose manager stopped reporting is not waited for; a further one is", "[instance]") {
  CandidateView view = expired_view();
  view.self = "db-3";
  view.peers = {silent("db-1"), replica("db-2", 1, "0/5000000")};
  view.peers[1].reporting = false;  // db-2's manager hangs: it would never take the Lease
  CHECK(consider_candidacy(view).take);
  view.peers[1].position = lsn("0/6000000");  // but it may hold commits db-3 lacks
  auto decision = consider_candidacy(view);
  CHECK_FALSE(decision.take);
  CHECK_THAT(decision.reason, Catch::Contains("db-2 is further"));
}

TEST_CASE("failoverDelay counts from the Lease's expiry; a freed Lease is taken at once", "[instance]") {
  CandidateView view = expired_view();
  view.failover_delay = 10s;
  auto decision = consider_candidacy(view);
  CHECK_FALSE(decision.take);
  CHECK_THAT(decision.reason, Catch::Contains("failoverDelay (10s)"));
  view.expired_for = 10s;
  CHECK(consider_candidacy(view).take);

  view = expired_view();
  view.lease.holder.clear();
  view.expired_for = 0ms;
  view.failover_delay = 60s;
  decision = consider_candidacy(view);
  CHECK(decision.take);
  CHECK_THAT(decision.reason, Catch::Contains("the primary Lease is free"));

  // A Cluster started again: its target's Pod runs; a free Lease is its for one Lease duration.
  view.target_is_live_peer = true;
  decision = consider_candidacy(view);
  CHECK_FALSE(decision.take);
  CHECK_THAT(decision.reason, Catch::Contains("db-1 (the Cluster's primary) may take it first"));
  view.expired_for = 15s;
  CHECK(consider_candidacy(view).take);
}

TEST_CASE("with synchronous standbys, enough of them must answer (R + W > N)", "[instance]") {
  CandidateView view = expired_view();
  view.lease.quorum = {1, {"db-2", "db-3"}};
  CHECK(consider_candidacy(view).take);  // both answered: 2 > 2 - 1
  view.peers[1] = silent("db-3");
  auto decision = consider_candidacy(view);
  CHECK_FALSE(decision.take);
  CHECK_THAT(decision.reason, Catch::Contains("only 1 of the synchronous standbys (db-2, db-3) answered"));
  // Every commit on 2 of 3: any 2 that answer are enough.
  view.lease.quorum = {2, {"db-2", "db-3", "db-4"}};
  view.peers = {silent("db-1"), replica("db-3", 1, "0/4000000"), silent("db-4")};
  CHECK(consider_candidacy(view).take);
  view.peers[1] = silent("db-3");
  CHECK_FALSE(consider_candidacy(view).take);
}

TEST_CASE("expiry is timed locally, from the last change seen, over the holder's duration", "[instance]") {
  using Clock = std::chrono::steady_clock;
  Clock::time_point start{};
  ExpiryTimer timer;
  CHECK(timer.expired_for(start + 1h).count() == 0);  // nothing seen yet
  LeaseRecord record;
  record.holder = "db-1";
  record.renew_time = "2026-12-04T10:00:00.000000Z";
  record.duration_seconds = 15;
  timer.observe(record, start);
  CHECK(timer.expired_for(start + 14s).count() == 0);
  timer.observe(record, start + 14s);  // unchanged
  CHECK(timer.expired_for(start + 16s) == 1000ms);
  record.renew_time = "2026-12-04T10:00:10.000000Z";  // renewed: the clock starts again
  timer.observe(record, start + 16s);
  CHECK(timer.expired_for(start + 30s).count() == 0);
  CHECK(timer.expired_for(start + 32s) == 1000ms);
  // A change of resourceVersion alone (metadata) is not a renewal.
  record.resource_version = "99";
  timer.observe(record, start + 32s);
  CHECK(timer.expired_for(start + 32s) == 1000ms);
  record.holder.clear();
  timer.observe(record, start + 40s);
  CHECK(timer.expired_for(start + 41s) == 1000ms);  // free: since it was seen free
}

TEST_CASE("the synchronous quorum of a setting, and of a change between two", "[instance]") {
  CHECK(sync_quorum_of("") == SyncQuorum{});
  CHECK(sync_quorum_of("ANY 1 (\"db-2\", \"db-3\")") == SyncQuorum{1, {"db-2", "db-3"}});
  CHECK(sync_quorum_of(synchronous_standby_names({"db-2"}, 1, 1, 1)) == SyncQuorum{1, {"db-2"}});
  CHECK(sync_quorum_of("FIRST 1 (a)") == SyncQuorum{});
  CHECK(sync_quorum_of("*") == SyncQuorum{});
  SyncQuorum two{2, {"db-2", "db-3", "db-4"}};
  SyncQuorum one{1, {"db-2", "db-5"}};
  CHECK(sync_quorum_union(two, one) == SyncQuorum{1, {"db-2", "db-3", "db-4", "db-5"}});
  CHECK(sync_quorum_union({}, one) == one);  // nothing was promised before
  CHECK(sync_quorum_union(two, {}) == two);  // what was promised still holds
}

TEST_CASE("the Lease's JSON carries the holding and what the holder published", "[instance]") {
  Json lease = Json::parse(R"({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
    "metadata": {"name": "db-primary", "resourceVersion": "7", "labels": {"opctl.io/cluster": "db"},
                 "annotations": {"opctl.io/synchronous-standbys": "1:db-2,db-3", "opctl.io/timeline": "3"}},
    "spec": {"holderIdentity": "db-1", "renewTime": "2026-12-04T10:00:00.000000Z",
             "leaseDurationSeconds": 15, "leaseTransitions": 4}})");
  LeaseRecord record = lease_record(lease);
  CHECK(record.holder == "db-1");
  CHECK(record.duration_seconds == 15);
  CHECK(record.transitions == 4);
  CHECK(record.resource_version == "7");
  CHECK(record.quorum == SyncQuorum{1, {"db-2", "db-3"}});
  CHECK(record.timeline == "3");

  record.holder.clear();
  record.renew_time.clear();
  record.quorum = {};
  record.transitions = 5;
  put_record(lease, record);
  CHECK_FALSE(lease["spec"].contains("holderIdentity"));
  CHECK(lease["spec"]["leaseTransitions"] == 5);
  CHECK_FALSE(lease["metadata"]["annotations"].contains("opctl.io/synchronous-standbys"));
  CHECK(lease["metadata"]["labels"]["opctl.io/cluster"] == "db");  // metadata written back as it was
  CHECK(lease_record(lease).quorum == SyncQuorum{});
}
