"""The reconcile pass: waves, prune and the ApplySet, the Lease, health waits,
partial failure, crash recovery, config file, dry run and reports."""
import base64
import hashlib
import json
import os
import signal
import subprocess
import time
import uuid

import pytest

from terminal import run_on_terminal


def config(name, set_namespace, **spec):
    lines = ["apiVersion: opctl.io/v1alpha1", "kind: Config", "metadata:", f"  name: {name}", f"  namespace: {set_namespace}"]
    if spec:
        lines.append("spec:")
        for key, value in spec.items():
            lines.append(f"  {key}: {json.dumps(value)}")
    return "\n".join(lines) + "\n"


def configmap(name, namespace, extra_metadata=""):
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\n{extra_metadata}data:\n  k: v\n"


def applyset_id(name, namespace):
    digest = hashlib.sha256(f"{name}.{namespace}.Secret.".encode()).digest()
    return "applyset-" + base64.urlsafe_b64encode(digest).decode().rstrip("=") + "-v1"


@pytest.fixture
def setname():
    return "t" + uuid.uuid4().hex[:8]


def test_prune_removes_exactly_what_left_git_and_keeps_disabled(cluster, namespace, manifests, setname):
    files = {
        "opctl.yaml": config(setname, namespace),
        "a.yaml": configmap("keep", namespace),
        "b.yaml": configmap("drop", namespace),
        "c.yaml": configmap("protected", namespace, "  annotations:\n    opctl.io/prune: disabled\n"),
    }
    root = manifests(files)
    first = cluster.reconcile("--path", str(root))
    assert first.returncode == 0, first.stderr + first.stdout
    cluster.kubectl("create", "configmap", "not-ours", "-n", namespace)

    os.remove(root / "b.yaml")
    os.remove(root / "c.yaml")
    without_prune = cluster.reconcile("--path", str(root))
    assert without_prune.returncode == 0
    assert cluster.exists("configmap", "drop", "-n", namespace), "nothing is pruned without --prune"

    pruned = cluster.reconcile("--path", str(root), "--prune")
    assert pruned.returncode == 0, pruned.stderr + pruned.stdout
    assert f"ConfigMap {namespace}/drop pruned" in pruned.stdout
    assert f"ConfigMap {namespace}/protected kept: opctl.io/prune: disabled" in pruned.stdout
    assert not cluster.exists("configmap", "drop", "-n", namespace)
    assert cluster.exists("configmap", "protected", "-n", namespace)
    assert cluster.exists("configmap", "keep", "-n", namespace)
    assert cluster.exists("configmap", "not-ours", "-n", namespace)


def test_applyset_follows_kep_3659_so_kubectl_reads_it(cluster, namespace, manifests, setname):
    root = manifests({"opctl.yaml": config(setname, namespace), "a.yaml": configmap("member", namespace),
                      "b.yaml": f"apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: robot\n  namespace: {namespace}\n"})
    assert cluster.reconcile("--path", str(root)).returncode == 0
    parent_name = f"opctl-{setname}"
    parent = cluster.get_json("secret", parent_name, "-n", namespace)
    expected_id = applyset_id(parent_name, namespace)
    assert parent["metadata"]["labels"]["applyset.kubernetes.io/id"] == expected_id
    annotations = parent["metadata"]["annotations"]
    assert annotations["applyset.kubernetes.io/tooling"].startswith("opctl/v")
    assert annotations["applyset.kubernetes.io/contains-group-kinds"] == "ConfigMap,ServiceAccount"
    member = cluster.get_json("configmap", "member", "-n", namespace)
    assert member["metadata"]["labels"]["applyset.kubernetes.io/part-of"] == expected_id
    assert member["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "opctl"
    last_run = json.loads(annotations["opctl.io/last-run"])
    assert last_run["result"] == "succeeded"

    # kubectl's own ApplySet code finds the parent, reads its tooling and refuses to take over another tool's set.
    other = manifests({"x.yaml": configmap("from-kubectl", namespace)})
    result = subprocess.run(
        ["kubectl", "--kubeconfig", cluster.kubeconfig, "apply", "--server-side", "--prune", "-n", namespace,
         f"--applyset=secret/{parent_name}", "-f", str(other / "x.yaml")],
        capture_output=True, text=True, env={**os.environ, "KUBECTL_APPLYSET": "true"})
    assert result.returncode != 0
    assert 'managed by tooling "opctl"' in result.stderr, result.stderr


def test_namespace_with_foreign_objects_is_not_pruned(cluster, manifests, setname):
    ns = "e2e-prune-" + uuid.uuid4().hex[:6]
    root = manifests({"opctl.yaml": config(setname, "default"),
                      "ns.yaml": f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {ns}\n",
                      "cm.yaml": configmap("inside", ns)})
    try:
        assert cluster.reconcile("--path", str(root)).returncode == 0
        cluster.kubectl("create", "configmap", "someone-elses", "-n", ns)
        os.remove(root / "ns.yaml")
        os.remove(root / "cm.yaml")
        root.joinpath("other.yaml").write_text(configmap(f"anchor-{setname}", "default"))

        # opctl diff --prune previews the same exclusion, and --prune-namespaces lifts it there too.
        preview = cluster.opctl("diff", "--kubeconfig", cluster.kubeconfig, "--path", str(root), "--prune")
        assert preview.returncode == 0, preview.stderr
        assert f"- v1 ConfigMap {ns}/inside" in preview.stdout, preview.stdout
        assert f"Namespace {ns}" not in preview.stdout, preview.stdout
        forced_preview = cluster.opctl("diff", "--kubeconfig", cluster.kubeconfig, "--path", str(root), "--prune",
                                       "--prune-namespaces", "-o", "json")
        assert forced_preview.returncode == 0, forced_preview.stderr
        pruned = {(o["kind"], o["name"]) for o in json.loads(forced_preview.stdout)["objects"]
                  if o["action"] == "pruned"}
        assert pruned == {("ConfigMap", "inside"), ("Namespace", ns)}, forced_preview.stdout
        assert cluster.get_json("namespace", ns)["status"]["phase"] == "Active"

        result = cluster.reconcile("--path", str(root), "--prune")
        assert result.returncode == 0, result.stderr + result.stdout
        assert f"Namespace {ns} kept: it still holds objects opctl does not manage (ConfigMap/someone-elses)" in result.stdout
        assert f"ConfigMap {ns}/inside pruned" in result.stdout
        assert cluster.get_json("namespace", ns)["status"]["phase"] == "Active"

        forced = cluster.reconcile("--path", str(root), "--prune", "--prune-namespaces")
        assert forced.returncode == 0, forced.stderr
        assert f"Namespace {ns} pruned" in forced.stdout
    finally:
        cluster.kubectl("delete", "namespace", ns, "--wait=false", check=False)
        cluster.kubectl("delete", "configmap", f"anchor-{setname}", "-n", "default", check=False)


def test_dry_run_shows_the_plan_and_changes_nothing(cluster, namespace, manifests, setname):
    root = manifests({"opctl.yaml": config(setname, namespace), "a.yaml": configmap("a", namespace),
                      "b.yaml": configmap("b", namespace)})
    assert cluster.reconcile("--path", str(root)).returncode == 0
    os.remove(root / "b.yaml")
    root.joinpath("c.yaml").write_text(configmap("c", namespace))
    root.joinpath("a.yaml").write_text(configmap("a", namespace).replace("k: v", "k: changed"))
    result = cluster.reconcile("--path", str(root), "--prune", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert f"ConfigMap {namespace}/c would be created" in result.stdout
    assert f"ConfigMap {namespace}/a would be configured" in result.stdout
    assert f"ConfigMap {namespace}/b would be pruned" in result.stdout
    assert not cluster.exists("configmap", "c", "-n", namespace)
    assert cluster.exists("configmap", "b", "-n", namespace)
    assert cluster.get_json("configmap", "a", "-n", namespace)["data"]["k"] == "v"
    # kubectl's spellings: =server and =client are the same dry run, =none a real pass.
    for spelling in ("--dry-run=server", "--dry-run=client"):
        again = cluster.reconcile("--path", str(root), "--prune", spelling)
        assert again.returncode == 0 and f"ConfigMap {namespace}/c would be created" in again.stdout, again.stderr
        assert not cluster.exists("configmap", "c", "-n", namespace)
    real = cluster.reconcile("--path", str(root), "--prune", "--dry-run=none")
    assert real.returncode == 0, real.stdout + real.stderr
    assert cluster.exists("configmap", "c", "-n", namespace)
    assert not cluster.exists("configmap", "b", "-n", namespace)
    refused = cluster.reconcile("--path", str(root), "--dry-run=yes")
    assert refused.returncode == 2 and "server,client,none" in refused.stderr, refused.stderr


def test_concurrent_runs_one_exits_4_naming_the_holder(cluster, namespace, manifests, setname):
    deployment = f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: never-ready, namespace: {namespace}}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: never}}}}
  template:
    metadata: {{labels: {{app: never}}}}
    spec: {{containers: [{{name: c, image: example.invalid/none:1}}]}}
"""
    root = manifests({"opctl.yaml": config(setname, namespace), "d.yaml": deployment})
    env = dict(os.environ, NO_COLOR="1")
    env.pop("KUBECONFIG", None)
    first = subprocess.Popen([cluster.opctl_bin, "reconcile", "--kubeconfig", cluster.kubeconfig, "--path", str(root),
                              "--wait", "--timeout", "20s"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        lease = None
        for _ in range(100):
            found = cluster.kubectl("get", "lease", f"opctl-{setname}", "-n", namespace, "-o", "json", check=False)
            if found.returncode == 0 and json.loads(found.stdout)["spec"].get("holderIdentity"):
                lease = json.loads(found.stdout)
                break
            time.sleep(0.1)
        assert lease, "the first run took the lease"
        second = cluster.reconcile("--path", str(root))
        assert second.returncode == 4, second.stderr + second.stdout
        assert lease["spec"]["holderIdentity"] in second.stderr
        assert "nothing was changed" in second.stderr
    finally:
        first.send_signal(signal.SIGTERM)
        first.wait(timeout=30)


def test_expired_lease_is_taken_over(cluster, namespace, manifests, setname):
    cluster.kubectl("apply", "-f", "-", input=json.dumps({
        "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
        "metadata": {"name": f"opctl-{setname}", "namespace": namespace},
        "spec": {"holderIdentity": "crashed-host/123", "leaseDurationSeconds": 15,
                 "renewTime": "2020-01-01T00:00:00.000000Z", "acquireTime": "2020-01-01T00:00:00.000000Z"}}))
    root = manifests({"opctl.yaml": config(setname, namespace), "a.yaml": configmap("a", namespace)})
    result = cluster.reconcile("--path", str(root))
    assert result.returncode == 0, result.stderr
    lease = cluster.get_json("lease", f"opctl-{setname}", "-n", namespace)
    assert lease["spec"].get("holderIdentity", "") == "", "released after the pass"
    assert lease["spec"]["leaseTransitions"] >= 1


def test_a_live_lease_blocks_and_nothing_is_applied(cluster, namespace, manifests, setname):
    now = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())
    cluster.kubectl("apply", "-f", "-", input=json.dumps({
        "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
        "metadata": {"name": f"opctl-{setname}", "namespace": namespace},
        "spec": {"holderIdentity": "other-pod/7", "leaseDurationSeconds": 300, "renewTime": now, "acquireTime": now}}))
    root = manifests({"opctl.yaml": config(setname, namespace), "a.yaml": configmap("blocked", namespace)})
    result = cluster.reconcile("--path", str(root))
    assert result.returncode == 4
    assert 'holder "other-pod/7"' in result.stderr
    assert not cluster.exists("configmap", "blocked", "-n", namespace)


def test_failing_object_gives_partial_report_and_a_later_pass_converges(cluster, namespace, manifests, setname, tmp_path):
    bad_service = f"""apiVersion: v1
kind: Service
metadata: {{name: bad, namespace: {namespace}}}
spec: {{ports: [{{port: 99999}}]}}
"""
    later = configmap("later", namespace, "  annotations:\n    opctl.io/wave: \"1\"\n")
    root = manifests({"opctl.yaml": config(setname, namespace), "a.yaml": configmap("fine", namespace),
                      "b.yaml": bad_service, "c.yaml": later})
    report_file = tmp_path / "report.json"
    result = cluster.reconcile("--path", str(root), "--report", str(report_file))
    assert result.returncode == 3
    assert f"Service {namespace}/bad failed" in result.stderr
    assert cluster.exists("configmap", "fine", "-n", namespace), "unrelated objects in the wave are applied"
    assert not cluster.exists("configmap", "later", "-n", namespace), "later waves are not"
    report = json.loads(report_file.read_text())
    actions = {o["name"]: o["action"] for o in report["objects"]}
    assert actions == {"fine": "created", "bad": "failed", "later": "skipped"}
    assert report["result"] == "failed"
    assert "99999" in next(o for o in report["objects"] if o["name"] == "bad")["message"]

    root.joinpath("b.yaml").write_text(bad_service.replace("99999", "80"))
    again = cluster.reconcile("--path", str(root))
    assert again.returncode == 0, again.stderr
    assert cluster.exists("configmap", "later", "-n", namespace)
    lines = cluster.reconcile("--path", str(root)).stdout.splitlines()
    # unchanged objects are summarised per kind (-v prints each)
    assert "ConfigMap: 2 unchanged" in lines and "Service: 1 unchanged" in lines, lines


def never_ready(name, namespace, spec_extra=""):
    """A Deployment whose one Pod runs on the test node but never passes its readiness probe."""
    return f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: {namespace}}}
spec:
  replicas: 1
{spec_extra}  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: c
        image: localhost/shell:1
        command: [sleep, "3600"]
        readinessProbe: {{exec: {{command: ["false"]}}, periodSeconds: 1}}
"""


def test_wait_times_out_with_exit_5_naming_what_is_not_healthy(cluster, namespace, manifests, setname):
    root = manifests({"opctl.yaml": config(setname, namespace), "d.yaml": never_ready("never-ready", namespace)})
    result = cluster.reconcile("--path", str(root), "--wait", "--timeout", "4s")
    assert result.returncode == 5, result.stderr + result.stdout
    assert "timed out waiting for health" in result.stderr
    assert f"apps/Deployment {namespace}/never-ready" in result.stderr


def test_wait_fails_fast_on_progress_deadline_exceeded(cluster, namespace, manifests, setname):
    deployment = never_ready("stuck", namespace, "  progressDeadlineSeconds: 1\n")
    root = manifests({"opctl.yaml": config(setname, namespace), "d.yaml": deployment})
    result = cluster.reconcile("--path", str(root), "--wait", "--timeout", "5m")
    assert result.returncode == 5, result.stderr + result.stdout
    assert "cannot become healthy" in result.stderr
    assert "ProgressDeadlineExceeded" in result.stderr


CRD_WITH_STATUS = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: gates.{group}}}
spec:
  group: {group}
  scope: Namespaced
  names: {{plural: gates, singular: gate, kind: Gate}}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {{status: {{}}}}
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
"""


def test_waves_wait_for_the_earlier_wave_to_be_healthy(cluster, namespace, manifests, setname):
    group = "w" + uuid.uuid4().hex[:6] + ".example.com"
    gate = f"apiVersion: {group}/v1\nkind: Gate\nmetadata:\n  name: g\n  namespace: {namespace}\n"
    after = configmap("after-gate", namespace, "  annotations:\n    opctl.io/wave: \"1\"\n")
    root = manifests({"opctl.yaml": config(setname, namespace), "crd.yaml": CRD_WITH_STATUS.format(group=group),
                      "gate.yaml": gate, "after.yaml": after})
    # The test plays the Gate's controller: the Gate exists and reports Ready=False before the pass.
    cluster.kubectl("apply", "-f", str(root / "crd.yaml"))
    cluster.kubectl("wait", "--for=condition=Established", f"crd/gates.{group}")
    cluster.kubectl("apply", "-f", str(root / "gate.yaml"))
    cluster.kubectl("patch", f"gates.{group}", "g", "-n", namespace, "--subresource=status", "--type=merge",
                    "-p", json.dumps({"status": {"conditions": [{"type": "Ready", "status": "False", "reason": "Opening"}]}}))
    env = dict(os.environ, NO_COLOR="1")
    env.pop("KUBECONFIG", None)
    run = subprocess.Popen([cluster.opctl_bin, "reconcile", "--kubeconfig", cluster.kubeconfig, "--path", str(root),
                            "--wait", "--timeout", "60s"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        # Ready is False: wave 1 must not start.
        time.sleep(3)
        assert run.poll() is None, "still waiting on wave 0"
        assert not cluster.exists("configmap", "after-gate", "-n", namespace)
        cluster.kubectl("patch", f"gates.{group}", "g", "-n", namespace, "--subresource=status", "--type=merge",
                        "-p", json.dumps({"status": {"conditions": [{"type": "Ready", "status": "True", "reason": "Open"}]}}))
        out, err = run.communicate(timeout=60)
        assert run.returncode == 0, err + out
        assert cluster.exists("configmap", "after-gate", "-n", namespace)
    finally:
        if run.poll() is None:
            run.kill()
        cluster.kubectl("delete", "crd", f"gates.{group}", "--wait=false", check=False)


def test_kill_9_mid_pass_then_rerun_converges(cluster, namespace, manifests, setname):
    files = {"opctl.yaml": config(setname, namespace, lease={"duration": "3s"})}
    for i in range(150):
        files[f"cm-{i:03}.yaml"] = configmap(f"cm-{i:03}", namespace)
    root = manifests(files)
    env = dict(os.environ, NO_COLOR="1")
    env.pop("KUBECONFIG", None)
    run = subprocess.Popen([cluster.opctl_bin, "reconcile", "--kubeconfig", cluster.kubeconfig, "--path", str(root),
                            "--concurrency", "1", "--qps", "50", "--burst", "1"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    for _ in range(200):
        listed = cluster.kubectl("get", "configmaps", "-n", namespace, "-o", "name").stdout.split()
        if len([name for name in listed if "cm-" in name]) >= 10:
            break
        time.sleep(0.05)
    run.send_signal(signal.SIGKILL)
    run.wait()
    created = [name for name in cluster.kubectl("get", "configmaps", "-n", namespace, "-o", "name").stdout.split() if "cm-" in name]
    assert 0 < len(created) < 150, "killed part-way"

    time.sleep(3.5)  # the killed run's lease expires
    rerun = cluster.reconcile("--path", str(root), "--prune")
    assert rerun.returncode == 0, rerun.stderr + rerun.stdout
    listed = [name for name in cluster.kubectl("get", "configmaps", "-n", namespace, "-o", "name").stdout.split() if "cm-" in name]
    assert len(listed) == 150
    final = cluster.reconcile("--path", str(root), "--prune")
    assert final.returncode == 0
    assert "150 unchanged" in final.stdout and "0 pruned" not in final.stdout.replace("0 pruned", "")


def test_config_file_strict_and_flags_win(cluster, namespace, manifests, setname):
    bad = manifests({"opctl.yaml": config(setname, namespace) + "spec:\n  prnue: true\n", "a.yaml": configmap("x", namespace)})
    result = cluster.reconcile("--path", str(bad))
    assert result.returncode == 2
    assert "opctl.yaml:7: spec.prnue: unknown field \"prnue\"" in result.stderr
    assert not cluster.exists("configmap", "x", "-n", namespace)

    good = manifests({"opctl.yaml": config(setname, namespace, prune=True, namespace=namespace),
                      "a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: defaulted\n",
                      "b.yaml": configmap("goes", namespace)})
    assert cluster.reconcile("--path", str(good)).returncode == 0
    assert cluster.exists("configmap", "defaulted", "-n", namespace), "spec.namespace from the file"
    os.remove(good / "b.yaml")
    assert "pruned" in cluster.reconcile("--path", str(good)).stdout, "spec.prune from the file"
    assert not cluster.exists("configmap", "goes", "-n", namespace)


def test_markdown_and_json_reports(cluster, namespace, manifests, setname):
    root = manifests({"opctl.yaml": config(setname, namespace), "a.yaml": configmap("r", namespace)})
    md = cluster.reconcile("--path", str(root), "-o", "markdown")
    assert md.returncode == 0
    assert md.stdout.startswith("### opctl reconcile: succeeded")
    assert f"| `ConfigMap {namespace}/r` | created |" in md.stdout
    js = cluster.reconcile("--path", str(root), "-o", "json")
    report = json.loads(js.stdout)
    assert report["kind"] == "RunReport" and report["result"] == "succeeded"
    assert report["summary"] == {"unchanged": 1}


def test_ignore_differences_leave_an_autoscaled_field_alone(cluster, namespace, manifests, setname):
    deployment = f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: scaled, namespace: {namespace}}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: scaled}}}}
  template:
    metadata: {{labels: {{app: scaled}}}}
    spec: {{containers: [{{name: c, image: example.invalid/scaled:1}}]}}
"""
    rules = [{"group": "apps", "kind": "Deployment", "name": "scaled", "jsonPointers": ["/spec/replicas"]}]
    root = manifests({"opctl.yaml": config(setname, namespace, ignoreDifferences=rules), "d.yaml": deployment})
    first = cluster.reconcile("--path", str(root))
    assert first.returncode == 0, first.stderr
    assert cluster.get_json("deployment", "scaled", "-n", namespace)["spec"]["replicas"] == 2

    # An autoscaler (here kubectl, through the scale subresource) owns replicas from now on.
    cluster.kubectl("scale", "deployment", "scaled", "-n", namespace, "--replicas", "5")
    diff = cluster.opctl("diff", "--kubeconfig", cluster.kubeconfig, "--path", str(root), "--exit-code")
    assert diff.returncode == 0, diff.stdout + diff.stderr
    status = cluster.opctl("status", "--kubeconfig", cluster.kubeconfig, "--path", str(root), "-o", "json")
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["drift"] == []  # status sees drift as diff does
    again = cluster.reconcile("--path", str(root))
    assert again.returncode == 0, again.stderr
    assert "apps/Deployment: 1 unchanged" in again.stdout.splitlines(), again.stdout
    assert cluster.get_json("deployment", "scaled", "-n", namespace)["spec"]["replicas"] == 5

    # A change to a field that is not ignored is still applied, and replicas stay with the autoscaler.
    (root / "d.yaml").write_text(deployment.replace("scaled:1", "scaled:2"))
    changed = cluster.reconcile("--path", str(root))
    assert changed.returncode == 0, changed.stderr
    live = cluster.get_json("deployment", "scaled", "-n", namespace)
    assert live["spec"]["template"]["spec"]["containers"][0]["image"] == "example.invalid/scaled:2"
    assert live["spec"]["replicas"] == 5


def test_progress_line_per_wave_on_a_terminal_only(cluster, namespace, manifests, setname):
    root = manifests({"opctl.yaml": config(setname, namespace), "a.yaml": configmap("first", namespace),
                      "b.yaml": configmap("second", namespace, "  annotations: {opctl.io/wave: \"1\"}\n")})
    args = [cluster.opctl_bin, "reconcile", "--kubeconfig", cluster.kubeconfig, "--path", str(root)]
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    code, terminal, stdout = run_on_terminal(args, env, terminal="stderr")
    assert code == 0, terminal
    assert "\r\x1b[2Kwave 0: applying 1 object, " in terminal, repr(terminal)
    assert "\r\x1b[2Kwave 1: applying 1 object, " in terminal, repr(terminal)
    assert terminal.endswith("\r\x1b[2K"), repr(terminal)  # the line is cleared before the summary
    assert f"ConfigMap {namespace}/first created" in stdout and f"ConfigMap {namespace}/second created" in stdout
    assert "\x1b" not in stdout  # stdout is a pipe: plain lines only

    quiet_code, quiet_terminal, _ = run_on_terminal(args + ["--quiet"], env, terminal="stderr")
    assert quiet_code == 0 and "wave" not in quiet_terminal, repr(quiet_terminal)
    piped = cluster.reconcile("--path", str(root))
    assert piped.returncode == 0 and "\r" not in piped.stderr and "wave 0" not in piped.stderr
