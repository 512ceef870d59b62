"""Defects of the data plane that destroyed data, leaked passwords or stalled a Cluster, each reproduced on the test
node with a real PostgreSQL in every instance (the instance manager of localhost/opctl-postgresql:15):

- a Secret password with a trailing newline is refused by name, the old passwords keep working, and the value
  reaches no log, annotation, status or command output; a fixed Secret (quotes, backslashes) then works;
- a primary whose data directory lost PG_VERSION (and whose postmaster died) refuses initdb and keeps every byte:
  with PG_VERSION back, every row is there;
- minSyncReplicas 0 with maxSyncReplicas 1: when the only standby stops streaming (its packets from the primary
  rejected in its own network namespace), commits do not hang, with no pass running;
- a replica whose Pod is gone while the primary writes more WAL than wal_keep_size keeps its replication slot, and
  streams again once a pass recreates it;
- 12 instances (more than PostgreSQL's default replication limits of 10) are Healthy, every replica streaming;
- a replica whose instance manager hangs (SIGSTOP from the host) reports nothing for over 30 s and is never the one
  promoted when the primary's manager stops too (its watchdog fences it, its Lease expires).

Reads back with kubectl and psql (postgres_support.py), never with opctl's own client.
"""
import base64
import calendar
import json
import os
import secrets
import signal
import subprocess
import time

import pytest

from postgres_support import PgCluster, instance_manager_pid, instance_netns, prepare_node_suite


@pytest.fixture(scope="module", autouse=True)
def prerequisites(cluster):
    prepare_node_suite(cluster)


@pytest.fixture
def db(cluster, namespace, manifests):
    return PgCluster(cluster, namespace, manifests)


def started(db, instances, extra=""):
    db.write(instances=instances, extra=extra)
    db.settle()
    assert db.status()["currentPrimary"] == "db-1"
    return db


def patch_secret_password(db, suffix, password):
    value = base64.b64encode(password.encode()).decode()
    db.cluster.kubectl("patch", "secret", f"{db.name}-{suffix}", "-n", db.namespace, "--type", "merge",
                       "-p", json.dumps({"data": {"password": value}}))


def instance_errors(db):
    return db.condition("InstanceErrors").get("message", "")


def everything_a_reader_sees(db):
    """What anyone who may read Pods, Clusters and logs sees: every instance's log, the Pods and the Cluster as
    JSON, Events, and `opctl status`."""
    texts = []
    for name in db.pods():
        for previous in ([], ["--previous"]):
            logs = db.cluster.kubectl("logs", name, "-n", db.namespace, "-c", "postgres", *previous, check=False)
            texts.append(logs.stdout)
    texts.append(db.cluster.kubectl("get", "pods,clusters.opctl.io,events", "-n", db.namespace, "-o", "json").stdout)
    status = db.cluster.opctl("status", "--path", str(db.root), "--kubeconfig", db.cluster.kubeconfig, "-o", "json")
    texts.append(status.stdout + status.stderr)
    return "\n".join(texts)


def test_a_password_with_a_trailing_newline_is_refused_by_name_and_reaches_no_log_status_or_output(db):
    started(db, instances=2)
    old = db.secret("app")["password"]
    refused = f"refused-{secrets.token_hex(8)}"
    patch_secret_password(db, "app", refused + "\n")  # as `kubectl create secret --from-file` would write it

    db.passes_until(lambda: "db-app key password holds a control character" in instance_errors(db),
                    "the InstanceErrors condition naming the -app Secret's password", timeout=120)
    assert db.condition("InstanceErrors")["status"] == "True"
    # Nothing of the refused Secret is applied: the old password still works, on the primary and the replica.
    assert db.app_sql("SELECT current_user", password=old).stdout.strip() == "app"
    assert db.app_sql("SELECT current_user", service="ro", password=old).stdout.strip() == "app"
    assert refused not in everything_a_reader_sees(db)

    # The Secret written again, with characters a quoting bug would trip on: it works, the old one is refused.
    fixed = f"fixed-'{secrets.token_hex(8)}'\\\"$x"
    patch_secret_password(db, "app", fixed)
    db.passes_until(lambda: db.app_sql("SELECT 1", password=fixed).returncode == 0,
                    "the fixed -app password accepted through db-rw", timeout=120)
    rejected = db.app_sql("SELECT 1", password=old)
    assert rejected.returncode != 0 and "password authentication failed" in rejected.stderr, rejected.stderr
    db.passes_until(lambda: db.condition("InstanceErrors").get("status") == "False",
                    "no instance reporting an error", timeout=60)
    seen = everything_a_reader_sees(db)
    assert refused not in seen
    assert fixed not in seen and fixed[6:22] not in seen


def test_a_primary_whose_data_directory_lost_pg_version_refuses_initdb_and_keeps_every_row(db):
    started(db, instances=1)
    db.app("CREATE TABLE kept (id integer PRIMARY KEY)")
    db.app("INSERT INTO kept SELECT generate_series(1, 1000)")
    db.on_pod("db-1", "CHECKPOINT")
    # The volume comes back without PG_VERSION (a remount, a move cut short) and the postmaster dies.
    db.cluster.kubectl("exec", "db-1", "-n", db.namespace, "-c", "postgres", "--", "bash", "-c",
                       'mv "$PGDATA/PG_VERSION" "$PGDATA/../PG_VERSION.moved" && '
                       'kill -9 "$(head -1 "$PGDATA/postmaster.pid")"')

    db.passes_until(lambda: "refusing to run initdb" in instance_errors(db),
                    "db-1 refusing initdb, named in the InstanceErrors condition", timeout=180)
    annotation = db.pods()["db-1"]["metadata"]["annotations"]["opctl.io/instance-error"]
    assert "has no PG_VERSION" in annotation and "every file is kept" in annotation, annotation
    selector = "involvedObject.kind=Cluster,involvedObject.name=db,reason=InstanceReportsError"
    events = db.get("events", "--field-selector", selector)["items"]
    assert any(event["type"] == "Warning" and "refusing to run initdb" in event["message"] for event in events), \
        events
    # Every file is still there, and no empty database serves in its place.
    kept = db.cluster.kubectl("exec", "db-1", "-n", db.namespace, "-c", "postgres", "--", "bash", "-c",
                              'test -f "$PGDATA/global/pg_control" && ls "$PGDATA/base" | wc -l').stdout.strip()
    assert int(kept) >= 3, kept  # template0, template1, postgres and the app database
    assert db.rw_endpoints() == []

    db.cluster.kubectl("exec", "db-1", "-n", db.namespace, "-c", "postgres", "--", "bash", "-c",
                       'mv "$PGDATA/../PG_VERSION.moved" "$PGDATA/PG_VERSION"')
    db.settle(timeout=180)
    assert db.app("SELECT count(*), sum(id) FROM kept") == "1000|500500"
    assert db.condition("InstanceErrors").get("status") == "False"


def test_min_sync_replicas_0_does_not_hold_commits_when_no_standby_streams(db):
    started(db, instances=2, extra="  minSyncReplicas: 0\n  maxSyncReplicas: 1\n")
    assert db.on_pod("db-1", "SHOW synchronous_standby_names") == 'ANY 1 ("db-2")'
    db.app("CREATE TABLE t (id integer PRIMARY KEY)")
    # db-2 stops streaming: in its own network namespace, what the primary sends it is answered with a reset.
    cut = ["INPUT", "-p", "tcp", "--sport", "5432", "-j", "REJECT", "--reject-with", "tcp-reset"]
    netns = instance_netns(db, "db-2")
    subprocess.run(["nsenter", f"--net={netns}", "iptables", "-I", *cut], check=True)
    try:
        # With no pass running, a commit returns: the primary turns asynchronous instead of waiting for db-2.
        inserted = db.app_sql("INSERT INTO t VALUES (1)", timeout=90)
        assert inserted.returncode == 0 and inserted.stdout.strip() == "INSERT 0 1", inserted.stderr
        assert db.on_pod("db-1", "SHOW synchronous_standby_names") == ""
        assert db.app("INSERT INTO t VALUES (2)") == "INSERT 0 1"
    finally:
        subprocess.run(["nsenter", f"--net={netns}", "iptables", "-D", *cut], check=True)
    # db-2 streams again, and commits wait for it again.
    deadline = time.time() + 90
    while db.on_pod("db-1", "SHOW synchronous_standby_names") != 'ANY 1 ("db-2")' and time.time() < deadline:
        time.sleep(1)
    assert db.on_pod("db-1", "SHOW synchronous_standby_names") == 'ANY 1 ("db-2")'
    assert db.app("INSERT INTO t VALUES (3)") == "INSERT 0 1"
    deadline = time.time() + 30
    while db.on_pod_app_db("db-2", "SELECT count(*) FROM t") != "3" and time.time() < deadline:
        time.sleep(0.5)
    assert db.on_pod_app_db("db-2", "SELECT count(*) FROM t") == "3"


def test_a_replica_whose_pod_is_gone_while_wal_moves_past_wal_keep_size_streams_again(db):
    started(db, instances=3)
    db.app("CREATE TABLE t (id integer PRIMARY KEY)")
    db.cluster.kubectl("delete", "pod", "db-3", "-n", db.namespace, "--wait=true", "--timeout=120s")
    time.sleep(5)  # the primary's manager has seen db-3's Pod go (it looks every second)
    slots = db.on_pod("db-1", "SELECT slot_name FROM pg_replication_slots ORDER BY 1").split()
    assert slots == ["_opctl_db_2", "_opctl_db_3"], slots
    # More WAL than wal_keep_size (128 MB) keeps, checkpointed: what no slot holds is removed.
    for n in range(1, 13):
        db.app(f"INSERT INTO t VALUES ({n})")
        db.on_pod("db-1", "SELECT pg_switch_wal()")
    db.on_pod("db-1", "CHECKPOINT")
    db.on_pod("db-1", "CHECKPOINT")
    db.settle(timeout=240, what="db-3 recreated and streaming")
    assert db.pod_names() == ["db-1", "db-2", "db-3"]
    deadline = time.time() + 60
    while db.on_pod_app_db("db-3", "SELECT count(*) FROM t") != "12" and time.time() < deadline:
        time.sleep(0.5)
    assert db.on_pod_app_db("db-3", "SELECT count(*) FROM t") == "12"
    # It streamed from where it stopped: its volume kept its data, nothing was set aside or cloned anew.
    aside = db.cluster.kubectl("exec", "db-3", "-n", db.namespace, "-c", "postgres", "--", "bash", "-c",
                               'ls -d "$PGDATA".* 2>/dev/null | wc -l').stdout.strip()
    assert aside == "0", aside


def test_twelve_instances_are_healthy_with_every_replica_streaming(db):
    # PostgreSQL's default max_wal_senders and max_replication_slots are 10: the primary could not serve 11 replicas.
    started(db, instances=12)
    assert db.pod_names() == [f"db-{n}" for n in range(1, 13)]
    assert db.streaming_replicas("db-1") == sorted(f"db-{n}" for n in range(2, 13))
    assert db.on_pod("db-1", "SHOW max_wal_senders") == "64"
    assert db.on_pod("db-12", "SHOW max_replication_slots") == "64"
    assert db.on_pod("db-1", "SELECT count(*) FROM pg_replication_slots WHERE active") == "11"


def report_age(db, pod_name):
    reported = db.pods()[pod_name]["metadata"]["annotations"]["opctl.io/reported-at"]
    return time.time() - calendar.timegm(time.strptime(reported, "%Y-%m-%dT%H:%M:%SZ"))


def test_a_replica_whose_manager_hangs_is_never_promoted(db):
    started(db, instances=3)
    db.app("CREATE TABLE t (id integer PRIMARY KEY)")
    db.app("INSERT INTO t SELECT generate_series(1, 100)")
    hung = instance_manager_pid(db, "db-2")
    os.kill(hung, signal.SIGSTOP)  # its PostgreSQL keeps streaming; its reports stop
    stopped_primary = None
    try:
        deadline = time.time() + 90
        while report_age(db, "db-2") <= 32:
            assert time.time() < deadline, "db-2's report did not go stale"
            time.sleep(2)
        assert report_age(db, "db-3") < 20
        # The primary's manager stops too: its watchdog fences it, its Lease expires, and the replicas elect
        # without it. db-2, as far as db-3 but hung, never takes the Lease and is not waited for.
        stopped_primary = instance_manager_pid(db, "db-1")
        os.kill(stopped_primary, signal.SIGSTOP)

        def never_db_2():
            assert db.status().get("currentPrimary") != "db-2", db.describe()

        db.passes_until(lambda: db.status().get("currentPrimary") == "db-3", "failed over to db-3", timeout=180,
                        each_pass=never_db_2)
        assert db.role("db-2") == "replica"
    finally:
        os.kill(hung, signal.SIGCONT)
        if stopped_primary:
            os.kill(stopped_primary, signal.SIGCONT)
    db.settle(timeout=300, what="Healthy on db-3 with db-1 and db-2 streaming from it")
    assert db.status()["currentPrimary"] == "db-3"
    assert db.app("SELECT count(*) FROM t") == "100"
