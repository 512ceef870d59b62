"""Backups to an object store, on the test node: a Cluster archiving its WAL to the node's S3 server (Versity's
gateway, real SigV4, HTTPS with the testenv CA), base backups taken by its primary with Barman Cloud for the backup
Jobs that ask, restore and point-in-time recovery into new Clusters, retention in the store, and the failures a
store can have (wrong key, unreachable endpoint, missing bucket), each a condition while the Cluster serves.

Everything the tools wrote is read back from the bucket with boto3 (s3_support.py), a client independent of the
barman-cloud tools in the instance image; the data with psql. Nothing here writes a Pod's or a Job's status.

Needs the node (tests/e2e/testenv_fixture.sh up DIR) with the postgresql image, and psql and nsenter on the host.
"""
import json
import time

import pytest

import s3_support
from postgres_support import PgCluster, cluster_yaml, prepare_node_suite
from test_backup_dataplane import started_with_rows, termination_report, wait_for_job

RESTORE_FROM = "  bootstrap:\n    recovery:\n      backup: {}\n"


@pytest.fixture(scope="module", autouse=True)
def prerequisites(cluster):
    prepare_node_suite(cluster)


@pytest.fixture
def store(cluster, namespace):
    """A fresh bucket, and in the namespace the Secrets a Backup names: the keys and the CA bundle."""
    settings = s3_support.settings(cluster)
    client = s3_support.client(cluster)
    bucket = f"store-{namespace}"[:63]
    client.create_bucket(Bucket=bucket)
    keys = cluster.kubectl("create", "secret", "generic", "s3-keys", "-n", namespace,
                           f"--from-literal=ACCESS_KEY_ID={settings['accessKeyId']}",
                           f"--from-literal=ACCESS_SECRET_KEY={settings['secretAccessKey']}", check=False)
    assert keys.returncode == 0, keys.stderr
    cluster.kubectl("create", "secret", "generic", "s3-ca", "-n", namespace,
                    f"--from-file=ca.crt={settings['caFile']}")
    return {"bucket": bucket, "client": client, "settings": settings}


def backup_yaml(namespace, bucket, name="offsite", cluster_name="db", extra="", endpoint=None,
                secret="s3-keys"):
    endpoint = endpoint or "https://10.213.0.1:9443"
    return (f"apiVersion: opctl.io/v1alpha1\nkind: Backup\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
            f"spec:\n  cluster: {cluster_name}\n  schedule: \"0 3 * * *\"\n  suspend: true\n{extra}"
            f"  target:\n    objectStore:\n      destinationPath: s3://{bucket}/shop\n"
            f"      endpointURL: {endpoint}\n      endpointCA: {{name: s3-ca, key: ca.crt}}\n"
            f"      s3Credentials:\n        accessKeyId: {{name: {secret}, key: ACCESS_KEY_ID}}\n"
            f"        secretAccessKey: {{name: {secret}, key: ACCESS_SECRET_KEY}}\n"
            f"      data: {{compression: gzip}}\n      wal: {{compression: gzip}}\n")


def archiving_to(backup="offsite"):
    return f"  walArchive:\n    backup: {backup}\n"


def wal_keys(store, server="db"):
    """The WAL segments in the store (barman's layout: <path>/<server>/wals/<timeline+log>/<segment>[.gz])."""
    names = []
    for key in s3_support.keys(store["client"], store["bucket"], f"shop/{server}/wals/"):
        name = key.rsplit("/", 1)[1].split(".")[0]
        if len(name) == 24:
            names.append(name)
    return sorted(names)


def base_backups(store, server="db"):
    """The base backup ids in the store: <path>/<server>/base/<id>/backup.info."""
    return sorted(key.split("/")[3] for key in s3_support.keys(store["client"], store["bucket"], f"shop/{server}/base/")
                  if key.endswith("/backup.info"))


def wait_until_in_store(store, segment, server="db", timeout=120):
    deadline = time.time() + timeout
    while segment not in wal_keys(store, server):
        assert time.time() < deadline, f"{segment} was not archived to the store in {timeout} s: {wal_keys(store)}"
        time.sleep(2)


def take_backup(cluster, db, name="offsite"):
    taken = cluster.opctl("backup", name, "--now", "-n", db.namespace, "--kubeconfig", cluster.kubeconfig)
    assert taken.returncode == 0, taken.stderr
    job = taken.stdout.strip()
    wait_for_job(db, job, timeout=300)
    return job, termination_report(db, job)


def outputs_that_must_not_hold_the_secret(cluster, namespace):
    """Everything opctl and its Pods left in the namespace that a user could read: every Pod's log and spec, and
    the status of every Cluster and Backup."""
    texts = []
    for pod in cluster.get_json("pods", "-n", namespace)["items"]:
        name = pod["metadata"]["name"]
        texts.append(json.dumps(pod))
        for container in pod["spec"]["containers"]:
            logs = cluster.kubectl("logs", name, "-n", namespace, "-c", container["name"], check=False)
            texts.append(logs.stdout + logs.stderr)
    for kind in ("clusters.opctl.io", "backups.opctl.io", "jobs", "cronjobs"):
        texts.append(json.dumps(cluster.get_json(kind, "-n", namespace)))
    return texts


def test_archive_on_demand_backup_and_point_in_time_recovery_from_the_store(cluster, namespace, manifests, store):
    db = PgCluster(cluster, namespace, manifests)
    files = {"db.yaml": cluster_yaml(namespace, instances=2, extra=archiving_to()),
             "backup.yaml": backup_yaml(namespace, store["bucket"])}
    started_with_rows(db, files, 100)
    # The primary archives to the store (read back with boto3, not with barman).
    segment = db.on_pod("db-1", "SELECT pg_walfile_name(pg_switch_wal())")
    wait_until_in_store(store, segment)
    pod = db.pods()["db-1"]
    env = {item["name"]: item for item in pod["spec"]["containers"][0]["env"]}
    assert env["AWS_SECRET_ACCESS_KEY"]["valueFrom"]["secretKeyRef"]["name"] == "s3-keys"
    assert "value" not in env["AWS_SECRET_ACCESS_KEY"]

    # An on-demand base backup: taken by the primary, listed in the bucket under its id.
    job, report = take_backup(cluster, db)
    artifact = report["artifact"]
    assert artifact["method"] == "barman-cloud" and artifact["backupName"].startswith(job), artifact
    assert base_backups(store) == [artifact["name"]]
    info = store["client"].get_object(Bucket=store["bucket"],
                                      Key=f"shop/db/base/{artifact['name']}/backup.info")["Body"].read().decode()
    assert "status=DONE" in info, info
    # The Backup's status names the base backup, and (a pass later: a Backup reads its Cluster's status as the
    # round listed it) the last segment archived, as the primary's archiver reports it on the Cluster.
    def backup_status():
        return db.cluster.get_json("backups.opctl.io", "offsite", "-n", namespace).get("status", {})

    db.passes_until(lambda: backup_status().get("lastArtifact", {}).get("name") == artifact["name"] and
                    "lastArchivedWal" in backup_status(), "the Backup's status naming the base backup", timeout=60)
    archived = db.status()["walArchive"]
    assert archived["backup"] == "offsite" and archived["archived"] >= 1, archived
    assert archived["lastArchivedWal"] in wal_keys(store) or archived["lastArchivedWal"].endswith(".backup"), archived
    # The primary keeps archiving (a segment a minute at least): the Backup shows one the Cluster showed.
    assert backup_status()["lastArchivedWal"][:24] <= db.status()["walArchive"]["lastArchivedWal"][:24]

    # Rows after the base backup: 50 before the target, 50 after it; the copy holds exactly the first 50.
    db.app("INSERT INTO t SELECT g, 'A' FROM generate_series(101, 150) g")
    time.sleep(1.5)
    target = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    time.sleep(1.5)
    db.app("INSERT INTO t SELECT g, 'B' FROM generate_series(151, 200) g")
    wait_until_in_store(store, db.on_pod("db-1", "SELECT pg_walfile_name(pg_switch_wal())"))

    copy = PgCluster(cluster, namespace, manifests, name="copy")
    files["copy.yaml"] = cluster_yaml(namespace, name="copy", instances=2,
                                      extra=RESTORE_FROM.format("offsite") + f"      targetTime: \"{target}\"\n")
    copy.write_files(files)
    copy.settle()  # its replica is cloned from the restored primary and streams, as any Cluster's
    assert copy.app("SELECT note, count(*) FROM t GROUP BY note ORDER BY note") == "A|50\nbefore|100"
    assert copy.on_pod("copy-1", "SELECT timeline_id FROM pg_control_checkpoint()") != "1"
    assert db.app("SELECT count(*) FROM t") == "200"
    recovery = copy.status()["recovery"]
    assert (recovery["phase"], recovery["backup"]) == ("Completed", "offsite")

    # Without a target: the newest base backup and the whole archive, every row.
    latest = PgCluster(cluster, namespace, manifests, name="latest")
    files["latest.yaml"] = cluster_yaml(namespace, name="latest", instances=1, extra=RESTORE_FROM.format("offsite"))
    latest.write_files(files)
    latest.settle()
    assert latest.app("SELECT count(*) FROM t") == "200"

    secret = store["settings"]["secretAccessKey"]
    for text in outputs_that_must_not_hold_the_secret(cluster, namespace):
        assert secret not in text


def test_a_schedule_and_retention_in_the_store_remove_old_backups_and_their_wal(cluster, namespace, manifests,
                                                                                store):
    db = PgCluster(cluster, namespace, manifests)
    files = {"db.yaml": cluster_yaml(namespace, instances=1, extra=archiving_to()),
             "backup.yaml": backup_yaml(namespace, store["bucket"])}
    started_with_rows(db, files, 10)
    first_job, first = take_backup(cluster, db)
    for _ in range(3):  # WAL after the first backup, in segments of their own
        db.app("INSERT INTO t SELECT g, 'more' FROM generate_series(1000, 1100) g ON CONFLICT DO NOTHING")
        wait_until_in_store(store, db.on_pod("db-1", "SELECT pg_walfile_name(pg_switch_wal())"))
    before = wal_keys(store)
    assert before[0] <= first["artifact"]["startWalFile"], (before, first)

    # Every minute, keep: 1: the CronJob controller starts the Jobs; each one's retention leaves one base backup.
    files["backup.yaml"] = backup_yaml(namespace, store["bucket"], extra="  retention:\n    keep: 1\n").replace(
        'schedule: "0 3 * * *"\n  suspend: true\n', 'schedule: "* * * * *"\n')
    db.write_files(files)
    db.reconcile()

    def scheduled_jobs():
        return [job for job in db.get("jobs", "-l", "opctl.io/backup=offsite,opctl.io/backup-trigger=schedule")
                ["items"] if job.get("status", {}).get("succeeded")]

    db.passes_until(lambda: scheduled_jobs(), "a scheduled backup Job to complete", timeout=240, interval=5)
    # Suspended again, and once no backup Job runs, the store holds what the last one's retention left.
    files["backup.yaml"] = backup_yaml(namespace, store["bucket"], extra="  retention:\n    keep: 1\n")
    db.write_files(files)
    db.reconcile()
    deadline = time.time() + 180
    while any(job.get("status", {}).get("active") for job in db.get("jobs", "-l", "opctl.io/backup=offsite")["items"]):
        assert time.time() < deadline, "a backup Job still runs"
        time.sleep(2)
    newest = max(scheduled_jobs(), key=lambda job: job["status"]["completionTime"])["metadata"]["name"]
    kept = termination_report(db, newest)["artifact"]
    assert base_backups(store) == [kept["name"]]
    assert first["artifact"]["name"] != kept["name"]
    after = wal_keys(store)
    # The WAL before the kept backup's start is gone with the older backups; what follows it stays.
    assert after and all(name >= kept["startWalFile"] for name in after), (kept, after)
    assert set(after) >= {name for name in before if name >= kept["startWalFile"]}
    assert first_job != newest


def test_a_wrong_key_an_unreachable_endpoint_and_a_missing_bucket_each_say_so_while_the_cluster_serves(
        cluster, namespace, manifests, store):
    settings = store["settings"]
    cluster.kubectl("create", "secret", "generic", "wrong-keys", "-n", namespace,
                    f"--from-literal=ACCESS_KEY_ID={settings['accessKeyId']}",
                    "--from-literal=ACCESS_SECRET_KEY=not-the-key-0000000000000000000000000000")
    cases = {
        "wrong": (backup_yaml(namespace, store["bucket"], name="wrong", cluster_name="wrong", secret="wrong-keys"),
                  ("SignatureDoesNotMatch", "InvalidAccessKeyId", "AccessDenied", "403")),
        "away": (backup_yaml(namespace, store["bucket"], name="away", cluster_name="away",
                             endpoint="https://10.213.0.1:9"), ("connect", "Connect")),
        "nobucket": (backup_yaml(namespace, "no-such-bucket-" + namespace[-12:], name="nobucket",
                                 cluster_name="nobucket"), ("does not exist", "NoSuchBucket")),
    }
    files = {}
    for name, (backup, _) in cases.items():
        files[f"{name}.yaml"] = cluster_yaml(namespace, name=name, instances=1, extra=archiving_to(name))
        files[f"{name}-backup.yaml"] = backup
    clusters = {name: PgCluster(cluster, namespace, manifests, name=name) for name in cases}
    for db in clusters.values():
        db.write_files(files)
    for name, db in clusters.items():
        words = cases[name][1]

        def says_why(db=db, words=words):
            message = db.condition("InstanceErrors").get("message", "")
            return any(word in message for word in words)

        db.passes_until(lambda db=db, says_why=says_why: db.healthy_and_streaming() and says_why(),
                        f"{name}: serving, with InstanceErrors saying why nothing is archived", timeout=300)
        message = db.condition("InstanceErrors")["message"]
        assert "nothing is archived" in message, message
        assert settings["secretAccessKey"] not in message
        db.app("CREATE TABLE still_serving (id int)")
        assert db.app("SELECT count(*) FROM still_serving") == "0"
    # A backup asked of a Cluster whose archive cannot be used fails, and says why.
    taken = cluster.opctl("backup", "nobucket", "--now", "-n", namespace, "--kubeconfig", cluster.kubeconfig)
    assert taken.returncode == 0, taken.stderr
    job = taken.stdout.strip()
    deadline = time.time() + 240
    while not any(c["type"] == "Failed" and c["status"] == "True"
                  for c in clusters["nobucket"].get("job", job).get("status", {}).get("conditions", [])):
        assert time.time() < deadline, f"Job {job} did not fail"
        time.sleep(2)
    logs = cluster.kubectl("logs", f"job/{job}", "-n", namespace, check=False)
    assert "WAL archive is not usable" in logs.stdout + logs.stderr, logs.stdout + logs.stderr
    # The missing bucket was not created by anyone on the way.
    with pytest.raises(Exception):
        store["client"].head_bucket(Bucket="no-such-bucket-" + namespace[-12:])
    for text in outputs_that_must_not_hold_the_secret(cluster, namespace):
        assert settings["secretAccessKey"] not in text


def test_a_cluster_recreated_from_its_own_store_backup_never_archives_into_its_predecessors_wal(
        cluster, namespace, manifests, store):
    db = PgCluster(cluster, namespace, manifests)
    files = {"db.yaml": cluster_yaml(namespace, instances=1, extra=archiving_to()),
             "backup.yaml": backup_yaml(namespace, store["bucket"])}
    started_with_rows(db, files, 100)
    take_backup(cluster, db)
    wait_until_in_store(store, db.on_pod("db-1", "SELECT pg_walfile_name(pg_switch_wal())"))
    old_uid = db.resource()["metadata"]["uid"]
    # The Cluster goes (its finalizer taken off: no final backup), and a new one of the same name is restored from
    # the store, archiving to the same Backup: the same folder, where its predecessor's WAL is.
    cluster.kubectl("patch", "clusters.opctl.io", "db", "-n", namespace, "--type=merge",
                    "-p", '{"metadata":{"finalizers":null}}')
    cluster.kubectl("delete", "clusters.opctl.io", "db", "-n", namespace, "--wait=true", "--timeout=120s")
    deadline = time.time() + 180
    while cluster.exists("pvc", "db-1", "-n", namespace) or cluster.exists("pod", "db-1", "-n", namespace):
        assert time.time() < deadline, "the garbage collector did not remove db-1's Pod and claim"
        time.sleep(2)
    files["db.yaml"] = cluster_yaml(namespace, instances=1, extra=RESTORE_FROM.format("offsite") + archiving_to())
    again = PgCluster(cluster, namespace, manifests)
    again.write_files(files)
    again.settle()
    assert again.resource()["metadata"]["uid"] != old_uid
    assert again.app("SELECT count(*) FROM t") == "100"
    again.passes_until(lambda: "another Cluster's" in again.condition("InstanceErrors").get("message", ""),
                       "InstanceErrors saying the archive holds another Cluster's WAL", timeout=120)


def test_a_deleted_cluster_leaves_a_final_base_backup_in_the_store_that_restores_every_row(cluster, namespace,
                                                                                          manifests, store):
    db = PgCluster(cluster, namespace, manifests)
    # A named set that prunes: what leaves git is deleted, a Cluster too (pruneData: it holds data).
    config = (f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {namespace}\n  namespace: {namespace}\n"
              f"spec:\n  prune: true\n  pruneData: true\n  lease:\n    enabled: false\n")
    files = {"db.yaml": cluster_yaml(namespace, instances=1,
                                     extra=archiving_to() + "  finalBackup:\n    backup: offsite\n"),
             "backup.yaml": backup_yaml(namespace, store["bucket"]), "opctl.yaml": config}
    started_with_rows(db, files, 500)
    db.app("INSERT INTO t SELECT g, 'last' FROM generate_series(501, 600) g")
    assert base_backups(store) == []

    # Removed from git: the pass prunes the Cluster; its running primary takes the final base backup for the
    # final-backup Job, and only then does the Cluster go.
    del files["db.yaml"]
    (db.root / "db.yaml").unlink()
    db.passes_until_deleted()
    [final] = base_backups(store)
    info = store["client"].get_object(Bucket=store["bucket"],
                                      Key=f"shop/db/base/{final}/backup.info")["Body"].read().decode()
    assert "status=DONE" in info and "backup_name=db-final-backup" in info, info
    deadline = time.time() + 120
    while db.get("pvc", "-l", "opctl.io/cluster=db")["items"]:
        assert time.time() < deadline, "the deleted Cluster's volumes are still there"
        time.sleep(2)

    # The same name again, from the store: every row.
    files["db.yaml"] = cluster_yaml(namespace, instances=1, extra=RESTORE_FROM.format("offsite"))
    db.write_files(files)
    db.settle()
    assert db.app("SELECT count(*), max(id) FROM t") == "600|600"
