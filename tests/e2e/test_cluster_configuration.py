"""A Cluster configured as CloudNativePG users configure theirs: spec.postgresql.parameters and pg_hba,
enableSuperuserAccess, affinity, tolerations, nodeSelector, topologySpreadConstraints, priorityClassName and the
readiness probe's timings, on real PostgreSQL instances on the test node.

One 2-instance Cluster for the whole file (module fixture), created with parameters and scheduling settings; the
tests then change it in order: a reloadable parameter (no Pod restarts), a parameter PostgreSQL needs a restart for
(pg_settings.pending_restart: the replica restarts first, the primary last by switchover), and at the end superuser
access over the network is turned off. Results are read back with kubectl and with the host's psql inside the
node's network namespace (SHOW on every instance, a connection pg_hba allows and one it refuses), never through
opctl. The refusal of parameters opctl owns is checked with `opctl validate` and a pass, both exiting 2.
"""
import os
import time

import pytest

from postgres_support import IMAGE, PgCluster, cluster_yaml, node_psql, prepare_node_suite

CLUSTER_IMAGE = IMAGE
PRIORITY_CLASS = f"opctl-e2e-pgconf-{os.getpid()}"


def spec_extra(parameters, superuser_access=True, node=""):
    """The Cluster's settings beyond instances, image and storage, as YAML under spec."""
    lines = ["  postgresql:", "    parameters:"]
    lines += [f"      {name}: \"{value}\"" for name, value in parameters.items()]
    # The app user may use its own database, not the postgres one (a rule before opctl's default rule).
    lines += ["    pg_hba:", "    - host postgres app all reject"]
    lines += [f"  enableSuperuserAccess: {'true' if superuser_access else 'false'}",
              "  affinity:", "    topologyKey: kubernetes.io/hostname",
              f"    nodeSelector:\n      kubernetes.io/hostname: {node}",
              "    tolerations:", "    - {key: opctl.io/e2e-dedicated, operator: Exists, effect: NoSchedule}",
              "  topologySpreadConstraints:",
              "  - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway}",
              f"  priorityClassName: {PRIORITY_CLASS}",
              "  probes:", "    readiness: {periodSeconds: 3, failureThreshold: 2}"]
    return "\n".join(lines) + "\n"


class Configured:
    """The shared Cluster and the settings it was last written with."""

    def __init__(self, db, node):
        self.db, self.node = db, node
        self.parameters = {"shared_buffers": "48MB", "work_mem": "5MB"}
        self.superuser_access = True

    def write(self):
        self.db.write(instances=2, image=CLUSTER_IMAGE,
                      extra=spec_extra(self.parameters, self.superuser_access, self.node))

    def configuration(self):
        return self.db.status().get("configuration", {})

    def applied(self):
        """Passes until status.configuration is Applied for the spec now written (and the Cluster Healthy)."""
        def done():
            wanted = self.db.status().get("phase") == "Healthy" and self.configuration().get("phase") == "Applied"
            return wanted and self.db.resource()["metadata"]["generation"] == \
                self.db.status().get("observedGeneration", self.db.resource()["metadata"]["generation"])
        self.db.passes_until(done, "configuration Applied and Healthy", timeout=240)
        return self.configuration()

    def show(self, setting):
        """SHOW on every instance, as the superuser by Pod IP."""
        return {name: self.db.on_pod(name, f"SHOW {setting}") for name in self.db.pod_names()}


@pytest.fixture(scope="module")
def conf(cluster, tmp_path_factory):
    prepare_node_suite(cluster)
    namespace = f"e2e-pgconf-{os.getpid()}"
    cluster.kubectl("create", "namespace", namespace)
    cluster.kubectl("apply", "-f", "-", input=(
        f"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: {PRIORITY_CLASS}\n"
        "value: 1000\ndescription: opctl e2e test_cluster_configuration\n"))
    root = tmp_path_factory.mktemp("pgconf")

    def manifests(files):
        for name, text in files.items():
            (root / name).write_text(text)
        return root

    try:
        node = cluster.get_json("nodes")["items"][0]["metadata"]["labels"]["kubernetes.io/hostname"]
        configured = Configured(PgCluster(cluster, namespace, manifests), node)
        configured.db.reconcile_args = ["--name", namespace]  # a Lease of its own: other suites may run meanwhile
        configured.write()
        configured.db.settle(timeout=240)
        yield configured
    finally:
        cluster.kubectl("delete", "namespace", namespace, "--wait=false", check=False)
        # No pass runs after this one to take the final-backup finalizer off (nothing to back up): the namespace
        # would stay Terminating on the shared control plane.
        cluster.kubectl("patch", "clusters.opctl.io", "db", "-n", namespace, "--type=merge",
                        "-p", '{"metadata":{"finalizers":null}}', check=False)
        cluster.kubectl("delete", "priorityclass", PRIORITY_CLASS, "--wait=false", check=False)


def test_parameters_and_scheduling_are_in_force_from_the_start(conf):
    # Given a new Cluster with parameters and scheduling settings, every instance should run with both.
    assert conf.show("shared_buffers") == {"db-1": "48MB", "db-2": "48MB"}
    assert conf.show("work_mem") == {"db-1": "5MB", "db-2": "5MB"}
    assert conf.applied() == {"hash": conf.configuration()["hash"], "phase": "Applied", "appliedBy": "Start"}
    for name, pod in conf.db.pods().items():
        spec = pod["spec"]
        assert spec["nodeSelector"] == {"kubernetes.io/hostname": conf.node}, name
        assert {"key": "opctl.io/e2e-dedicated", "operator": "Exists", "effect": "NoSchedule"} in spec["tolerations"]
        assert spec["priorityClassName"] == PRIORITY_CLASS
        assert spec["priority"] == 1000  # resolved by the API server's admission: the class is real
        assert spec["topologySpreadConstraints"] == [{
            "maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": {"opctl.io/cluster": "db"}}}]
        anti = spec["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
        assert anti[0]["podAffinityTerm"]["topologyKey"] == "kubernetes.io/hostname"
        probe = spec["containers"][0]["readinessProbe"]
        assert (probe["periodSeconds"], probe["failureThreshold"], probe["timeoutSeconds"]) == (3, 2, 5)
        assert spec["nodeName"] == conf.node


def test_pg_hba_rules_come_before_opctls_default_rule(conf):
    app = conf.db.secret("app")
    for name in conf.db.pod_names():
        ip = conf.db.pod_ip(name)
        allowed = node_psql(ip, "SELECT current_user", app["username"], app["password"], app["dbname"])
        assert allowed.returncode == 0 and allowed.stdout.strip() == "app", allowed.stderr
        refused = node_psql(ip, "SELECT 1", app["username"], app["password"], "postgres")
        assert refused.returncode != 0 and "pg_hba.conf rejects connection" in refused.stderr, refused.stderr


def test_parameters_opctl_owns_are_refused_by_validate_and_by_a_pass(conf, cluster, tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "cluster.yaml").write_text(cluster_yaml(conf.db.namespace, name="refused", instances=1,
                                                   image=CLUSTER_IMAGE,
                                                   extra="  postgresql:\n    parameters:\n"
                                                         "      work_mem: \"8MB\"\n      port: \"6543\"\n"))
    checked = cluster.opctl("validate", "--path", str(bad))
    assert checked.returncode == 2, checked.stdout + checked.stderr
    output = checked.stdout + checked.stderr
    assert "cluster.yaml:14" in output and "spec.postgresql.parameters.port" in output, output
    assert "opctl owns port" in output, output
    passed = cluster.reconcile("--path", str(bad), "--name", f"{conf.db.namespace}-refused")
    assert passed.returncode == 2, passed.stdout + passed.stderr
    assert "spec.postgresql.parameters.port" in passed.stdout + passed.stderr
    assert not cluster.exists("clusters.opctl.io", "refused", "-n", conf.db.namespace)


def test_a_reloadable_parameter_is_applied_by_a_reload_without_restarting_anything(conf):
    started = {name: conf.db.on_pod(name, "SELECT pg_postmaster_start_time()") for name in conf.db.pod_names()}
    uids = {name: pod["metadata"]["uid"] for name, pod in conf.db.pods().items()}
    conf.parameters["work_mem"] = "6MB"
    conf.write()
    status = conf.applied()
    assert (status["appliedBy"], status.get("pendingRestart")) == ("Reload", None), status
    assert conf.show("work_mem") == {"db-1": "6MB", "db-2": "6MB"}
    assert {name: pod["metadata"]["uid"] for name, pod in conf.db.pods().items()} == uids
    assert {name: conf.db.on_pod(name, "SELECT pg_postmaster_start_time()") for name in started} == started


def test_a_parameter_that_needs_a_restart_rolls_the_replica_first_then_the_primary(conf):
    # Given max_connections raised, PostgreSQL reports pending_restart after the reload; opctl should restart the
    # replica first, then move the primary away by switchover, and say a restart applied it.
    primary = conf.db.status()["currentPrimary"]
    replica = next(name for name in conf.db.pod_names() if name != primary)
    uids = {name: pod["metadata"]["uid"] for name, pod in conf.db.pods().items()}
    events = []  # (what changed, when) in the order the passes saw it

    def record():
        pods, status = conf.db.pods(), conf.db.status()
        for name, uid in uids.items():
            if name in pods and pods[name]["metadata"]["uid"] != uid and ("recreated", name) not in events:
                events.append(("recreated", name))
        if status.get("currentPrimary") not in (primary, None) and ("switched", status["currentPrimary"]) not in events:
            events.append(("switched", status["currentPrimary"]))

    conf.parameters["max_connections"] = "110"
    conf.write()
    conf.db.passes_until(lambda: conf.configuration().get("phase") == "Applied" and conf.db.healthy_and_streaming(),
                         "max_connections applied by a restart", timeout=240, each_pass=record)
    status = conf.configuration()
    assert status["appliedBy"] == "Restart" and status["restartParameters"] == ["max_connections"], status
    assert conf.show("max_connections") == {"db-1": "110", "db-2": "110"}
    assert events[:2] == [("recreated", replica), ("switched", replica)], events
    assert conf.db.status()["currentPrimary"] == replica


def test_lowering_max_connections_restarts_the_primary_first_in_place(conf):
    # Given max_connections lowered, a standby may not run with less than its primary: the primary should restart
    # in place first (same Pod, still the primary, a new postmaster), and only then the replica's Pod.
    primary = conf.db.status()["currentPrimary"]
    replica = next(name for name in conf.db.pod_names() if name != primary)
    uids = {name: pod["metadata"]["uid"] for name, pod in conf.db.pods().items()}
    primary_started = conf.db.on_pod(primary, "SELECT pg_postmaster_start_time()")
    order = []

    def record():
        if primary not in order:
            try:
                if conf.db.on_pod(primary, "SELECT pg_postmaster_start_time()") != primary_started:
                    order.append(primary)
            except AssertionError:
                pass  # restarting right now
        pods = conf.db.pods()
        if replica not in order and replica in pods and pods[replica]["metadata"]["uid"] != uids[replica]:
            order.append(replica)

    conf.parameters["max_connections"] = "100"
    conf.write()
    conf.db.passes_until(lambda: conf.configuration().get("phase") == "Applied" and conf.db.healthy_and_streaming(),
                         "max_connections lowered", timeout=240, each_pass=record)
    record()
    assert order == [primary, replica], order
    assert conf.db.status()["currentPrimary"] == primary
    assert conf.db.pods()[primary]["metadata"]["uid"] == uids[primary]
    assert conf.show("max_connections") == {"db-1": "100", "db-2": "100"}
    assert conf.configuration()["appliedBy"] == "Restart"


def test_without_superuser_access_the_superuser_is_refused_over_the_network(conf):
    conf.superuser_access = False
    conf.write()
    conf.db.passes_until(lambda: conf.configuration().get("phase") == "Applied"
                         and conf.db.status().get("phase") == "Healthy", "superuser access off", timeout=120)
    superuser, app = conf.db.secret("superuser"), conf.db.secret("app")
    deadline = time.time() + 30
    for name in conf.db.pod_names():
        ip = conf.db.pod_ip(name)
        refused = node_psql(ip, "SELECT 1", superuser["username"], superuser["password"], "postgres")
        assert refused.returncode != 0 and "pg_hba.conf rejects connection" in refused.stderr, refused.stderr
        allowed = node_psql(ip, "SELECT 1", app["username"], app["password"], app["dbname"])
        assert allowed.returncode == 0, allowed.stderr
    # The instances still reach each other as the superuser (pg_rewind, a failover's questions): replication goes on.
    primary = conf.db.status()["currentPrimary"]
    while True:
        states = {s["name"]: s for s in conf.db.status()["instanceStates"]}
        if all(s.get("ready") for s in states.values()) or time.time() > deadline:
            break
        conf.db.reconcile()
        time.sleep(1)
    assert all(s.get("ready") for s in states.values()), states
    assert [s.get("streaming") for name, s in states.items() if name != primary] == [True], states
