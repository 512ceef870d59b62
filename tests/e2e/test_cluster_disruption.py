"""Disruptions of a Cluster's instances that Kubernetes itself causes, on the test node with a real PostgreSQL.

A Pod the kubelet fails for good (here: past the activeDeadlineSeconds the test sets on the running Pod, so the
kubelet kills it and sets phase Failed, reason DeadlineExceeded; an eviction or a node shutdown ends the same way)
never runs again: the next pass deletes it, records a Warning Event on the Cluster, and recreates it under the same
name on the same volume, data included. And a node drain meets the Cluster's PodDisruptionBudgets (<name>-primary,
minAvailable 1; <name> for the replicas, minAvailable instances - 2): it may evict one replica, never the primary.

As in test_cluster_dataplane.py, the passes are the real `opctl reconcile`, the kubelet and the instance manager
run the Pods, and nothing here writes a Pod's status. The node is shared with the other suites: the drain selects
this Cluster's Pods only (its owner-uid label), and the node is uncordoned whatever happens.
"""
import time

import pytest

from postgres_support import PgCluster, prepare_node_suite, serial


@pytest.fixture(scope="module", autouse=True)
def prerequisites(cluster):
    prepare_node_suite(cluster)


@pytest.fixture
def db(cluster, namespace, manifests):
    return PgCluster(cluster, namespace, manifests)


def wait_for(check, what, timeout=120, interval=1.0):
    """Polls check() until it returns something true; returns that."""
    deadline = time.time() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.time() > deadline:
            pytest.fail(f"not {what} after {timeout}s")
        time.sleep(interval)


def cluster_events(db, reason):
    """The Events on the Cluster itself with this reason."""
    selector = f"involvedObject.kind=Cluster,involvedObject.name={db.name},reason={reason}"
    return db.get("events", "--field-selector", selector)["items"]


def add_rows(db):
    db.app("CREATE TABLE items (id integer PRIMARY KEY, note text NOT NULL)")
    assert db.app("INSERT INTO items SELECT n, 'row ' || n FROM generate_series(1, 1000) AS n") == "INSERT 0 1000"


def assert_owned_by_cluster(db, obj):
    owner = obj["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"], owner["controller"]) == ("Cluster", db.name, True)


def test_a_single_instance_whose_pod_the_kubelet_failed_is_recreated_on_its_volume(db, cluster):
    db.write(instances=1)
    db.settle()
    add_rows(db)
    pdbs = sorted(item["metadata"]["name"] for item in db.get("poddisruptionbudgets")["items"])
    assert pdbs == ["db-primary"]  # one instance: no replicas' budget
    old_pod = db.get("pod", "db-1")
    old_claim_uid = db.get("pvc", "db-1")["metadata"]["uid"]

    # activeDeadlineSeconds may be set on a running Pod: the kubelet then fails it for good.
    cluster.kubectl("patch", "pod", "db-1", "-n", db.namespace, "-p", '{"spec":{"activeDeadlineSeconds":1}}')

    def failed_pod():
        pod = db.get("pod", "db-1")
        return pod if pod.get("status", {}).get("phase") == "Failed" else None

    failed = wait_for(failed_pod, "phase Failed")
    assert failed["metadata"]["uid"] == old_pod["metadata"]["uid"]
    assert failed["status"].get("reason") == "DeadlineExceeded", failed["status"]

    db.reconcile()  # this pass sees the failed Pod: it deletes it and says why
    progressing = db.condition("Progressing")
    assert progressing.get("reason") == "RecreatingFailedPod", db.describe()
    assert "DeadlineExceeded" in progressing.get("message", ""), progressing
    events = cluster_events(db, "InstancePodFailed")
    assert len(events) == 1, events
    assert events[0]["type"] == "Warning"
    assert "db-1" in events[0]["message"] and "DeadlineExceeded" in events[0]["message"], events[0]["message"]
    assert events[0]["involvedObject"]["uid"] == db.resource()["metadata"]["uid"]

    def recreated_and_healthy():
        pod = db.pods().get("db-1")
        return pod is not None and pod["metadata"]["uid"] != old_pod["metadata"]["uid"] and db.healthy_and_streaming()

    db.passes_until(recreated_and_healthy, "Healthy again with a new db-1 Pod")
    pod = db.get("pod", "db-1")
    assert pod["metadata"]["uid"] != old_pod["metadata"]["uid"]
    assert pod.get("status", {}).get("phase") == "Running"
    assert pod["metadata"]["labels"]["opctl.io/role"] == "primary"
    assert "activeDeadlineSeconds" not in pod["spec"]  # the new Pod is the pass's, not the patched one
    assert db.pod_names() == ["db-1"]  # the same instance: no new serial
    claim = db.get("pvc", "db-1")
    assert claim["metadata"]["uid"] == old_claim_uid  # the same volume, so the same data
    assert [v["persistentVolumeClaim"]["claimName"] for v in pod["spec"]["volumes"] if "persistentVolumeClaim" in v] \
        == ["db-1"]
    assert db.status()["currentPrimary"] == "db-1"
    assert db.app("SELECT count(*), sum(id) FROM items") == "1000|500500"
    assert db.app("INSERT INTO items VALUES (1001, 'after')") == "INSERT 0 1"
    assert len(cluster_events(db, "InstancePodFailed")) == 1  # told once, not on every pass


def pdb_settled(pdb, allowed):
    status = pdb.get("status", {})
    return status.get("observedGeneration") == pdb["metadata"]["generation"] and \
        status.get("disruptionsAllowed") == allowed


def test_a_drain_may_evict_one_replica_but_never_the_primary(db, cluster):
    db.write(instances=3)
    db.settle()
    add_rows(db)  # starts the client Pod too, before the node is cordoned
    primary = db.status()["currentPrimary"]
    uid = db.resource()["metadata"]["uid"]

    budgets = {item["metadata"]["name"]: item for item in db.get("poddisruptionbudgets")["items"]}
    assert sorted(budgets) == ["db", "db-primary"]
    assert budgets["db-primary"]["spec"]["minAvailable"] == 1
    assert budgets["db-primary"]["spec"]["selector"] == {
        "matchLabels": {"opctl.io/cluster": "db", "opctl.io/role": "primary"}}
    assert budgets["db"]["spec"]["minAvailable"] == 1  # instances - 2
    assert budgets["db"]["spec"]["selector"] == {"matchLabels": {"opctl.io/cluster": "db", "opctl.io/role": "replica"}}
    for budget in budgets.values():
        assert_owned_by_cluster(db, budget)
    # The disruption controller has counted the Pods: no eviction of the primary, one of the replicas.
    wait_for(lambda: pdb_settled(db.get("pdb", "db-primary"), 0), "db-primary settled with 0 disruptions allowed")
    wait_for(lambda: pdb_settled(db.get("pdb", "db"), 1), "db settled with 1 disruption allowed")

    before = {name: pod["metadata"]["uid"] for name, pod in db.pods().items()}
    node = db.get("pod", primary)["spec"]["nodeName"]
    try:
        drain = cluster.kubectl("drain", node, "--pod-selector", f"opctl.io/cluster=db,opctl.io/owner-uid={uid}",
                                "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=30s", check=False)
        assert drain.returncode != 0, f"the drain evicted everything:\n{drain.stdout}{drain.stderr}"
        assert "disruption budget" in drain.stdout + drain.stderr, drain.stdout + drain.stderr

        pods = db.pods()
        kept = {name for name, pod in pods.items()
                if pod["metadata"]["uid"] == before.get(name) and "deletionTimestamp" not in pod["metadata"]}
        evicted = sorted(set(before) - kept, key=serial)
        assert primary in kept, db.describe()
        assert len(evicted) == 1 and evicted[0] != primary, (evicted, db.describe())
        # The primary still serves, reads and writes, through -rw.
        assert db.ready(pods[primary])
        assert db.rw_endpoints() == [primary]
        assert db.app("SELECT count(*), sum(id) FROM items") == "1000|500500"
        assert db.app("INSERT INTO items VALUES (1001, 'during the drain')") == "INSERT 0 1"
    finally:
        cluster.kubectl("uncordon", node, check=False)

    db.settle()  # the evicted replica comes back on its volume
    assert db.pod_names() == ["db-1", "db-2", "db-3"]
    assert db.status()["currentPrimary"] == primary
    assert db.pods()[primary]["metadata"]["uid"] == before[primary]
    assert db.app("SELECT count(*) FROM items") == "1001"
