"""The prune guards (issue 36): an emptied source, a mass deletion and objects that hold data are not pruned unless
the run (or the object) allows it; a refused pass changes nothing, exits 2 naming the set, its member count and
what would go, and leaves a PruneRefused Event on the set's parent. `--dry-run`, `opctl diff --prune` and
`opctl status` refuse the same way. Every result is read back with kubectl."""
import json
import uuid

import pytest


def config(name, set_namespace, extra=""):
    return (f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {name}\n  namespace: {set_namespace}\n"
            f"spec:\n  prune: true\n  lease:\n    enabled: false\n{extra}")


def configmap(name, namespace):
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\ndata:\n  k: v\n"


@pytest.fixture
def setname():
    return "g" + uuid.uuid4().hex[:8]


def write(root, files):
    """The directory holds exactly `files` afterwards."""
    root.mkdir(parents=True, exist_ok=True)
    for old in root.iterdir():
        if old.name not in files:
            old.unlink()
    for name, text in files.items():
        (root / name).write_text(text)
    return root


def configmaps_in(cluster, namespace):
    listed = cluster.kubectl("get", "configmaps", "-n", namespace, "-o", "name").stdout.split()
    return sorted(name.split("/", 1)[1] for name in listed if not name.endswith("kube-root-ca.crt"))


def refused_events(cluster, namespace, setname):
    listed = cluster.get_json("events", "-n", namespace, "--field-selector", f"involvedObject.name=opctl-{setname}")
    return [event["message"] for event in listed["items"] if event["reason"] == "PruneRefused"]


def test_an_emptied_source_prunes_nothing_unless_allowed(cluster, namespace, tmp_path, setname):
    root = tmp_path / "set"
    members = {f"cm-{i:02}.yaml": configmap(f"cm-{i:02}", namespace) for i in range(20)}
    write(root, {"opctl.yaml": config(setname, namespace), **members})
    first = cluster.reconcile("--path", str(root))
    assert first.returncode == 0, first.stdout + first.stderr
    assert len(configmaps_in(cluster, namespace)) == 20

    # A bad merge empties the directory (only its opctl.yaml is left).
    write(root, {"opctl.yaml": config(setname, namespace)})
    for command in (["reconcile"], ["reconcile", "--dry-run"], ["diff", "--prune"]):
        refused = cluster.opctl(*command, "--kubeconfig", cluster.kubeconfig, "--path", str(root))
        assert refused.returncode == 2, (command, refused.stdout + refused.stderr)
        assert f"refusing to prune the set {namespace}/opctl-{setname}" in refused.stderr, refused.stderr
        assert "yields no objects, and the set has 20 members" in refused.stderr, refused.stderr
        assert "--allow-empty" in refused.stderr
    assert len(configmaps_in(cluster, namespace)) == 20, "nothing was deleted"
    status = json.loads(cluster.opctl("status", "--kubeconfig", cluster.kubeconfig, "--path", str(root),
                                      "-o", "json").stdout)
    assert "yields no objects" in status["nextPass"]["pruneRefused"], status["nextPass"]
    events = refused_events(cluster, namespace, setname)
    assert len(events) == 1 and "20 members" in events[0], events  # the real pass only, not the dry run

    allowed = cluster.reconcile("--path", str(root), "--allow-empty")
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    assert configmaps_in(cluster, namespace) == []


def test_a_kustomization_that_renders_nothing_prunes_nothing(cluster, namespace, tmp_path, setname):
    root = tmp_path / "set"
    members = {f"cm-{i}.yaml": configmap(f"cm-{i}", namespace) for i in range(6)}
    kustomization = "resources:\n" + "".join(f"- {name}\n" for name in members)
    write(root, {"opctl.yaml": config(setname, namespace), "kustomization.yaml": kustomization, **members})
    first = cluster.reconcile("--path", str(root))
    assert first.returncode == 0, first.stdout + first.stderr
    assert len(configmaps_in(cluster, namespace)) == 6

    # A bad edit leaves the kustomization listing nothing: kustomize renders an empty stream, without an error.
    write(root, {"opctl.yaml": config(setname, namespace), "kustomization.yaml": "resources: []\n", **members})
    refused = cluster.reconcile("--path", str(root))
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "yields no objects, and the set has 6 members" in refused.stderr, refused.stderr
    assert len(configmaps_in(cluster, namespace)) == 6, "nothing was deleted"


def test_a_mass_deletion_is_refused_until_the_limit_is_raised(cluster, namespace, tmp_path, setname):
    root = tmp_path / "set"
    members = {f"cm-{i:02}.yaml": configmap(f"cm-{i:02}", namespace) for i in range(12)}
    write(root, {"opctl.yaml": config(setname, namespace), **members})
    assert cluster.reconcile("--path", str(root)).returncode == 0

    # 7 of the 12 leave the source: more than 50% (6).
    kept = dict(list(members.items())[:5])
    write(root, {"opctl.yaml": config(setname, namespace), **kept})
    refused = cluster.reconcile("--path", str(root))
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "would delete 7 of its 12 members, more than --max-prune 50% allows (6)" in refused.stderr, refused.stderr
    assert f"ConfigMap {namespace}/cm-05" in refused.stderr
    assert len(configmaps_in(cluster, namespace)) == 12, "nothing was deleted"
    preview = cluster.opctl("diff", "--kubeconfig", cluster.kubeconfig, "--path", str(root))
    assert preview.returncode == 2 and "--max-prune" in preview.stderr, preview.stdout + preview.stderr

    # maxPrune in opctl.yaml, or the flag for one run, allows it.
    write(root, {"opctl.yaml": config(setname, namespace, "  maxPrune: 7\n"), **kept})
    allowed = cluster.reconcile("--path", str(root))
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    assert configmaps_in(cluster, namespace) == [f"cm-{i:02}" for i in range(5)]


def test_objects_that_hold_data_are_kept_unless_allowed(cluster, namespace, tmp_path, setname):
    root = tmp_path / "set"
    claim = (f"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\n  namespace: {namespace}\n"
             f"spec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 1Gi\n")
    scratch = claim.replace("name: data", "name: scratch").replace(
        f"namespace: {namespace}\n", f"namespace: {namespace}\n  annotations:\n    opctl.io/prune-data: \"true\"\n", 1)
    anchor = {"anchor.yaml": configmap("anchor", namespace)}
    write(root, {"opctl.yaml": config(setname, namespace), "data.yaml": claim, "scratch.yaml": scratch, **anchor})
    assert cluster.reconcile("--path", str(root)).returncode == 0

    # Both claims leave git: the annotated one goes, the other is kept with the reason.
    write(root, {"opctl.yaml": config(setname, namespace), **anchor})
    result = cluster.reconcile("--path", str(root))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"PersistentVolumeClaim {namespace}/data kept" in result.stdout, result.stdout
    assert "it holds data" in result.stdout and "--prune-data" in result.stdout
    assert cluster.exists("pvc", "data", "-n", namespace)
    claims = cluster.get_json("pvc", "-n", namespace)["items"]
    assert [c["metadata"]["name"] for c in claims if not c["metadata"].get("deletionTimestamp")] == ["data"]

    forced = cluster.reconcile("--path", str(root), "--prune-data")
    assert forced.returncode == 0, forced.stdout + forced.stderr
    claims = cluster.get_json("pvc", "-n", namespace)["items"]
    assert all(c["metadata"].get("deletionTimestamp") for c in claims), claims
