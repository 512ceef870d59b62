"""opctl diff against the real control plane: no false drift after a reconcile
(the managedFields fast path decides every object), real drift found and
shown exactly, O(kinds) requests, Secret values never printed, read-only
credentials falling back to a local comparison, and the output contract."""
import base64
import json
import os
import pathlib
import re
import subprocess
import time
import uuid

import pytest

from fault_proxy import FaultProxy, testenv_binary
from terminal import run_on_terminal

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]


def opctl_config(name, namespace, extra=""):
    """An opctl.yaml giving the test its own Lease and ApplySet parent."""
    return f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {name}\n  namespace: {namespace}\n{extra}"


def setname():
    return "d" + uuid.uuid4().hex[:8]


def diff(cluster, root, *args, kubeconfig=None, env=None):
    return cluster.opctl("diff", "--kubeconfig", kubeconfig or cluster.kubeconfig, "--path", str(root), *args, env=env)


def reconcile_ok(cluster, root, *args):
    result = cluster.reconcile("--path", str(root), *args)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def diff_lines(output):
    return output.splitlines()


def decided_line(stderr):
    match = re.search(r"opctl: (\d+) objects decided from live state, (\d+) server dry runs", stderr)
    assert match, stderr
    return int(match.group(1)), int(match.group(2))


def report_objects(report):
    return {(o["kind"], o["name"]): o for o in report["objects"]}


# --- 1. no false drift -------------------------------------------------------

def defaulting_set(ns, group):
    return f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: {ns}
  labels: {{app: web}}
spec:
  replicas: 2
  selector:
    matchLabels: {{app: web}}
  template:
    metadata:
      labels: {{app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        env:
        - {{name: A, value: "1"}}
        ports:
        - containerPort: 80
        resources:
          requests: {{cpu: 100m, memory: 64Mi}}
        volumeMounts:
        - {{name: cache, mountPath: /cache}}
      volumes:
      - name: cache
        emptyDir: {{}}
---
apiVersion: v1
kind: Service
metadata:
  name: web-nodeport
  namespace: {ns}
spec:
  type: NodePort
  selector: {{app: web}}
  ports:
  - name: http
    port: 80
    targetPort: 8080
  - name: https
    port: 443
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: {ns}
spec:
  selector: {{app: web}}
  ports:
  - port: 80
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: cleanup
  namespace: {ns}
spec:
  schedule: "*/5 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: cleanup
            image: busybox
            command: [sh, -c, "echo cleaning"]
---
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  namespace: {ns}
spec:
  template:
    metadata:
      labels: {{job: migrate}}
    spec:
      restartPolicy: Never
      containers:
      - name: migrate
        image: busybox
        command: [sh, -c, "echo migrating"]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
  namespace: {ns}
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests: {{storage: 1Gi}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.{group}
spec:
  group: {group}
  scope: Namespaced
  names: {{plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {{type: integer, default: 3}}
              color: {{type: string, default: blue}}
              tags:
                type: array
                items: {{type: string}}
                default: [a]
---
apiVersion: {group}/v1
kind: Widget
metadata:
  name: w1
  namespace: {ns}
spec:
  color: red
"""


def test_no_false_drift_after_reconcile_with_server_defaults(cluster, namespace, manifests):
    group = f"{namespace}.e2e.opctl.io"
    root = manifests({"opctl.yaml": opctl_config(setname(), namespace), "all.yaml": defaulting_set(namespace, group)})
    try:
        reconcile_ok(cluster, root)
        node_port = cluster.get_json("service", "web-nodeport", "-n", namespace)["spec"]["ports"][0]["nodePort"]
        assert node_port > 0

        result = diff(cluster, root, "--exit-code", "-v")
        assert result.returncode == 0, result.stdout + result.stderr
        assert "0 added, 0 changed, 0 pruned, 8 unchanged" in result.stdout
        assert decided_line(result.stderr) == (8, 0), "every object decided by the managedFields fast path"

        # Controllers keep writing (the Job controller adds labels and status,
        # the Deployment controller its revision): still no drift.
        deadline = time.time() + 60
        while time.time() < deadline and not cluster.get_json("job", "migrate", "-n", namespace).get("status", {}).get("startTime"):
            time.sleep(1)
        job = cluster.get_json("job", "migrate", "-n", namespace)
        assert "batch.kubernetes.io/controller-uid" in job["spec"]["template"]["metadata"]["labels"]
        again = diff(cluster, root, "--exit-code", "-v", "-o", "json")
        assert again.returncode == 0, again.stdout + again.stderr
        report = json.loads(again.stdout)
        assert {o["action"] for o in report["objects"]} == {"unchanged"}
        assert decided_line(again.stderr) == (8, 0)
    finally:
        cluster.kubectl("delete", "crd", f"widgets.{group}", "--wait=false", check=False)


# --- 2. real drift -----------------------------------------------------------

def app_set(ns, *, env='[{name: A, value: "1"}, {name: B, value: "2"}]',
            ports="[{name: http, port: 80}, {name: metrics, port: 9090}]", tier="web", extra_data="  remove-me: x\n"):
    return f"""apiVersion: v1
kind: ConfigMap
metadata:
  name: app
  namespace: {ns}
data:
  mode: git
{extra_data}---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: {ns}
  labels:
    app: web
    tier: {tier}
spec:
  replicas: 1
  selector:
    matchLabels: {{app: web}}
  template:
    metadata:
      labels: {{app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        env: {env}
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: {ns}
spec:
  selector: {{app: web}}
  ports: {ports}
"""


@pytest.fixture
def app(cluster, namespace, manifests):
    """The app set reconciled into a fresh namespace; returns (root, write) where write(**app_set kwargs) edits git."""
    name = setname()

    def write(**kwargs):
        return manifests({"opctl.yaml": opctl_config(name, namespace), "app.yaml": app_set(namespace, **kwargs)})

    root = write()
    reconcile_ok(cluster, root)
    in_sync = diff(cluster, root, "--exit-code")
    assert in_sync.returncode == 0, in_sync.stdout + in_sync.stderr
    return root, write


def diff_both(cluster, root):
    text = diff(cluster, root, "--exit-code")
    data = diff(cluster, root, "--exit-code", "-o", "json")
    assert text.returncode == 1, text.stdout + text.stderr
    assert data.returncode == 1, data.stdout + data.stderr
    return text.stdout, report_objects(json.loads(data.stdout))


def test_field_changed_live_by_another_manager_is_shown_with_the_conflict(cluster, namespace, app):
    root, _ = app
    cluster.kubectl("patch", "configmap", "app", "-n", namespace, "--field-manager=x", "--type=merge",
                    "-p", '{"data":{"mode":"live"}}')
    text, objects = diff_both(cluster, root)
    lines = diff_lines(text)
    assert f"~ v1 ConfigMap {namespace}/app (conflict: reconcile needs --force-conflicts)" in lines
    assert "-  mode: live" in lines and "+  mode: git" in lines
    assert "1 changed" in text and "2 unchanged" in text
    entry = objects[("ConfigMap", "app")]
    assert entry["action"] == "changed"
    assert entry["changedPaths"] == ["/data/mode"]
    assert '"x"' in entry["conflict"]
    assert entry["patch"] == [{"op": "replace", "path": "/data/mode", "value": "git"}]


def test_field_removed_from_git_is_shown_as_removed(cluster, namespace, app):
    root, write = app
    write(extra_data="")
    text, objects = diff_both(cluster, root)
    assert f"~ v1 ConfigMap {namespace}/app" in diff_lines(text)
    assert "-  remove-me: x" in diff_lines(text)
    assert not [line for line in diff_lines(text) if line.startswith("+") and not line.startswith("+++")]
    assert objects[("ConfigMap", "app")]["changedPaths"] == ["/data/remove-me"]
    assert objects[("ConfigMap", "app")]["source"]["file"].endswith("app.yaml")


def test_list_elements_added_and_removed_in_git(cluster, namespace, app):
    root, write = app
    write(env='[{name: B, value: "2"}, {name: C, value: "3"}]', ports="[{name: http, port: 80}, {name: https, port: 443}]")
    text, objects = diff_both(cluster, root)
    lines = diff_lines(text)
    assert f"~ apps/v1 Deployment {namespace}/web" in lines
    assert "-            - name: A" in lines and '-              value: "1"' in lines
    assert "+            - name: C" in lines and '+              value: "3"' in lines
    assert "             - name: B" in lines, "B stays, as context"
    env = "/spec/template/spec/containers/0/env"
    assert objects[("Deployment", "web")]["changedPaths"] == [f"{env}/0", f"{env}/1"]

    assert f"~ v1 Service {namespace}/web" in lines
    assert "-    - name: metrics" in lines and "-      port: 9090" in lines
    assert "+    - name: https" in lines and "+      port: 443" in lines
    assert objects[("Service", "web")]["changedPaths"] == ["/spec/ports/1"]
    assert "0 added, 2 changed, 0 pruned, 1 unchanged" in text


def test_label_changed_in_git(cluster, namespace, app):
    root, write = app
    write(tier="frontend")
    text, objects = diff_both(cluster, root)
    assert "-    tier: web" in diff_lines(text) and "+    tier: frontend" in diff_lines(text)
    assert objects[("Deployment", "web")]["changedPaths"] == ["/metadata/labels/tier"]


def test_object_deleted_live_is_added(cluster, namespace, app):
    root, _ = app
    cluster.kubectl("delete", "service", "web", "-n", namespace)
    text, objects = diff_both(cluster, root)
    lines = diff_lines(text)
    assert f"+ v1 Service {namespace}/web" in lines
    assert "+kind: Service" in lines
    assert "1 added, 0 changed, 0 pruned, 2 unchanged" in text
    assert objects[("Service", "web")]["action"] == "added"
    assert objects[("Service", "web")]["changedPaths"] == [""]


def test_prune_shows_what_a_pruning_pass_would_delete_and_deletes_nothing(cluster, namespace, manifests, tmp_path):
    def cm(name, extra=""):
        return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\n{extra}data:\n  k: v\n"
    config = opctl_config(setname(), namespace)
    root = manifests({"opctl.yaml": config, "a.yaml": cm("kept-in-git"), "b.yaml": cm("left-git"),
                      "c.yaml": cm("protected", "  annotations:\n    opctl.io/prune: disabled\n")})
    reconcile_ok(cluster, root)
    (root / "b.yaml").unlink()
    (root / "c.yaml").unlink()

    without = diff(cluster, root, "--exit-code")
    assert without.returncode == 0, without.stdout + without.stderr
    assert "0 pruned" in without.stdout

    report = tmp_path / "report.json"
    result = diff(cluster, root, "--exit-code", "--prune", "--report", str(report))
    assert result.returncode == 1, result.stdout + result.stderr
    lines = diff_lines(result.stdout)
    assert f"- v1 ConfigMap {namespace}/left-git" in lines, result.stdout
    assert "-kind: ConfigMap" in lines
    assert "protected" not in result.stdout  # opctl.io/prune: disabled is never pruned
    assert "0 added, 0 changed, 1 pruned, 1 unchanged" in result.stdout
    objects = report_objects(json.loads(report.read_text()))
    assert objects[("ConfigMap", "left-git")]["action"] == "pruned"
    markdown = diff(cluster, root, "--prune", "-o", "markdown")
    assert "left-git" in markdown.stdout and "| 0 | 0 | 1 | 1 | 0 |" in markdown.stdout, markdown.stdout
    assert cluster.exists("configmap", "left-git", "-n", namespace)  # a diff deletes nothing

    # prune: true in opctl.yaml has the same effect as the flag
    (root / "opctl.yaml").write_text(config + "spec:\n  prune: true\n")
    from_config = diff(cluster, root, "--exit-code")
    assert from_config.returncode == 1 and "1 pruned" in from_config.stdout, from_config.stdout


def test_ignore_annotation_hides_drift(cluster, namespace, manifests):
    cm = (f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ignored\n  namespace: {namespace}\n"
          "  annotations:\n    opctl.io/diff: ignore\ndata:\n  k: git\n")
    root = manifests({"opctl.yaml": opctl_config(setname(), namespace), "cm.yaml": cm})
    reconcile_ok(cluster, root)
    cluster.kubectl("patch", "configmap", "ignored", "-n", namespace, "--field-manager=x", "--type=merge",
                    "-p", '{"data":{"k":"live"}}')
    result = diff(cluster, root, "--exit-code", "-v")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 changed" in result.stdout
    assert decided_line(result.stderr) == (1, 0)


def status_drift(cluster, root):
    """opctl status's drift lines (JSON) and its text output."""
    args = ["status", "--kubeconfig", cluster.kubeconfig, "--path", str(root)]
    as_json, as_text = cluster.opctl(*args, "-o", "json"), cluster.opctl(*args)
    assert as_json.returncode == 0 and as_text.returncode == 0, as_json.stderr + as_text.stderr
    return json.loads(as_json.stdout)["drift"], as_text.stdout


def test_ignore_differences_from_opctl_yaml_in_diff_and_status(cluster, namespace, manifests):
    # Replicas scaled by hand are drift to diff and status alike, until opctl.yaml ignores them; then to neither.
    rules = "spec:\n  ignoreDifferences:\n  - group: apps\n    kind: Deployment\n    jsonPointers: [/spec/replicas]\n"
    name = setname()
    files = {"opctl.yaml": opctl_config(name, namespace), "app.yaml": app_set(namespace)}
    root = manifests(files)
    reconcile_ok(cluster, root)
    cluster.kubectl("scale", "deployment", "web", "-n", namespace, "--replicas=3")
    assert diff(cluster, root, "--exit-code").returncode == 1
    drift, text = status_drift(cluster, root)
    assert len(drift) == 1 and f"{namespace}/web" in drift[0], drift
    assert "Drift: 1 objects" in text, text
    manifests({"opctl.yaml": opctl_config(name, namespace, rules)})
    result = diff(cluster, root, "--exit-code")
    assert result.returncode == 0, result.stdout + result.stderr
    drift, text = status_drift(cluster, root)
    assert drift == [], drift
    assert "Drift: none, in sync" in text, text
    assert cluster.get_json("deployment", "web", "-n", namespace)["spec"]["replicas"] == 3  # nothing was changed


# --- 3. the fast path: O(kinds) requests -------------------------------------

def audit_events_since(cluster, offset):
    path = cluster.dir / "audit.log"
    if not path.exists():
        return []
    with open(path, "rb") as log:
        log.seek(offset)
        data = log.read()
    return [json.loads(line) for line in data.splitlines() if line.strip()]


def test_no_op_diff_of_70_objects_makes_requests_per_kind_not_per_object(cluster, namespace, manifests):
    docs = [f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i:02d}\n  namespace: {namespace}\ndata:\n  i: \"{i}\"\n"
            for i in range(60)]
    docs += [f"apiVersion: v1\nkind: Service\nmetadata:\n  name: svc-{i:02d}\n  namespace: {namespace}\nspec:\n"
             f"  selector: {{app: a{i}}}\n  ports:\n  - port: {8000 + i}\n" for i in range(10)]
    root = manifests({"opctl.yaml": opctl_config(setname(), namespace), "many.yaml": "---\n".join(docs)})
    reconcile_ok(cluster, root)

    proxy = FaultProxy(cluster)  # only its request counters
    try:
        audit_path = cluster.dir / "audit.log"
        offset = audit_path.stat().st_size if audit_path.exists() else 0
        proxy.reset()
        result = diff(cluster, root, "--exit-code", "-v", kubeconfig=proxy.kubeconfig)
        counts = proxy.counts()
    finally:
        proxy.stop()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "70 unchanged" in result.stdout
    assert decided_line(result.stderr) == (70, 0)
    assert counts["total"] < 10, counts
    assert counts["byMethod"].get("PATCH", 0) == 0, counts
    assert counts["byPath"].get(f"GET /api/v1/namespaces/{namespace}/configmaps") == 1, counts
    assert counts["byPath"].get(f"GET /api/v1/namespaces/{namespace}/services") == 1, counts

    # The audit log tells the same: opctl's requests naming this namespace are the two LISTs.
    time.sleep(0.5)
    mine = [e for e in audit_events_since(cluster, offset)
            if e.get("userAgent", "").startswith("opctl/") and f"/namespaces/{namespace}/" in e.get("requestURI", "")
            and e.get("stage") == "ResponseComplete"]
    if audit_path.exists():
        assert len(mine) == 2, [e["verb"] + " " + e["requestURI"] for e in mine]
        assert {e["verb"] for e in mine} == {"list"}



def test_a_kind_in_several_namespaces_is_read_with_one_list_across_namespaces(cluster, namespace, manifests):
    # Given ConfigMaps and Secrets in three namespaces of the set,
    extra = [f"{namespace}-a", f"{namespace}-b"]
    namespaces = [namespace] + extra
    docs = [f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {ns}\n" for ns in extra]
    docs += [f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\n  namespace: {ns}\ndata:\n  i: \"{i}\"\n"
             for ns in namespaces for i in range(3)]
    docs += [f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: token\n  namespace: {ns}\nstringData:\n  t: x\n"
             for ns in namespaces]
    root = manifests({"opctl.yaml": opctl_config(setname(), namespace), "set.yaml": "---\n".join(docs)})
    try:
        reconcile_ok(cluster, root)
        for ns in namespaces:  # read back by an independent client
            names = cluster.kubectl("get", "configmaps", "-n", ns, "-o", "name").stdout.split()
            assert {"configmap/cm-0", "configmap/cm-1", "configmap/cm-2"} <= set(names), names
        # and one of them changed live by another manager,
        cluster.kubectl("patch", "configmap", "cm-1", "-n", extra[1], "--type", "merge", "-p", '{"data":{"i":"live"}}')
        proxy = FaultProxy(cluster)  # only its request counters
        try:
            proxy.reset()
            result = diff(cluster, root, "--exit-code", kubeconfig=proxy.kubeconfig)
            counts = proxy.counts()
        finally:
            proxy.stop()
        # when opctl diffs, then one LIST reads the ConfigMaps of every namespace and finds the changed one,
        assert result.returncode == 1, result.stdout + result.stderr
        assert f"ConfigMap {extra[1]}/cm-1" in result.stdout, result.stdout
        assert "13 unchanged" in result.stdout, result.stdout
        assert counts["byPath"].get("GET /api/v1/configmaps") == 1, counts
        for ns in namespaces:
            assert f"GET /api/v1/namespaces/{ns}/configmaps" not in counts["byPath"], counts
            # while Secrets are listed only in the set's own namespaces.
            assert counts["byPath"].get(f"GET /api/v1/namespaces/{ns}/secrets") == 1, counts
        assert "GET /api/v1/secrets" not in counts["byPath"], counts
    finally:
        cluster.kubectl("delete", "namespace", *extra, "--wait=false", check=False)

# --- 4. Secrets are never shown ----------------------------------------------

SECRET_VALUES = {
    "old-data": "old-database-password",
    "new-data": "new-database-password",
    "old-string": "old-plain-token",
    "new-string": "new-plain-token",
    "added": "brand-new-secret-value",
}


def b64(text):
    return base64.b64encode(text.encode()).decode()


def secret_doc(name, ns, data_value, string_value):
    return (f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: {name}\n  namespace: {ns}\ntype: Opaque\n"
            f"data:\n  password: {b64(data_value)}\nstringData:\n  token: {string_value}\n")


def test_secret_values_never_appear_in_any_output(cluster, namespace, manifests, tmp_path):
    name = setname()

    def write(data_value, string_value, with_added=False):
        files = {"opctl.yaml": opctl_config(name, namespace),
                 "secret.yaml": secret_doc("db", namespace, data_value, string_value)}
        if with_added:
            files["added.yaml"] = secret_doc("added", namespace, SECRET_VALUES["added"], SECRET_VALUES["added"])
        return manifests(files)

    root = write(SECRET_VALUES["old-data"], SECRET_VALUES["old-string"])
    reconcile_ok(cluster, root)
    unchanged = diff(cluster, root, "--exit-code", "-v")
    assert unchanged.returncode == 0, unchanged.stdout + unchanged.stderr
    assert decided_line(unchanged.stderr) == (1, 0), "stringData is decided from live data too"

    write(SECRET_VALUES["new-data"], SECRET_VALUES["new-string"], with_added=True)
    outputs = {}
    for fmt in ("text", "json", "markdown"):
        report = tmp_path / f"report-{fmt}.json"
        result = diff(cluster, root, "--exit-code", "-v", "-o", fmt, "--report", str(report))
        assert result.returncode == 1, result.stdout + result.stderr
        outputs[fmt] = result.stdout
        outputs[fmt + " stderr"] = result.stderr
        outputs[fmt + " report"] = report.read_text()

    forbidden = set()
    for value in SECRET_VALUES.values():
        forbidden |= {value, b64(value)}
    for where, text in outputs.items():
        for value in forbidden:
            assert value not in text, f"{value!r} leaked into {where}"

    assert "*** (before)" in outputs["text"] and "*** (after)" in outputs["text"]
    assert f"+ v1 Secret {namespace}/added" in outputs["text"]
    objects = report_objects(json.loads(outputs["json"]))
    assert objects[("Secret", "db")]["changedPaths"] == ["/data/password", "/data/token"]
    assert objects[("Secret", "added")]["action"] == "added"
    assert json.loads(outputs["text report"]) == json.loads(outputs["json"]), "--report is the JSON whatever -o is"


# --- 5. read-only credentials: local comparison ------------------------------

def read_only_kubeconfig(cluster, namespace, tmp_path):
    role = f"""apiVersion: v1
kind: ServiceAccount
metadata: {{name: reader, namespace: {namespace}}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {{name: reader, namespace: {namespace}}}
rules:
- apiGroups: ["", apps]
  resources: [configmaps, services, deployments]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {{name: reader, namespace: {namespace}}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}}
subjects:
- {{kind: ServiceAccount, name: reader, namespace: {namespace}}}
"""
    cluster.kubectl("apply", "-f", "-", input=role)
    token = subprocess.run([testenv_binary(cluster), "token", "--dir", str(cluster.dir), "--namespace", namespace,
                            "--serviceaccount", "reader"], capture_output=True, text=True, timeout=60)
    assert token.returncode == 0, token.stderr
    admin = json.loads(cluster.kubectl("config", "view", "--raw", "-o", "json").stdout)
    server = admin["clusters"][0]["cluster"]["server"]
    path = tmp_path / "reader.kubeconfig"
    path.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "reader",
        "clusters": [{"name": "testenv", "cluster": {"server": server, "certificate-authority": str(cluster.dir / "ca.crt")}}],
        "users": [{"name": "reader", "user": {"token": token.stdout.strip()}}],
        "contexts": [{"name": "reader", "context": {"cluster": "testenv", "user": "reader", "namespace": namespace}}],
    }))
    denied = subprocess.run(["kubectl", "--kubeconfig", str(path), "auth", "can-i", "patch", "configmaps", "-n", namespace],
                            capture_output=True, text=True)
    assert denied.stdout.strip() == "no"
    return str(path)


def test_read_only_credentials_fall_back_to_a_local_comparison(cluster, namespace, app, tmp_path):
    root, write = app
    reader = read_only_kubeconfig(cluster, namespace, tmp_path)
    in_sync = diff(cluster, root, "--exit-code", kubeconfig=reader)
    assert in_sync.returncode == 0, in_sync.stdout + in_sync.stderr

    write(env='[{name: A, value: "1"}, {name: B, value: "two"}]', extra_data="")
    text = diff(cluster, root, "--exit-code", kubeconfig=reader)
    assert text.returncode == 1, text.stdout + text.stderr
    lines = diff_lines(text.stdout)
    assert f"~ apps/v1 Deployment {namespace}/web (local comparison)" in lines
    assert f"~ v1 ConfigMap {namespace}/app (local comparison)" in lines
    assert '-              value: "2"' in lines and "+              value: two" in lines
    assert "-  remove-me: x" in lines
    assert "2 changed" in text.stdout and "1 unchanged" in text.stdout
    headers = [line for line in lines if re.match(r"^[~+!-] [\w.]+(/\w+)? [A-Z]\w* ", line)]
    assert len(headers) == 2, headers
    assert all(line.endswith("(local comparison)") for line in headers), headers

    data = diff(cluster, root, "--exit-code", "-o", "json", kubeconfig=reader)
    assert data.returncode == 1
    objects = report_objects(json.loads(data.stdout))
    assert objects[("Deployment", "web")]["localComparison"] is True
    assert objects[("Deployment", "web")]["changedPaths"] == ["/spec/template/spec/containers/0/env/1/value"]
    assert objects[("ConfigMap", "app")]["localComparison"] is True
    assert objects[("ConfigMap", "app")]["changedPaths"] == ["/data/remove-me"]
    assert objects[("Service", "web")]["action"] == "unchanged"

    markdown = diff(cluster, root, "--exit-code", "-o", "markdown", kubeconfig=reader)
    assert markdown.returncode == 1
    assert f"<code>~ apps/v1 Deployment {namespace}/web (local comparison)</code>" in markdown.stdout
    assert "changed, local comparison" in markdown.stdout


# --- 6. the output contract --------------------------------------------------

def test_colour_only_on_a_terminal_without_no_color(cluster, namespace, app):
    root, write = app
    write(tier="frontend")
    args = [cluster.opctl_bin, "diff", "--kubeconfig", cluster.kubeconfig, "--path", str(root)]
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "KUBECONFIG")}
    code, coloured, _ = run_on_terminal(args, env)
    assert code == 0
    assert "\x1b[32m+    tier: frontend\x1b[0m" in coloured
    assert "\x1b[" not in run_on_terminal(args + ["--no-color"], env)[1]
    assert "\x1b[" not in run_on_terminal(args, {**env, "NO_COLOR": "1"})[1]
    piped = subprocess.run(args, capture_output=True, text=True, env=env, timeout=120)
    assert piped.returncode == 0 and "\x1b[" not in piped.stdout and "+    tier: frontend" in piped.stdout


def test_exit_codes_quiet_and_markdown(cluster, namespace, app, manifests):
    root, write = app
    write(tier="frontend")
    assert diff(cluster, root).returncode == 0, "differences without --exit-code exit 0"
    quiet = diff(cluster, root, "--exit-code", "-q")
    assert quiet.returncode == 1
    assert quiet.stdout.strip() == "0 added, 1 changed, 0 pruned, 2 unchanged"

    markdown = diff(cluster, root, "-o", "markdown")
    assert "| 0 | 1 | 0 | 2 | 0 |" in markdown.stdout
    assert "<details><summary>" in markdown.stdout and "```diff" in markdown.stdout

    manifests({"broken.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n"})
    invalid = diff(cluster, root, "--exit-code")
    assert invalid.returncode == 2, invalid.stdout + invalid.stderr


def test_status_shows_the_next_pass_plan_and_changes_nothing(cluster, namespace, manifests):
    def cm(name, value):
        return f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, namespace: {namespace}}}\ndata: {{k: \"{value}\"}}\n"

    name = setname()
    root = manifests({"opctl.yaml": opctl_config(name, namespace), "same.yaml": cm("same", "1"),
                      "changes.yaml": cm("changes", "1"), "goes.yaml": cm("goes", "1")})
    reconcile_ok(cluster, root)
    # Kept: a member that would be pruned but says opctl.io/prune: disabled.
    cluster.kubectl("annotate", "configmap", "goes", "-n", namespace, "opctl.io/prune=disabled")
    reconcile_ok(cluster, root)
    manifests({"changes.yaml": cm("changes", "2"), "new.yaml": cm("new", "1")})
    os.remove(root / "goes.yaml")
    args = ["status", "--kubeconfig", cluster.kubeconfig, "--path", str(root)]
    as_json = cluster.opctl(*args, "-o", "json")
    assert as_json.returncode == 0, as_json.stderr
    plan = json.loads(as_json.stdout)["nextPass"]
    assert {k: plan[k] for k in ("create", "update", "unchanged", "prune", "keep", "prunes")} == \
        {"create": 1, "update": 1, "unchanged": 1, "prune": 0, "keep": 1, "prunes": False}, plan
    steps = {(s["action"], s["object"]) for s in plan["steps"]}
    assert steps == {("create", f"v1 ConfigMap {namespace}/new"), ("update", f"v1 ConfigMap {namespace}/changes"),
                     ("keep", f"v1 ConfigMap {namespace}/goes")}, plan["steps"]
    text = cluster.opctl(*args)
    assert "Next pass: 1 to create, 1 to update, 1 unchanged, 1 kept\n" in text.stdout, text.stdout
    # status only reads: kubectl sees the cluster as the last pass left it.
    assert not cluster.exists("configmap", "new", "-n", namespace)
    assert cluster.get_json("configmap", "changes", "-n", namespace)["data"] == {"k": "1"}

    # Without the annotation the member is a prune step, marked as needing --prune.
    cluster.kubectl("annotate", "configmap", "goes", "-n", namespace, "opctl.io/prune-")
    text = cluster.opctl(*args)
    assert "Next pass: 1 to create, 1 to update, 1 unchanged, 1 to prune (with --prune)\n" in text.stdout, text.stdout
    assert f"prune     v1 ConfigMap {namespace}/goes (no longer in the set)" in text.stdout, text.stdout
    reconcile_ok(cluster, root, "--prune")
    text = cluster.opctl(*args)
    assert "Next pass: 0 to create, 0 to update, 3 unchanged\n" in text.stdout, text.stdout
    assert not cluster.exists("configmap", "goes", "-n", namespace)
