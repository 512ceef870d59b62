"""Metrics of a run (issue 37, item 3): `opctl reconcile --metrics-file` writes the Prometheus text format that
node-exporter's textfile collector reads, `--metrics-push` sends it to a Prometheus Pushgateway. The file is read
with prometheus_client's parser (PyPI), the push by a real Pushgateway built from the Go module proxy
(tests/tools/build.sh pushgateway) on a loopback port, read back from its /metrics with the same parser. The values
are checked against what the pass did, as kubectl shows it; a pass that fails, and a run whose set does not load,
still write their metrics, with success 0. The same, configured only by opctl.yaml's spec.metrics (its credential
from a variable), which an opctl.yaml inside a git source may not set. A real two-instance Cluster on the test node gives the Cluster metrics,
compared with its status as kubectl reads it (a Cluster's last backup is unit-tested: a backup Job takes minutes)."""
import base64
import time
import uuid

import pytest
from prometheus_client.parser import text_string_to_metric_families

from postgres_support import PgCluster, prepare_node_suite
from git_servers import Upstream
from pushgateway_support import AUTHORIZATION, PUSH_PASSWORD, PUSH_USER, free_port, get, running_pushgateway


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


@pytest.fixture(scope="module")
def pushgateway(tmp_path_factory):
    """A real Pushgateway on a loopback port that wants basic auth; yields its URL."""
    with running_pushgateway(tmp_path_factory.mktemp("pushgateway")) as url:
        yield url


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


def metrics_spec(file=None, url=None, auth=""):
    text = "  metrics:\n"
    if file:
        text += f"    file: {file}\n"
    if url:
        text += f"    push:\n      url: {url}\n" + (f"      {auth}\n" if auth else "")
    return text


def test_a_pass_configured_only_by_opctl_yaml_writes_the_file_and_pushes(cluster, namespace, tmp_path, setname,
                                                                         two_passes, pushgateway):
    metrics_file = tmp_path / "textfile" / "opctl.prom"
    metrics_file.parent.mkdir()
    config_file = tmp_path / "opctl.yaml"
    config_file.write_text(config(setname, namespace) + metrics_spec(
        file=metrics_file, url=pushgateway, auth="authEnv: OPCTL_E2E_PUSH_AUTH"))
    # No metrics flag: -f names the file, the variable holds the Authorization header's value.
    result = cluster.reconcile("-f", str(config_file), "--path", str(two_passes), "-v",
                               env={"OPCTL_E2E_PUSH_AUTH": AUTHORIZATION})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warning" not in result.stderr, result.stderr
    assert AUTHORIZATION.split()[1] not in result.stdout + result.stderr
    assert not cluster.exists("configmap", "c", "-n", namespace)  # the pass pruned c

    written, _ = samples(metrics_file.read_text())
    assert value(written, "opctl_run_success", set=setname) == 1
    assert value(written, "opctl_objects", set=setname, action="pruned") == 1
    pushed, _ = samples(get(pushgateway + "/metrics"))
    group = {"job": "opctl", "set": setname, "instance": ""}
    assert value(pushed, "opctl_run_success", **group) == 1
    assert value(pushed, "opctl_objects", action="pruned", **group) == 1
    assert value(pushed, "opctl_objects", action="configured", **group) == 1
    assert value(pushed, "push_failure_time_seconds", **group) == 0

    # Without the variable the push is a warning that names it; the file is still written.
    metrics_file.unlink()
    unset = cluster.reconcile("-f", str(config_file), "--path", str(two_passes))
    assert unset.returncode == 0, unset.stdout + unset.stderr
    assert "the environment variable OPCTL_E2E_PUSH_AUTH is not set (spec.metrics.push.authEnv)" in unset.stderr, \
        unset.stderr
    assert value(samples(metrics_file.read_text())[0], "opctl_run_success", set=setname) == 1

    # Flags win: --metrics-file writes elsewhere, and --metrics-push (here with no credential) replaces the push.
    other = tmp_path / "other.prom"
    metrics_file.unlink()
    flagged = cluster.reconcile("-f", str(config_file), "--path", str(two_passes), "--metrics-file", str(other),
                                "--metrics-push", f"http://127.0.0.1:{free_port()}",
                                env={"OPCTL_E2E_PUSH_AUTH": AUTHORIZATION})
    assert flagged.returncode == 0, flagged.stdout + flagged.stderr
    assert other.exists() and not metrics_file.exists()
    assert "warning: cannot push the metrics to http://127.0.0.1:" in flagged.stderr, flagged.stderr


def test_a_bad_spec_metrics_is_an_error_naming_file_line_and_field(cluster, namespace, tmp_path, setname,
                                                                   two_passes):
    config_file = tmp_path / "opctl.yaml"
    # Line 9 is `push:`, line 11 the inline credential.
    config_file.write_text(config(setname, namespace) + metrics_spec(url="http://gw:9091",
                                                                     auth="token: Bearer s3cr3t"))
    result = cluster.reconcile("-f", str(config_file), "--path", str(two_passes))
    assert result.returncode == 2, result.stdout + result.stderr
    assert (f"{config_file}:11: spec.metrics.push.token: a credential is never written in opctl.yaml"
            in result.stderr), result.stderr
    assert "s3cr3t" not in result.stdout + result.stderr
    config_file.write_text(config(setname, namespace) + "  metrics:\n    push:\n      authFile: /x\n")
    missing = cluster.reconcile("-f", str(config_file), "--path", str(two_passes))
    assert missing.returncode == 2, missing.stdout + missing.stderr
    assert f"{config_file}:9: spec.metrics.push: needs url" in missing.stderr, missing.stderr
    assert cluster.get_json("configmap", "c", "-n", namespace)["data"] == {"k": "v"}, "nothing was applied"
    assert cluster.get_json("configmap", "a", "-n", namespace)["data"] == {"k": "v"}, "nothing was applied"


def test_an_opctl_yaml_inside_a_git_source_may_not_set_spec_metrics(cluster, namespace, tmp_path, setname,
                                                                    pushgateway):
    upstream = Upstream(tmp_path)
    written = tmp_path / "chosen-by-the-commit.prom"
    # Line 9 is `file:`, line 10 `push:`.
    commit = upstream.commit({"opctl.yaml": config(setname, namespace) + metrics_spec(
        file=written, url=pushgateway, auth="authEnv: OPCTL_E2E_PUSH_AUTH"),
        "cm.yaml": configmap("from-git", namespace)})
    result = cluster.reconcile("--repo", f"file://{upstream.bare}", "--cache-dir", str(tmp_path / "cache"),
                               env={"OPCTL_E2E_PUSH_AUTH": AUTHORIZATION})
    assert result.returncode == 2, result.stdout + result.stderr
    where = "opctl.yaml"
    assert f"{where}:9: spec.metrics.file: an opctl.yaml inside a git source cannot say where metrics go" in \
        result.stderr, result.stderr
    assert f"{where}:10: spec.metrics.push: " in result.stderr, result.stderr
    assert not written.exists()
    assert not cluster.exists("configmap", "from-git", "-n", namespace), "nothing was applied"
    pushed, _ = samples(get(pushgateway + "/metrics"))
    assert not any(dict(labels).get("set") == setname for _, labels in pushed), "nothing was pushed"


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
