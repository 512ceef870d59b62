"""The first vertical slice: reconcile a directory into the real control plane."""
import json
import os
import pathlib
import re
import shutil

EXAMPLE = pathlib.Path(os.environ.get("OPCTL_SOURCE_DIR", pathlib.Path(__file__).parents[2])) / "manifests-example"


def configmap(name, namespace, data="value"):
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\ndata:\n  key: {data}\n"


def test_example_reconciles_and_a_second_pass_is_unchanged(cluster):
    first = cluster.reconcile("--path", str(EXAMPLE))
    assert first.returncode == 0, first.stderr

    deployment = cluster.get_json("deployment", "web", "-n", "shop", "--show-managed-fields")
    assert deployment["spec"]["replicas"] == 2
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"
    managers = {entry["manager"] for entry in deployment["metadata"]["managedFields"]}
    assert "opctl" in managers
    assert cluster.get_json("configmap", "web-config", "-n", "shop")["data"]["LOG_LEVEL"] == "info"
    assert cluster.get_json("service", "web", "-n", "shop")["spec"]["ports"][0]["port"] == 80
    assert cluster.get_json("namespace", "shop")["metadata"]["labels"]["team"] == "storefront"
    # The web tier really runs on the test node (nginx:1.27 is Debian's nginx-light, see tests/testenv/images).
    cluster.kubectl("wait", "--for=condition=Available", "deployment/web", "-n", "shop", "--timeout=120s")
    pods = cluster.get_json("pods", "-n", "shop", "-l", "app.kubernetes.io/name=web")["items"]
    assert sorted(p["status"]["phase"] for p in pods) == ["Running", "Running"]

    # The custom kinds: the Backup owns its CronJob and reports Ready; the Cluster's own children are its tests'.
    cron = cluster.get_json("cronjob", "db-nightly", "-n", "shop")
    assert cron["spec"]["schedule"] == "0 2 * * *"
    assert cron["metadata"]["ownerReferences"][0]["kind"] == "Backup"
    ready = [c for c in cluster.get_json("backup", "db-nightly", "-n", "shop")["status"]["conditions"]
             if c["type"] == "Ready"]
    assert ready[0]["status"] == "True"

    second = cluster.reconcile("--path", str(EXAMPLE), "-v")  # -v: a line per unchanged object
    assert second.returncode == 0, second.stderr
    desired = {"Namespace shop", "ConfigMap shop/web-config", "apps/Deployment shop/web", "Service shop/web",
               "apiextensions.k8s.io/CustomResourceDefinition backups.opctl.io",
               "apiextensions.k8s.io/CustomResourceDefinition clusters.opctl.io",
               "PersistentVolumeClaim shop/db-backups", "opctl.io/Backup shop/db-nightly", "opctl.io/Cluster shop/db",
               "batch/CronJob shop/db-nightly"}
    actions = {}
    for line in second.stdout.splitlines():
        words = line.split()
        if len(words) >= 3 and " ".join(words[:2]) in desired:
            actions.setdefault(" ".join(words[:2]), set()).add(words[2].rstrip(":"))
    assert set(actions) == desired, second.stdout
    assert all(found == {"unchanged"} for found in actions.values()), second.stdout
    assert "0 created" in second.stdout and " 0 failed" in second.stdout

    # The kinds' children too: re-sending a Pod or a claim must not claim what the server defaulted.
    children = [line for line in second.stdout.splitlines() if ": owned by opctl.io/Cluster shop/db" in line]
    owned = {" ".join(line.split()[:2]) for line in children}
    assert {"Pod shop/db-1", "PersistentVolumeClaim shop/db-1", "Service shop/db-rw", "Secret shop/db-app"} <= owned
    assert all(line.split()[2] == "unchanged:" for line in children), second.stdout
    assert re.search(r"\b0 configured\b", second.stdout), second.stdout


def test_created_then_configured_then_unchanged(cluster, namespace, manifests):
    root = manifests({"cm.yaml": configmap("settings", namespace)})
    created = cluster.reconcile("--path", str(root))
    assert created.returncode == 0, created.stderr
    assert f"ConfigMap {namespace}/settings created" in created.stdout

    manifests({"cm.yaml": configmap("settings", namespace, data="changed")})
    configured = cluster.reconcile("--path", str(root))
    assert f"ConfigMap {namespace}/settings configured" in configured.stdout
    assert cluster.get_json("configmap", "settings", "-n", namespace)["data"]["key"] == "changed"

    unchanged = cluster.reconcile("--path", str(root))
    assert "ConfigMap: 1 unchanged" in unchanged.stdout.splitlines(), unchanged.stdout  # summarised per kind
    verbose = cluster.reconcile("--path", str(root), "-v")
    assert f"ConfigMap {namespace}/settings unchanged" in verbose.stdout.splitlines(), verbose.stdout


def test_namespace_flag_applies_to_objects_without_one(cluster, namespace, manifests):
    root = manifests({"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: defaulted\n"})
    result = cluster.reconcile("--path", str(root), "-n", namespace)
    assert result.returncode == 0, result.stderr
    assert cluster.exists("configmap", "defaulted", "-n", namespace)


def test_namespace_created_before_its_objects_in_one_pass(cluster, manifests):
    name = "e2e-order-" + os.urandom(3).hex()
    # The ConfigMap's file sorts first; the Namespace must still be applied before it.
    root = manifests({"a-cm.yaml": configmap("inside", name), "z-ns.yaml": f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n"})
    try:
        result = cluster.reconcile("--path", str(root))
        assert result.returncode == 0, result.stderr + result.stdout
        assert cluster.exists("configmap", "inside", "-n", name)
    finally:
        cluster.kubectl("delete", "namespace", name, "--wait=false", check=False)


def test_invalid_file_exits_2_and_applies_nothing(cluster, namespace, manifests):
    root = manifests({
        "a-good.yaml": configmap("should-not-exist", namespace),
        "b-bad.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n",
        "c-nokind.yaml": "apiVersion: v1\nmetadata:\n  name: x\n",
    })
    result = cluster.reconcile("--path", str(root))
    assert result.returncode == 2
    # libyaml (as yaml-cpp before it) reports an unclosed flow sequence where the input ends.
    assert re.search(r"b-bad\.yaml:[45]: YAML syntax error", result.stderr), result.stderr
    assert "c-nokind.yaml:1: kind: missing required field" in result.stderr
    assert "nothing was applied" in result.stderr
    assert not cluster.exists("configmap", "should-not-exist", "-n", namespace)


def test_duplicate_object_exits_2(cluster, namespace, manifests):
    root = manifests({"a.yaml": configmap("twice", namespace), "b.yaml": configmap("twice", namespace)})
    result = cluster.reconcile("--path", str(root))
    assert result.returncode == 2
    assert "duplicate object ConfigMap" in result.stderr
    assert not cluster.exists("configmap", "twice", "-n", namespace)


def test_unknown_kind_exits_2_and_applies_nothing(cluster, namespace, manifests):
    root = manifests({
        "a.yaml": configmap("before-unknown", namespace),
        "b.yaml": f"apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: {namespace}\n",
    })
    result = cluster.reconcile("--path", str(root))
    assert result.returncode == 2
    assert "b.yaml:2: kind: the cluster does not serve kind \"Widget\"" in result.stderr
    assert not cluster.exists("configmap", "before-unknown", "-n", namespace)


def test_crd_and_its_custom_resource_in_one_pass(cluster, namespace, manifests):
    group = "e2e" + os.urandom(3).hex() + ".example.com"
    crd = f"""apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.{group}
spec:
  group: {group}
  scope: Namespaced
  names: {{plural: widgets, singular: widget, kind: Widget}}
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
              size: {{type: integer}}
"""
    widget = f"apiVersion: {group}/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: {namespace}\nspec:\n  size: 3\n"
    root = manifests({"a-widget.yaml": widget, "b-crd.yaml": crd})
    try:
        result = cluster.reconcile("--path", str(root))
        assert result.returncode == 0, result.stderr + result.stdout
        assert cluster.get_json(f"widgets.{group}", "w", "-n", namespace)["spec"]["size"] == 3
    finally:
        cluster.kubectl("delete", "crd", f"widgets.{group}", "--wait=false", check=False)


def test_unreachable_cluster_exits_3_with_url(cluster, tmp_path, manifests):
    root = manifests({"cm.yaml": configmap("x", "default")})
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("""apiVersion: v1
kind: Config
current-context: nowhere
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: secret-token-value}}]
contexts: [{name: nowhere, context: {cluster: c, user: u}}]
""")
    result = cluster.opctl("reconcile", "--path", str(root), "--kubeconfig", str(kubeconfig))
    assert result.returncode == 3
    assert "https://127.0.0.1:1" in result.stderr or "/api" in result.stderr
    assert "cannot reach the API server" in result.stderr
    assert "secret-token-value" not in result.stderr + result.stdout


def test_each_pass_leaves_events_on_the_sets_parent(cluster, namespace, manifests):
    """`kubectl get events` tells each run's story: started, then applied with counts, or failed with the reason."""
    set_name = f"events-{namespace}"
    immutable = (f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: frozen\n  namespace: {namespace}\n"
                 "immutable: true\ndata:\n  key: {value}\n")
    root = manifests({"cm.yaml": immutable.replace("{value}", "one")})
    first = cluster.reconcile("--path", str(root), "--name", set_name)
    assert first.returncode == 0, first.stderr

    def events():
        listed = cluster.get_json("events", "-A", "--field-selector", f"involvedObject.name=opctl-{set_name}")
        return sorted(listed["items"], key=lambda event: event["metadata"]["name"])

    story = [(event["type"], event["reason"]) for event in events()]
    assert story == [("Normal", "ReconcileStarted"), ("Normal", "ReconcileSucceeded")], story
    assert "1 created" in events()[-1]["message"]
    assert events()[-1]["involvedObject"]["kind"] == "Secret"

    # An immutable ConfigMap's data cannot change: the apply fails, and the Event says which object and why.
    root = manifests({"cm.yaml": immutable.replace("{value}", "two")})
    second = cluster.reconcile("--path", str(root), "--name", set_name)
    assert second.returncode == 3, second.stdout + second.stderr
    last = events()[-1]
    assert (last["type"], last["reason"]) == ("Warning", "ReconcileFailed"), last
    assert f"ConfigMap {namespace}/frozen" in last["message"] and "1 failed" in last["message"], last["message"]


def typed_lists(namespace, names):
    """A ConfigMapList, a SecretList and a RoleBindingList, as `kubectl get --raw` writes them: items without
    apiVersion and kind (one ConfigMap names its own), one item per name in each."""
    configmaps = "".join(f"- metadata:\n    name: cm-{name}\n    namespace: {namespace}\n  data:\n    key: {name}\n"
                         for name in names)
    secrets = "".join(f"- metadata:\n    name: s-{name}\n    namespace: {namespace}\n  data:\n    key: c2VjcmV0\n"
                      for name in names)
    bindings = "".join(f"- metadata:\n    name: rb-{name}\n    namespace: {namespace}\n"
                       f"  roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}}\n"
                       f"  subjects: [{{kind: ServiceAccount, name: default, namespace: {namespace}}}]\n"
                       for name in names)
    own = (f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: own-kind\n    namespace: {namespace}\n")
    return {"configmaps.yaml": f"apiVersion: v1\nkind: ConfigMapList\nmetadata:\n  resourceVersion: \"1\"\n"
                               f"items:\n{configmaps}{own}",
            "secrets.yaml": f"apiVersion: v1\nkind: SecretList\nitems:\n{secrets}",
            "bindings.yaml": f"apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBindingList\nitems:\n{bindings}"}


def test_typed_lists_are_applied_and_pruned_item_by_item(cluster, namespace, manifests):
    set_name = f"lists-{namespace}"
    root = manifests(typed_lists(namespace, ["a", "b"]))
    first = cluster.reconcile("--path", str(root), "--name", set_name, "--prune")
    assert first.returncode == 0, first.stdout + first.stderr
    for kind, prefix in (("configmap", "cm"), ("secret", "s"), ("rolebinding", "rb")):
        assert cluster.exists(kind, f"{prefix}-a", "-n", namespace), first.stdout
        assert cluster.exists(kind, f"{prefix}-b", "-n", namespace), first.stdout
    assert cluster.get_json("configmap", "cm-b", "-n", namespace)["data"] == {"key": "b"}
    assert cluster.exists("configmap", "own-kind", "-n", namespace)
    assert cluster.get_json("rolebinding", "rb-a", "-n", namespace)["roleRef"]["name"] == "view"

    # One item fewer in each list: that item is pruned, the rest stay.
    manifests(typed_lists(namespace, ["a"]))
    second = cluster.reconcile("--path", str(root), "--name", set_name, "--prune")
    assert second.returncode == 0, second.stdout + second.stderr
    for kind, prefix in (("configmap", "cm"), ("secret", "s"), ("rolebinding", "rb")):
        assert cluster.exists(kind, f"{prefix}-a", "-n", namespace), kind
        assert not cluster.exists(kind, f"{prefix}-b", "-n", namespace), second.stdout
    assert "c2VjcmV0" not in second.stdout + second.stderr


def test_an_item_of_a_typed_list_with_an_error_names_its_own_line(cluster, namespace, manifests):
    root = manifests({"cms.yaml": f"apiVersion: v1\nkind: ConfigMapList\nitems:\n"
                                  f"- metadata:\n    name: fine\n    namespace: {namespace}\n"
                                  f"- metadata:\n    namespace: {namespace}\n"})
    result = cluster.reconcile("--path", str(root))
    assert result.returncode == 2, result.stdout + result.stderr
    assert "cms.yaml:7: metadata.name: missing required field \"metadata.name\"" in result.stderr, result.stderr
    assert not cluster.exists("configmap", "fine", "-n", namespace)


MERGE_KEYS = """apiVersion: v1
kind: ConfigMap
metadata:
  name: merged
  namespace: {namespace}
  labels: &labels
    app: web
    tier: front
  annotations:
    tier: back
    <<: *labels
data:
  owner: dev
  <<: [{{owner: ops, zone: a}}, *labels]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: merged
  namespace: {namespace}
spec:
  replicas: 0
  selector:
    matchLabels: {{app: merged}}
  template:
    metadata:
      labels: {{app: merged}}
    spec:
      containers:
      - &main
        name: main
        image: registry.invalid/main:1
        resources:
          limits: {{cpu: 100m}}
      - <<: *main
        name: sidecar
        resources:
          requests: {{memory: 10Mi}}
"""


def test_yaml_merge_keys_are_merged_as_kubectl_merges_them(cluster, namespace, manifests):
    # Given a manifest with << merge keys, we should apply the objects kubectl itself reads from the same file.
    root = manifests({"merged.yaml": MERGE_KEYS.format(namespace=namespace)})
    result = cluster.reconcile("--path", str(root))
    assert result.returncode == 0, result.stdout + result.stderr
    printed = cluster.kubectl("create", "--dry-run=client", "--validate=false", "-o", "json",
                              "-f", str(root / "merged.yaml")).stdout
    by_kubectl, at = [], 0  # one JSON object per document, one after the other
    while printed[at:].strip():
        item, at = json.JSONDecoder().raw_decode(printed, len(printed) - len(printed[at:].lstrip()))
        by_kubectl.append(item)
    live_map = cluster.get_json("configmap", "merged", "-n", namespace)
    assert live_map["data"] == {"app": "web", "owner": "ops", "tier": "front", "zone": "a"}
    assert live_map["data"] == by_kubectl[0]["data"]
    for field in ("labels", "annotations"):  # opctl adds labels and annotations of its own
        assert by_kubectl[0]["metadata"][field].items() <= live_map["metadata"][field].items(), field
    assert live_map["metadata"]["annotations"]["tier"] == "front"  # the merge overwrote the key before it

    def containers(deployment):
        return [{key: container.get(key) for key in ("name", "image", "resources")}
                for container in deployment["spec"]["template"]["spec"]["containers"]]

    live_deployment = cluster.get_json("deployment", "merged", "-n", namespace)
    assert containers(live_deployment) == containers(by_kubectl[1])
    assert containers(live_deployment)[1] == {"name": "sidecar", "image": "registry.invalid/main:1",
                                              "resources": {"requests": {"memory": "10Mi"}}}
