"""Safe under faults and mistakes: a lost Lease stops a pass, SIGTERM releases
it and records the run, a failed object does not stop its wave, opctl.io/source
follows the commit that changed an object, the config's Namespace can be in the
set, 500 objects through a faulty proxy arrive exactly once and right, and a
server that answers 429 slows the default (adaptive) rate down without losing
anything."""
import base64
import json
import os
import re
import signal
import subprocess
import time
import uuid

import pytest

from fault_proxy import FaultProxy
from git_servers import Upstream
from test_reconcile_pass import config


def configmap(name, namespace, value="v", extra_metadata=""):
    return (f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\n{extra_metadata}"
            f"data:\n  k: \"{value}\"\n")


@pytest.fixture
def setname():
    return "t" + uuid.uuid4().hex[:8]


def start_reconcile(cluster, *args):
    env = dict(os.environ, NO_COLOR="1")
    env.pop("KUBECONFIG", None)
    return subprocess.Popen([cluster.opctl_bin, "reconcile", "--kubeconfig", cluster.kubeconfig, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def names(cluster, kind, namespace, prefix):
    listed = cluster.kubectl("get", kind, "-n", namespace, "-o", "name").stdout.split()
    return sorted(name.split("/", 1)[1] for name in listed if name.split("/", 1)[1].startswith(prefix))


def wait_for_objects(cluster, namespace, prefix, count):
    for _ in range(400):
        if len(names(cluster, "configmaps", namespace, prefix)) >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"fewer than {count} {prefix}* ConfigMaps appeared")


def last_run(cluster, namespace, setname):
    parent = cluster.get_json("secret", f"opctl-{setname}", "-n", namespace)
    return json.loads(parent["metadata"]["annotations"]["opctl.io/last-run"])


# --- item 1: a pass that lost its Lease stops writing -----------------------

def test_a_run_that_lost_its_lease_stops_and_prunes_nothing_of_the_new_holder(cluster, namespace, manifests,
                                                                             setname, tmp_path):
    lease = {"duration": "3s"}
    files_a = {"opctl.yaml": config(setname, namespace, lease=lease)}
    files_a.update({f"a-{i:03}.yaml": configmap(f"a-{i:03}", namespace) for i in range(150)})
    root_a = manifests(files_a)
    root_b = tmp_path / "set-b"
    root_b.mkdir()
    (root_b / "opctl.yaml").write_text(config(setname, namespace, lease=lease))
    for i in range(20):
        (root_b / f"b-{i:03}.yaml").write_text(configmap(f"b-{i:03}", namespace))

    run_a = start_reconcile(cluster, "--path", str(root_a), "--prune", "--concurrency", "1", "--qps", "20",
                            "--burst", "1")
    try:
        wait_for_objects(cluster, namespace, "a-", 5)
        run_a.send_signal(signal.SIGSTOP)
        time.sleep(4)  # past A's lease duration
        # B is another source taking the set over (without --take-over the set-source guard refuses to prune),
        # deleting every object of A's (without --max-prune 100% the mass-deletion guard refuses).
        run_b = cluster.reconcile("--path", str(root_b), "--prune", "--take-over", "--max-prune", "100%")
        assert run_b.returncode == 0, run_b.stderr + run_b.stdout
    finally:
        run_a.send_signal(signal.SIGCONT)
    out, err = run_a.communicate(timeout=120)

    assert run_a.returncode == 4, err + out
    assert f"lost the Lease {namespace}/opctl-{setname}" in err
    assert names(cluster, "configmaps", namespace, "b-") == [f"b-{i:03}" for i in range(20)], "nothing of B's deleted"
    assert len(names(cluster, "configmaps", namespace, "a-")) < 150, "A stopped writing"
    assert last_run(cluster, namespace, setname)["revision"].endswith("set-b"), "A recorded nothing"


# --- item 6: SIGTERM releases the Lease and records an interrupted run -------

def test_sigterm_releases_the_lease_and_records_an_interrupted_run(cluster, namespace, manifests, setname):
    files = {"opctl.yaml": config(setname, namespace), "first.yaml": configmap("first", namespace)}
    root = manifests(files)
    assert cluster.reconcile("--path", str(root)).returncode == 0
    manifests({f"cm-{i:03}.yaml": configmap(f"cm-{i:03}", namespace) for i in range(150)})

    run = start_reconcile(cluster, "--path", str(root), "--concurrency", "1", "--qps", "20", "--burst", "1")
    wait_for_objects(cluster, namespace, "cm-", 5)
    run.send_signal(signal.SIGTERM)
    out, err = run.communicate(timeout=60)

    assert run.returncode == 128 + signal.SIGTERM, err + out
    assert "interrupted" in err
    assert 0 < len(names(cluster, "configmaps", namespace, "cm-")) < 150, "stopped part-way"
    lease = cluster.get_json("lease", f"opctl-{setname}", "-n", namespace)
    assert lease["spec"].get("holderIdentity", "") == "", "released"
    assert last_run(cluster, namespace, setname)["result"] == "interrupted"
    status = cluster.opctl("status", "--kubeconfig", cluster.kubeconfig, "--path", str(root))
    assert "Last run: interrupted" in status.stdout, status.stdout + status.stderr
    assert "Last successful run: at " in status.stdout, "the previous success is kept"

    rerun = cluster.reconcile("--path", str(root))
    assert rerun.returncode == 0, rerun.stderr
    assert len(names(cluster, "configmaps", namespace, "cm-")) == 150


# --- item 7: a failed object does not stop the rest of its wave -------------

def test_a_failed_object_does_not_stop_the_rest_of_its_wave(cluster, namespace, manifests, setname, tmp_path):
    bad = f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: bad, namespace: {namespace}}}\ndata: {{\"not a key!\": x}}\n"
    service = (f"apiVersion: v1\nkind: Service\nmetadata: {{name: after, namespace: {namespace}}}\n"
               f"spec: {{ports: [{{port: 80}}]}}\n")
    later = configmap("later", namespace, extra_metadata="  annotations:\n    opctl.io/wave: \"1\"\n")
    root = manifests({"opctl.yaml": config(setname, namespace), "a.yaml": bad, "b.yaml": service, "c.yaml": later})
    report_file = tmp_path / "report.json"
    result = cluster.reconcile("--path", str(root), "--report", str(report_file))
    assert result.returncode == 3, result.stderr
    assert cluster.exists("service", "after", "-n", namespace), "a later kind of the same wave is still applied"
    assert not cluster.exists("configmap", "later", "-n", namespace), "later waves are skipped, as documented"
    actions = {o["name"]: o["action"] for o in json.loads(report_file.read_text())["objects"]}
    assert actions == {"bad": "failed", "after": "created", "later": "skipped"}


# --- item 8: opctl.io/source names the commit that last changed the object ---

def test_source_annotation_follows_the_commit_that_changed_the_object(cluster, namespace, setname, tmp_path):
    repo = Upstream(tmp_path)
    first = repo.commit({"m/opctl.yaml": config(setname, namespace), "m/a.yaml": configmap("a", namespace, "1"),
                         "m/b.yaml": configmap("b", namespace, "1")}, "first")

    def reconcile():
        result = cluster.reconcile("--repo", f"file://{repo.bare}", "--path", "m", "--cache-dir", str(tmp_path / "c"))
        assert result.returncode == 0, result.stderr
        return result

    def source_of(name):
        return cluster.get_json("configmap", name, "-n", namespace)["metadata"]["annotations"]["opctl.io/source"]

    reconcile()
    assert first in source_of("a") and first in source_of("b")
    second = repo.commit({"m/b.yaml": configmap("b", namespace, "2")}, "change b only")
    result = reconcile()
    assert "ConfigMap: 1 unchanged" in result.stdout.splitlines(), "only the commit moved: no request for a"
    assert first in source_of("a")
    assert second in source_of("b"), "b changed in this commit, so it names it"
    assert second in last_run(cluster, namespace, setname)["revision"], "the set's parent names the last pass"


# --- item 9: the Lease's namespace may be created by the set itself ---------

def test_the_config_namespace_can_be_created_by_the_set(cluster, manifests, setname):
    home = f"e2e-home-{uuid.uuid4().hex[:8]}"
    root = manifests({"opctl.yaml": config(setname, home),
                      "ns.yaml": f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {home}\n",
                      "cm.yaml": configmap("inside", home)})
    try:
        result = cluster.reconcile("--path", str(root), "--prune")
        assert result.returncode == 0, result.stderr + result.stdout
        assert cluster.exists("configmap", "inside", "-n", home)
        assert cluster.exists("lease", f"opctl-{setname}", "-n", home)
        again = cluster.reconcile("--path", str(root), "--prune")
        assert again.returncode == 0 and "2 unchanged" in again.stdout, again.stdout
    finally:
        cluster.kubectl("delete", "namespace", home, "--wait=false", check=False)


def test_a_lease_namespace_that_does_not_exist_is_named(cluster, manifests, setname):
    missing = f"e2e-missing-{uuid.uuid4().hex[:8]}"
    root = manifests({"opctl.yaml": config(setname, missing), "cm.yaml": configmap("x", "default")})
    result = cluster.reconcile("--path", str(root))
    assert result.returncode == 3
    assert f"cannot create the Lease {missing}/opctl-{setname}: its namespace \"{missing}\" does not exist" in result.stderr


# --- chaos: 500 objects through 429, 503, resets and latency ---------------

def chaos_set(prefix):
    """500 objects: 4 Namespaces, each with 55 ConfigMaps, 40 Secrets, 20 Services and 9 ServiceAccounts."""
    docs, expected = [], {}
    for n in range(4):
        ns = f"{prefix}-{n}"
        docs.append(f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {ns}\n")
        expected[ns] = {"configmaps": {}, "secrets": {}, "services": {}, "serviceaccounts": {}}
        for i in range(55):
            docs.append(configmap(f"cm-{i:02}", ns, f"{ns}/{i}"))
            expected[ns]["configmaps"][f"cm-{i:02}"] = f"{ns}/{i}"
        for i in range(40):
            password = base64.b64encode(f"{ns}-{i}".encode()).decode()
            docs.append(f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: s-{i:02}\n  namespace: {ns}\n"
                        f"data:\n  password: {password}\n")
            expected[ns]["secrets"][f"s-{i:02}"] = f"{ns}-{i}"
        for i in range(20):
            docs.append(f"apiVersion: v1\nkind: Service\nmetadata:\n  name: svc-{i:02}\n  namespace: {ns}\n"
                        f"spec:\n  selector: {{app: a{i}}}\n  ports:\n  - port: {8000 + i}\n")
            expected[ns]["services"][f"svc-{i:02}"] = 8000 + i
        for i in range(9):
            docs.append(f"apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa-{i}\n  namespace: {ns}\n")
            expected[ns]["serviceaccounts"][f"sa-{i}"] = None
    assert len(docs) == 500
    return "---\n".join(docs), expected


def check_exactly(cluster, expected, set_id):
    """Reads every namespace back with kubectl: nothing lost, nothing extra, every value right."""
    for ns, kinds in expected.items():
        for kind, wanted in kinds.items():
            items = cluster.get_json(kind, "-n", ns, "-l", f"applyset.kubernetes.io/part-of={set_id}")["items"]
            found = [item["metadata"]["name"] for item in items]
            assert sorted(found) == sorted(wanted), f"{ns} {kind}: lost or extra objects"
            for item in items:
                name = item["metadata"]["name"]
                if kind == "configmaps":
                    assert item["data"] == {"k": wanted[name]}
                elif kind == "secrets":
                    assert base64.b64decode(item["data"]["password"]).decode() == wanted[name]
                elif kind == "services":
                    assert [p["port"] for p in item["spec"]["ports"]] == [wanted[name]]


def fault_rules(expected):
    """One fault (429, 503 or a reset) for every fifth member's apply, a second one for every tenth, a few on reads
    and on the Lease renewal, latency on everything. Rules name each object: a count shared by many objects would be
    spent on whichever few are in flight, and five faults in a row on one request exhaust its retries by design."""
    opctl_only = {"userAgentRegex": "opctl"}
    faults = [{"action": "status", "status": 429, "retryAfterSeconds": 1}, {"action": "status", "status": 503},
              {"action": "reset"}]
    paths = [f"/api/v1/namespaces/{ns}/{kind}/{name}" for ns, kinds in expected.items() for kind, names in kinds.items()
             for name in names]
    rules = []
    for j, path in enumerate(paths):
        match = {**opctl_only, "method": "PATCH", "pathRegex": f"^{path}$"}
        if j % 5 == 0:
            rules.append({"match": match, **faults[(j // 5) % 3], "times": 1})
        if j % 10 == 0:
            rules.append({"match": match, **faults[(j // 5 + 1) % 3], "times": 1})
    rules += [{"match": {**opctl_only, "method": "GET"}, "action": "status", "status": 503, "times": 2},
              {"match": {**opctl_only, "method": "PUT", "pathRegex": "/leases/"}, "action": "status", "status": 503,
               "times": 1},
              {"match": opctl_only, "action": "delay", "delayMs": 20}]
    return rules


def test_chaos_500_objects_through_faults_arrive_exactly_once_and_right(cluster, manifests, setname, tmp_path):
    prefix = f"e2e-chaos-{uuid.uuid4().hex[:6]}"
    text, expected = chaos_set(prefix)
    root = manifests({"opctl.yaml": config(setname, "default"), "all.yaml": text})
    proxy = FaultProxy(cluster, tmp_path / "faults.json")
    try:
        proxy.set_faults(fault_rules(expected))
        first = cluster.opctl("reconcile", "--kubeconfig", proxy.kubeconfig, "--path", str(root), "--prune",
                              timeout=600)
        counts = proxy.counts()
        assert counts["faulted"] >= 140, counts
        assert first.returncode == 0, first.stderr[-3000:] + first.stdout[-2000:]
        set_id = cluster.get_json("secret", f"opctl-{setname}", "-n", "default")["metadata"]["labels"][
            "applyset.kubernetes.io/id"]
        check_exactly(cluster, expected, set_id)

        proxy.set_faults([])
        proxy.reset()
        second = cluster.opctl("reconcile", "--kubeconfig", proxy.kubeconfig, "--path", str(root), "--prune")
        assert second.returncode == 0, second.stderr
        assert "500 unchanged" in second.stdout, second.stdout[-2000:]
        writes = [path for path in proxy.counts()["byPath"] if not path.startswith("GET ")]
        parent = f"/api/v1/namespaces/default/secrets/opctl-{setname}"
        lease = f"/apis/coordination.k8s.io/v1/namespaces/default/leases/opctl-{setname}"
        events = "POST /api/v1/namespaces/default/events"  # the pass's Events on the parent
        assert all(path.endswith(parent) or path.endswith(lease) or path == events for path in writes), writes
        check_exactly(cluster, expected, set_id)
    finally:
        proxy.stop()
        for n in range(4):
            cluster.kubectl("delete", "namespace", f"{prefix}-{n}", "--wait=false", check=False)


# --- adaptive rate: a server that answers 429 slows the pass down, nothing is lost ---

def test_a_pass_the_server_throttles_lowers_its_rate_and_applies_everything(cluster, namespace, manifests, setname,
                                                                          tmp_path):
    """The proxy answers the first apply of every ConfigMap 429 (Retry-After: 1), as API Priority and Fairness
    would under load: with the default --qps auto the pass lowers its rate, says so under -v, and every object
    arrives with its value."""
    count = 60
    files = {f"cm-{i:02}.yaml": configmap(f"cm-{i:02}", namespace, f"value-{i}") for i in range(count)}
    root = manifests({"opctl.yaml": config(setname, namespace), **files})
    rules = [{"match": {"userAgentRegex": "opctl", "method": "PATCH",
                        "pathRegex": f"^/api/v1/namespaces/{namespace}/configmaps/cm-{i:02}$"},
              "action": "status", "status": 429, "retryAfterSeconds": 1, "times": 1} for i in range(count)]
    proxy = FaultProxy(cluster, tmp_path / "faults.json")
    try:
        proxy.set_faults(rules)
        run = cluster.opctl("reconcile", "--kubeconfig", proxy.kubeconfig, "--path", str(root), "-v")
        counts = proxy.counts()
    finally:
        proxy.stop()

    assert run.returncode == 0, run.stderr[-3000:] + run.stdout[-2000:]
    assert counts["faulted"] == count, counts
    assert re.search(r"^opctl: the server answered 429 at \d+ requests/s: sending at most \d+ requests/s$",
                     run.stderr, re.MULTILINE), run.stderr[-3000:]
    items = cluster.get_json("configmaps", "-n", namespace)["items"]
    found = {item["metadata"]["name"]: item["data"] for item in items if item["metadata"]["name"].startswith("cm-")}
    assert found == {f"cm-{i:02}": {"k": f"value-{i}"} for i in range(count)}
