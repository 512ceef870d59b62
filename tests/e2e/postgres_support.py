"""PostgreSQL Clusters on the test node, for the data-plane suite: a Cluster driven by `opctl reconcile` passes, SQL
against one instance or through a Service, and a client that writes one row per connection and records which writes
PostgreSQL acknowledged.

Two ways in: an instance by its Pod IP with the host's psql (Debian's postgresql-client-15) run inside the node's
network namespace, which routes the Pod subnet; and a Service (-rw, -ro) from a client Pod in the test namespace
(`kubectl exec` psql there), because the namespace has no route to the Service subnet: only Pods reach ClusterIPs,
through kube-proxy, as an application would. Everything is read back independently of opctl: Pods, Services and
Secrets with kubectl, the database with psql. Nothing here writes a Pod's status, its readiness or its annotations:
the kubelet and the instance manager (`opctl instance run` in the image) do.
"""
import base64
import contextlib
import os
import shutil
import subprocess
import threading
import time

import pytest

# The network namespace the testenv node runs in (tests/testenv/node_net.go); the host has no route to Service IPs.
NODE_NETNS = "/run/netns/opctl-testenv"
# tests/testenv/images/postgresql.recipe; OPCTL_E2E_POSTGRES_IMAGE and OPCTL_E2E_POSTGRES_UPDATE_IMAGE name another
# build of it imported into the node under names of its own (a work tree testing its instance manager on a node
# that others share).
IMAGE = os.environ.get("OPCTL_E2E_POSTGRES_IMAGE", "localhost/opctl-postgresql:15")
# The same image under a second name: a minor update.
UPDATE_IMAGE = os.environ.get("OPCTL_E2E_POSTGRES_UPDATE_IMAGE", "localhost/opctl-postgresql:15-update")
MAJOR_IMAGE = "localhost/opctl-postgresql:17"      # tests/testenv/images/postgresql17.recipe: the next major
# opctl-reconcile(1): 0 is a pass that succeeded, also while a Cluster is still on its way (not Ready, asked for
# another pass); there is no separate "progressing" code. 3 is an API error, a failed apply or a Degraded custom
# resource, so every pass of these tests must exit 0.
PASS_EXIT_CODES = (0,)


def require_host_programs():
    for program in ("psql", "nsenter"):
        if shutil.which(program) is None:
            pytest.skip(f"{program} is not installed on the host (apt-get install postgresql-client-15 util-linux)")


def prepare_node_suite(cluster):
    """What a data-plane suite needs: psql and nsenter on the host, a node, and opctl's CRDs."""
    require_host_programs()
    if not cluster.get_json("nodes")["items"]:
        pytest.fail("the control plane has no node: start it with tests/e2e/testenv_fixture.sh up DIR")
    printed = cluster.opctl("crds")
    assert printed.returncode == 0, printed.stderr
    cluster.kubectl("apply", "--server-side", "--force-conflicts", "-f", "-", input=printed.stdout)
    cluster.kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd/clusters.opctl.io",
                    "crd/backups.opctl.io")


@contextlib.contextmanager
def suite_namespace(cluster, tmp_path_factory, prefix, name="db", only_latest_files=False):
    """What a data-plane suite's module fixture starts from: the node prepared, a namespace of its own, and a
    PgCluster (not yet written) whose manifests go to a directory of its own and whose passes use a set (and Lease)
    named after the namespace, so other suites may run meanwhile. With only_latest_files, each write replaces the
    directory's manifests (a file left out is pruned). The namespace goes afterwards; the Cluster's final-backup
    finalizer is taken off, since no pass runs after the suite to do it."""
    prepare_node_suite(cluster)
    namespace = f"e2e-{prefix}-{os.getpid()}"
    cluster.kubectl("create", "namespace", namespace)
    root = tmp_path_factory.mktemp(prefix)

    def manifests(files):
        if only_latest_files:
            for path in root.glob("*.yaml"):
                path.unlink()
        for file_name, text in files.items():
            (root / file_name).write_text(text)
        return root

    db = PgCluster(cluster, namespace, manifests, name=name)
    db.reconcile_args = ["--name", namespace]
    try:
        yield db
    finally:
        cluster.kubectl("delete", "namespace", namespace, "--wait=false", check=False)
        cluster.kubectl("patch", "clusters.opctl.io", name, "-n", namespace, "--type=merge",
                        "-p", '{"metadata":{"finalizers":null}}', check=False)


def cluster_yaml(namespace, name="db", instances=3, image=IMAGE, extra=""):
    return (f"apiVersion: opctl.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
            f"spec:\n  instances: {instances}\n  imageName: {image}\n  storage:\n    size: 1Gi\n{extra}")


def serial(pod_name):
    return int(pod_name.rsplit("-", 1)[1])


def node_psql(host, sql, user, password, dbname, timeout=20):
    """One psql call (one connection) from the host inside the node's network namespace: reaches Pod IPs, not
    Service IPs. Returns the CompletedProcess; never raises on a SQL error."""
    env = dict(os.environ, PGPASSWORD=password, PGCONNECT_TIMEOUT="5", PGAPPNAME="opctl-e2e")
    env.pop("PGSERVICE", None)
    command = ["timeout", "--kill-after=2", str(timeout), "nsenter", f"--net={NODE_NETNS}", "--",
               "psql", f"host={host} port=5432 user={user} dbname={dbname}",
               "--no-psqlrc", "-v", "ON_ERROR_STOP=1", "-Atc", sql]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout + 10)


class ClientPod:
    """A Pod of the instance image that only sleeps, for psql through the Cluster's Services (ClusterIPs are
    routed for Pods only). The password goes in on stdin, never on a command line."""

    NAME = "psql-client"
    # PGPASSWORD from the first line of stdin, then psql with the arguments.
    SCRIPT = 'IFS= read -r PGPASSWORD; export PGPASSWORD PGCONNECT_TIMEOUT=5 PGAPPNAME=opctl-e2e; exec psql "$@"'

    def __init__(self, cluster, namespace):
        self.cluster, self.namespace = cluster, namespace
        self.started = False

    def start(self):
        if self.started:
            return
        manifest = (f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {self.NAME}\n  namespace: {self.namespace}\n"
                    f"spec:\n  terminationGracePeriodSeconds: 1\n  containers:\n  - name: psql\n"
                    f"    image: {IMAGE}\n    imagePullPolicy: Never\n    command: [sleep, infinity]\n")
        self.cluster.kubectl("apply", "-f", "-", input=manifest)
        self.cluster.kubectl("wait", "--for=condition=Ready", f"pod/{self.NAME}", "-n", self.namespace,
                             "--timeout=90s")
        self.started = True

    def run(self, host, sql, user, password, dbname, timeout=20):
        """One psql call (one connection) in the client Pod. Returns the CompletedProcess; never raises on a SQL
        error. A failure of kubectl exec itself also shows as a non-zero exit."""
        self.start()
        command = ["kubectl", "--kubeconfig", self.cluster.kubeconfig, "exec", "-i", "-n", self.namespace,
                   self.NAME, "-c", "psql", "--", "timeout", "--kill-after=2", str(timeout),
                   "bash", "-c", self.SCRIPT, "psql", f"host={host} port=5432 user={user} dbname={dbname}",
                   "--no-psqlrc", "-v", "ON_ERROR_STOP=1", "-Atc", sql]
        try:
            return subprocess.run(command, capture_output=True, text=True, input=password + "\n",
                                  timeout=timeout + 30)
        except subprocess.TimeoutExpired as expired:
            return subprocess.CompletedProcess(command, 124, "", f"kubectl exec timed out: {expired}")


class PgCluster:
    """One Cluster (default name db) in a test namespace, its passes, and SQL against its instances."""

    def __init__(self, cluster, namespace, manifests, name="db"):
        self.cluster, self.namespace, self.manifests, self.name = cluster, namespace, manifests, name
        self.root = None
        self.client = ClientPod(cluster, namespace)
        self.passes = []  # (seconds since the first pass, exit code, phase after it), for failure messages
        self.started = None
        # Arguments every pass adds, e.g. ["--name", SET]: a set (and Lease) of its own, so its passes never wait
        # for another suite's run on a shared control plane.
        # OPCTL_E2E_SET_NAME gives every pass of a suite that sets nothing else such a set.
        self.reconcile_args = ["--name", os.environ["OPCTL_E2E_SET_NAME"]] if os.environ.get("OPCTL_E2E_SET_NAME") \
            else []

    # --- the desired state and the passes ---

    def write(self, **kwargs):
        self.root = self.manifests({f"{self.name}.yaml": cluster_yaml(self.namespace, name=self.name, **kwargs)})

    def write_files(self, files):
        """Several manifests (other Clusters, Backups, claims) in the directory the passes apply."""
        self.root = self.manifests(files)

    def reconcile(self):
        """One pass; its exit code must be 0 (see PASS_EXIT_CODES)."""
        self.started = self.started or time.time()
        result = self.cluster.reconcile("--path", str(self.root), *self.reconcile_args)
        # A pass that failed may not have created the Cluster: its output is what the assertion below must show.
        phase = self.status().get("phase") if self.cluster.exists("clusters.opctl.io", self.name, "-n",
                                                                   self.namespace) else None
        self.passes.append((round(time.time() - self.started, 1), result.returncode, phase))
        assert result.returncode in PASS_EXIT_CODES, (
            f"pass {len(self.passes)} exited {result.returncode} (phase {phase}):\n{result.stdout}{result.stderr}\n"
            f"{self.describe()}")
        return result

    def passes_until(self, predicate, what, timeout=300, interval=1.0, each_pass=None):
        """Passes back to back (interval seconds apart) until predicate() is true; at most timeout seconds.
        each_pass(), if given, runs after every pass (to check an invariant or record an order)."""
        deadline = time.time() + timeout
        count = 0
        while True:
            self.reconcile()
            count += 1
            if each_pass:
                each_pass()
            if predicate():
                return count
            if time.time() > deadline:
                pytest.fail(f"after {count} passes in {timeout}s: not yet {what}\n{self.describe()}")
            time.sleep(interval)

    def passes_until_deleted(self, timeout=300):
        """Passes (its manifest gone from the directory) until the Cluster is deleted: its finalizer's final backup
        first. Once it is gone, a pass may exit 3: its Backup is Degraded (ClusterNotFound)."""
        deadline = time.time() + timeout
        while self.cluster.exists("clusters.opctl.io", self.name, "-n", self.namespace):
            # No --name: the suite's opctl.yaml names the set whose prune deletes the Cluster.
            result = self.cluster.reconcile("--path", str(self.root))
            still_there = self.cluster.exists("clusters.opctl.io", self.name, "-n", self.namespace)
            assert result.returncode == 0 or (result.returncode == 3 and not still_there), \
                result.stdout + result.stderr
            assert time.time() < deadline, \
                f"the Cluster is still there after {timeout} s: {result.stdout}{result.stderr}"
            time.sleep(1)

    def settle(self, timeout=300, what="Healthy"):
        """Passes until phase Healthy, every instance Ready and every replica streaming from the primary."""
        return self.passes_until(self.healthy_and_streaming, what, timeout=timeout)

    def healthy_and_streaming(self):
        status = self.status()
        if status.get("phase") != "Healthy":
            return False
        pods = self.pods()
        primary = status.get("currentPrimary")
        if primary not in pods or len(pods) != self.spec_instances():
            return False
        if not all(self.ready(pod) for pod in pods.values()):
            return False
        if self.rw_endpoints() != [primary]:
            return False
        replicas = sorted(name for name in pods if name != primary)
        return self.streaming_replicas(primary) == replicas

    def describe(self):
        """What the Cluster, its Pods and its passes look like now (for failure messages)."""
        lines = [f"passes (t, exit, phase): {self.passes[-40:]}"]
        try:
            status = self.status()
            keep = ("phase", "phaseReason", "currentPrimary", "targetPrimary", "readyInstances", "instanceStates",
                    "conditions")
            lines.append(f"status: { {key: status.get(key) for key in keep} }")
            for name, pod in sorted(self.pods().items()):
                meta = pod["metadata"]
                notes = {k: v for k, v in meta.get("annotations", {}).items() if k.startswith("opctl.io/")
                         and k != "opctl.io/pod-spec-hash"}
                lines.append(f"pod {name}: role={meta['labels'].get('opctl.io/role')} ready={self.ready(pod)} "
                             f"deleting={'deletionTimestamp' in meta} image={pod['spec']['containers'][0]['image']} "
                             f"phase={pod.get('status', {}).get('phase')} {notes}")
            lines.append(f"{self.name}-rw endpoints: {self.rw_endpoints()}")
        except (AssertionError, KeyError, subprocess.SubprocessError) as error:
            lines.append(f"(could not read the state: {error})")
        return "\n".join(lines)

    # --- reading back with kubectl ---

    def get(self, *args):
        return self.cluster.get_json(*args, "-n", self.namespace)

    def resource(self):
        return self.get("clusters.opctl.io", self.name)

    def status(self):
        return self.resource().get("status", {})

    def condition(self, kind):
        return next((c for c in self.status().get("conditions", []) if c["type"] == kind), {})

    def spec_instances(self):
        return self.resource()["spec"]["instances"]

    def pods(self):
        items = self.get("pods", "-l", f"opctl.io/cluster={self.name}")["items"]
        return {pod["metadata"]["name"]: pod for pod in items}

    def pod_names(self):
        return sorted(self.pods(), key=serial)

    @staticmethod
    def ready(pod):
        """The kubelet's Ready condition (from the readiness probe `opctl instance ready`)."""
        if "deletionTimestamp" in pod["metadata"]:
            return False
        return any(c["type"] == "Ready" and c["status"] == "True"
                   for c in pod.get("status", {}).get("conditions", []))

    def role(self, pod_name):
        """The Pod's opctl.io/role label; None while there is no such Pod."""
        pod = self.pods().get(pod_name)
        return pod["metadata"]["labels"].get("opctl.io/role") if pod else None

    def images(self):
        return {name: pod["spec"]["containers"][0]["image"] for name, pod in self.pods().items()}

    def rw_endpoints(self):
        """The Pods the -rw Service sends connections to (ready endpoints of its EndpointSlices)."""
        slices = self.get("endpointslices", "-l", f"kubernetes.io/service-name={self.name}-rw")["items"]
        return sorted(endpoint["targetRef"]["name"] for piece in slices for endpoint in piece.get("endpoints") or []
                      if endpoint.get("conditions", {}).get("ready") and endpoint.get("targetRef"))

    def secret(self, suffix):
        data = self.get("secret", f"{self.name}-{suffix}")["data"]
        return {key: base64.b64decode(value).decode() for key, value in data.items()}

    def service_ip(self, suffix):
        return self.get("service", f"{self.name}-{suffix}")["spec"]["clusterIP"]

    def pod_ip(self, pod_name):
        return self.get("pod", pod_name)["status"]["podIP"]

    # --- SQL ---

    def app_sql(self, sql, service="rw", password=None, timeout=20):
        """SQL as the application owner (the -app Secret) through the -rw or -ro Service (its ClusterIP, from the
        client Pod). Returns the CompletedProcess."""
        app = self.secret("app")
        return self.client.run(self.service_ip(service), sql, app["username"], password or app["password"], app["dbname"],
                        timeout=timeout)

    def app(self, sql, service="rw"):
        """Like app_sql, and asserts success; returns psql's output."""
        result = self.app_sql(sql, service)
        assert result.returncode == 0, f"psql through {self.name}-{service}: {sql!r} failed: {result.stderr}"
        return result.stdout.strip()

    def on_pod(self, pod_name, sql, dbname="postgres"):
        """SQL as the superuser (the -superuser Secret) on one instance, by its Pod IP; asserts success."""
        superuser = self.secret("superuser")
        result = node_psql(self.pod_ip(pod_name), sql, superuser["username"], superuser["password"], dbname)
        assert result.returncode == 0, f"psql on {pod_name}: {sql!r} failed: {result.stderr}"
        return result.stdout.strip()

    def on_pod_app_db(self, pod_name, sql):
        return self.on_pod(pod_name, sql, dbname=self.secret("app")["dbname"])

    def replication(self, primary):
        """The primary's pg_stat_replication: {application_name: (state, sync_state)}."""
        out = self.on_pod(primary, "SELECT application_name, state, sync_state FROM pg_stat_replication")
        rows = [line.split("|") for line in out.splitlines() if line]
        return {name: (state, sync) for name, state, sync in rows}

    def streaming_replicas(self, primary):
        """Sorted application_names the primary streams to, or None when it cannot be asked."""
        try:
            return sorted(name for name, (state, _) in self.replication(primary).items() if state == "streaming")
        except (AssertionError, KeyError, subprocess.SubprocessError):
            return None

    def in_recovery(self, pod_name):
        return self.on_pod(pod_name, "SELECT pg_is_in_recovery()") == "t"


class Writer:
    """A client that inserts ids 1, 2, 3, ... into table writes through the -rw Service (from the client Pod), one
    INSERT per psql call (a new connection each time, as a client reconnecting after a failover would), and records
    the ids whose INSERT PostgreSQL acknowledged (psql exited 0 and printed INSERT 0 1). Each call is bounded: a
    commit waiting for a synchronous standby that never comes is killed and does not count as acknowledged."""

    TABLE = "CREATE TABLE writes (id bigint PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())"

    def __init__(self, db):
        self.db = db
        app = db.secret("app")
        self.host = db.service_ip("rw")
        self.user, self.password, self.dbname = app["username"], app["password"], app["dbname"]
        self.acknowledged = []
        self.failures = []  # (id, seconds since start, error) of writes not acknowledged
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._start = None

    def create_table(self):
        self.db.app(self.TABLE)

    def start(self):
        self._start = time.time()
        self._thread.start()
        return self

    def _run(self):
        next_id = 0
        while not self._stop.is_set():
            next_id += 1
            result = self.db.client.run(self.host, f"INSERT INTO writes (id) VALUES ({next_id})", self.user,
                                        self.password, self.dbname, timeout=10)
            if result.returncode == 0 and result.stdout.strip() == "INSERT 0 1":
                self.acknowledged.append(next_id)
            else:
                self.failures.append((next_id, round(time.time() - self._start, 1),
                                      (result.stderr.strip() or f"exit {result.returncode}")[:160]))
                time.sleep(0.2)

    def wait_for_acks(self, more, timeout=120):
        """Waits until `more` further writes have been acknowledged."""
        target = len(self.acknowledged) + more
        deadline = time.time() + timeout
        while len(self.acknowledged) < target:
            if time.time() > deadline or not self._thread.is_alive():
                pytest.fail(f"the writer got {len(self.acknowledged)} acknowledgements, wanted {target} within "
                            f"{timeout}s; last failures: {self.failures[-5:]}\n{self.db.describe()}")
            time.sleep(0.2)

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=30)
        assert not self._thread.is_alive(), "the writer did not stop"

    def assert_nothing_acknowledged_was_lost(self):
        present = {int(line) for line in self.db.app("SELECT id FROM writes").split()}
        missing = sorted(set(self.acknowledged) - present)
        assert not missing, (f"{len(missing)} of {len(self.acknowledged)} acknowledged writes are missing: "
                             f"{missing[:20]}; writer failures: {self.failures[:10]}\n{self.db.describe()}")
        return present


def instance_manager_pid(db, pod_name):
    """The host PID of an instance's manager (`opctl instance run`, PID 1 of its container), found by its
    environment (as root)."""
    wanted = {f"POD_NAME={pod_name}".encode(), f"NAMESPACE={db.namespace}".encode()}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if cmdline.read().split(b"\0")[1:3] != [b"instance", b"run"]:
                    continue
            with open(f"/proc/{pid}/environ", "rb") as environ:
                variables = set(environ.read().split(b"\0"))
        except (OSError, IndexError):
            continue
        if wanted <= variables:
            return int(pid)
    pytest.fail(f"no instance manager of {pod_name} in namespace {db.namespace} found")


def instance_netns(db, pod_name):
    """The network namespace of an instance's Pod."""
    return f"/proc/{instance_manager_pid(db, pod_name)}/ns/net"
