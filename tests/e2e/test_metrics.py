"""Metrics of a run (issue 37, item 3): `opctl reconcile --metrics-file` writes the Prometheus text format that
node-exporter's textfile collector reads, `--metrics-push` sends it to a Prometheus Pushgateway. The file is read
with prometheus_client's parser (PyPI), the push by a real Pushgateway built from the Go module proxy
(tests/tools/build.sh pushgateway) on a loopback port, read back from its /metrics with the same parser. The values
are checked against what the pass did, as kubectl shows it; a pass that fails, and a run whose set does not load,
still write their metrics, with success 0. A real two-instance Cluster on the test node gives the Cluster metrics,
compared with its status as kubectl reads it (a Cluster's last backup is unit-tested: a backup Job takes minutes)."""
import base64
import os
import pathlib
import socket
import subprocess
import time
import urllib.request
import uuid

import pytest
from prometheus_client.parser import text_string_to_metric_families

from postgres_support import PgCluster, prepare_node_suite

SOURCE_DIR = pathlib.Path(os.environ.get("OPCTL_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
# The Pushgateway's basic-auth user "opctl" with the password "e2e-push-secret" (bcrypt, cost 10).
PUSH_USER, PUSH_PASSWORD = "opctl", "e2e-push-secret"
PUSH_HASH = "$2a$10$b47gerVckR0djYkNgMg/R.xbEvz9Aqf1K3owsN4PjgvmetLhCNy1a"


def config(name, set_namespace):
    return (f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {name}\n  namespace: {set_namespace}\n"
            f"spec:\n  prune: true\n")


def configmap(name, namespace, value="v"):
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\ndata:\n  k: {value}\n"


def write(root, files):
    """The directory holds exactly `files` afterwards."""
    root.mkdir(parents=True, exist_ok=True)
    for old in root.iterdir():
        if old.name not in files:
            old.unlink()
    for name, text in files.items():
        (root / name).write_text(text)
    return root


def samples(text):
    """{(name, frozenset(labels)): value} and {family: type} of an exposition text, as Prometheus reads it."""
    values, types = {}, {}
    for family in text_string_to_metric_families(text):
        types[family.name] = family.type
        for sample in family.samples:
            values[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return values, types


def value(values, name, **labels):
    key = (name, frozenset(labels.items()))
    assert key in values, f"{name}{labels} missing; have {sorted(k for k in values if k[0] == name)}"
    return values[key]


@pytest.fixture
def setname():
    return "m" + uuid.uuid4().hex[:8]


@pytest.fixture
def two_passes(cluster, namespace, tmp_path, setname):
    """A set of three ConfigMaps applied, then one changed in the source and one taken out of it."""
    root = tmp_path / "set"
    write(root, {"opctl.yaml": config(setname, namespace),
                 **{f"{n}.yaml": configmap(n, namespace) for n in ("a", "b", "c")}})
    first = cluster.reconcile("--path", str(root))
    assert first.returncode == 0, first.stdout + first.stderr
    write(root, {"opctl.yaml": config(setname, namespace), "a.yaml": configmap("a", namespace, "changed"),
                 "b.yaml": configmap("b", namespace)})
    return root


def test_a_pass_writes_metrics_a_prometheus_parser_reads_with_what_the_pass_did(cluster, namespace, tmp_path,
                                                                                  setname, two_passes):
    metrics_file = tmp_path / "textfile" / "opctl.prom"
    metrics_file.parent.mkdir()
    before = time.time()
    result = cluster.reconcile("--path", str(two_passes), "--metrics-file", str(metrics_file))
    after = time.time()
    assert result.returncode == 0, result.stdout + result.stderr
    # What kubectl shows: a changed, b untouched, c pruned.
    assert cluster.get_json("configmap", "a", "-n", namespace)["data"] == {"k": "changed"}
    assert not cluster.exists("configmap", "c", "-n", namespace)

    assert sorted(path.name for path in metrics_file.parent.iterdir()) == ["opctl.prom"]  # no temporary left
    assert metrics_file.stat().st_mode & 0o777 == 0o644
    values, types = samples(metrics_file.read_text())
    assert set(types.values()) == {"gauge"}
    assert value(values, "opctl_run_success", set=setname) == 1
    assert value(values, "opctl_run_result", set=setname, result="succeeded") == 1
    assert value(values, "opctl_run_result", set=setname, result="failed") == 0
    assert value(values, "opctl_run_exit_code", set=setname) == 0
    assert value(values, "opctl_run_dry_run", set=setname) == 0
    assert before - 1 <= value(values, "opctl_run_start_timestamp_seconds", set=setname) <= after
    assert 0 < value(values, "opctl_run_duration_seconds", set=setname) <= after - before + 1
    counts = {action: value(values, "opctl_objects", set=setname, action=action)
              for action in ("created", "configured", "unchanged", "pruned", "kept", "failed", "skipped")}
    assert counts == {"created": 0, "configured": 1, "unchanged": 1, "pruned": 1, "kept": 0, "failed": 0,
                      "skipped": 0}
    assert value(values, "opctl_drift_objects", set=setname) == 2
    assert value(values, "opctl_lease_wait_seconds", set=setname) >= 0  # the set's Lease was taken
    assert not any(name.startswith("opctl_cluster_") for name, _ in values)  # the set has no Cluster


def test_a_failed_pass_and_a_set_that_does_not_load_still_write_metrics(cluster, namespace, tmp_path, setname):
    metrics_file = tmp_path / "opctl.prom"
    root = write(tmp_path / "set", {
        "opctl.yaml": config(setname, namespace),
        "ok.yaml": configmap("ok", namespace),
        # A namespace that does not exist: the apply of this object fails, the pass fails.
        "bad.yaml": configmap("bad", "no-such-namespace-" + uuid.uuid4().hex[:6]),
    })
    failed = cluster.reconcile("--path", str(root), "--metrics-file", str(metrics_file))
    assert failed.returncode == 3, failed.stdout + failed.stderr
    values, _ = samples(metrics_file.read_text())
    assert value(values, "opctl_run_success", set=setname) == 0
    assert value(values, "opctl_run_result", set=setname, result="failed") == 1
    assert value(values, "opctl_run_result", set=setname, result="succeeded") == 0
    assert value(values, "opctl_run_exit_code", set=setname) == 3
    assert value(values, "opctl_objects", set=setname, action="failed") == 1
    assert value(values, "opctl_objects", set=setname, action="created") == 1

    (root / "bad.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: [not, a, mapping\n")
    unloaded = cluster.reconcile("--path", str(root), "--metrics-file", str(metrics_file))
    assert unloaded.returncode == 2, unloaded.stdout + unloaded.stderr
    values, _ = samples(metrics_file.read_text())
    assert value(values, "opctl_run_success", set=setname) == 0
    assert value(values, "opctl_run_result", set=setname, result="invalid-input") == 1
    assert value(values, "opctl_run_exit_code", set=setname) == 2
    assert not any(name == "opctl_objects" for name, _ in values)  # no pass ran


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def pushgateway(tmp_path_factory):
    """A real Pushgateway on a loopback port that wants basic auth; yields its URL."""
    built = subprocess.run([str(SOURCE_DIR / "tests/tools/build.sh"), "pushgateway"], capture_output=True,
                           text=True, timeout=1200)
    assert built.returncode == 0, f"building the Pushgateway failed: {built.stderr[-2000:]}"
    binary = built.stdout.strip().splitlines()[-1]
    work = tmp_path_factory.mktemp("pushgateway")
    web_config = work / "web.yml"
    web_config.write_text(f"basic_auth_users:\n  {PUSH_USER}: {PUSH_HASH}\n")
    url = f"http://127.0.0.1:{free_port()}"
    log = open(work / "log", "w")
    process = subprocess.Popen([binary, f"--web.listen-address={url[len('http://'):]}",
                                f"--web.config.file={web_config}"], stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 60
        while True:
            try:
                get(url + "/-/ready")
                break
            except OSError:
                assert process.poll() is None and time.time() < deadline, (work / "log").read_text()
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


def get(url):
    request = urllib.request.Request(url)
    token = base64.b64encode(f"{PUSH_USER}:{PUSH_PASSWORD}".encode()).decode()
    request.add_header("Authorization", f"Basic {token}")
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read().decode()


def test_the_metrics_are_pushed_to_a_pushgateway_grouped_by_the_set(cluster, namespace, tmp_path, setname,
                                                                     two_passes, pushgateway):
    auth = tmp_path / "push-auth"
    authorization = "Basic " + base64.b64encode(f"{PUSH_USER}:{PUSH_PASSWORD}".encode()).decode()
    auth.write_text(authorization + "\n")
    result = cluster.reconcile("--path", str(two_passes), "--metrics-push", pushgateway,
                               "--metrics-push-auth-file", str(auth), "-v")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warning" not in result.stderr, result.stderr
    assert authorization.split()[1] not in result.stdout + result.stderr

    values, _ = samples(get(pushgateway + "/metrics"))
    group = {"job": "opctl", "set": setname, "instance": ""}
    assert value(values, "opctl_run_success", **group) == 1
    assert value(values, "opctl_objects", action="pruned", **group) == 1
    assert value(values, "opctl_objects", action="configured", **group) == 1
    assert value(values, "opctl_drift_objects", **group) == 2
    assert value(values, "push_failure_time_seconds", **group) == 0

    # A push that is refused (no credentials) or finds nobody is a warning; the pass still succeeds.
    refused = cluster.reconcile("--path", str(two_passes), "--metrics-push", pushgateway)
    assert refused.returncode == 0, refused.stdout + refused.stderr
    assert f"warning: the Pushgateway {pushgateway}/metrics/job/opctl/set/{setname} answered HTTP 401" in \
        refused.stderr, refused.stderr
    nobody = cluster.reconcile("--path", str(two_passes), "--metrics-push", f"http://127.0.0.1:{free_port()}")
    assert nobody.returncode == 0, nobody.stdout + nobody.stderr
    assert "warning: cannot push the metrics to http://127.0.0.1:" in nobody.stderr, nobody.stderr


def test_a_clusters_instances_primary_and_replication_lag_are_read_from_its_status(cluster, namespace, manifests,
                                                                                   tmp_path):
    """A real two-instance Cluster on the test node (about a minute to bootstrap and stream)."""
    prepare_node_suite(cluster)
    db = PgCluster(cluster, namespace, manifests)
    db.write(instances=2)
    db.settle()
    metrics_file = tmp_path / "opctl.prom"
    result = cluster.reconcile("--path", str(db.root), "--metrics-file", str(metrics_file))
    assert result.returncode == 0, result.stdout + result.stderr
    status = db.status()  # as the pass left it: the metrics were read from it right after
    values, _ = samples(metrics_file.read_text())
    labels = {"set": "default", "namespace": namespace, "cluster": "db"}  # an unnamed set
    assert value(values, "opctl_cluster_instances", **labels) == status["instances"] == 2
    assert value(values, "opctl_cluster_ready_instances", **labels) == status["readyInstances"] == 2
    primary = status["currentPrimary"]
    assert value(values, "opctl_cluster_primary_info", instance=primary, **labels) == 1
    assert sum(1 for name, _ in values if name == "opctl_cluster_primary_info") == 1
    states = {state["name"]: state for state in status["instanceStates"]}
    replica = next(name for name in states if name != primary)
    assert "lagBytes" in states[replica], states
    assert value(values, "opctl_cluster_replication_lag_bytes", instance=replica, **labels) == \
        states[replica]["lagBytes"]
    assert ("opctl_cluster_replication_lag_bytes", frozenset({**labels, "instance": primary}.items())) not in values
    assert value(values, "opctl_cluster_instance_ready", instance=replica, **labels) == 1
    # No Backup names the Cluster: no last backup rather than a made-up one.
    assert not any(name == "opctl_cluster_last_backup_timestamp_seconds" for name, _ in values)
