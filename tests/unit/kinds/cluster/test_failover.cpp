#include <catch2/catch.hpp>

#include "kinds/cluster/failover.hpp"

using opctl::kinds::cluster::elect_primary;
using opctl::kinds::cluster::Lsn;
using opctl::kinds::cluster::rank_candidates;
using opctl::kinds::cluster::ReplicaReport;

namespace {

// name, ready, error, received, replayed ("" = not reported)
ReplicaReport replica(const std::string& name, bool ready, const std::string& error,
                      const std::string& received, const std::string& replayed) {
  return {name, ready, error, Lsn::parse(received), Lsn::parse(replayed), ""};
}

std::vector<std::string> order(const std::vector<ReplicaReport>& reports) {
  std::vector<std::string> names;
  for (const auto& report : rank_candidates(reports))
    names.push_back(report.name);
  return names;
}

}  // namespace

TEST_CASE("failover candidates rank as CloudNativePG ranks them", "[cluster][failover]") {
  // Given replicas differing in one criterion at a time, we should order them by: no error, received LSN,
  // replayed LSN, name.
  struct Row {
    const char* what;
    std::vector<ReplicaReport> replicas;
    std::vector<std::string> expected;
  };
  std::vector<Row> table = {
      {"no error beats a higher LSN",
       {replica("db-2", true, "connection refused", "0/9000000", "0/9000000"),
        replica("db-3", true, "", "0/3000000", "0/3000000")},
       {"db-3", "db-2"}},
      {"higher received LSN first",
       {replica("db-2", true, "", "0/3000060", "0/3000060"),
        replica("db-3", true, "", "0/3000100", "0/3000000")},
       {"db-3", "db-2"}},
      {"received LSN compares numerically, not as text",
       {replica("db-2", true, "", "0/9FFFFFF", ""), replica("db-3", true, "", "0/A000000", "")},
       {"db-3", "db-2"}},
      {"received LSN compares the high half first",
       {replica("db-2", true, "", "0/FFFFFFFF", ""), replica("db-3", true, "", "1/0", "")},
       {"db-3", "db-2"}},
      {"equal received: higher replayed LSN first",
       {replica("db-2", true, "", "0/5000000", "0/4000000"),
        replica("db-3", true, "", "0/5000000", "0/4800000")},
       {"db-3", "db-2"}},
      {"all equal: by name",
       {replica("db-3", true, "", "0/5000000", "0/5000000"),
        replica("db-2", true, "", "0/5000000", "0/5000000")},
       {"db-2", "db-3"}},
      {"name order is textual, as CloudNativePG's",
       {replica("db-2", true, "", "", ""), replica("db-10", true, "", "", "")},
       {"db-10", "db-2"}},
      {"an unknown LSN ranks after any known one",
       {replica("db-2", true, "", "", ""), replica("db-3", true, "", "0/1", "")},
       {"db-3", "db-2"}},
      {"a known replayed LSN beats an unknown one at equal received",
       {replica("db-2", true, "", "0/100", ""), replica("db-3", true, "", "0/100", "0/80")},
       {"db-3", "db-2"}},
      {"the error flag outranks everything else",
       {replica("db-2", true, "timeout", "2/0", "2/0"), replica("db-4", true, "", "", ""),
        replica("db-3", true, "", "0/1", "0/1")},
       {"db-3", "db-4", "db-2"}},
  };
  for (const auto& row : table) {
    INFO(row.what);
    CHECK(order(row.replicas) == row.expected);
  }
}

TEST_CASE("the most advanced Ready replica is elected", "[cluster][failover]") {
  auto election = elect_primary({replica("db-2", true, "", "0/3000060", "0/3000060"),
                                 replica("db-3", true, "", "0/3000100", "0/3000060"),
                                 replica("db-4", false, "", "0/9000000", "0/9000000")});
  REQUIRE(election.winner);
  CHECK(*election.winner == "db-3");
  CHECK(election.message.find("0/3000100") != std::string::npos);
}

TEST_CASE("no promotion without a Ready replica", "[cluster][failover]") {
  auto election =
      elect_primary({replica("db-2", false, "", "0/3000060", ""), replica("db-3", false, "", "", "")});
  CHECK_FALSE(election.winner);
  CHECK(election.reason == "NoReadyReplica");
  CHECK_FALSE(elect_primary({}).winner);
}

TEST_CASE("a replica whose LSN is unknown is never promoted while another's is known",
          "[cluster][failover]") {
  SECTION("the known one is not Ready") {
    auto election =
        elect_primary({replica("db-2", true, "", "", ""), replica("db-3", false, "", "0/3000060", "")});
    CHECK_FALSE(election.winner);
    CHECK(election.reason == "UnknownReplicaLsn");
    CHECK(election.message.find("db-3") != std::string::npos);
  }
  SECTION("the known one reports an error") {
    auto election =
        elect_primary({replica("db-2", true, "", "", ""), replica("db-3", true, "boom", "0/1", "")});
    CHECK_FALSE(election.winner);
    CHECK(election.reason == "UnknownReplicaLsn");
  }
  SECTION("a known Ready one wins over the unknown") {
    auto election = elect_primary({replica("db-2", true, "", "", ""), replica("db-3", true, "", "0/1", "")});
    REQUIRE(election.winner);
    CHECK(*election.winner == "db-3");
  }
  SECTION("when no replica reports a position, the name decides") {
    auto election = elect_primary({replica("db-3", true, "", "", ""), replica("db-2", true, "", "", "")});
    REQUIRE(election.winner);
    CHECK(*election.winner == "db-2");
  }
}

TEST_CASE("a replica that reports an error is not promoted", "[cluster][failover]") {
  auto election = elect_primary({replica("db-2", true, "replication broken", "0/9", "0/9")});
  CHECK_FALSE(election.winner);
  CHECK(election.reason == "ReplicasReportErrors");
}

TEST_CASE("a replica whose report is stale is never promoted, and one behind it only if it was not ahead",
          "[cluster][failover]") {
  // Given the most advanced replica's manager stopped reporting a minute ago, we should elect nobody.
  auto stale = replica("db-2", true, "", "0/9000000", "0/9000000");
  stale.unpromotable = "its report is 60s old";
  auto fresh = replica("db-3", true, "", "0/3000000", "0/3000000");
  auto behind = elect_primary({stale, fresh});
  CHECK_FALSE(behind.winner);  // db-2 may hold commits db-3 lacks
  CHECK(behind.reason == "UnpromotableReplicaAhead");
  CHECK(behind.message.find("db-2 cannot be promoted (its report is 60s old)") == 0);
  // Given the stale one was behind the fresh one when it last reported, we should promote the fresh one.
  stale.received = Lsn::parse("0/1000000");
  stale.replayed = Lsn::parse("0/1000000");
  auto election = elect_primary({stale, fresh});
  REQUIRE(election.winner);
  CHECK(*election.winner == "db-3");
  // Given both at the same position (a synchronous pair), the name does not make the stale one "ahead".
  stale.received = fresh.received;
  stale.replayed = fresh.replayed;
  election = elect_primary({stale, fresh});
  REQUIRE(election.winner);
  CHECK(*election.winner == "db-3");
  // Given it is the only one, we should elect nobody, and say why.
  auto alone = elect_primary({stale});
  CHECK_FALSE(alone.winner);
  CHECK(alone.reason == "NoReadyReplica");
  CHECK(alone.message == "no replica can be promoted (db-2: its report is 60s old)");
}
