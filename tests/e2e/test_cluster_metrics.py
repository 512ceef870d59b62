"""The instance manager's Prometheus exporter on real PostgreSQL instances on the test node: every instance serves
/metrics on port 9187 (named metrics), scraped from the host inside the node's network namespace by Pod IP, as a
Prometheus would, and read with a real parser (prometheus_client's, from PyPI).

One 2-instance Cluster for the whole file (module fixture), with custom queries from a ConfigMap (a good one that
reads a table of the app database on the primary only, with a label value that needs escaping, and a broken one)
and liveness and startup probes. The tests check the default metrics on the primary and on the replica, the custom
queries, the probes on the Pods (read back with kubectl, and the kubelet's record that the startup probe passed),
and that an instance whose PostgreSQL is stopped (fenced) still answers, with opctl_collector_up 0.
"""
import collections
import subprocess
import time

import pytest
from prometheus_client.parser import text_string_to_metric_families

from postgres_support import IMAGE, NODE_NETNS, suite_namespace

QUERIES_CONFIGMAP = "e2e-queries"
QUERIES = """\
e2e_orders:
  query: "SELECT status, count(*) AS orders FROM orders GROUP BY status"
  primary: true
  target_databases: ["app"]
  metrics:
    - status:
        usage: "LABEL"
        description: "the order's status"
    - orders:
        usage: "GAUGE"
        description: "orders by status"
e2e_broken:
  query: "SELECT 1/0 AS boom"
  metrics:
    - boom:
        usage: "GAUGE"
        description: "never there: division by zero"
"""
SPEC_EXTRA = f"""\
  monitoring:
    customQueriesConfigMap:
    - name: {QUERIES_CONFIGMAP}
      key: queries.yaml
  probes:
    liveness:
      periodSeconds: 5
    startup:
      periodSeconds: 2
      failureThreshold: 90
"""
# Read by a Python inside the node's network namespace (the host has no route to the Pod subnet otherwise): the
# status, the Content-Type and the body, or the error.
FETCH = ("import sys, urllib.request\n"
         "with urllib.request.urlopen(sys.argv[1], timeout=15) as r:\n"
         "    sys.stdout.write(f'{r.status}\\n{r.headers[\"Content-Type\"]}\\n' + r.read().decode())\n")


@pytest.fixture(scope="module")
def metrics_db(cluster, tmp_path_factory):
    with suite_namespace(cluster, tmp_path_factory, "metrics") as db:
        # Created with kubectl, not by the pass: a ConfigMap the application's owners keep.
        cluster.kubectl("create", "configmap", QUERIES_CONFIGMAP, "-n", db.namespace,
                        f"--from-literal=queries.yaml={QUERIES}")
        db.write(instances=2, image=IMAGE, extra=SPEC_EXTRA)
        db.settle(timeout=240)
        db.app("CREATE TABLE orders (id serial PRIMARY KEY, status text NOT NULL)")
        db.app("INSERT INTO orders (status) VALUES ('new'), ('new'), ('paid \"in full\"')")
        yield db


def scrape(db, pod_name, path="/metrics"):
    """GET http://<pod IP>:9187<path> from the node's network namespace: (status, content type, body)."""
    url = f"http://{db.pod_ip(pod_name)}:9187{path}"
    result = subprocess.run(["timeout", "30", "nsenter", f"--net={NODE_NETNS}", "--", "python3", "-c", FETCH, url],
                            capture_output=True, text=True, timeout=40)
    assert result.returncode == 0, f"GET {url}: {result.stderr}\n{db.describe()}"
    status, content_type, body = result.stdout.split("\n", 2)
    return int(status), content_type, body


def samples(body):
    """{(name, frozenset(labels)): value} as prometheus_client's parser reads the text; a series twice fails. The
    parser names a counter's samples <family>_total (OpenMetrics), whatever the text says: back to the text's name."""
    out = {}
    for family in text_string_to_metric_families(body):
        for sample in family.samples:
            name = family.name if family.type == "counter" and sample.name == f"{family.name}_total" else sample.name
            key = (name, frozenset(sample.labels.items()))
            assert key not in out, f"series {key} twice"
            out[key] = sample.value
    return out


def value(parsed, name, **labels):
    return parsed.get((name, frozenset(labels.items())))


def names(parsed):
    return {name for name, _ in parsed}


def scraped(db, pod_name):
    status, content_type, body = scrape(db, pod_name)
    assert status == 200
    assert content_type == "text/plain; version=0.0.4; charset=utf-8"
    # HELP and TYPE once per family.
    type_lines = [line for line in body.splitlines() if line.startswith("# TYPE ")]
    assert len(type_lines) == len(set(type_lines)), collections.Counter(type_lines).most_common(3)
    return samples(body)


def test_the_primary_and_the_replica_are_scraped_with_the_default_metrics(metrics_db):
    # Given a healthy 2-instance Cluster, each instance should answer a scrape with up 1, its role, its databases'
    # sizes, the archiver and WAL, its backends; the replica its lag, the primary its standby's positions.
    db = metrics_db
    primary = db.status()["currentPrimary"]
    replica = next(name for name in db.pod_names() if name != primary)
    on_primary, on_replica = scraped(db, primary), scraped(db, replica)
    for parsed in (on_primary, on_replica):
        assert value(parsed, "opctl_collector_up") == 1
        assert value(parsed, "opctl_pg_database_size_bytes", datname="app") > 1_000_000
        assert value(parsed, "opctl_pg_database_size_bytes", datname="postgres") > 1_000_000
        assert value(parsed, "opctl_pg_settings_max_connections") > 0
        assert value(parsed, "opctl_collector_pg_wal_segments") >= 1
        assert value(parsed, "opctl_backends_waiting_total") == 0
        assert {"opctl_pg_stat_archiver_archived_count", "opctl_pg_stat_archiver_failed_count",
                "opctl_collector_wal_archive_status", "opctl_pg_postmaster_start_time_seconds",
                "opctl_backends_total", "opctl_pg_replication_lag"} <= names(parsed)
        # The exporter's own connection is one of the client backends it counts.
        assert value(parsed, "opctl_backends_total", datname="postgres", usename="postgres",
                     application_name="opctl-metrics", state="active") >= 1
    assert value(on_primary, "opctl_pg_replication_in_recovery") == 0
    assert value(on_primary, "opctl_pg_replication_lag") == 0
    assert value(on_replica, "opctl_pg_replication_in_recovery") == 1
    assert value(on_replica, "opctl_pg_replication_is_wal_receiver_up") == 1
    assert value(on_replica, "opctl_pg_replication_lag") >= 0
    assert value(on_replica, "opctl_pg_replication_replay_lag_bytes") >= 0
    standby = {"application_name": replica, "client_addr": db.pod_ip(replica)}
    assert value(on_primary, "opctl_pg_stat_replication_streaming", **standby) == 1
    assert value(on_primary, "opctl_pg_stat_replication_replay_diff_bytes", **standby) >= 0
    assert not any(name.startswith("opctl_pg_stat_replication_") for name in names(on_replica))


def test_custom_queries_from_the_configmap_appear_with_their_labels_and_a_broken_one_is_an_error(metrics_db):
    # Given the ConfigMap's two queries, the primary should export the good one's rows labelled by status and
    # database (a quote in a label value escaped and read back), the broken one as opctl_collector_last_error 1;
    # the replica skips the primary-only query.
    db = metrics_db
    primary = db.status()["currentPrimary"]
    replica = next(name for name in db.pod_names() if name != primary)
    on_primary = scraped(db, primary)
    assert value(on_primary, "opctl_e2e_orders_orders", status="new", datname="app") == 2
    assert value(on_primary, "opctl_e2e_orders_orders", status='paid "in full"', datname="app") == 1
    assert value(on_primary, "opctl_collector_last_error", query="e2e_orders") == 0
    assert value(on_primary, "opctl_collector_last_error", query="e2e_broken") == 1
    assert "opctl_e2e_broken_boom" not in names(on_primary)
    # The pass found the ConfigMap and its key.
    assert db.condition("CustomQueriesMissing")["status"] == "False"
    assert value(on_primary, "opctl_collector_up") == 1
    assert value(on_primary, "opctl_pg_database_size_bytes", datname="app") > 0
    # Rows written now are in the next scrape: the query runs at every scrape.
    db.app("INSERT INTO orders (status) VALUES ('new')")
    assert value(scraped(db, primary), "opctl_e2e_orders_orders", status="new", datname="app") == 3
    on_replica = scraped(db, replica)
    assert "opctl_e2e_orders_orders" not in names(on_replica)
    assert value(on_replica, "opctl_collector_last_error", query="e2e_broken") == 1
    logs = db.cluster.kubectl("logs", replica, "-n", db.namespace).stdout
    assert "metrics: e2e_broken: " in logs and "division by zero" in logs, logs[-2000:]


def test_the_probes_are_on_the_pods_and_the_kubelet_runs_them(metrics_db):
    # Given spec.probes.liveness and startup, every instance container should carry both (GET /healthz on the
    # port named metrics) with the timings set and the defaults for the rest, and the kubelet should have seen the
    # startup probe pass; the exporter's port is declared under its name, for a PodMonitor.
    db = metrics_db
    for name, pod in db.pods().items():
        container = pod["spec"]["containers"][0]
        assert {"name": "metrics", "containerPort": 9187, "protocol": "TCP"} in container["ports"], name
        liveness, startup = container["livenessProbe"], container["startupProbe"]
        assert liveness["httpGet"]["path"] == "/healthz" and liveness["httpGet"]["port"] == "metrics"
        assert (liveness["periodSeconds"], liveness["timeoutSeconds"], liveness["failureThreshold"]) == (5, 5, 3)
        assert (startup["periodSeconds"], startup["timeoutSeconds"], startup["failureThreshold"]) == (2, 5, 90)
        assert container["readinessProbe"]["exec"]["command"] == ["opctl", "instance", "ready"]
        status = pod["status"]["containerStatuses"][0]
        assert status["started"] is True and status["restartCount"] == 0, status
        assert pod["metadata"]["labels"]["opctl.io/cluster"] == "db"
        assert pod["metadata"]["labels"]["opctl.io/role"] in ("primary", "replica")
        http_status, _, body = scrape(db, name, "/healthz")
        assert (http_status, body) == (200, "ok\n")


def test_an_instance_whose_postgresql_is_stopped_still_answers_with_up_0(metrics_db):
    # Given the replica fenced (its PostgreSQL stopped, its manager running), a scrape should still get 200 with
    # opctl_collector_up 0; unfenced, up 1 again.
    db = metrics_db
    primary = db.status()["currentPrimary"]
    replica = next(name for name in db.pod_names() if name != primary)

    def annotate(value):
        setting = "opctl.io/fenced-instances-" if value is None else f"opctl.io/fenced-instances={value}"
        db.cluster.kubectl("annotate", "--overwrite", "clusters.opctl.io", db.name, "-n", db.namespace, setting)

    def reported_role():
        return db.get("pod", replica)["metadata"].get("annotations", {}).get("opctl.io/instance-role")

    annotate(f'["{replica}"]')
    deadline = time.time() + 90
    while reported_role() != "fenced":
        assert time.time() < deadline, f"{replica} not fenced within 90s\n{db.describe()}"
        time.sleep(0.5)
    parsed = scraped(db, replica)
    assert value(parsed, "opctl_collector_up") == 0
    assert "opctl_pg_database_size_bytes" not in names(parsed)
    assert value(parsed, "opctl_collector_last_error", query="e2e_broken") == 1
    annotate(None)
    db.settle(timeout=120)
    assert value(scraped(db, replica), "opctl_collector_up") == 1


def test_a_bad_configmap_reference_or_probe_is_refused_before_anything_is_applied(metrics_db, cluster, tmp_path):
    # Given a ConfigMap name that is not a DNS subdomain and a liveness successThreshold Kubernetes refuses,
    # `opctl validate` and a pass should exit 2 naming file, line and field, and create nothing.
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "cluster.yaml").write_text(
        f"apiVersion: opctl.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: refused\n  namespace: {metrics_db.namespace}\n"
        f"spec:\n  instances: 1\n  imageName: {IMAGE}\n  storage:\n    size: 1Gi\n"
        "  monitoring:\n    customQueriesConfigMap:\n    - {name: Queries, key: q.yaml}\n"
        "  probes:\n    liveness:\n      successThreshold: 2\n")
    checked = cluster.opctl("validate", "--path", str(bad))
    output = checked.stdout + checked.stderr
    assert checked.returncode == 2, output
    assert "cluster.yaml:13: spec.monitoring.customQueriesConfigMap[0].name" in output, output
    assert "cluster.yaml:16: spec.probes.liveness.successThreshold: must be at most 1" in output, output
    passed = cluster.reconcile("--path", str(bad), "--name", f"{metrics_db.namespace}-refused")
    assert passed.returncode == 2, passed.stdout + passed.stderr
    assert not cluster.exists("clusters.opctl.io", "refused", "-n", metrics_db.namespace)


def test_a_missing_custom_queries_configmap_is_a_condition_and_an_event(metrics_db):
    # Given the ConfigMap deleted, the next pass should say so in the CustomQueriesMissing condition and a Warning
    # Event, without failing the pass or touching the Pods.
    db = metrics_db
    uids = {name: pod["metadata"]["uid"] for name, pod in db.pods().items()}
    db.cluster.kubectl("delete", "configmap", QUERIES_CONFIGMAP, "-n", db.namespace)
    db.reconcile()
    condition = db.condition("CustomQueriesMissing")
    assert condition["status"] == "True", condition
    assert condition["message"] == f"ConfigMap {QUERIES_CONFIGMAP} does not exist", condition
    events = db.get("events", "--field-selector", "reason=CustomQueriesMissing")["items"]
    assert [event["type"] for event in events] == ["Warning"], events
    assert {name: pod["metadata"]["uid"] for name, pod in db.pods().items()} == uids
