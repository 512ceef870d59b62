"""`opctl status --tree` and the tree of manifests-example/ (issue 37, item 5): the repository's own example is
reconciled on the test node (its namespace, the CRDs, the web Deployment, the Cluster db and its Backup), and the
tree that `status --tree` shows is read back against kubectl: every object whose ownerReferences name the Cluster db
(the Pods, Services, Secrets and claims opctl made for it) is under db, and nothing else is.

The example's files are copied with their namespace shop renamed to one of the test's own, and the set gets a name
of its own (--name), so the test never meets another run of the example in shop (a quickstart, opctl install's
test); afterwards it deletes what it made (the Cluster and Backup, then the namespace), never pruning: the
example's CRDs are shared with every other test.
"""
import json
import os
import pathlib
import uuid

import pytest

from postgres_support import prepare_node_suite

SOURCE_DIR = pathlib.Path(os.environ.get("OPCTL_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
EXAMPLE = SOURCE_DIR / "manifests-example"
NAMESPACE = f"e2e-shop-{uuid.uuid4().hex[:8]}"


def output(result):
    return f"exit {result.returncode}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"


@pytest.fixture
def example(tmp_path):
    """manifests-example/ copied, its namespace shop renamed to NAMESPACE; nothing else of it changed."""
    root = tmp_path / "manifests-example"
    root.mkdir()
    for source in sorted(EXAMPLE.glob("*.yaml")):
        text = source.read_text().replace("namespace: shop\n", f"namespace: {NAMESPACE}\n")
        if source.name == "00-namespace.yaml":
            text = text.replace("  name: shop\n", f"  name: {NAMESPACE}\n")
        (root / source.name).write_text(text)
    copied = "".join(path.read_text() for path in root.glob("*.yaml"))
    assert f"namespace: {NAMESPACE}" in copied and "namespace: shop" not in copied
    return root


@pytest.fixture
def example_set(cluster, tmp_path):
    """The set's name; afterwards the example's custom resources are deleted, a pass of the now empty set lets
    their finalizers go, and the namespace is deleted."""
    prepare_node_suite(cluster)
    name = f"example-{uuid.uuid4().hex[:8]}"
    yield name
    for kind in ("backups.opctl.io", "clusters.opctl.io"):
        cluster.kubectl("delete", kind, "--all", "-n", NAMESPACE, "--wait=false", check=False)
    empty = tmp_path / "empty"
    empty.mkdir()
    cluster.reconcile("--path", str(empty), "--name", name)
    cluster.kubectl("delete", "namespace", NAMESPACE, "--wait=false", check=False)
    cluster.kubectl("delete", "secret", f"opctl-{name}", "-n", "default", "--wait=false", check=False)


def owned_by(cluster, uid):
    """(kind, name) of every object in NAMESPACE, of the kinds opctl's Cluster reconciler makes and opctl tree lists as
    children, whose ownerReferences name `uid`."""
    found = set()
    listed = cluster.get_json("pods,services,secrets,persistentvolumeclaims,poddisruptionbudgets,"
                              "leases.coordination.k8s.io,configmaps,jobs,cronjobs,serviceaccounts,"
                              "roles.rbac.authorization.k8s.io,rolebindings.rbac.authorization.k8s.io",
                              "-n", NAMESPACE)
    for item in listed["items"]:
        if any(ref.get("uid") == uid for ref in item["metadata"].get("ownerReferences", [])):
            found.add((item["kind"], item["metadata"]["name"]))
    return found


def status(cluster, root, name, *extra):
    return cluster.opctl("status", "--kubeconfig", cluster.kubeconfig, "--path", str(root), "--name", name,
                         "--tree", *extra)


def find(objects, kind, name):
    matches = [o for o in objects if o["kind"] == kind and o["name"] == name]
    assert len(matches) == 1, (kind, name, [(o["kind"], o["name"]) for o in objects])
    return matches[0]


def test_status_tree_of_manifests_example_shows_what_the_cluster_owns(cluster, example, example_set):
    passes = []
    kinds = set()
    for _ in range(30):  # a pass makes more of the Cluster as it goes: until a Pod of its own exists
        passes.append(cluster.reconcile("--path", str(example), "--name", example_set))
        assert passes[-1].returncode == 0, output(passes[-1])
        db = cluster.get_json("clusters.opctl.io", "db", "-n", NAMESPACE)
        children = owned_by(cluster, db["metadata"]["uid"])
        kinds = {kind for kind, _ in children}
        if {"Pod", "Service", "Secret", "PersistentVolumeClaim"} <= kinds:
            break
    assert {"Pod", "Service", "Secret", "PersistentVolumeClaim"} <= kinds, (
        f"after {len(passes)} passes the Cluster db owns {sorted(children)}\n{output(passes[-1])}")

    structured = status(cluster, example, example_set, "-o", "json")
    assert structured.returncode == 0, output(structured)
    report = json.loads(structured.stdout)
    # status's own report is all there, and the tree beside it.
    assert report["applySet"]["parent"] == f"default/opctl-{example_set}"
    assert isinstance(report["lastRun"], dict) and report["inventory"], report
    objects = [o for wave in report["tree"]["waves"] for o in wave["objects"]]
    db_node = find(objects, "Cluster", "db")
    assert db_node["namespace"] == NAMESPACE and db_node["presence"] == "live"
    # Read again now: the tree was read after the loop's last look.
    db = cluster.get_json("clusters.opctl.io", "db", "-n", NAMESPACE)
    expected = owned_by(cluster, db["metadata"]["uid"])
    shown = {(child["kind"], child["name"]) for child in db_node["children"]}
    assert shown == expected, f"tree: {sorted(shown)}\nkubectl: {sorted(expected)}"
    assert all(child["namespace"] == NAMESPACE for child in db_node["children"])
    # The rest of the example is in the tree too, and the web Deployment's ReplicaSet under it.
    find(objects, "Namespace", NAMESPACE)
    # The Backup's CronJob is under it, as kubectl's ownerReferences say.
    backup = cluster.get_json("backups.opctl.io", "db-nightly", "-n", NAMESPACE)
    assert {(c["kind"], c["name"]) for c in find(objects, "Backup", "db-nightly")["children"]} == \
        owned_by(cluster, backup["metadata"]["uid"]) == {("CronJob", "db-nightly")}
    find(objects, "CustomResourceDefinition", "clusters.opctl.io")
    web = find(objects, "Deployment", "web")
    replica_sets = cluster.get_json("replicasets", "-n", NAMESPACE, "-l", "app.kubernetes.io/name=web")["items"]
    assert sorted(c["name"] for c in web["children"]) == sorted(rs["metadata"]["name"] for rs in replica_sets)

    # -o yaml is the same document as -o json; opctl tree -o json shows the same waves.
    as_yaml = status(cluster, example, example_set, "-o", "yaml")
    assert as_yaml.returncode == 0, output(as_yaml)
    assert "tree:" in as_yaml.stdout and "waves:" in as_yaml.stdout
    tree = cluster.opctl("tree", "--kubeconfig", cluster.kubeconfig, "--path", str(example), "--name", example_set,
                         "-o", "json")
    assert tree.returncode == 0, output(tree)
    tree_objects = [o for wave in json.loads(tree.stdout)["waves"] for o in wave["objects"]]
    assert {(o["kind"], o["name"]) for o in find(tree_objects, "Cluster", "db")["children"]} == expected

    # Text: status's report first, then the tree, each child of db indented under it.
    text = status(cluster, example, example_set)
    assert text.returncode == 0, output(text)
    lines = text.stdout.splitlines()
    assert lines[0].startswith(f"ApplySet default/opctl-{example_set} ("), lines[0]
    assert any(line.startswith("Last run: ") for line in lines), lines
    tree_start = lines.index(f"ApplySet default/opctl-{example_set}")
    assert any(line.startswith("Inventory: ") for line in lines[:tree_start])
    db_line = next(i for i, line in enumerate(lines) if f"Cluster {NAMESPACE}/db " in line)
    assert db_line > tree_start
    db_indent = len(lines[db_line]) - len(lines[db_line].lstrip("│├└─ "))
    children_text = set()
    for line in lines[db_line + 1:]:
        label = line.lstrip("│├└─ ")
        if len(line) - len(label) <= db_indent:
            break
        kind, identity = label.split()[:2]
        if len(line) - len(label) == db_indent + 3:
            children_text.add((kind, identity.split("/", 1)[1]))
    assert children_text == expected, f"text: {sorted(children_text)}\nkubectl: {sorted(expected)}\n{text.stdout}"

    # Without --tree, status shows no tree.
    plain = cluster.opctl("status", "--kubeconfig", cluster.kubeconfig, "--path", str(example), "--name",
                          example_set, "-o", "json")
    assert plain.returncode == 0 and "tree" not in json.loads(plain.stdout), output(plain)
