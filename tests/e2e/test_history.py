"""opctl history and opctl rollback, end to end: a git repository on disk with
three commits reconciled one after another, the history the set's ApplySet
parent records (read back with kubectl), a rollback to the first commit that
kubectl confirms, and the next pass of the CronJob (the same `opctl
reconcile`, following the branch) that keeps the rollback instead of undoing
it, until the set is unpinned or, when asked, a new commit arrives.
"""
import json

import pytest

from git_servers import Upstream


def config_map(name, value, namespace):
    return (f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
            f"data:\n  v: \"{value}\"\n")


def opctl_yaml(name, namespace):
    return f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"


@pytest.fixture
def three_commits(tmp_path, namespace):
    """A repository whose three commits set app's value to 1, 2 and 3; the second adds `extra`."""
    upstream = Upstream(tmp_path)
    first = upstream.commit({"manifests/opctl.yaml": opctl_yaml("hist", namespace),
                             "manifests/app.yaml": config_map("app", "1", namespace)}, "first")
    second = upstream.commit({"manifests/app.yaml": config_map("app", "2", namespace),
                              "manifests/extra.yaml": config_map("extra", "2", namespace)}, "second")
    third = upstream.commit({"manifests/app.yaml": config_map("app", "3", namespace)}, "third")
    return upstream, [first, second, third]


def value_of(cluster, namespace, name="app"):
    return cluster.get_json("configmap", name, "-n", namespace)["data"]["v"]


def parent_annotations(cluster, namespace):
    return cluster.get_json("secret", "opctl-hist", "-n", namespace)["metadata"]["annotations"]


def git_args(cluster, upstream, tmp_path):
    return ["--kubeconfig", cluster.kubeconfig, "--repo", upstream.file_url, "--path", "manifests", "--prune",
            "--cache-dir", str(tmp_path / "cache")]


def tick(cluster, args):
    """One run of the CronJob: the same reconcile, following the branch."""
    result = cluster.opctl("reconcile", *args)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def history(cluster, args):
    result = cluster.opctl("history", *[a for a in args if a != "--prune"], "-o", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


def test_three_passes_recorded_and_a_rollback_that_the_next_tick_keeps(cluster, namespace, tmp_path,
                                                                        three_commits):
    upstream, commits = three_commits
    args = git_args(cluster, upstream, tmp_path)
    # Given three passes, one per commit (the branch moved on between them), ...
    for index, commit in enumerate(commits):
        upstream._run("push", "-q", "--force", "origin", f"{commit}:refs/heads/main")
        tick(cluster, args)
        assert value_of(cluster, namespace) == str(index + 1)

    # ... we should find them in the parent's history, newest first, as kubectl reads it.
    recorded = json.loads(parent_annotations(cluster, namespace)["opctl.io/history"])
    assert [entry["commit"] for entry in recorded] == list(reversed(commits))
    assert [entry["id"] for entry in recorded] == [3, 2, 1]
    assert all(entry["result"] == "succeeded" and entry["ref"] == "main" for entry in recorded)
    assert [entry["subject"] for entry in recorded] == ["third", "second", "first"]
    assert recorded[0]["configured"] == 1 and recorded[1]["created"] == 1
    assert all(entry["durationSeconds"] >= 0 for entry in recorded)
    shown = history(cluster, args)
    assert shown["set"] == f"{namespace}/opctl-hist"
    assert shown["pin"] is None
    assert shown["entries"] == recorded
    text = cluster.opctl("history", *[a for a in args if a != "--prune"])
    assert text.returncode == 0, text.stderr
    assert commits[2][:7] in text.stdout and "succeeded" in text.stdout

    # A rollback to the first commit (by its short SHA) applies it through the normal pass: kubectl sees
    # the old value and the ConfigMap the first commit did not have pruned.
    rolled = cluster.opctl("rollback", *args, "--to", commits[0][:8])
    assert rolled.returncode == 0, rolled.stdout + rolled.stderr
    assert "rolling back to" in rolled.stderr
    assert value_of(cluster, namespace) == "1"
    assert not cluster.exists("configmap", "extra", "-n", namespace)
    pin = json.loads(parent_annotations(cluster, namespace)["opctl.io/pinned"])
    assert pin["commit"] == commits[0]
    assert pin["ref"] == "main" and pin["refCommit"] == commits[2]
    assert pin["untilNewCommit"] is False and pin["by"]

    # The CronJob's next tick follows main, whose head is still the third commit: it keeps the rollback
    # and says why.
    kept = tick(cluster, args + ["-o", "json"])
    assert value_of(cluster, namespace) == "1"
    assert not cluster.exists("configmap", "extra", "-n", namespace)
    report = json.loads(kept.stdout)
    assert report["pin"]["commit"] == commits[0]
    assert "pinned at" in report["pin"]["note"]
    assert "pinned at" in kept.stderr

    # A new commit on main does not lift a plain pin either.
    fourth = upstream.commit({"manifests/app.yaml": config_map("app", "4", namespace)}, "fourth")
    tick(cluster, args)
    assert value_of(cluster, namespace) == "1"

    entries = json.loads(parent_annotations(cluster, namespace)["opctl.io/history"])
    assert [entry["commit"] for entry in entries[:3]] == [commits[0], commits[0], commits[0]]
    assert entries[2].get("rollback") is True and entries[2]["pinned"] == commits[0]
    assert "rollback" not in entries[0] and entries[0]["pinned"] == commits[0]
    assert entries[2]["pruned"] == 1
    assert [entry["id"] for entry in entries] == [6, 5, 4, 3, 2, 1]

    read_args = [a for a in args if a != "--prune"]
    status = cluster.opctl("status", *read_args, "-o", "json")
    assert status.returncode == 0, status.stderr
    status_json = json.loads(status.stdout)
    assert status_json["pin"]["commit"] == commits[0]
    assert status_json["pin"]["headCommit"] == fourth
    # Drift and the next pass are judged against the pinned commit, as the next pass loads it: in sync.
    assert status_json["drift"] == [], status_json["drift"]
    status_text = cluster.opctl("status", *read_args)
    assert "Pinned: at " + commits[0][:7] in status_text.stdout

    # Unpinned, the set follows main again: the fourth commit is applied and the pin is gone.
    unpinned = cluster.opctl("rollback", *args, "--unpin")
    assert unpinned.returncode == 0, unpinned.stdout + unpinned.stderr
    assert value_of(cluster, namespace) == "4"
    assert "opctl.io/pinned" not in parent_annotations(cluster, namespace)
    assert history(cluster, args)["entries"][0]["commit"] == fourth


def test_a_pin_until_a_new_commit_is_lifted_by_the_next_commit(cluster, namespace, tmp_path, three_commits):
    upstream, commits = three_commits
    args = git_args(cluster, upstream, tmp_path)
    tick(cluster, args)
    assert value_of(cluster, namespace) == "3"
    rolled = cluster.opctl("rollback", *args, "--to", commits[1], "--until-new-commit")
    assert rolled.returncode == 0, rolled.stdout + rolled.stderr
    assert value_of(cluster, namespace) == "2"
    tick(cluster, args)  # main has not moved: still pinned
    assert value_of(cluster, namespace) == "2"

    upstream.commit({"manifests/app.yaml": config_map("app", "5", namespace)}, "fix")
    lifted = tick(cluster, args)
    assert "lifted the pin" in lifted.stderr
    assert value_of(cluster, namespace) == "5"
    assert "opctl.io/pinned" not in parent_annotations(cluster, namespace)


def test_rollback_in_a_git_checkout_and_not_in_a_plain_directory(cluster, namespace, tmp_path, three_commits,
                                                                 manifests):
    upstream, commits = three_commits
    checkout = ["--kubeconfig", cluster.kubeconfig, "--path", str(upstream.work / "manifests")]
    tick(cluster, checkout)
    assert value_of(cluster, namespace) == "3"
    rolled = cluster.opctl("rollback", *checkout, "--to", "HEAD~1")
    assert rolled.returncode == 0, rolled.stdout + rolled.stderr
    assert value_of(cluster, namespace) == "2"
    tick(cluster, checkout)
    assert value_of(cluster, namespace) == "2"
    assert json.loads(parent_annotations(cluster, namespace)["opctl.io/pinned"])["commit"] == commits[1]

    plain = manifests({"app.yaml": config_map("plain", "1", namespace)})
    refused = cluster.opctl("rollback", "--kubeconfig", cluster.kubeconfig, "--path", str(plain), "--name", "p",
                            "--to", "HEAD~1")
    assert refused.returncode == 2
    assert "no revisions to roll back to" in refused.stderr
