"""`opctl tree` (issue 37): the set's members by wave and kind with their health, and under each what it owns,
from Pods that really run on the test node. Every name the tree shows is checked against kubectl's view."""
import json
import uuid

import pytest

from workloads import shell_deployment


@pytest.fixture
def setname():
    return "t" + uuid.uuid4().hex[:8]


def config(name, namespace):
    return f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"


def configmap(name, namespace, wave=None):
    annotations = f"  annotations:\n    opctl.io/wave: \"{wave}\"\n" if wave is not None else ""
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\n{annotations}data:\n  k: v\n"




def tree_json(cluster, root):
    result = cluster.opctl("tree", "--kubeconfig", cluster.kubeconfig, "--path", str(root), "-o", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


def find(objects, kind, name):
    matches = [o for o in objects if o["kind"] == kind and o["name"] == name]
    assert len(matches) == 1, (kind, name, [(o["kind"], o["name"]) for o in objects])
    return matches[0]


def test_the_tree_shows_waves_health_and_what_each_member_owns(cluster, namespace, manifests, setname):
    files = {"opctl.yaml": config(setname, namespace), "web.yaml": shell_deployment("web", namespace, ["sleep", "3600"], readiness=["true"], replicas=2),
             "settings.yaml": configmap("settings", namespace), "late.yaml": configmap("late", namespace, wave=5)}
    root = manifests(files)
    result = cluster.reconcile("--path", str(root), "--wait", "--timeout", "120s")
    assert result.returncode == 0, result.stdout + result.stderr

    tree = tree_json(cluster, root)
    assert tree["applySet"]["parent"] == f"{namespace}/opctl-{setname}"
    assert [wave["wave"] for wave in tree["waves"]] == [0, 5]
    first = tree["waves"][0]["objects"]
    assert [o["kind"] for o in first] == ["ConfigMap", "Deployment"], first  # apply order: config before workloads
    web = find(first, "Deployment", "web")
    assert web["health"]["state"] == "healthy" and web["presence"] == "live"

    # The ReplicaSet and its two Pods, as kubectl sees them.
    replica_sets = cluster.get_json("replicasets", "-n", namespace, "-l", "app=web")["items"]
    assert [c["name"] for c in web["children"]] == [rs["metadata"]["name"] for rs in replica_sets]
    pods = cluster.get_json("pods", "-n", namespace, "-l", "app=web")["items"]
    under_set = web["children"][0]["children"]
    assert sorted(p["name"] for p in under_set) == sorted(p["metadata"]["name"] for p in pods)
    assert len(under_set) == 2 and all(p["kind"] == "Pod" for p in under_set)
    assert all(p["health"]["state"] == "healthy" for p in under_set), under_set
    assert find(tree["waves"][1]["objects"], "ConfigMap", "late")["children"] == []

    text = cluster.opctl("tree", "--kubeconfig", cluster.kubeconfig, "--path", str(root))
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0] == f"ApplySet {namespace}/opctl-{setname}"
    assert "Wave 0" in lines and "Wave 5" in lines
    deployment_line = next(line for line in lines if f"Deployment {namespace}/web" in line)
    assert deployment_line.startswith("└─ ") and deployment_line.rstrip().endswith("healthy"), deployment_line
    pod_lines = [line for line in lines if f"Pod {namespace}/" in line]
    assert len(pod_lines) == 2 and all(line.startswith("      ") for line in pod_lines), lines


def test_an_object_not_yet_applied_and_one_left_out_of_the_source_are_marked(cluster, namespace, manifests, setname):
    root = manifests({"opctl.yaml": config(setname, namespace), "old.yaml": configmap("old", namespace)})
    assert cluster.reconcile("--path", str(root)).returncode == 0
    (root / "old.yaml").unlink()
    (root / "new.yaml").write_text(configmap("new", namespace))

    objects = tree_json(cluster, root)["waves"][0]["objects"]
    assert find(objects, "ConfigMap", "new")["presence"] == "missing"
    assert find(objects, "ConfigMap", "old")["presence"] == "not in source"
    assert not cluster.exists("configmap", "new", "-n", namespace), "tree only reads"
    assert cluster.exists("configmap", "old", "-n", namespace), "tree only reads"
