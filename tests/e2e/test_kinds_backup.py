"""The Backup kind's API side: CRDs from `opctl crds`, the CronJob kept in step
with the spec, the one-off Job while it runs (--wait times out), status times,
bad specs, and `opctl backup NAME --now`, on the node-less control plane (its
Jobs' Pods stay Pending; nothing writes their status). Backups that really
run, their retention on the volume and their restores are in
test_backup_dataplane.py, on the node."""
import json

import pytest

from kinds_support import condition, config, install_crds, set_name

BACKUP_API = "opctl.io/v1alpha1"


@pytest.fixture(scope="session")
def crds(cluster):
    return install_crds(cluster)


@pytest.fixture
def setname():
    return set_name()


def backup(name, namespace, schedule=None, extra=""):
    lines = [f"apiVersion: {BACKUP_API}", "kind: Backup", "metadata:", f"  name: {name}", f"  namespace: {namespace}",
             "spec:", "  cluster: db"]
    if schedule:
        lines.append(f'  schedule: "{schedule}"')
    lines += ["  target:", "    pvc: backups"]
    return "\n".join(lines) + "\n" + extra


def make_cluster(cluster, namespace, image="postgres:16.4"):
    """A Cluster the Backup can name; created with kubectl, so no Cluster reconciler runs for it."""
    body = {"apiVersion": BACKUP_API, "kind": "Cluster", "metadata": {"name": "db", "namespace": namespace},
            "spec": {"instances": 1, "imageName": image, "storage": {"size": "1Gi"}}}
    cluster.kubectl("apply", "--server-side", "-f", "-", input=json.dumps(body))


def reconcile(cluster, root, *args):
    return cluster.reconcile("--path", str(root), *args)


def test_crds_print_both_kinds_and_install_cleanly(cluster, crds):
    names = [line.split(": ")[1] for line in crds.splitlines() if line.startswith("  name: ")]
    assert names == ["backups.opctl.io", "clusters.opctl.io"]
    assert crds.count("\n---\n") == 2
    again = cluster.kubectl("apply", "--server-side", "--dry-run=server", "-f", "-", input=crds)
    assert "serverside-applied" in again.stdout
    as_json = json.loads(cluster.opctl("crds", "-o", "json").stdout)
    assert [item["spec"]["names"]["kind"] for item in as_json["items"]] == ["Backup", "Cluster"]


def test_scheduled_backup_owns_a_cronjob_kept_in_step_with_the_spec(cluster, crds, namespace, manifests, setname):
    make_cluster(cluster, namespace)
    files = {"opctl.yaml": config(setname, namespace),
             "backup.yaml": backup("nightly", namespace, "0 3 * * *", "  retention:\n    keep: 7\n")}
    root = manifests(files)
    first = reconcile(cluster, root)
    assert first.returncode == 0, first.stderr + first.stdout
    assert f"batch/CronJob {namespace}/nightly created" in first.stdout
    assert f"opctl.io/Backup {namespace}/nightly created: Ready: CronJob nightly is in step" in first.stdout

    parent = cluster.get_json("backup", "nightly", "-n", namespace)
    cron = cluster.get_json("cronjob", "nightly", "-n", namespace)
    owner = cron["metadata"]["ownerReferences"][0]
    assert owner == {"apiVersion": BACKUP_API, "kind": "Backup", "name": "nightly",
                     "uid": parent["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}
    assert cron["metadata"]["labels"]["opctl.io/owner-uid"] == parent["metadata"]["uid"]
    spec = cron["spec"]
    assert (spec["schedule"], spec["timeZone"], spec["suspend"], spec["concurrencyPolicy"]) == \
        ("0 3 * * *", "Etc/UTC", False, "Forbid")
    container = spec["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == "postgres:16.4"
    env = {entry["name"]: entry for entry in container["env"]}
    assert env["PGPASSWORD"]["valueFrom"]["secretKeyRef"] == {"name": "db-replication", "key": "password"}
    assert env["PGUSER"]["valueFrom"]["secretKeyRef"] == {"name": "db-replication", "key": "username"}
    assert env["BACKUP_METHOD"]["value"] == "pg_basebackup"
    managers = {entry["manager"] for entry in
                cluster.get_json("cronjob", "nightly", "-n", namespace, "--show-managed-fields")["metadata"]["managedFields"]}
    assert "opctl-controller" in managers

    status = parent["status"]
    assert status["observedGeneration"] == parent["metadata"]["generation"]
    assert status["nextScheduleTime"].endswith("T03:00:00Z")
    assert condition(parent, "Ready")["status"] == "True"
    assert condition(parent, "Degraded")["status"] == "False"
    first_transition = condition(parent, "Ready")["lastTransitionTime"]

    # A second pass with nothing new changes nothing and keeps the transition time.
    second = reconcile(cluster, root)
    assert second.returncode == 0, second.stderr
    assert f"batch/CronJob {namespace}/nightly unchanged" in second.stdout
    assert condition(cluster.get_json("backup", "nightly", "-n", namespace), "Ready")["lastTransitionTime"] == first_transition

    files["backup.yaml"] = backup("nightly", namespace, "30 4 * * 1-5",
                                  "  timeZone: Europe/Berlin\n  method: pg_dump\n  retention:\n    keep: 7\n")
    manifests(files)
    edited = reconcile(cluster, root)
    assert edited.returncode == 0, edited.stderr
    assert f"batch/CronJob {namespace}/nightly configured" in edited.stdout
    spec = cluster.get_json("cronjob", "nightly", "-n", namespace)["spec"]
    assert (spec["schedule"], spec["timeZone"]) == ("30 4 * * 1-5", "Europe/Berlin")
    env = {e["name"]: e for e in spec["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["BACKUP_METHOD"]["value"] == "pg_dump"
    nxt = cluster.get_json("backup", "nightly", "-n", namespace)["status"]["nextScheduleTime"]
    assert nxt.endswith(("T02:30:00Z", "T03:30:00Z"))  # 04:30 in Berlin, summer or winter

    files["backup.yaml"] = backup("nightly", namespace, "30 4 * * 1-5",
                                  "  timeZone: Europe/Berlin\n  method: pg_dump\n  suspend: true\n"
                                  "  retention:\n    keep: 7\n")
    manifests(files)
    assert reconcile(cluster, root).returncode == 0
    assert cluster.get_json("cronjob", "nightly", "-n", namespace)["spec"]["suspend"] is True
    suspended = cluster.get_json("backup", "nightly", "-n", namespace)
    assert "nextScheduleTime" not in suspended["status"]
    assert condition(suspended, "Ready")["reason"] == "Suspended"


def test_wait_times_out_with_exit_5_while_the_backup_runs(cluster, crds, namespace, manifests, setname):
    make_cluster(cluster, namespace)
    root = manifests({"opctl.yaml": config(setname, namespace), "backup.yaml": backup("slow", namespace)})
    result = reconcile(cluster, root, "--wait", "--timeout", "8s")
    assert result.returncode == 5, result.stderr + result.stdout
    assert f"timed out waiting for custom resources: opctl.io/Backup {namespace}/slow" in result.stderr


def test_bad_specs_are_rejected_before_anything_is_applied(cluster, crds, namespace, manifests, setname):
    six = manifests({"opctl.yaml": config(setname, namespace),
                     "backup.yaml": backup("six", namespace, "0 0 3 * * *")})
    result = reconcile(cluster, six)
    assert result.returncode == 2
    assert ('backup.yaml:8: spec.schedule: "0 0 3 * * *" has 6 fields, but schedules have 5' in result.stderr), \
        result.stderr
    assert 'it is "0 3 * * *"' in result.stderr
    assert not cluster.exists("backup", "six", "-n", namespace)

    bad = manifests({"backup.yaml": backup("six", namespace, "0 25 * * *", "  method: tar\n")})
    result = reconcile(cluster, bad)
    assert result.returncode == 2
    assert "backup.yaml:8: spec.schedule: hour field: 25 is out of range 0-23" in result.stderr
    assert 'backup.yaml:11: spec.method: "tar" is not one of pg_basebackup, pg_dump' in result.stderr

    other_cluster = (f"apiVersion: {BACKUP_API}\nkind: Cluster\nmetadata:\n  name: main\n  namespace: {namespace}\n"
                     "spec:\n  instances: 1\n  storage:\n    size: 1Gi\n")
    unknown = manifests({"backup.yaml": backup("six", namespace, "0 3 * * *"), "cluster.yaml": other_cluster})
    result = reconcile(cluster, unknown)
    assert result.returncode == 2
    assert ('backup.yaml:7: spec.cluster: Cluster "db" is not in the manifests in namespace '
            f'{namespace} (Clusters there: main)') in result.stderr
    assert not cluster.exists("cluster", "main", "-n", namespace)


def test_a_missing_cluster_is_reported_on_degraded(cluster, crds, namespace, manifests, setname):
    root = manifests({"opctl.yaml": config(setname, namespace),
                      "backup.yaml": backup("orphan", namespace, "0 * * * *", "  retention:\n    keep: 7\n")})
    result = reconcile(cluster, root)
    assert result.returncode == 3, result.stderr + result.stdout
    assert 'warning: ' in result.stderr and 'keep: 7 holds only the last 7h of backups' in result.stderr
    assert 'Cluster "db" is not in the manifests: it must exist' in result.stderr
    assert f"opctl.io/Backup {namespace}/orphan failed: Degraded (ClusterNotFound)" in result.stderr
    parent = cluster.get_json("backup", "orphan", "-n", namespace)
    assert condition(parent, "Degraded") | {"lastTransitionTime": None} == {
        "type": "Degraded", "status": "True", "reason": "ClusterNotFound", "observedGeneration": 1,
        "message": f'Cluster "db" not found in namespace {namespace}', "lastTransitionTime": None}
    assert not cluster.exists("cronjob", "orphan", "-n", namespace)


def test_backup_now_starts_a_job_from_the_same_template(cluster, crds, namespace, manifests, setname):
    make_cluster(cluster, namespace, image="postgres:16.6")
    root = manifests({"opctl.yaml": config(setname, namespace),
                      "backup.yaml": backup("nightly", namespace, "0 3 * * *", "  retention:\n    keep: 3\n")})
    assert reconcile(cluster, root).returncode == 0
    result = cluster.opctl("backup", "nightly", "--now", "-n", namespace, "--kubeconfig", cluster.kubeconfig)
    assert result.returncode == 0, result.stderr
    name = result.stdout.strip()
    assert name.startswith("nightly-now-")
    job = cluster.get_json("job", name, "-n", namespace)
    parent = cluster.get_json("backup", "nightly", "-n", namespace)
    cron = cluster.get_json("cronjob", "nightly", "-n", namespace)
    assert job["metadata"]["labels"]["opctl.io/backup-trigger"] == "manual"
    assert job["metadata"]["ownerReferences"][0]["uid"] == parent["metadata"]["uid"]
    assert not job["metadata"]["ownerReferences"][0].get("controller", False)
    ours = job["spec"]["template"]["spec"]["containers"][0]
    theirs = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]
    assert (ours["image"], ours["command"], ours["env"]) == (theirs["image"], theirs["command"], theirs["env"])
    assert ours["image"] == "postgres:16.6"

    # The runner sees it as a backup of this Backup but does not delete it: it is not a controlled child.
    follow = reconcile(cluster, root)
    assert follow.returncode == 0, follow.stderr
    assert cluster.exists("job", name, "-n", namespace)
    assert condition(cluster.get_json("backup", "nightly", "-n", namespace), "Progressing")["status"] == "True"

    missing = cluster.opctl("backup", "absent", "--now", "-n", namespace, "--kubeconfig", cluster.kubeconfig)
    assert missing.returncode == 3
    assert f"Backup {namespace}/absent not found" in missing.stderr
