"""Backups that restore, on the test node: real backup Jobs against a real PostgreSQL, read back from the volume.

What runs: `opctl reconcile` passes against a Cluster of localhost/opctl-postgresql:15 instances (as in
test_cluster_dataplane.py) and a Backup of it. The backup Jobs (pg_basebackup as the replication role, or pg_dump as
the superuser, through the -rw Service), the Cluster's restore Job and its final-backup Job are Pods the kubelet
runs; the CronJob controller starts the scheduled ones. Nothing here writes a Job's or a Pod's status. What a Job
wrote is read back from the backup volume by a Pod of the same image (ls, cat, sha256sum --check), and the data by
psql: a Cluster bootstrapped from a Backup holds exactly the rows written before the backup, under its own
passwords.

Needs the node (tests/e2e/testenv_fixture.sh up DIR) with the postgresql image, and psql and nsenter on the host.
"""
import json
import re
import time

import pytest

from postgres_support import IMAGE, PgCluster, cluster_yaml, prepare_node_suite

LSN = re.compile(r"^[0-9A-F]+/[0-9A-F]+$")
RESTORE_FROM = "  bootstrap:\n    recovery:\n      backup: {}\n"


@pytest.fixture(scope="module", autouse=True)
def prerequisites(cluster):
    prepare_node_suite(cluster)


def store_yaml(namespace):
    return (f"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: backup-store\n"
            f"  namespace: {namespace}\nspec:\n  accessModes: [ReadWriteOnce]\n"
            f"  resources:\n    requests:\n      storage: 1Gi\n")


def backup_yaml(namespace, name, extra=""):
    return (f"apiVersion: opctl.io/v1alpha1\nkind: Backup\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
            f"spec:\n  cluster: db\n  target:\n    pvc: backup-store\n{extra}")


class Store:
    """A Pod of the instance image, running as its postgres user, with the backup volume mounted read-only at
    /backups: what the backup Jobs wrote, read back without opctl."""

    NAME = "store-reader"

    def __init__(self, cluster, namespace):
        self.cluster, self.namespace = cluster, namespace
        manifest = (f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {self.NAME}\n  namespace: {namespace}\n"
                    f"spec:\n  terminationGracePeriodSeconds: 1\n"
                    f"  securityContext:\n    runAsUser: 26\n    runAsGroup: 26\n    fsGroup: 26\n"
                    f"  containers:\n  - name: reader\n    image: {IMAGE}\n    imagePullPolicy: Never\n"
                    f"    command: [sleep, infinity]\n"
                    f"    volumeMounts:\n    - name: store\n      mountPath: /backups\n      readOnly: true\n"
                    f"  volumes:\n  - name: store\n    persistentVolumeClaim:\n      claimName: backup-store\n")
        cluster.kubectl("apply", "-f", "-", input=manifest)
        cluster.kubectl("wait", "--for=condition=Ready", f"pod/{self.NAME}", "-n", namespace, "--timeout=90s")

    def sh(self, script):
        result = self.cluster.kubectl("exec", "-n", self.namespace, self.NAME, "--", "sh", "-c", script,
                                      check=False)
        assert result.returncode == 0, f"{script!r} in {self.NAME}: {result.stdout}{result.stderr}"
        return result.stdout

    def artifacts(self, backup):
        """The artifact directories of a Backup, oldest first (their names are UTC timestamps)."""
        return sorted(self.sh(f"cd /backups/{backup} && for d in *Z; do [ -d \"$d\" ] && echo \"$d\"; done; true")
                      .split())

    def files(self, backup, artifact):
        return set(self.sh(f"ls -1 /backups/{backup}/{artifact}").split())

    def manifest(self, backup, artifact):
        return json.loads(self.sh(f"cat /backups/{backup}/{artifact}/manifest.json"))

    def verify(self, backup, artifact):
        """sha256sum --check of every file against the artifact's SHA256SUMS (fails the test on a mismatch)."""
        out = self.sh(f"cd /backups/{backup}/{artifact} && sha256sum --check --strict SHA256SUMS")
        checked = [line for line in out.splitlines() if line.endswith(": OK")]
        assert checked and len(checked) == len(out.splitlines()), out
        return len(checked)


def backup_jobs(db, backup, trigger=None):
    selector = f"opctl.io/backup={backup}" + (f",opctl.io/backup-trigger={trigger}" if trigger else "")
    return db.get("jobs", "-l", selector)["items"]


def failed_pods_log_tails(db, job):
    """The last lines each Pod of a Job logged: in the failure message itself, which a shortened CI log keeps."""
    tails = []
    for pod in db.get("pods", "-l", f"job-name={job}")["items"]:
        pod_name = pod["metadata"]["name"]
        logs = db.cluster.kubectl("logs", pod_name, "-n", db.namespace, check=False)
        tails.append(f"-- last lines of {pod_name}:\n" + "\n".join((logs.stdout + logs.stderr).splitlines()[-15:]))
    return "\n".join(tails)


def wait_for_job(db, name, timeout=240):
    """Until the Job completes; fails the test (with its Pods' logs, by conftest) when it fails or times out."""
    deadline = time.time() + timeout
    while True:
        status = db.get("job", name).get("status", {})
        done = {c["type"] for c in status.get("conditions", []) if c["status"] == "True"}
        if "Complete" in done:
            return
        assert "Failed" not in done, f"Job {name} failed: {status}\n{failed_pods_log_tails(db, name)}"
        assert time.time() < deadline, f"Job {name} not complete after {timeout}s: {status}"
        time.sleep(1)


def termination_report(db, job):
    """What the backup script leaves as its container's termination message, from the Job's Pod: the manifest of
    the artifact it wrote ("artifact") and the artifacts on the volume after retention ("artifacts")."""
    for pod in db.get("pods", "-l", f"job-name={job}")["items"]:
        for container in pod.get("status", {}).get("containerStatuses", []):
            terminated = container.get("state", {}).get("terminated", {})
            if terminated.get("exitCode") == 0 and terminated.get("message"):
                return json.loads(terminated["message"])
    pytest.fail(f"no Pod of Job {job} ended with a termination message")


def termination_manifest(db, job):
    return termination_report(db, job)["artifact"]


def wait_until_archived(store, segment, timeout=90):
    deadline = time.time() + timeout
    while segment not in store.sh("ls -1 /backups/snap/wal").split():
        assert time.time() < deadline, f"{segment} was not archived to /backups/snap/wal in {timeout} s"
        time.sleep(1)


def started_with_rows(db, files, rows):
    db.write_files(files)
    db.settle()
    db.app("CREATE TABLE t (id int PRIMARY KEY, note text)")
    db.app(f"INSERT INTO t SELECT g, 'before' FROM generate_series(1, {rows}) g")


@pytest.mark.parametrize("method", ["pg_basebackup", "pg_dump"])
def test_a_backup_runs_once_and_restores_into_a_new_cluster_with_its_own_passwords(cluster, namespace, manifests,
                                                                                   method):
    db = PgCluster(cluster, namespace, manifests)
    files = {"db.yaml": cluster_yaml(namespace, instances=1), "store.yaml": store_yaml(namespace)}
    started_with_rows(db, files, 1000)

    # An unscheduled Backup: one Job, followed by --wait to its end.
    files["backup.yaml"] = backup_yaml(namespace, "snap", f"  method: {method}\n")
    db.write_files(files)
    waited = cluster.reconcile("--path", str(db.root), "--wait", "--timeout", "240s")
    assert waited.returncode == 0, waited.stdout + waited.stderr
    status = db.get("backups.opctl.io", "snap")["status"]
    ready = next(c for c in status["conditions"] if c["type"] == "Ready")
    assert (ready["status"], ready["reason"]) == ("True", "Completed")
    assert status["lastSuccessfulTime"]

    manifest = termination_manifest(db, "snap-once")
    assert (manifest["backup"], manifest["cluster"], manifest["method"], manifest["pgMajor"]) == \
        ("snap", "db", method, 15)
    assert LSN.match(manifest["startLsn"]) and LSN.match(manifest["endLsn"]), manifest
    assert manifest["sizeBytes"] > 0
    store = Store(cluster, namespace)
    assert store.artifacts("snap") == [manifest["name"]]
    assert store.manifest("snap", manifest["name"]) == manifest
    expected = ({"base.tar.gz", "pg_wal.tar.gz", "backup_manifest"} if method == "pg_basebackup"
                else {"globals.sql", "postgres.dump", "app.dump"})
    assert store.files("snap", manifest["name"]) == expected | {"SHA256SUMS", "manifest.json"}
    assert store.verify("snap", manifest["name"]) == len(expected)

    db.app("INSERT INTO t SELECT g, 'after' FROM generate_series(1001, 1100) g")  # not in the backup

    # A new Cluster from the Backup: its first instance is restored by a Job, then a replica clones it.
    copy = PgCluster(cluster, namespace, manifests, name="copy")
    files["copy.yaml"] = cluster_yaml(namespace, name="copy", instances=2, extra=RESTORE_FROM.format("snap"))
    copy.write_files(files)
    copy.settle()
    recovery = copy.status()["recovery"]
    assert (recovery["phase"], recovery["backup"]) == ("Completed", "snap")
    assert copy.app("SELECT count(*), min(id), max(id), string_agg(DISTINCT note, ',') FROM t") == "1000|1|1000|before"
    assert copy.on_pod_app_db("copy-2", "SELECT count(*) FROM t") == "1000"
    assert db.app("SELECT count(*) FROM t") == "1100"  # the source is untouched

    # The restored database answers to the new Cluster's Secrets only.
    old_password, new_password = db.secret("app")["password"], copy.secret("app")["password"]
    assert old_password != new_password
    refused = copy.app_sql("SELECT 1", password=old_password)
    assert refused.returncode != 0 and "password authentication failed" in refused.stderr, refused.stderr
    superuser = copy.secret("superuser")
    assert copy.on_pod("copy-1", "SELECT current_user") == superuser["username"]


def test_a_schedule_fires_through_the_cronjob_controller_and_retention_keeps_exactly_keep(cluster, namespace,
                                                                                         manifests):
    db = PgCluster(cluster, namespace, manifests)
    files = {"db.yaml": cluster_yaml(namespace, instances=1), "store.yaml": store_yaml(namespace)}
    started_with_rows(db, files, 100)
    files["backup.yaml"] = backup_yaml(namespace, "nightly", '  schedule: "* * * * *"\n  retention:\n    keep: 2\n')
    db.write_files(files)
    db.reconcile()
    assert db.get("cronjob", "nightly")["spec"]["schedule"] == "* * * * *"

    # The CronJob controller starts the first Job within a minute or so.
    deadline = time.time() + 150
    while not backup_jobs(db, "nightly", "schedule"):
        assert time.time() < deadline, "the CronJob started no Job in 150 s"
        time.sleep(2)
    scheduled = backup_jobs(db, "nightly", "schedule")[0]["metadata"]["name"]
    wait_for_job(db, scheduled)
    first = termination_manifest(db, scheduled)["name"]

    # Suspended, then two on-demand backups: three successful backups, of which the newest two stay.
    files["backup.yaml"] = backup_yaml(namespace, "nightly",
                                       '  schedule: "* * * * *"\n  suspend: true\n  retention:\n    keep: 2\n')
    db.write_files(files)
    db.reconcile()
    for job in backup_jobs(db, "nightly", "schedule"):  # one may have started just before the suspension
        wait_for_job(db, job["metadata"]["name"])
    manual = []
    for _ in range(2):
        result = cluster.opctl("backup", "nightly", "--now", "-n", namespace, "--kubeconfig", cluster.kubeconfig)
        assert result.returncode == 0, result.stderr
        manual.append(result.stdout.strip())
        wait_for_job(db, manual[-1])
        time.sleep(1.1)  # artifact and Job names have a one-second resolution
    newest = [termination_manifest(db, job)["name"] for job in manual]

    store = Store(cluster, namespace)
    artifacts = store.artifacts("nightly")
    assert artifacts == newest, f"kept {artifacts}, wanted the newest two {newest} (the first was {first})"
    assert first not in artifacts
    for artifact in artifacts:
        store.verify("nightly", artifact)
    assert "deleted" in cluster.kubectl("logs", f"job/{manual[-1]}", "-n", namespace).stdout

    db.reconcile()
    status = db.get("backups.opctl.io", "nightly")["status"]
    assert status["lastSuccessfulTime"]
    assert next(c for c in status["conditions"] if c["type"] == "Ready")["reason"] == "Suspended"
    # The status lists what is on the volume, newest first, as the last run saw it after retention.
    assert [artifact["name"] for artifact in status["artifacts"]] == list(reversed(artifacts))
    assert status["artifactCount"] == 2
    assert status["lastArtifact"] == store.manifest("nightly", artifacts[-1])
    for artifact in status["artifacts"]:
        on_volume = store.manifest("nightly", artifact["name"])
        assert artifact == {key: on_volume[key] for key in ("name", "method", "pgMajor", "endTime", "sizeBytes")}
    printed = cluster.kubectl("get", "backups.opctl.io", "nightly", "-n", namespace,
                              "-o", "custom-columns=N:.status.artifactCount", "--no-headers").stdout.strip()
    assert printed == "2"


def test_a_deleted_cluster_leaves_a_final_backup_that_restores_every_row(cluster, namespace, manifests):
    db = PgCluster(cluster, namespace, manifests)
    archive = backup_yaml(namespace, "archive", '  schedule: "0 3 * * *"\n  suspend: true\n')
    # A named set that prunes: what leaves git is deleted, a Cluster too (pruneData: it holds data).
    config = (f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {namespace}\n  namespace: {namespace}\n"
              f"spec:\n  prune: true\n  pruneData: true\n  lease:\n    enabled: false\n")
    files = {"db.yaml": cluster_yaml(namespace, instances=2, extra="  finalBackup:\n    backup: archive\n"),
             "store.yaml": store_yaml(namespace), "backup.yaml": archive, "opctl.yaml": config}
    started_with_rows(db, files, 500)
    db.app("INSERT INTO t SELECT g, 'last' FROM generate_series(501, 600) g")

    # Removed from git: the pass prunes the Cluster, its instances stop, the final backup Job copies the primary's
    # volume, and only then does the Cluster go (with its volumes).
    del files["db.yaml"]
    (db.root / "db.yaml").unlink()
    db.passes_until_deleted()
    deadline = time.time() + 120
    while db.get("pvc", "-l", "opctl.io/cluster=db")["items"]:
        assert time.time() < deadline, "the deleted Cluster's volumes are still there"
        time.sleep(2)

    store = Store(cluster, namespace)
    [final] = store.artifacts("archive")
    manifest = store.manifest("archive", final)
    assert (manifest["method"], manifest["cluster"], manifest["instance"], manifest["pgMajor"]) == \
        ("final", "db", "db-1", 15)
    assert store.files("archive", final) == {"base.tar.gz", "SHA256SUMS", "manifest.json"}
    store.verify("archive", final)

    # The same name again, from the final backup: every row, new passwords.
    files["db.yaml"] = cluster_yaml(namespace, instances=2, extra=RESTORE_FROM.format("archive"))
    db.write_files(files)
    db.settle()
    assert db.app("SELECT count(*), max(id) FROM t") == "600|600"
    assert db.on_pod_app_db(db.status()["currentPrimary"], "SELECT count(*) FROM t WHERE note = 'last'") == "100"


def test_point_in_time_recovery_restores_exactly_the_rows_committed_before_the_target(cluster, namespace,
                                                                                      manifests):
    db = PgCluster(cluster, namespace, manifests)
    # The primary archives its WAL to the Backup's volume; the Backup runs on demand only.
    files = {"db.yaml": cluster_yaml(namespace, instances=2, extra="  walArchive:\n    backup: snap\n"),
             "store.yaml": store_yaml(namespace),
             "backup.yaml": backup_yaml(namespace, "snap", '  schedule: "0 3 * * *"\n  suspend: true\n')}
    started_with_rows(db, files, 100)
    mounts = db.pods()["db-1"]["spec"]["containers"][0]["volumeMounts"]
    assert {"name": "backups", "mountPath": "/backups"} in mounts

    taken = cluster.opctl("backup", "snap", "--now", "-n", namespace, "--kubeconfig", cluster.kubeconfig)
    assert taken.returncode == 0, taken.stderr
    wait_for_job(db, taken.stdout.strip())
    db.app("INSERT INTO t SELECT g, 'A' FROM generate_series(101, 150) g")
    time.sleep(1.5)
    target = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    time.sleep(1.5)
    db.app("INSERT INTO t SELECT g, 'B' FROM generate_series(151, 200) g")  # after the target
    segment = db.on_pod("db-1", "SELECT pg_walfile_name(pg_switch_wal())")
    store = Store(cluster, namespace)
    wait_until_archived(store, segment)

    copy = PgCluster(cluster, namespace, manifests, name="copy")
    files["copy.yaml"] = cluster_yaml(namespace, name="copy", instances=1,
                                      extra=RESTORE_FROM.format("snap") + f"      targetTime: \"{target}\"\n")
    copy.write_files(files)
    copy.settle()
    assert copy.app("SELECT note, count(*) FROM t GROUP BY note ORDER BY note") == "A|50\nbefore|100"
    assert copy.on_pod("copy-1", "SELECT timeline_id FROM pg_control_checkpoint()") != "1"  # promoted at the target
    assert db.app("SELECT count(*) FROM t") == "200"
    recovery = copy.status()["recovery"]
    assert (recovery["phase"], recovery["backup"]) == ("Completed", "snap")

    # The WAL archive's retention: with keep: 1, the next backup deletes the first one and every archived segment
    # before its own start (no restore could use them), and keeps the rest.
    files["backup.yaml"] = backup_yaml(namespace, "snap",
                                       '  schedule: "0 3 * * *"\n  suspend: true\n  retention:\n    keep: 1\n')
    db.write_files(files)
    db.reconcile()
    before = [name for name in store.sh("ls -1 /backups/snap/wal").split() if len(name) == 24]
    taken = cluster.opctl("backup", "snap", "--now", "-n", namespace, "--kubeconfig", cluster.kubeconfig)
    assert taken.returncode == 0, taken.stderr
    wait_for_job(db, taken.stdout.strip())
    second = termination_manifest(db, taken.stdout.strip())
    start = second["startWalFile"]
    assert len(start) == 24 and int(start[:8], 16) == second["timeline"], second
    assert store.artifacts("snap") == [second["name"]]
    after = [name for name in store.sh("ls -1 /backups/snap/wal").split() if len(name) == 24]
    assert segment in before and segment not in after
    assert all(name[8:] >= start[8:] for name in after), (start, after)
    assert set(after) >= {name for name in before if name[8:] >= start[8:]}
    logs = cluster.kubectl("logs", f"job/{taken.stdout.strip()}", "-n", namespace).stdout
    assert f"before {start}, where {second['name']} (the oldest base backup) starts" in logs, logs


def test_a_restored_cluster_that_names_its_sources_wal_archive_archives_nothing_into_it(cluster, namespace,
                                                                                       manifests):
    db = PgCluster(cluster, namespace, manifests)
    files = {"db.yaml": cluster_yaml(namespace, instances=1, extra="  walArchive:\n    backup: snap\n"),
             "store.yaml": store_yaml(namespace),
             "backup.yaml": backup_yaml(namespace, "snap", '  schedule: "0 3 * * *"\n  suspend: true\n')}
    started_with_rows(db, files, 100)
    taken = cluster.opctl("backup", "snap", "--now", "-n", namespace, "--kubeconfig", cluster.kubeconfig)
    assert taken.returncode == 0, taken.stderr
    wait_for_job(db, taken.stdout.strip())
    store = Store(cluster, namespace)
    uid = db.resource()["metadata"]["uid"]
    owner = store.sh("cat /backups/snap/wal/.opctl-archive-owner")
    assert owner.split() == ["cluster", f"{namespace}/db", "uid", uid, "system",
                             db.on_pod("db-1", "SELECT system_identifier FROM pg_control_system()")], owner

    # A copy restored from snap whose own walArchive names snap too: same database system, another Cluster.
    copy = PgCluster(cluster, namespace, manifests, name="copy")
    files["copy.yaml"] = cluster_yaml(namespace, name="copy", instances=1,
                                      extra=RESTORE_FROM.format("snap") + "  walArchive:\n    backup: snap\n")
    copy.write_files(files)
    copy.settle()
    copy.passes_until(lambda: f"belongs to Cluster {namespace}/db (uid {uid}" in
                      copy.condition("InstanceErrors").get("message", ""),
                      "the copy's InstanceErrors condition naming db as the archive's owner", timeout=120)
    assert copy.app("SELECT count(*) FROM t") == "100"  # it serves; only archiving is refused
    segment = copy.on_pod("copy-1", "SELECT pg_walfile_name(pg_switch_wal())")
    deadline = time.time() + 30
    while copy.on_pod("copy-1", "SELECT failed_count FROM pg_stat_archiver") == "0" and time.time() < deadline:
        time.sleep(1)
    assert copy.on_pod("copy-1", "SELECT archived_count FROM pg_stat_archiver") == "0"
    assert segment not in store.sh("ls -1 /backups/snap/wal").split()
    assert store.sh("cat /backups/snap/wal/.opctl-archive-owner") == owner
    # The source still archives there.
    wait_until_archived(store, db.on_pod("db-1", "SELECT pg_walfile_name(pg_switch_wal())"))
