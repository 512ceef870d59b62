"""Hibernation and fencing of a Cluster, on the test node, on ONE 2-instance Cluster for the whole file (db-1 the
primary, db-2 its replica): the annotations are set with `kubectl annotate` on the live Cluster, as a user would,
and everything is read back with kubectl and the host's psql, never through opctl.

- fencing a replica: its PostgreSQL stops (psql is refused), its Pod keeps Running, not Ready; the primary keeps
  taking writes; unfencing restarts PostgreSQL in the same Pod, which catches up;
- fencing the primary: no instance accepts writes, -rw has no endpoint, and nothing fails over, neither the
  instance managers (for longer than the Lease's duration, across a restart of the fenced primary's manager in
  its Pod) nor the passes (tests/instance covers a Lease that expires while the primary is fenced); unfencing brings the same primary back with its data;
- a fenced-instances value that is not JSON makes the Cluster Invalid, and fences nothing;
- hibernation: the replica's Pod goes before the primary's, then every Pod is gone while the volumes, Secrets and
  Services stay; waking starts the primary first, on its volume, and the rows written before are all there.

The instance image is postgres_support's IMAGE (OPCTL_E2E_POSTGRES_IMAGE names another build, see CONTRIBUTING.md).
"""
import os
import signal
import time

import pytest

from postgres_support import IMAGE, instance_manager_pid, node_psql, suite_namespace

TABLE = "CREATE TABLE IF NOT EXISTS writes (id bigint PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())"
# The Lease's default duration (15 s) and a margin: long enough for a replica to have taken an expired Lease.
PAST_LEASE_EXPIRY = 25


@pytest.fixture(scope="module")
def db(cluster, tmp_path_factory):
    with suite_namespace(cluster, tmp_path_factory, "fence") as pg:
        pg.write(instances=2, image=IMAGE)
        pg.settle(timeout=240)
        assert pg.status()["currentPrimary"] == "db-1"
        pg.app(TABLE)
        yield pg


def annotate(db, key, value):
    """kubectl annotate on the live Cluster (value None removes the annotation)."""
    setting = f"{key}-" if value is None else f"{key}={value}"
    db.cluster.kubectl("annotate", "--overwrite", "clusters.opctl.io", db.name, "-n", db.namespace, setting)


def wait_for(predicate, what, db, timeout=90, interval=0.5):
    deadline = time.time() + timeout
    while not predicate():
        if time.time() > deadline:
            pytest.fail(f"not within {timeout}s: {what}\n{db.describe()}")
        time.sleep(interval)


def write(db, first, count):
    """Inserts ids first..first+count-1 through -rw; each INSERT must be acknowledged."""
    for row in range(first, first + count):
        assert db.app(f"INSERT INTO writes (id) VALUES ({row})") == "INSERT 0 1"
    return set(range(first, first + count))


def ids_on(db, pod_name):
    return {int(line) for line in db.on_pod_app_db(pod_name, "SELECT id FROM writes").split()}


def refused(db, pod_name):
    """psql to the instance's Pod IP fails to connect (its PostgreSQL is stopped)."""
    superuser = db.secret("superuser")
    result = node_psql(db.pod_ip(pod_name), "SELECT 1", superuser["username"], superuser["password"], "postgres",
                       timeout=10)
    return result.returncode != 0 and "connect" in result.stderr.lower()


def fenced_pod(db, pod_name):
    """Running (its containers too), not Ready, and its manager reports the role fenced."""
    pod = db.pods().get(pod_name)
    if pod is None or pod.get("status", {}).get("phase") != "Running" or db.ready(pod):
        return False
    running = all("running" in status.get("state", {}) for status in pod["status"].get("containerStatuses", []))
    return running and pod["metadata"].get("annotations", {}).get("opctl.io/instance-role") == "fenced"


def lease_holder(db):
    return db.get("lease", f"{db.name}-primary")["spec"].get("holderIdentity", "")


def kubectl_status_column(db):
    """What `kubectl get clusters` prints in its Status column (the CRD's printer columns)."""
    out = db.cluster.kubectl("get", "clusters.opctl.io", db.name, "-n", db.namespace, "--no-headers").stdout
    return out.split()[3]


def test_a_fenced_replica_stops_serving_in_its_pod_and_catches_up_when_unfenced(db):
    # Given db-2 fenced, we should see its PostgreSQL stopped in the same Pod (still Running, not Ready), the
    # primary still taking writes, and after unfencing the same Pod serving again with every row.
    uid = db.get("pod", "db-2")["metadata"]["uid"]
    before = write(db, 1, 5)
    annotate(db, "opctl.io/fenced-instances", '["db-2"]')
    # The instance manager acts on its own: no pass is needed to fence.
    wait_for(lambda: fenced_pod(db, "db-2") and refused(db, "db-2"), "db-2 fenced, psql refused", db)
    during = write(db, 6, 5)
    db.passes_until(lambda: db.status().get("phase") == "Fenced", "phase Fenced", timeout=60)
    assert db.condition("Fenced")["status"] == "True" and db.condition("Fenced")["message"] == "fenced: db-2"
    assert kubectl_status_column(db) == "Fenced"
    status = db.cluster.opctl("status", "--path", str(db.root), "--kubeconfig", db.cluster.kubeconfig)
    assert "Ready=False (Fenced)" in status.stdout, status.stdout + status.stderr
    assert any(line.split()[:2] == ["db-2", "fenced"] for line in status.stdout.splitlines()), status.stdout
    assert db.get("pod", "db-2")["metadata"]["uid"] == uid

    annotate(db, "opctl.io/fenced-instances", None)
    db.settle(timeout=120)
    assert db.get("pod", "db-2")["metadata"]["uid"] == uid, "unfencing must not recreate the Pod"
    assert db.in_recovery("db-2")
    wait_for(lambda: before | during <= ids_on(db, "db-2"), "db-2 replayed every row", db, timeout=30)


def test_a_fenced_primary_is_not_failed_over_and_comes_back_with_its_data(db):
    # Given the primary db-1 fenced and its manager restarted, we should have no writable instance and no -rw
    # endpoint, past the Lease's expiry and across passes, with db-2 still a replica; unfenced, db-1 is the primary again with every row.
    uid = db.get("pod", "db-1")["metadata"]["uid"]
    before = write(db, 100, 5)
    annotate(db, "opctl.io/fenced-instances", '["db-1"]')
    wait_for(lambda: fenced_pod(db, "db-1") and refused(db, "db-1"), "db-1 fenced, psql refused", db)
    # Its manager dies and the container restarts in the same Pod: the new one takes the Lease back while
    # fenced, and the replica's manager must not take it meanwhile (a fenced primary is never replaced).
    restarts = db.get("pod", "db-1")["status"]["containerStatuses"][0]["restartCount"]
    os.kill(instance_manager_pid(db, "db-1"), signal.SIGKILL)
    fenced_at = time.time()
    wait_for(lambda: db.get("pod", "db-1")["status"]["containerStatuses"][0]["restartCount"] > restarts
             and fenced_pod(db, "db-1"), "db-1's container restarted, still fenced", db, timeout=60)
    wait_for(lambda: db.rw_endpoints() == [], "-rw without endpoints", db, timeout=30)
    while time.time() - fenced_at < PAST_LEASE_EXPIRY:
        db.reconcile()
        assert db.in_recovery("db-2"), f"db-2 was promoted while the primary was fenced\n{db.describe()}"
        assert lease_holder(db) == "db-1", f"the Lease moved while the primary was fenced\n{db.describe()}"
        time.sleep(2)
    status = db.status()
    assert (status["phase"], status["targetPrimary"], status["currentPrimary"]) == ("Fenced", "db-1", "db-1")
    assert "no primary until it is unfenced" in status["phaseReason"]
    assert db.app_sql("SELECT 1", timeout=10).returncode != 0, "something behind -rw answered"

    annotate(db, "opctl.io/fenced-instances", "[]")
    db.settle(timeout=120)
    assert db.status()["currentPrimary"] == "db-1"
    assert db.get("pod", "db-1")["metadata"]["uid"] == uid
    after = write(db, 200, 3)
    assert before | after <= ids_on(db, "db-1")


def test_a_fenced_instances_value_that_is_not_json_makes_the_cluster_invalid_and_fences_nothing(db):
    annotate(db, "opctl.io/fenced-instances", "db-2")
    result = db.cluster.reconcile("--path", str(db.root))
    assert result.returncode == 3, result.stdout + result.stderr  # a Degraded custom resource
    status = db.status()
    assert status["phase"] == "Invalid"
    assert "opctl.io/fenced-instances: not JSON" in status["phaseReason"]
    # The instance managers say so too, and keep serving (the last value they could read fenced nobody).
    wait_for(lambda: "not JSON" in db.pods()["db-2"]["metadata"].get("annotations", {}).get(
        "opctl.io/instance-error", ""), "db-2 reporting the unreadable value", db, timeout=30)
    assert all(db.ready(pod) for pod in db.pods().values())
    annotate(db, "opctl.io/fenced-instances", None)
    db.settle(timeout=60)


def test_hibernation_stops_the_primary_last_keeps_the_volumes_and_wakes_with_the_same_data(db):
    # Given rows written through -rw and then opctl.io/hibernation: on, we should see db-2's Pod go before
    # db-1's, then no Pod with both volumes, the Secrets and Services kept; "off" brings db-1 back first as
    # the primary with every row, and db-2 following it.
    before = write(db, 300, 20)
    volumes = sorted(pvc["metadata"]["name"] for pvc in db.get("pvc", "-l", "opctl.io/cluster=db")["items"])
    assert volumes == ["db-1", "db-2"]
    annotate(db, "opctl.io/hibernation", "on")
    order = []

    def primary_last():
        pods = db.pods()
        assert "db-1" in pods or "db-2" not in pods, f"db-1's Pod went before db-2's\n{db.describe()}"
        order.append(sorted(pods))

    db.passes_until(lambda: db.status().get("phase") == "Hibernated", "phase Hibernated", timeout=180,
                    each_pass=primary_last)
    assert db.pods() == {}
    assert db.condition("Hibernated")["status"] == "True"
    assert kubectl_status_column(db) == "Hibernated"
    assert sorted(pvc["metadata"]["name"] for pvc in db.get("pvc", "-l", "opctl.io/cluster=db")["items"]) == volumes
    for kind, name in (("secret", "db-app"), ("secret", "db-superuser"), ("service", "db-rw"), ("service", "db-r")):
        assert db.cluster.exists(kind, name, "-n", db.namespace), f"{kind}/{name} went with hibernation"
    # Further passes while hibernated start nothing: no Pod, no Job, no failover.
    for _ in range(2):
        db.reconcile()
    assert db.pods() == {} and db.get("jobs")["items"] == []
    assert db.status()["targetPrimary"] == "db-1"

    annotate(db, "opctl.io/hibernation", "off")
    replica_started_with = []

    def primary_first():
        if "db-2" in db.pods() and not replica_started_with:
            replica_started_with.append((lease_holder(db), db.ready(db.pods()["db-1"])))

    db.passes_until(db.healthy_and_streaming, "Healthy again", timeout=180, each_pass=primary_first)
    assert replica_started_with == [("db-1", True)], f"db-2 started before db-1 served: {replica_started_with}"
    assert db.status()["currentPrimary"] == "db-1"
    assert db.condition("Hibernated")["status"] == "False"
    assert before <= ids_on(db, "db-1")
    assert write(db, 400, 1)
    wait_for(lambda: before | {400} <= ids_on(db, "db-2"), "db-2 replayed every row", db, timeout=30)
