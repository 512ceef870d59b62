"""The Cluster kind's major upgrade Job and spec checks, on the node-less control plane.

What is left here until a second PostgreSQL major is packaged as an instance image (issue 16): the major-upgrade
test plays the kubelet and the Job controller (it marks Pods Ready through the status subresource and finishes the
pg_upgrade Job), so it runs where no kubelet would overwrite that. Everything else runs with a real PostgreSQL in
every instance on the node: bootstrap, streaming, scaling, failover, switchover, rolling updates, passwords and the
downgrade refusal in test_cluster_dataplane.py, backups, restores and the final backup in test_backup_dataplane.py.
Nothing here writes an LSN. Every check reads back with kubectl. CRDs are cluster-wide and shared: installed
idempotently, never deleted.
"""
import json
import time

import pytest

OLD_IMAGE = "ghcr.io/cloudnative-pg/postgresql:16.4"
MAJOR_17 = "ghcr.io/cloudnative-pg/postgresql:17.5"


@pytest.fixture(scope="module", autouse=True)
def crds(cluster):
    printed = cluster.opctl("crds")
    assert printed.returncode == 0, printed.stderr
    cluster.kubectl("apply", "--server-side", "--force-conflicts", "-f", "-", input=printed.stdout)
    cluster.kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd/clusters.opctl.io",
                    "crd/backups.opctl.io")


def cluster_yaml(namespace, instances=3, image=OLD_IMAGE, extra=""):
    return (f"apiVersion: opctl.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: db\n  namespace: {namespace}\n"
            f"spec:\n  instances: {instances}\n  imageName: {image}\n  storage:\n    size: 1Gi\n{extra}")


class Db:
    """One Cluster named db in a test namespace, and the kubelet/sidecar stand-in."""

    def __init__(self, cluster, namespace, manifests):
        self.cluster, self.namespace, self.manifests = cluster, namespace, manifests
        self.root = None

    def write(self, **kwargs):
        self.root = self.manifests({"db.yaml": cluster_yaml(self.namespace, **kwargs)})

    def write_files(self, files):
        self.root = self.manifests(files)

    def reconcile(self, expect=0):
        result = self.cluster.reconcile("--path", str(self.root))
        assert result.returncode == expect, result.stdout + result.stderr
        return result

    def get(self, *args):
        return self.cluster.get_json(*args, "-n", self.namespace)

    def resource(self):
        return self.get("clusters.opctl.io", "db")

    def status(self):
        return self.resource().get("status", {})

    def condition(self, kind):
        for condition in self.status().get("conditions", []):
            if condition["type"] == kind:
                return condition
        return {}

    def pods(self):
        items = self.get("pods", "-l", "opctl.io/cluster=db")["items"]
        return {pod["metadata"]["name"]: pod for pod in items}

    def pod_names(self):
        return sorted(self.pods(), key=lambda name: int(name.rsplit("-", 1)[1]))

    def pvc_names(self, include_terminating=False):
        items = self.get("pvc", "-l", "opctl.io/cluster=db")["items"]
        names = [p["metadata"]["name"] for p in items
                 if include_terminating or "deletionTimestamp" not in p["metadata"]]
        return sorted(names, key=lambda name: int(name.rsplit("-", 1)[1]))

    def set_ready(self, pod, ready=True):
        patch = {"status": {"phase": "Running",
                            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}
        self.cluster.kubectl("patch", "pod", pod, "-n", self.namespace, "--subresource=status", "--type=merge",
                             "-p", json.dumps(patch))

    def ready_all(self):
        for name, pod in self.pods().items():
            conditions = pod.get("status", {}).get("conditions", [])
            if not any(c["type"] == "Ready" for c in conditions):
                self.set_ready(name)

    def annotate(self, pod, key, value):
        self.cluster.kubectl("annotate", "pod", pod, "-n", self.namespace, f"{key}={value}", "--overwrite")

    def complete_job(self, name):
        """What the Job controller writes when the Pod exits 0. The real Job controller runs here too and may
        already have started the Job (active, startTime): keep its startTime, which is immutable once set."""
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        for attempt in range(5):
            start = self.get("job", name).get("status", {}).get("startTime", now)
            patch = {"status": {"startTime": start, "completionTime": now, "active": 0, "ready": 0, "succeeded": 1,
                                "conditions": [
                                    {"type": "SuccessCriteriaMet", "status": "True", "lastTransitionTime": now},
                                    {"type": "Complete", "status": "True", "lastTransitionTime": now}]}}
            result = self.cluster.kubectl("patch", "job", name, "-n", self.namespace, "--subresource=status",
                                          "--type=merge", "-p", json.dumps(patch), check=False)
            if result.returncode == 0:
                return
            time.sleep(0.5)
        raise AssertionError(f"could not complete job {name}: {result.stderr}")

    def settle(self, passes=12):
        """Passes, playing kubelet, until the Cluster is Healthy."""
        for _ in range(passes):
            self.ready_all()
            self.reconcile()
            if self.status().get("phase") == "Healthy":
                return
        pytest.fail(f"not Healthy after {passes} passes: {self.status()}")

    def primaries(self):
        """The Pods the -rw Service selects."""
        selector = self.get("service", "db-rw")["spec"]["selector"]
        labels = ",".join(f"{key}={value}" for key, value in selector.items())
        return sorted(pod["metadata"]["name"] for pod in self.get("pods", "-l", labels)["items"])


@pytest.fixture
def db(cluster, namespace, manifests):
    return Db(cluster, namespace, manifests)


def test_major_version_upgrade_runs_pg_upgrade_then_replicas_clone_anew(db):
    db.write()
    db.settle()
    db.write(image=MAJOR_17)
    db.reconcile()  # every instance stops; the volumes stay
    assert db.pod_names() == []
    assert db.pvc_names() == ["db-1", "db-2", "db-3"]
    assert db.status()["phase"] == "MajorUpgrade"
    db.reconcile()
    job = db.get("job", "db-upgrade-17")
    assert job["metadata"]["labels"]["opctl.io/cluster-job"] == "major-upgrade"
    pod = job["spec"]["template"]["spec"]
    assert pod["volumes"][0]["persistentVolumeClaim"]["claimName"] == "db-1"
    assert pod["initContainers"][0]["image"] == OLD_IMAGE and pod["containers"][0]["image"] == MAJOR_17
    assert "pg_upgrade" in " ".join(pod["containers"][0].get("command", []) + pod["containers"][0].get("args", []))
    db.reconcile()  # the Job runs: nothing starts, no failover
    assert db.pod_names() == [] and db.status()["currentPrimary"] == "db-1"

    db.complete_job("db-upgrade-17")
    db.reconcile()
    assert db.pod_names() == ["db-1"]
    assert db.pods()["db-1"]["spec"]["containers"][0]["image"] == MAJOR_17
    assert db.pvc_names() == ["db-1"]  # the replicas' data was of the old major
    assert db.status()["pgDataImageInfo"] == {"image": MAJOR_17, "majorVersion": 17}
    db.settle()
    assert db.pod_names() == ["db-1", "db-4", "db-5"]
    assert db.primaries() == ["db-1"]


def test_bad_cluster_specs_are_rejected_with_file_line_and_field(db):
    bad = (f"apiVersion: opctl.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: db\n  namespace: {db.namespace}\n"
           "spec:\n  instances: 0\n  storage:\n    size: lots\n  primaryUpdateMethod: sometimes\n")
    db.write_files({"db.yaml": bad})
    validate = db.cluster.opctl("validate", "--path", str(db.root))
    assert validate.returncode == 2, validate.stdout + validate.stderr
    output = validate.stdout + validate.stderr
    assert "db.yaml:7: spec.instances: must be at least 1" in output, output
    assert 'db.yaml:9: spec.storage.size: "lots" is not a quantity' in output
    assert "db.yaml:10: spec.primaryUpdateMethod:" in output
    result = db.cluster.reconcile("--path", str(db.root))
    assert result.returncode == 2 and "nothing was applied" in result.stderr
    assert not db.cluster.exists("clusters.opctl.io", "db", "-n", db.namespace)
