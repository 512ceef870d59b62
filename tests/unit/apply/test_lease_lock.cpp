// LeaseLock against an in-memory Lease with the apiserver's optimistic
// concurrency (a PUT with a stale resourceVersion is a Conflict) and a clock
// the test moves by hand.
#include <catch2/catch.hpp>
#include <optional>
#include <utility>

#include "apply/lease_lock.hpp"
#include "kube/http_transport.hpp"

using opctl::apply::LeaseLock;
using opctl::apply::LeaseLostError;
using opctl::apply::LeaseSettings;
using opctl::kube::HttpRequest;
using opctl::kube::HttpResponse;
using opctl::model::Json;
using namespace std::chrono_literals;

namespace {

struct FakeTime {
  std::chrono::steady_clock::time_point steady{std::chrono::hours(1000)};
  std::chrono::system_clock::time_point wall = std::chrono::system_clock::now();
  void advance(std::chrono::seconds by) {
    steady += by;
    wall += by;
  }
};

// The lock owns its clock; the test keeps the time it reads.
class LeaseClock : public opctl::Clock {
 public:
  explicit LeaseClock(const FakeTime& time) : time_(time) {}
  std::chrono::steady_clock::time_point steady_now() const override { return time_.steady; }
  std::chrono::system_clock::time_point wall_now() const override { return time_.wall; }
  void sleep_for(std::chrono::milliseconds) const override {}  // the lock never sleeps on it

 private:
  const FakeTime& time_;
};

// One Lease, stored as the apiserver would: every write bumps resourceVersion.
struct LeaseStore {
  std::optional<Json> lease;
  int version = 0;
  int puts = 0;
  long fail_puts_with = 0;        // an HTTP status every PUT gets (0: none)
  bool lose_next_answer = false;  // the next PUT lands, then its retry meets a Conflict

  void store(Json object) {
    object["metadata"]["resourceVersion"] = std::to_string(++version);
    lease = std::move(object);
  }
  // Another run writes the Lease (takes it over).
  void taken_by(const std::string& holder) {
    Json object = *lease;
    object["spec"]["holderIdentity"] = holder;
    store(object);
  }
};

HttpResponse status_response(long code, const std::string& reason) {
  return {code, Json{{"kind", "Status"}, {"reason", reason}, {"message", reason}}.dump(), "", 1};
}

class FakeLeaseServer : public opctl::kube::HttpTransport {
 public:
  explicit FakeLeaseServer(LeaseStore& store) : store_(store) {}
  std::vector<HttpResponse> send_all(const std::vector<HttpRequest>& batch) override {
    std::vector<HttpResponse> out;
    for (const auto& request : batch)
      out.push_back(answer(request));
    return out;
  }

 private:
  HttpResponse answer(const HttpRequest& request) {
    if (request.method == "GET")
      return store_.lease ? HttpResponse{200, store_.lease->dump(), "", 1} : status_response(404, "NotFound");
    Json body = Json::parse(request.body);
    if (request.method == "POST") {
      if (store_.lease) return status_response(409, "AlreadyExists");
      store_.store(body);
      return {201, store_.lease->dump(), "", 1};
    }
    ++store_.puts;
    if (store_.fail_puts_with != 0) return status_response(store_.fail_puts_with, "ServiceUnavailable");
    if (body["metadata"].value("resourceVersion", "") !=
        (*store_.lease)["metadata"].value("resourceVersion", ""))
      return status_response(409, "Conflict");
    store_.store(body);
    if (std::exchange(store_.lose_next_answer, false)) return status_response(409, "Conflict");
    return {200, store_.lease->dump(), "", 1};
  }
  LeaseStore& store_;
};

struct LeaseFixture {
  LeaseStore store;
  FakeTime time;
  std::unique_ptr<LeaseLock> lock;

  LeaseFixture() {
    LeaseSettings settings{"opctl-web", "ops", "run-a/1", 30s, false};
    lock = LeaseLock::acquire(std::make_unique<FakeLeaseServer>(store), settings,
                              std::make_unique<LeaseClock>(time));
  }
};

}  // namespace

TEST_CASE("a lease younger than a third of its duration is not renewed before a write", "[lease_lock]") {
  // Given a lease just taken, we should write without another request.
  LeaseFixture f;
  f.time.advance(9s);
  f.lock->ensure_held();
  CHECK(f.store.puts == 0);
}

TEST_CASE("the lease is renewed before a write once a third of its duration has passed", "[lease_lock]") {
  // Given a lease taken 11s ago (duration 30s), we should renew it, with its resourceVersion.
  LeaseFixture f;
  f.time.advance(11s);
  f.lock->ensure_held();
  CHECK(f.store.puts == 1);
  CHECK((*f.store.lease)["spec"]["renewTime"] == opctl::apply::format_micro_time(f.time.wall));
  CHECK(f.lock->held());
}

TEST_CASE("a run whose expired lease another run took stops writing, naming the holder", "[lease_lock]") {
  // Given run A stopped past its lease and run B took it, A's next write should be refused for good.
  LeaseFixture f;
  f.time.advance(45s);
  f.store.taken_by("run-b/2");
  REQUIRE_THROWS_WITH(f.lock->ensure_held(),
                      Catch::Matchers::Contains("lost the Lease ops/opctl-web to \"run-b/2\""));
  CHECK_FALSE(f.lock->held());
  CHECK_THROWS_AS(f.lock->ensure_held(), LeaseLostError);
  CHECK((*f.store.lease)["spec"]["holderIdentity"] == "run-b/2");
}

TEST_CASE("a lease taken over before it expired is lost too", "[lease_lock]") {
  // Given someone else wrote the Lease (a conflict on renewal), we should stop although our clock says it is
  // valid.
  LeaseFixture f;
  f.store.taken_by("run-b/2");
  f.time.advance(11s);
  CHECK_THROWS_AS(f.lock->ensure_held(), LeaseLostError);
}

TEST_CASE("failed renewals are tolerated until the lease expires by the run's own clock", "[lease_lock]") {
  // Given the apiserver refuses every renewal, we should keep writing while the lease is valid, then stop.
  LeaseFixture f;
  f.store.fail_puts_with = 503;
  f.time.advance(20s);
  CHECK_NOTHROW(f.lock->ensure_held());
  f.time.advance(11s);
  REQUIRE_THROWS_WITH(f.lock->ensure_held(),
                      Catch::Matchers::Contains("not renewed for 31s, longer than its duration of 30s"));
}

TEST_CASE("a released lease names no holder, and a lost one is not released", "[lease_lock]") {
  // Given a held lease, releasing it should clear the holder; given a lost one, the new holder should stay.
  LeaseFixture held;
  held.lock.reset();
  CHECK((*held.store.lease)["spec"]["holderIdentity"] == "");

  LeaseFixture lost;
  lost.store.taken_by("run-b/2");
  lost.time.advance(11s);
  CHECK_THROWS_AS(lost.lock->ensure_held(), LeaseLostError);
  lost.lock.reset();
  CHECK((*lost.store.lease)["spec"]["holderIdentity"] == "run-b/2");
}

TEST_CASE("a Lease in a namespace that does not exist is named in the error", "[lease_lock]") {
  // Given no Lease and a POST that says NotFound (the namespace is missing), we should name the Lease and
  // namespace.
  struct MissingNamespace : opctl::kube::HttpTransport {
    std::vector<HttpResponse> send_all(const std::vector<HttpRequest>& batch) override {
      return std::vector<HttpResponse>(batch.size(), status_response(404, "NotFound"));
    }
  };
  LeaseSettings settings{"opctl-web", "ops", "run-a/1", 30s, false};
  REQUIRE_THROWS_WITH(
      LeaseLock::acquire(std::make_unique<MissingNamespace>(), settings),
      Catch::Matchers::Contains("cannot create the Lease ops/opctl-web: its namespace \"ops\""));
}

TEST_CASE("a renewal that landed but whose answer was lost is not mistaken for a lost lease",
          "[lease_lock]") {
  // Given our PUT was stored and its retry met a Conflict, reading the Lease back should show it is still
  // ours.
  LeaseFixture f;
  f.store.lose_next_answer = true;
  f.time.advance(11s);
  CHECK_NOTHROW(f.lock->ensure_held());
  CHECK(f.lock->held());
  f.time.advance(11s);
  CHECK_NOTHROW(f.lock->ensure_held());
  CHECK((*f.store.lease)["spec"]["holderIdentity"] == "run-a/1");
}
