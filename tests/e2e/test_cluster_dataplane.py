"""The Cluster kind with a real PostgreSQL in every instance, on the test node.

What runs: `opctl reconcile` passes (the real binary, back to back, each of which must exit 0) against a Cluster
whose instances are Pods of localhost/opctl-postgresql:15 (tests/testenv/images/postgresql.recipe: Debian's
postgresql-15 with `opctl instance run` as PID 1 and `opctl instance ready` as readiness probe). The kubelet runs
them, the instance manager runs initdb / pg_basebackup / streaming / promotion and annotates its own Pod; the tests
never write a Pod's status, readiness or annotations. They read back with kubectl and with the host's psql inside
the node's network namespace (through the -rw / -ro Services or an instance's Pod IP): bootstrap and streaming
replication, scaling, failover after the primary's postgres is killed or its Pod deleted, a switchover with
`opctl promote`, a rolling update (unsupervised, and supervised with `opctl promote` as the go-ahead), and a new
password after the -app Secret is deleted, a major upgrade from PostgreSQL 15 to 17 (localhost/opctl-postgresql:17,
tests/testenv/images/postgresql17.recipe) with the real pg_upgrade Job, and the refusal of a downgrade. The failover, switchover and update tests run with one synchronous
standby (minSyncReplicas: 1) and a client that writes one row per connection through -rw, and check that every write
PostgreSQL acknowledged is still there afterwards.

Needs the node (tests/e2e/testenv_fixture.sh up) with the postgresql image, and psql and nsenter on the host. Each
test bootstraps its own Cluster in its own namespace: about one to three minutes each.
"""
import time

import pytest

from postgres_support import IMAGE, MAJOR_IMAGE, UPDATE_IMAGE, PgCluster, Writer, prepare_node_suite, serial

SYNC = "  minSyncReplicas: 1\n  maxSyncReplicas: 1\n"


@pytest.fixture(scope="module", autouse=True)
def prerequisites(cluster):
    prepare_node_suite(cluster)


@pytest.fixture
def db(cluster, namespace, manifests):
    return PgCluster(cluster, namespace, manifests)


def started(db, instances=3, extra=""):
    """A Healthy Cluster whose replicas all stream from db-1."""
    db.write(instances=instances, extra=extra)
    db.settle()
    assert db.status()["currentPrimary"] == "db-1"
    return db


def assert_serving(db, primary):
    """primary is the one primary: labelled, behind -rw, not in recovery, streaming to every other instance."""
    pods = db.pods()
    replicas = sorted((name for name in pods if name != primary), key=serial)
    assert db.status()["currentPrimary"] == primary
    assert db.rw_endpoints() == [primary]
    assert {name: pod["metadata"]["labels"]["opctl.io/role"] for name, pod in pods.items()} == \
        {name: "primary" if name == primary else "replica" for name in pods}
    assert not db.in_recovery(primary)
    assert all(db.in_recovery(name) for name in replicas)
    assert db.replication(primary).keys() == set(replicas)
    assert db.streaming_replicas(primary) == sorted(replicas)


def wait_for_rows(db, pod_name, sql, expected, timeout=60):
    deadline = time.time() + timeout
    while True:
        got = db.on_pod_app_db(pod_name, sql)
        if got == expected or time.time() > deadline:
            assert got == expected, f"{pod_name}: {sql} gave {got!r}, wanted {expected!r}"
            return
        time.sleep(0.5)


def test_three_instances_bootstrap_and_stream_and_the_services_serve_writes_and_reads(db):
    db.write()
    db.reconcile()  # the first pass starts the primary only
    assert db.pod_names() == ["db-1"]
    secrets = {suffix: db.get("secret", f"db-{suffix}") for suffix in ("app", "superuser", "replication")}
    db.settle()
    assert db.pod_names() == ["db-1", "db-2", "db-3"]
    uid = db.resource()["metadata"]["uid"]
    for kind, name in [("pod", "db-1"), ("pod", "db-3"), ("pvc", "db-1"), ("pvc", "db-3"), ("service", "db-rw"),
                       ("service", "db-ro"), ("service", "db-r"), ("secret", "db-app"), ("secret", "db-superuser"),
                       ("secret", "db-replication")]:
        owner = db.get(kind, name)["metadata"]["ownerReferences"][0]
        assert (owner["kind"], owner["name"], owner["uid"], owner["controller"]) == ("Cluster", "db", uid, True)
    assert db.get("service", "db-rw")["spec"]["selector"] == {"opctl.io/cluster": "db", "opctl.io/role": "primary"}
    assert db.get("service", "db-ro")["spec"]["selector"] == {"opctl.io/cluster": "db", "opctl.io/role": "replica"}
    assert db.get("service", "db-r")["spec"]["selector"] == {"opctl.io/cluster": "db"}
    app = db.secret("app")
    assert (app["username"], app["dbname"], app["host"], app["port"]) == ("app", "app", f"db-rw.{db.namespace}.svc",
                                                                          "5432")
    assert {"uri", "jdbc-uri", "pgpass"} <= app.keys()
    assert db.secret("superuser")["username"] == "postgres"
    assert db.secret("replication")["username"] == "streaming_replica"
    for suffix, before in secrets.items():  # generated once, never rewritten by later passes
        assert db.get("secret", f"db-{suffix}")["metadata"]["resourceVersion"] == \
            before["metadata"]["resourceVersion"], suffix
    assert db.resource()["metadata"]["finalizers"] == ["opctl.io/final-backup"]
    status = db.status()
    assert (status["readyInstances"], status["currentPrimary"], status["targetPrimary"]) == (3, "db-1", "db-1")
    states = {state["name"]: state for state in status["instanceStates"]}
    assert {name: (state["role"], state["ready"]) for name, state in states.items()} == \
        {"db-1": ("primary", True), "db-2": ("replica", True), "db-3": ("replica", True)}
    assert_serving(db, "db-1")
    assert db.replication("db-1") == {"db-2": ("streaming", "async"), "db-3": ("streaming", "async")}
    assert db.status()["readyInstances"] == 3

    db.app("CREATE TABLE items (id integer PRIMARY KEY, note text NOT NULL)")
    assert db.app("INSERT INTO items SELECT n, 'row ' || n FROM generate_series(1, 1000) AS n") == "INSERT 0 1000"
    for replica in ("db-2", "db-3"):  # asynchronous: each replica has them once it replayed them
        wait_for_rows(db, replica, "SELECT count(*), sum(id) FROM items", "1000|500500")
    for _ in range(4):  # -ro balances over both replicas
        assert db.app("SELECT count(*), sum(id) FROM items", service="ro") == "1000|500500"
    refused = db.app_sql("INSERT INTO items VALUES (1001, 'x')", service="ro")
    assert refused.returncode != 0 and "read-only transaction" in refused.stderr, refused.stderr


def test_scale_3_to_5_to_2_never_removes_the_primary_and_keeps_the_data(db):
    started(db)
    db.app("CREATE TABLE items (id integer PRIMARY KEY)")
    db.app("INSERT INTO items SELECT generate_series(1, 1000)")
    seen = [db.pod_names()]  # the instances after each pass, when they changed

    def primary_stays():
        pods = db.pods()
        assert db.status()["currentPrimary"] == "db-1", db.describe()
        assert "db-1" in pods and "deletionTimestamp" not in pods["db-1"]["metadata"], db.describe()
        names = sorted((name for name, pod in pods.items() if "deletionTimestamp" not in pod["metadata"]), key=serial)
        if not seen or seen[-1] != names:
            seen.append(names)

    db.write(instances=5)
    db.passes_until(db.healthy_and_streaming, "Healthy with 5 instances", each_pass=primary_stays)
    assert db.pod_names() == ["db-1", "db-2", "db-3", "db-4", "db-5"]
    assert_serving(db, "db-1")
    for replica in ("db-4", "db-5"):  # cloned from the primary, data included
        wait_for_rows(db, replica, "SELECT count(*) FROM items", "1000")

    assert seen == [["db-1", "db-2", "db-3"], ["db-1", "db-2", "db-3", "db-4"],
                    ["db-1", "db-2", "db-3", "db-4", "db-5"]], seen  # one new replica per pass, each once Ready

    seen.clear()
    db.write(instances=2)
    db.passes_until(db.healthy_and_streaming, "Healthy with 2 instances", each_pass=primary_stays)
    assert seen == [["db-1", "db-2", "db-3", "db-4"], ["db-1", "db-2", "db-3"], ["db-1", "db-2"]], seen
    assert db.pod_names() == ["db-1", "db-2"]
    assert_serving(db, "db-1")
    assert db.app("SELECT count(*), sum(id) FROM items") == "1000|500500"
    wait_for_rows(db, "db-2", "SELECT count(*) FROM items", "1000")
    # The removed instances' replication slots go with them (a slot left behind keeps WAL forever).
    slots = db.on_pod("db-1", "SELECT slot_name FROM pg_replication_slots ORDER BY 1").split()
    assert slots == ["_opctl_db_2"], slots
    deadline = time.time() + 60  # the removed instances' volumes go too (storage.retainOnScaleDown is false)
    while sorted(p["metadata"]["name"] for p in db.get("pvc", "-l", "opctl.io/cluster=db")["items"]) != \
            ["db-1", "db-2"] and time.time() < deadline:
        time.sleep(1)
    assert sorted(p["metadata"]["name"] for p in db.get("pvc", "-l", "opctl.io/cluster=db")["items"]) == \
        ["db-1", "db-2"]

    db.write(instances=3)  # serials are never reused
    db.settle()
    assert db.pod_names() == ["db-1", "db-2", "db-6"]
    wait_for_rows(db, "db-6", "SELECT count(*) FROM items", "1000")


def restarts(db, pod_name):
    statuses = db.pods()[pod_name].get("status", {}).get("containerStatuses", [])
    return sum(status.get("restartCount", 0) for status in statuses)


def failover(db, disrupt, may_restart_in_place=False):
    """A Healthy 3-instance Cluster with one synchronous standby, a writer, then disrupt(primary) and passes until
    a replica is primary and the old primary streams from it again, or, with may_restart_in_place, until the old
    primary's container was restarted and it serves again as the primary. Returns (old, new)."""
    started(db, extra=SYNC)
    standbys = db.on_pod("db-1", "SHOW synchronous_standby_names")
    assert standbys.startswith("ANY 1 (") and "db-2" in standbys and "db-3" in standbys, standbys
    assert db.replication("db-1") == {"db-2": ("streaming", "quorum"), "db-3": ("streaming", "quorum")}
    writer = Writer(db)
    writer.create_table()
    writer.start()
    try:
        writer.wait_for_acks(50)
        old = db.status()["currentPrimary"]
        restarts_before = restarts(db, old)
        disrupt(old)

        def recovered():
            new = db.status().get("currentPrimary")
            if new == old:
                return may_restart_in_place and restarts(db, old) > restarts_before and db.healthy_and_streaming()
            return new is not None and db.healthy_and_streaming() and db.role(old) == "replica"

        what = f"failed over from {old} with {old} back as a replica" + (
            f", or {old} restarted in place" if may_restart_in_place else "")
        db.passes_until(recovered, what)
        new = db.status()["currentPrimary"]
        assert new in (("db-1", "db-2", "db-3") if may_restart_in_place else ("db-2", "db-3"))
        assert_serving(db, new)
        assert db.pod_names() == ["db-1", "db-2", "db-3"]
        writer.wait_for_acks(20)  # writes resume through -rw on the new primary
    finally:
        writer.stop()
    writer.assert_nothing_acknowledged_was_lost()
    wait_for_rows(db, old, f"SELECT count(*) >= {len(writer.acknowledged)} FROM writes", "t")
    return old, new


def kill_postmaster(db):
    def disrupt(pod_name):
        # The image has no pkill (no procps): the postmaster's PID is the first line of postmaster.pid.
        db.cluster.kubectl("exec", pod_name, "-n", db.namespace, "-c", "postgres", "--",
                           "bash", "-c", 'kill -9 "$(head -1 "$PGDATA/postmaster.pid")"')
    return disrupt


def test_when_the_primary_postgres_is_killed_no_acknowledged_write_is_lost(db):
    # opctl-cluster-kind(5), THE PRIMARY LEASE: the manager exits, the kubelet restarts the container at once, and
    # the manager, still the Lease's holder, starts PostgreSQL again as the primary (crash recovery). Were it back
    # later than the Lease's duration, a replica would have taken over and it would rejoin through pg_rewind.
    old, new = failover(db, kill_postmaster(db), may_restart_in_place=True)
    if new != old:
        # The promotion opened a new timeline: the new primary writes WAL segments of timeline 2 or later.
        segment = db.on_pod(new, "SELECT pg_walfile_name(pg_current_wal_lsn())")
        assert int(segment[:8], 16) >= 2, segment


def test_failover_when_the_primary_pod_is_deleted_loses_no_acknowledged_write(db):
    def delete_pod(pod_name):
        db.cluster.kubectl("delete", "pod", pod_name, "-n", db.namespace, "--wait=false")

    failover(db, delete_pod)


def test_switchover_with_opctl_promote_loses_no_acknowledged_write(db):
    started(db, extra=SYNC)
    writer = Writer(db)
    writer.create_table()
    writer.start()
    try:
        writer.wait_for_acks(50)
        promote = db.cluster.opctl("promote", "db", "db-3", "--kubeconfig", db.cluster.kubeconfig,
                                   "-n", db.namespace)
        assert promote.returncode == 0, promote.stderr
        db.passes_until(lambda: db.status().get("currentPrimary") == "db-3" and db.healthy_and_streaming(),
                        "switched over to db-3 with db-1 streaming from it")
        assert_serving(db, "db-3")
        assert db.status()["targetPrimary"] == "db-3"
        writer.wait_for_acks(20)
    finally:
        writer.stop()
    writer.assert_nothing_acknowledged_was_lost()


def test_rolling_update_updates_the_replicas_first_then_switches_over_and_loses_no_acknowledged_write(db):
    started(db, extra=SYNC)
    writer = Writer(db)
    writer.create_table()
    writer.start()
    updated = []  # Pods in the order they first ran the new image, with the primary at that moment

    def record():
        primary = db.status().get("currentPrimary")
        for name, image in sorted(db.images().items()):
            if image == UPDATE_IMAGE and name not in [n for n, _ in updated]:
                updated.append((name, primary))

    try:
        writer.wait_for_acks(50)
        db.write(extra=SYNC, image=UPDATE_IMAGE)
        db.passes_until(lambda: set(db.images().values()) == {UPDATE_IMAGE} and db.healthy_and_streaming(),
                        f"every instance on {UPDATE_IMAGE}, Healthy", timeout=420, each_pass=record)
        writer.wait_for_acks(20)
    finally:
        writer.stop()
    # Replicas first, highest serial first; the old primary last, after a switchover to an updated replica.
    assert [name for name, _ in updated] == ["db-3", "db-2", "db-1"], updated
    assert updated[0][1] == "db-1" and updated[1][1] == "db-1", updated
    assert updated[2][1] in ("db-2", "db-3"), f"db-1 was recreated while it was still the primary: {updated}"
    new = db.status()["currentPrimary"]
    assert new in ("db-2", "db-3")
    assert_serving(db, new)
    assert db.images() == {"db-1": UPDATE_IMAGE, "db-2": UPDATE_IMAGE, "db-3": UPDATE_IMAGE}
    writer.assert_nothing_acknowledged_was_lost()


def test_a_supervised_update_waits_for_opctl_promote_then_switches_over_and_loses_no_acknowledged_write(db):
    supervised = SYNC + "  primaryUpdateStrategy: supervised\n"
    started(db, extra=supervised)
    writer = Writer(db)
    writer.create_table()
    writer.start()
    try:
        writer.wait_for_acks(50)
        db.write(extra=supervised, image=UPDATE_IMAGE)
        db.passes_until(lambda: db.status().get("phase") == "WaitingForUser", "WaitingForUser", timeout=300)
        assert db.images() == {"db-1": IMAGE, "db-2": UPDATE_IMAGE, "db-3": UPDATE_IMAGE}
        db.reconcile()  # nothing moves without the user
        assert db.status()["phase"] == "WaitingForUser" and db.rw_endpoints() == ["db-1"]
        assert not db.in_recovery("db-1")
        # A request for an instance that does not exist is recorded, reported and ignored; a name that is not
        # an instance of db is refused before anything is recorded.
        bad = db.cluster.opctl("promote", "db", "db-9", "--kubeconfig", db.cluster.kubeconfig, "-n", db.namespace)
        assert bad.returncode == 0, bad.stderr
        db.reconcile()
        assert db.rw_endpoints() == ["db-1"] and "was ignored" in db.condition("Progressing")["message"]
        invalid = db.cluster.opctl("promote", "db", "web-2", "--kubeconfig", db.cluster.kubeconfig,
                                   "-n", db.namespace)
        assert invalid.returncode == 2 and "not an instance of db" in invalid.stderr
        promote = db.cluster.opctl("promote", "db", "2", "--kubeconfig", db.cluster.kubeconfig, "-n", db.namespace)
        assert promote.returncode == 0, promote.stderr
        db.passes_until(lambda: db.status().get("currentPrimary") == "db-2" and db.healthy_and_streaming()
                        and db.images()["db-1"] == UPDATE_IMAGE, "switched over to db-2, db-1 updated")
        assert_serving(db, "db-2")
        writer.wait_for_acks(20)
    finally:
        writer.stop()
    writer.assert_nothing_acknowledged_was_lost()


def test_a_deleted_app_secret_gets_a_new_password_that_works_and_the_old_one_is_refused(db):
    started(db)
    old = db.secret("app")["password"]
    assert db.app("SELECT current_user") == "app"
    db.cluster.kubectl("delete", "secret", "db-app", "-n", db.namespace)

    def new_password_works():
        if not db.cluster.exists("secret", "db-app", "-n", db.namespace):
            return False
        return db.secret("app")["password"] != old and db.app_sql("SELECT 1").returncode == 0

    db.passes_until(new_password_works, "the new -app password accepted through db-rw", timeout=120)
    new = db.secret("app")["password"]
    fresh = len(new) == 64 and new != old  # one boolean: pytest would print the passwords themselves
    assert fresh, "the new -app password is not 64 characters, or equals the old one"
    refused = db.app_sql("SELECT 1", password=old)
    assert refused.returncode != 0 and "password authentication failed" in refused.stderr, refused.stderr
    # The role's new password reached the replicas too (ALTER ROLE is replicated).
    deadline = time.time() + 30
    while db.app_sql("SELECT 1", service="ro").returncode != 0 and time.time() < deadline:
        time.sleep(1)
    assert db.app("SELECT current_user", service="ro") == "app"
    db.settle()


def test_a_major_version_downgrade_is_refused_and_the_instances_keep_serving(db):
    started(db, instances=2)
    db.write(instances=2, image="localhost/opctl-postgresql:14")
    refused = db.cluster.reconcile("--path", str(db.root))
    assert refused.returncode == 3, refused.stdout + refused.stderr  # a Degraded custom resource fails the pass
    degraded = db.condition("Degraded")
    assert (degraded["status"], degraded["reason"]) == ("True", "MajorDowngradeRefused")
    assert db.images() == {"db-1": IMAGE, "db-2": IMAGE}
    assert db.app("SELECT 1") == "1"


def test_a_major_upgrade_from_15_to_17_keeps_every_row_and_clones_new_replicas(db):
    started(db, instances=2)
    db.app("CREATE TABLE kept (id int PRIMARY KEY, note text NOT NULL)")
    db.app("INSERT INTO kept SELECT i, md5(i::text) FROM generate_series(1, 5000) i")
    fingerprint = "SELECT count(*), sum(id), md5(string_agg(note, ',' ORDER BY id)) FROM kept"
    before = db.app(fingerprint)
    old_claims = {claim["metadata"]["name"]: claim["metadata"]["uid"] for claim in db.get("pvc")["items"]}
    assert sorted(old_claims) == ["db-1", "db-2"]

    db.write(instances=2, image=MAJOR_IMAGE)
    db.settle(timeout=600, what="Healthy on PostgreSQL 17")

    # The real Job ran pg_upgrade --link on db-1's volume, from the 15 binaries its init container copied in.
    job = db.get("job", "db-upgrade-17")
    assert job["status"].get("succeeded") == 1, job["status"]
    assert job["metadata"]["labels"]["opctl.io/cluster-job"] == "major-upgrade"
    template = job["spec"]["template"]["spec"]
    assert template["initContainers"][0]["image"] == IMAGE and template["containers"][0]["image"] == MAJOR_IMAGE
    logs = db.cluster.kubectl("logs", "job/db-upgrade-17", "-n", db.namespace, "-c", "pg-upgrade").stdout
    assert "upgraded from PostgreSQL 15 to 17" in logs, logs

    assert db.status()["pgDataImageInfo"] == {"image": MAJOR_IMAGE, "majorVersion": 17}
    pods = db.pods()
    assert sorted(pods, key=serial) == ["db-1", "db-3"]  # db-2's data was of the old major: a new replica
    assert db.images() == {"db-1": MAJOR_IMAGE, "db-3": MAJOR_IMAGE}
    claims = {claim["metadata"]["name"]: claim["metadata"]["uid"] for claim in db.get("pvc")["items"]
              if "deletionTimestamp" not in claim["metadata"]}
    assert sorted(claims) == ["db-1", "db-3"] and claims["db-1"] == old_claims["db-1"]
    assert_serving(db, "db-1")
    for name in ("db-1", "db-3"):
        assert db.on_pod(name, "SHOW server_version_num").startswith("17"), name
    # Every row, on the upgraded primary through -rw (the app Secret's password still works) and on the new replica.
    assert db.app(fingerprint) == before
    wait_for_rows(db, "db-3", fingerprint, before)
    db.app("INSERT INTO kept VALUES (5001, 'after the upgrade')")
    wait_for_rows(db, "db-3", "SELECT note FROM kept WHERE id = 5001", "after the upgrade")
