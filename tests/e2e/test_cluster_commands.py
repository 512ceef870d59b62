"""`opctl cluster status|restart|reload|psql|report` against a real 2-instance Cluster on the test node.

One Cluster for the file (module fixture). Each command's claims are checked independently of opctl: roles, the
Lease and Pod identities with kubectl, slots, standbys, reloads (pg_conf_load_time) and restarts
(pg_postmaster_start_time) with the host's psql inside the node's network namespace, the bundle with tar. Restarts
and reloads are only requested by opctl; the passes (restart) or the instance managers (reload) carry them out.
"""
import json
import os
import subprocess
import tarfile
import time

import pytest
import yaml

from postgres_support import IMAGE, suite_namespace


@pytest.fixture(scope="module")
def db(cluster, tmp_path_factory):
    with suite_namespace(cluster, tmp_path_factory, "pgcmd") as pg:
        pg.write(instances=2, image=IMAGE)
        pg.settle(timeout=240)
        pg.app("CREATE TABLE kept (id int PRIMARY KEY); INSERT INTO kept SELECT generate_series(1, 100)")
        yield pg


def opctl_cluster(db, *args, input=None, timeout=120):
    # The cluster flags before the rest: after "--" everything goes to psql.
    command = [db.cluster.opctl_bin, "cluster", *args[:2], "--kubeconfig", db.cluster.kubeconfig, "-n", db.namespace,
               *args[2:]]
    env = dict(os.environ, NO_COLOR="1")
    env.pop("KUBECONFIG", None)
    return subprocess.run(command, capture_output=True, text=True, input=input, env=env, timeout=timeout)


def pod_uids(db):
    return {name: pod["metadata"]["uid"] for name, pod in db.pods().items()}


def secret_values(db):
    """The Cluster's passwords (user names and hosts are no secrets)."""
    return [db.secret(suffix)["password"] for suffix in ("app", "superuser", "replication")]


def test_status_shows_what_kubectl_and_postgresql_say(db):
    shown = opctl_cluster(db, "status", "db", "-o", "json")
    assert shown.returncode == 0, shown.stderr
    overview = json.loads(shown.stdout)
    primary = db.status()["currentPrimary"]
    lease = db.cluster.get_json("lease", "db-primary", "-n", db.namespace)
    assert overview["primaryLease"]["holder"] == lease["spec"]["holderIdentity"] == primary
    roles = {instance["name"]: instance["role"] for instance in overview["instances"]}
    assert roles == {name: db.role(name) for name in db.pod_names()}
    replica = next(name for name in roles if name != primary)
    row = next(instance for instance in overview["instances"] if instance["name"] == replica)
    assert row["ready"] is True and row["streaming"] is True and "lagBytes" in row
    # Slots and standbys as the primary's PostgreSQL has them (read with psql, not through opctl).
    slots = db.on_pod(primary, "SELECT slot_name, active FROM pg_replication_slots ORDER BY 1")
    reported = "\n".join(f"{slot['name']}|{'t' if slot['active'] else 'f'}"
                         for slot in overview["replication"]["slots"])
    assert reported == slots
    assert [standby["name"] for standby in overview["replication"]["standbys"]] == [replica]
    assert overview["cluster"]["phase"] == "Healthy"

    text = opctl_cluster(db, "status", "db")
    assert text.returncode == 0, text.stderr
    assert f"Cluster {db.namespace}/db: Healthy (2 of 2 instances Ready)" in text.stdout
    for heading in ("Instances", "Replication", "Backups", "Certificates", "Conditions"):
        assert f"\n{heading}" in text.stdout
    as_yaml = yaml.safe_load(opctl_cluster(db, "status", "db", "-o", "yaml").stdout)
    assert sorted(as_yaml) == sorted(overview)
    assert as_yaml["cluster"]["currentPrimary"] == primary
    for value in secret_values(db):
        assert value not in shown.stdout + text.stdout


def test_psql_opens_a_session_on_the_primary_or_a_replica(db):
    on_primary = opctl_cluster(db, "psql", "db", "--", "-d", "app", "-Atc",
                               "SELECT pg_is_in_recovery(), count(*) FROM kept")
    assert on_primary.returncode == 0, on_primary.stderr
    assert on_primary.stdout.strip() == "f|100"
    on_replica = opctl_cluster(db, "psql", "db", "--replica", "--", "-d", "app", "-At",
                               input="SELECT pg_is_in_recovery(), count(*) FROM kept;\n")
    assert on_replica.returncode == 0, on_replica.stderr
    assert on_replica.stdout.strip() == "t|100"
    failing = opctl_cluster(db, "psql", "db", "--", "-d", "app", "-v", "ON_ERROR_STOP=1", "-c", "SELECT * FROM nope")
    assert failing.returncode != 0  # psql's status comes back through kubectl
    assert 'relation "nope" does not exist' in failing.stderr


def test_reload_reaches_every_instance_without_a_pass(db):
    before = {name: db.on_pod(name, "SELECT pg_conf_load_time()") for name in db.pod_names()}
    asked = opctl_cluster(db, "reload", "db")
    assert asked.returncode == 0, asked.stderr
    assert db.resource()["metadata"]["annotations"]["opctl.io/reload"]
    deadline = time.time() + 60
    while True:
        now = {name: db.on_pod(name, "SELECT pg_conf_load_time()") for name in db.pod_names()}
        if all(now[name] != before[name] for name in before):
            break
        assert time.time() < deadline, f"no reload within 60 s: {before} -> {now}"
        time.sleep(1)


def test_restart_of_one_replica_recreates_only_that_pod(db):
    primary = db.status()["currentPrimary"]
    replica = next(name for name in db.pod_names() if name != primary)
    uids = pod_uids(db)
    asked = opctl_cluster(db, "restart", "db", replica.rsplit("-", 1)[1])
    assert asked.returncode == 0, asked.stderr
    db.passes_until(lambda: pod_uids(db).get(replica) not in (None, uids[replica]) and db.healthy_and_streaming(),
                    f"{replica} recreated and streaming", timeout=180)
    assert pod_uids(db)[primary] == uids[primary]
    assert db.status()["currentPrimary"] == primary
    assert db.status()["lastRestartRequest"].startswith(replica + "@")


def test_rolling_restart_recreates_every_instance_and_keeps_the_data(db):
    uids = pod_uids(db)
    asked = opctl_cluster(db, "restart", "db")
    assert asked.returncode == 0, asked.stderr
    db.passes_until(lambda: all(pod_uids(db).get(name) not in (None, uid) for name, uid in uids.items())
                    and db.healthy_and_streaming(), "every instance recreated", timeout=300)
    assert db.app("SELECT count(*) FROM kept") == "100"


def test_report_writes_a_redacted_bundle(db, tmp_path):
    bundle = tmp_path / "db.tar.gz"
    written = opctl_cluster(db, "report", "db", "--logs", "-f", str(bundle))
    assert written.returncode == 0, written.stderr
    assert oct(bundle.stat().st_mode & 0o777) == "0o600"
    listed = subprocess.run(["tar", "tzf", str(bundle)], capture_output=True, text=True, check=True).stdout.split()
    top = listed[0].split("/")[0]
    for expected in ("README.txt", "status.txt", "status.json", "cluster.yaml", "events.yaml",
                     "objects/Secret/db-app.yaml", "objects/Lease/db-primary.yaml", "logs/db-1.log"):
        assert f"{top}/{expected}" in listed, expected
    with tarfile.open(bundle) as archive:
        contents = {member.name: archive.extractfile(member).read().decode() for member in archive.getmembers()}
    everything = "\n".join(contents.values())
    for value in secret_values(db):
        assert value not in everything
    app = yaml.safe_load(contents[f"{top}/objects/Secret/db-app.yaml"])
    assert all(value.startswith("<redacted: ") for value in app["data"].values())
    assert json.loads(contents[f"{top}/status.json"])["cluster"]["name"] == "db"
    assert contents[f"{top}/logs/db-1.log"].strip()  # the instance manager and PostgreSQL log there


def test_bad_arguments_and_unknown_clusters_are_clear_errors(db):
    missing = opctl_cluster(db, "status", "nosuch")
    assert missing.returncode == 3
    assert "nosuch" in missing.stderr and "not found" in missing.stderr
    bad = opctl_cluster(db, "restart", "db", "other-2")
    assert bad.returncode == 2
    assert "is not an instance of db" in bad.stderr
