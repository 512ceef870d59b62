"""The hostile data-plane suite: a 3-instance Cluster with minSyncReplicas 1 keeps itself safe and available with
NO pass running while its primary is hurt in every way the issue names. Each case runs, on the test node:

- a long-lived client session through -rw (ha_probe.py writer: one libpq connection that reconnects only when it
  breaks, as a pool holds it) counting acknowledged commits, and
- a watcher asking every instance by Pod IP several times a second whether it accepts writes (ha_probe.py
  watcher),

then injects the fault, waits (no `opctl reconcile` runs) until writes are acknowledged again by a primary that
holds the Lease, heals, lets passes settle the Cluster back to Healthy, and checks that every acknowledged commit
is there and that no sample saw two writable instances. Faults: the primary's postgres killed (it restarts in
place), its manager stopped with SIGSTOP (the watchdog fences it), its Pod deleted, its packets to the API server
dropped and, separately, rejected, the whole Pod network cut from the API server, a switchover (`opctl promote`)
and a rolling update of the primary with no pass between the request and the end, and a failover while every pass
fails on an invalid manifest in the set.

With OPCTL_HA_RESULTS set, each case appends a JSON line (fault, outage, commits, samples) there: bench/CLUSTER.md
is made from those (bench/cluster_ha.sh).
"""
import json
import os
import queue
import signal
import subprocess
import threading
import time

import pytest

from postgres_support import NODE_NETNS, UPDATE_IMAGE, PgCluster, instance_manager_pid, prepare_node_suite

PROBE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ha_probe.py")
SYNC = "  minSyncReplicas: 1\n  maxSyncReplicas: 1\n"
TABLE = "CREATE TABLE IF NOT EXISTS writes (id bigint PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())"


@pytest.fixture(scope="module")
def ha(cluster, tmp_path_factory):
    """One Cluster for the whole suite (its faults run as rounds on it): Healthy before each case."""
    prepare_node_suite(cluster)
    pytest.importorskip("psycopg2", reason="install.sh installs psycopg2-binary")
    namespace = f"e2e-ha-{os.getpid()}"
    cluster.kubectl("create", "namespace", namespace)
    root = tmp_path_factory.mktemp("ha")

    def manifests(files):
        for name, text in files.items():
            (root / name).write_text(text)
        return root

    db = PgCluster(cluster, namespace, manifests)
    db.write(instances=3, extra=SYNC)
    db.settle(timeout=300)
    db.app(TABLE)
    yield db
    cluster.kubectl("delete", "namespace", namespace, "--wait=false", check=False)


def pod_netns_pid(db, pod_name):
    """The host PID of the named Pod's sandbox (its pause process), which lives as long as the Pod's network
    namespace: never a short-lived process of the Pod (a probe's exec) that may be gone before nsenter runs."""
    uid = db.get("pod", pod_name)["metadata"]["uid"]
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cgroup") as cgroup:
                text = cgroup.read()
            if f"pod{uid}" not in text and f"pod{uid.replace('-', '_')}" not in text:
                continue
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                argv0 = cmdline.read().split(b"\0")[0]
        except OSError:
            continue
        found.append((not argv0.endswith(b"pause"), int(pid)))
    if not found:
        pytest.fail(f"no process of Pod {pod_name} found")
    return min(found)[1]


def pod_netns(db, pod_name):
    """The Pod's network namespace, through any of its processes (its sandbox's included)."""
    return f"/proc/{pod_netns_pid(db, pod_name)}/ns/net"


class Probe:
    """ha_probe.py in a network namespace; its lines, with the time each arrived."""

    def __init__(self, netns, password, *arguments):
        self.lines = queue.Queue()
        self.process = subprocess.Popen(["nsenter", f"--net={netns}", "--", "python3", "-u", PROBE, *arguments],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        text=True)
        self.process.stdin.write(password + "\n")
        self.process.stdin.flush()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.handle(time.time(), line.split(maxsplit=2))

    def handle(self, at, words):
        raise NotImplementedError

    def stop(self):
        self.process.kill()
        self.process.wait(timeout=10)


class SessionWriter(Probe):
    def __init__(self, db):
        app = db.secret("app")
        db.client.start()
        netns = pod_netns(db, db.client.NAME)
        self.db = db
        self.acknowledged = []  # (time, id)
        self.broken = []        # (time, id, error)
        first = int(db.app("SELECT coalesce(max(id), 0) + 1 FROM writes"))
        super().__init__(netns, app["password"], "writer", db.service_ip("rw"), app["username"], app["dbname"],
                         str(first))

    def handle(self, at, words):
        if words[0] == "ack":
            self.acknowledged.append((at, int(words[1])))
        elif words[0] == "broken":
            self.broken.append((at, int(words[1]), words[2] if len(words) > 2 else ""))

    def wait_for_acks(self, more, timeout=120, what="writes acknowledged"):
        target = len(self.acknowledged) + more
        deadline = time.time() + timeout
        while len(self.acknowledged) < target:
            if time.time() > deadline:
                pytest.fail(f"{what}: {len(self.acknowledged)} acknowledgements, wanted {target} within {timeout}s; "
                            f"last errors: {self.broken[-3:]}\n{self.db.describe()}")
            time.sleep(0.1)

    def longest_gap(self, since):
        """The longest time without an acknowledgement, from `since` to the last one."""
        times = [since] + [at for at, _ in self.acknowledged if at >= since]
        return max((b - a for a, b in zip(times, times[1:])), default=0.0)

    def assert_nothing_acknowledged_was_lost(self):
        present = {int(line) for line in self.db.app("SELECT id FROM writes").split()}
        acknowledged = {n for _, n in self.acknowledged}
        missing = sorted(acknowledged - present)
        assert not missing, (f"{len(missing)} of {len(acknowledged)} acknowledged commits are missing: {missing[:20]}"
                             f"; errors: {self.broken[:5]}\n{self.db.describe()}")
        return len(acknowledged)


class Watcher(Probe):
    """Which instances accept writes, sampled several times a second by Pod IP from the node's namespace."""

    def __init__(self, db, addresses_file):
        superuser = db.secret("superuser")
        self.db = db
        self.addresses_file = addresses_file
        self.samples = []
        self._stop = threading.Event()
        self._refresh()
        threading.Thread(target=self._keep_addresses, daemon=True).start()
        super().__init__(NODE_NETNS, superuser["password"], "watcher", superuser["username"], "postgres",
                         str(addresses_file))

    def _refresh(self):
        lines = []
        for name, pod in self.db.pods().items():
            ip = pod.get("status", {}).get("podIP")
            if ip:
                lines.append(f"{name} {ip}\n")
        temporary = f"{self.addresses_file}.new"
        with open(temporary, "w") as out:
            out.writelines(lines)
        os.replace(temporary, self.addresses_file)

    def _keep_addresses(self):
        while not self._stop.wait(1.0):
            try:
                self._refresh()
            except (AssertionError, subprocess.SubprocessError, KeyError):
                pass

    def handle(self, at, words):
        if words[0] == "sample":
            self.samples.append((float(words[1]), words[2].split(",") if len(words) > 2 else []))

    def stop(self):
        self._stop.set()
        super().stop()

    def wait_for_samples(self, count, timeout=30):
        """Until `count` samples were taken: a case the instances settle quickly (a postgres restarted in place)
        is still watched for some seconds afterwards, while the writer goes on."""
        deadline = time.time() + timeout
        while len(self.samples) < count and time.time() < deadline:
            time.sleep(0.25)

    def two_writable(self):
        return [(at, names) for at, names in self.samples if len(names) > 1]


def lease_holder(db):
    lease = db.cluster.kubectl("get", "lease", f"{db.name}-primary", "-n", db.namespace, "-o", "json").stdout
    return json.loads(lease)["spec"].get("holderIdentity", "")


def record(fault, **figures):
    path = os.environ.get("OPCTL_HA_RESULTS")
    if path:
        with open(path, "a") as out:
            out.write(json.dumps({"fault": fault, **figures}) + "\n")


def api_server_targets(db):
    """Where an instance reaches the API server: the kubernetes Service and the address behind it."""
    service = db.cluster.get_json("service", "kubernetes", "-n", "default")
    targets = [(service["spec"]["clusterIP"], "443")]
    for subset in db.cluster.get_json("endpoints", "kubernetes", "-n", "default").get("subsets", []):
        for address in subset.get("addresses", []):
            for port in subset.get("ports", []):
                targets.append((address["ip"], str(port["port"])))
    return targets


def api_rules(db, verdict):
    action = ["-j", "DROP"] if verdict.startswith("drop") else ["-j", "REJECT", "--reject-with", "tcp-reset"]
    return [["OUTPUT", "-d", ip, "-p", "tcp", "--dport", port, *action] for ip, port in api_server_targets(db)]


def iptables(netns, flag, rules):
    for rule in rules:
        subprocess.run(["nsenter", f"--net={netns}", "iptables", "-w", flag, *rule], check=True)


def run_case(ha, tmp_path, fault, inject, heal=lambda: None, expect_new_primary=True, wait_without_pass=True):
    """Writer and watcher up, `inject`, then with no pass: writes acknowledged again; heal; settle; check."""
    db = ha
    db.settle(timeout=300, what="Healthy before the fault")
    old = lease_holder(db)
    assert old == db.status()["currentPrimary"]
    writer = SessionWriter(db)
    watcher = Watcher(db, tmp_path / "addresses")
    try:
        writer.wait_for_acks(30, what="writes before the fault")
        acks_before = len(writer.acknowledged)
        injected_at = time.time()
        inject(old)
        if wait_without_pass:
            # No pass runs here: the instances alone must bring writes back.
            deadline = time.time() + 120
            while True:
                holder = lease_holder(db)
                resumed = [at for at, _ in writer.acknowledged[acks_before:] if at > injected_at + 1]
                moved = holder != old or not expect_new_primary
                if moved and resumed and holder:
                    break
                assert time.time() < deadline, (f"{fault}: no primary accepting writes within 120s without a pass "
                                                 f"(Lease holder {holder!r}); errors {writer.broken[-3:]}\n"
                                                 f"{db.describe()}")
                time.sleep(0.5)
            new_primary = lease_holder(db)
            writer.wait_for_acks(20, what=f"{fault}: writes on the new primary")
        heal()
        if not wait_without_pass:
            writer.wait_for_acks(5, what=f"{fault}: writes once healed")
            new_primary = lease_holder(db)
        outage = writer.longest_gap(injected_at)
        db.settle(timeout=300, what=f"Healthy again after {fault}")
        writer.wait_for_acks(10, what=f"{fault}: writes after settling")
        watcher.wait_for_samples(41)
    finally:
        writer.stop()
        watcher.stop()
    acknowledged = writer.assert_nothing_acknowledged_was_lost()
    assert not watcher.two_writable(), f"{fault}: two instances accepted writes at once: {watcher.two_writable()[:5]}"
    assert len(watcher.samples) > 20, "the watcher took too few samples to mean anything"
    record(fault, old_primary=old, new_primary=new_primary, outage_seconds=round(outage, 1),
           acknowledged=acknowledged, lost=0, samples=len(watcher.samples), two_writable=0)
    return old, new_primary, outage


def kill_postgres(db, pod_name):
    db.cluster.kubectl("exec", pod_name, "-n", db.namespace, "-c", "postgres", "--", "bash", "-c",
                       'kill -9 "$(head -1 "$PGDATA/postmaster.pid")"')


def test_primary_postgres_killed_restarts_in_place_or_fails_over_without_losing_a_commit(ha, tmp_path):
    run_case(ha, tmp_path, "postgres killed", lambda old: kill_postgres(ha, old), expect_new_primary=False)


def test_primary_manager_stopped_is_fenced_by_its_watchdog_and_a_replica_takes_over(ha, tmp_path):
    stopped = {}

    def inject(old):
        stopped["pid"] = instance_manager_pid(ha, old)
        os.kill(stopped["pid"], signal.SIGSTOP)

    old, new, _ = run_case(ha, tmp_path, "manager stopped (SIGSTOP)", inject,
                           heal=lambda: os.kill(stopped["pid"], signal.SIGCONT))
    assert new != old


def test_primary_pod_deleted_frees_the_lease_and_the_furthest_replica_takes_it(ha, tmp_path):
    old, new, _ = run_case(ha, tmp_path, "Pod deleted", lambda old: ha.cluster.kubectl(
        "delete", "pod", old, "-n", ha.namespace, "--wait=false"))
    assert new != old


@pytest.mark.parametrize("verdict", ["dropp", "reject"])
def test_primary_cut_off_from_the_api_server_fences_itself_and_a_replica_takes_over(ha, tmp_path, verdict):
    cut = {}

    def inject(old):
        cut["pod"] = old
        cut["rules"] = api_rules(ha, verdict)
        iptables(pod_netns(ha, old), "-I", cut["rules"])

    # The Pod's network namespace outlives its container, which may restart meanwhile: found again to heal.
    old, new, _ = run_case(ha, tmp_path, f"API server packets {verdict}ed", inject,
                           heal=lambda: iptables(pod_netns(ha, cut["pod"]), "-D", cut["rules"]))
    assert new != old


def test_whole_pod_network_cut_from_the_api_server_stops_writes_and_never_two_primaries(ha, tmp_path):
    cut = {}

    def inject(old):
        cut["rules"] = api_rules(ha, "drop")
        cut["pods"] = ha.pod_names()
        for name in cut["pods"]:
            iptables(pod_netns(ha, name), "-I", cut["rules"])
        # Nobody can renew or take the Lease: the primary must stop accepting writes before it could expire.
        time.sleep(25)

    def heal():
        for name in cut["pods"]:
            iptables(pod_netns(ha, name), "-D", cut["rules"])

    old, new, outage = run_case(ha, tmp_path, "whole Pod network cut from the API server", inject, heal=heal,
                                wait_without_pass=False)
    assert outage >= 10, "writes went on although no instance could renew the Lease"


def test_switchover_completes_without_a_pass_after_the_request(ha, tmp_path):
    def inject(old):
        target = next(name for name in ha.pod_names() if name != old)
        promoted = ha.cluster.opctl("promote", ha.name, target, "-n", ha.namespace, "--kubeconfig",
                                    ha.cluster.kubeconfig)
        assert promoted.returncode == 0, promoted.stderr
        ha.reconcile()  # the one pass that names the target; none after it

    old, new, outage = run_case(ha, tmp_path, "switchover (opctl promote)", inject)
    assert new != old


def test_rolling_update_of_the_primary_completes_without_a_pass_after_the_switchover_starts(ha, tmp_path):
    def inject(old):
        ha.write(instances=3, image=UPDATE_IMAGE, extra=SYNC)
        # Passes roll the replicas; the one that names the primary's successor is the last.
        ha.passes_until(lambda: ha.status().get("targetPrimary") != old, "the primary's switchover started",
                        timeout=400)

    old, new, outage = run_case(ha, tmp_path, "rolling update of the primary", inject)
    assert new != old
    assert set(ha.images().values()) == {UPDATE_IMAGE}


def test_an_invalid_unrelated_manifest_in_the_set_does_not_stop_a_failover(ha, tmp_path):
    """Passes keep running (every 2 s, as a CronJob would) on a set that now holds an invalid manifest: each exits 2
    and applies nothing, and the failover after the primary's manager stops completes all the same."""
    state = {"stop": threading.Event(), "exits": []}
    cluster_file = ha.root / f"{ha.name}.yaml"
    valid = cluster_file.read_text()

    def passes_on_the_broken_set():
        while not state["stop"].wait(2.0):
            state["exits"].append(ha.cluster.reconcile("--path", str(ha.root)).returncode)

    def inject(old):
        (ha.root / "broken.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: {ha.namespace}\n")
        state["thread"] = threading.Thread(target=passes_on_the_broken_set, daemon=True)
        state["thread"].start()
        state["pid"] = instance_manager_pid(ha, old)
        os.kill(state["pid"], signal.SIGSTOP)

    def heal():
        state["stop"].set()
        state["thread"].join(timeout=120)  # its last pass ends before the next one takes the set's Lease
        (ha.root / "broken.yaml").unlink()
        cluster_file.write_text(valid)
        os.kill(state["pid"], signal.SIGCONT)

    old, new, _ = run_case(ha, tmp_path, "manager stopped, invalid manifest in the set", inject, heal=heal)
    assert new != old
    assert state["exits"] and set(state["exits"]) == {2}, state["exits"]
