"""opctl diff --base, end to end: the set at a base revision and at the head,
from real commits of a real git repository (and from a CI checkout: the work
tree against a ref of its own repository), compared with no cluster at all,
then, with a cluster, what the head would change live; text, Markdown (the
pull-request comment) and JSON, Secret values masked, the cluster untouched.
"""
import base64
import json
import os
import pathlib
import subprocess

import pytest

from git_servers import Upstream
from test_diff import read_only_kubeconfig

ROOT = pathlib.Path(__file__).resolve().parents[2]


def config_map(name, value, namespace):
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\ndata:\n  v: \"{value}\"\n"


def secret(password, namespace):
    return (f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  namespace: {namespace}\n"
            f"stringData:\n  password: {password}\n")


def opctl_yaml(name, namespace):
    return f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"


@pytest.fixture
def revisions(tmp_path, namespace):
    """A repository with a base commit and a head commit that edits, removes and adds objects."""
    upstream = Upstream(tmp_path)
    base = upstream.commit({
        "manifests/opctl.yaml": opctl_yaml("base1", namespace),
        "manifests/edited.yaml": config_map("edited", "1", namespace),
        "manifests/gone.yaml": config_map("gone", "1", namespace),
        "manifests/kept.yaml": config_map("kept", "1", namespace),
        "manifests/secret.yaml": secret("old-pass-1", namespace),
    }, "base")
    head = upstream.commit({
        "manifests/edited.yaml": config_map("edited", "2", namespace),
        "manifests/gone.yaml": None,
        "manifests/new.yaml": config_map("new", "1", namespace),
        "manifests/secret.yaml": secret("new-pass-2", namespace),
    }, "head")
    return upstream, base, head


def no_cluster_env(tmp_path):
    """No KUBECONFIG and a HOME without ~/.kube: nothing to reach a cluster with."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {"HOME": str(home), "XDG_CACHE_HOME": str(tmp_path / "xdg")}


def diff_base(cluster, upstream, base, head, *args, env=None):
    return cluster.opctl("diff", "--repo", upstream.file_url, "--ref", head, "--path", "manifests", "--base", base,
                         *args, env=env)


def by_name(report):
    return {o["name"]: o for o in report["objects"]}


def assert_no_secret_values(text):
    for value in ["old-pass-1", "new-pass-2"]:
        assert value not in text and base64.b64encode(value.encode()).decode() not in text


def test_two_commits_compared_with_no_cluster(cluster, namespace, tmp_path, revisions):
    upstream, base, head = revisions
    env = no_cluster_env(tmp_path)
    result = diff_base(cluster, upstream, base, head, "--no-cluster", "-o", "json", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["kind"] == "RevisionDiffReport" and report["apiVersion"] == "opctl.io/v1alpha1"
    assert report["base"]["commit"] == base and report["head"]["commit"] == head
    assert report["base"]["ref"] == base and report["head"]["path"] == "manifests"
    assert report["summary"] == {"added": 1, "changed": 2, "removed": 1, "unchanged": 1}
    objects = by_name(report)
    assert objects["new"]["action"] == "added"
    assert objects["gone"]["action"] == "removed"
    assert objects["kept"]["action"] == "unchanged"
    assert objects["edited"]["action"] == "changed" and objects["edited"]["changedPaths"] == ["/data/v"]
    assert objects["edited"]["source"]["file"].endswith(":manifests/edited.yaml")
    assert objects["db"]["action"] == "changed" and objects["db"]["changedPaths"] == ["/data/password"]
    assert report["live"] is None
    assert_no_secret_values(result.stdout)

    text = diff_base(cluster, upstream, base, head, "--no-cluster", "--exit-code", env=env)
    assert text.returncode == 1, text.stdout + text.stderr
    lines = text.stdout.splitlines()
    assert f"+ v1 ConfigMap {namespace}/new" in lines
    assert f"- v1 ConfigMap {namespace}/gone" in lines
    assert f"~ v1 ConfigMap {namespace}/edited" in lines
    assert '-  v: "1"' in lines and '+  v: "2"' in lines
    assert "1 added, 2 changed, 1 removed, 1 unchanged between the revisions" in lines
    assert "Against the cluster: not compared with a cluster (--no-cluster)" in lines
    assert "*** (before)" in text.stdout and "*** (after)" in text.stdout
    assert_no_secret_values(text.stdout + text.stderr)

    same = diff_base(cluster, upstream, head, head, "--no-cluster", "--exit-code", env=env)
    assert same.returncode == 0, same.stdout + same.stderr
    assert "0 added, 0 changed, 0 removed, 4 unchanged between the revisions" in same.stdout


def test_markdown_is_a_pull_request_comment(cluster, namespace, tmp_path, revisions):
    upstream, base, head = revisions
    result = diff_base(cluster, upstream, base, head, "--no-cluster", "-o", "markdown", env=no_cluster_env(tmp_path))
    assert result.returncode == 0, result.stderr
    md = result.stdout
    assert md.startswith("### opctl diff: what this change does\n")
    assert f"Base `{base}@{base[:12]}` → head `{head}@{head[:12]}`, path `manifests`." in md
    assert "| added | changed | removed | unchanged |\n|---:|---:|---:|---:|\n| 1 | 2 | 1 | 1 |\n" in md
    assert f"| + | `v1 ConfigMap {namespace}/new` |" in md
    assert f"| - | `v1 ConfigMap {namespace}/gone` |" in md and "| removed |" in md
    assert f"<details><summary><code>~ v1 ConfigMap {namespace}/edited</code></summary>" in md
    assert "```diff\n" in md
    assert "#### Against the cluster\n\n_not compared with a cluster (--no-cluster)._" in md
    assert_no_secret_values(md)


def test_with_a_cluster_the_live_changes_of_the_head_follow_and_nothing_changes(cluster, namespace, tmp_path,
                                                                                revisions):
    upstream, base, head = revisions
    cache = str(tmp_path / "cache")
    applied = cluster.reconcile("--repo", upstream.file_url, "--ref", base, "--path", "manifests", "--cache-dir", cache)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    # Drift the PR does not cause: the live diff shows it, the revision diff does not.
    cluster.kubectl("patch", "configmap", "kept", "-n", namespace, "--type", "merge", "-p", '{"data":{"v":"drifted"}}')

    result = diff_base(cluster, upstream, base, head, "--kubeconfig", cluster.kubeconfig, "--cache-dir", cache,
                       "--prune", "--exit-code", "-o", "json")
    assert result.returncode == 1, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["summary"] == {"added": 1, "changed": 2, "removed": 1, "unchanged": 1}
    live = report["live"]
    assert live["kind"] == "DiffReport"
    assert live["summary"] == {"added": 1, "changed": 3, "pruned": 1, "unchanged": 0, "failed": 0}
    live_objects = {o["name"]: o for o in live["objects"]}
    assert live_objects["new"]["action"] == "added"
    assert live_objects["gone"]["action"] == "pruned"
    assert live_objects["kept"]["action"] == "changed" and live_objects["kept"]["changedPaths"] == ["/data/v"]
    assert_no_secret_values(result.stdout)

    text = diff_base(cluster, upstream, base, head, "--kubeconfig", cluster.kubeconfig, "--cache-dir", cache)
    assert text.returncode == 0, text.stderr
    assert "Against the cluster (what a pass with the head would change):" in text.stdout
    assert f"~ v1 ConfigMap {namespace}/kept" in text.stdout.split("Against the cluster")[1]
    assert f"~ v1 ConfigMap {namespace}/kept" not in text.stdout.split("Against the cluster")[0]

    # The diff changed nothing.
    assert cluster.get_json("configmap", "edited", "-n", namespace)["data"]["v"] == "1"
    assert cluster.exists("configmap", "gone", "-n", namespace)
    assert not cluster.exists("configmap", "new", "-n", namespace)

    # Read-only credentials: the same report, the live part compared locally.
    reader = read_only_kubeconfig(cluster, namespace, tmp_path)
    cluster.kubectl("create", "role", "secret-reader", "-n", namespace, "--verb=get,list", "--resource=secrets")
    cluster.kubectl("create", "rolebinding", "secret-reader", "-n", namespace, "--role=secret-reader",
                    f"--serviceaccount={namespace}:reader")
    read_only = diff_base(cluster, upstream, base, head, "--kubeconfig", reader, "--cache-dir", cache, "-o", "json")
    assert read_only.returncode == 0, read_only.stdout + read_only.stderr
    report = json.loads(read_only.stdout)
    assert report["summary"]["added"] == 1
    assert {o["name"]: o["action"] for o in report["live"]["objects"]}["new"] == "added"


def test_a_ci_checkout_compares_its_work_tree_with_a_ref_of_its_repository(cluster, namespace, tmp_path, revisions):
    upstream, base, head = revisions
    work = upstream.work
    # A pull request's checkout: main is the base on origin, the head adds a commit and an uncommitted edit.
    subprocess.run(["git", "-C", str(work), "reset", "-q", "--hard", base], check=True)
    (work / "manifests" / "kept.yaml").write_text(config_map("kept", "edited-in-work-tree", namespace))
    (work / "manifests" / "extra.yaml").write_text(config_map("extra", "1", namespace))
    env = no_cluster_env(tmp_path)
    result = cluster.opctl("diff", "--path", str(work / "manifests"), "--base", "origin/main~1", "--no-cluster",
                           "-o", "json", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["base"]["commit"] == base and report["base"]["ref"] == "origin/main~1"
    assert report["head"]["commit"] == base + "-dirty"
    assert {o["name"]: o["action"] for o in report["objects"]} == {
        "edited": "unchanged", "gone": "unchanged", "db": "unchanged", "kept": "changed", "extra": "added"}
    assert by_name(report)["extra"]["source"]["file"] == str(work / "manifests" / "extra.yaml")

    # Against origin/main (the head commit): the work tree is behind it and has its own edits.
    behind = cluster.opctl("diff", "--path", str(work / "manifests"), "--base", "origin/main", "--no-cluster",
                           "-o", "json", env=env)
    assert behind.returncode == 0, behind.stderr
    actions = {o["name"]: o["action"] for o in json.loads(behind.stdout)["objects"]}
    assert actions["new"] == "removed" and actions["gone"] == "added" and actions["edited"] == "changed"

    unknown = cluster.opctl("diff", "--path", str(work / "manifests"), "--base", "no-such-branch", "--no-cluster",
                            env=env)
    assert unknown.returncode == 2
    assert 'no revision "no-such-branch"' in unknown.stderr

    outside = tmp_path / "plain"
    outside.mkdir()
    (outside / "a.yaml").write_text(config_map("a", "1", namespace))
    not_git = cluster.opctl("diff", "--path", str(outside), "--base", "main", "--no-cluster", env=env)
    assert not_git.returncode == 2 and "is in no git work tree" in not_git.stderr


def test_no_cluster_needs_base(cluster, tmp_path, manifests):
    root = manifests({"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"})
    result = cluster.opctl("diff", "--path", str(root), "--no-cluster", env=no_cluster_env(tmp_path))
    assert result.returncode == 2 and "--no-cluster: needs --base" in result.stderr


def test_helm_values_changed_between_revisions_show_at_the_template(cluster, namespace, tmp_path):
    built = subprocess.run([str(ROOT / "tests" / "tools" / "build.sh"), "helm"], capture_output=True, text=True,
                           timeout=1800)
    assert built.returncode == 0, built.stderr
    helm_dir = pathlib.Path(built.stdout.strip()).parent
    upstream = Upstream(tmp_path)
    template = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-settings\n"
                "data:\n  size: {{ .Values.size | quote }}\n")
    base = upstream.commit({"env/chart/Chart.yaml": "apiVersion: v2\nname: app\nversion: 1.0.0\n",
                            "env/chart/values.yaml": "size: small\n",
                            "env/chart/templates/settings.yaml": template}, "base")
    head = upstream.commit({"env/chart/values.yaml": "size: large\n"}, "bigger")
    env = {**no_cluster_env(tmp_path), "PATH": f"{helm_dir}:{os.environ['PATH']}"}
    result = cluster.opctl("diff", "--repo", upstream.file_url, "--ref", head, "--path", "env", "--base", base,
                           "--no-cluster", "-o", "json", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    [changed] = [o for o in json.loads(result.stdout)["objects"] if o["action"] != "unchanged"]
    assert changed["name"] == "app-settings" and changed["changedPaths"] == ["/data/size"]
    assert changed["source"]["file"].endswith(":env/chart/templates/settings.yaml (helm release app)")
