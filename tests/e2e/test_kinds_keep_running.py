"""The custom kinds do not depend on the rest of the set (opctl-reconcile(1), WHEN THE SET CANNOT BE LOADED;
opctl-cluster-kind(5), WHAT RUNS WHEN): a pass whose set cannot be loaded (an invalid manifest, a git source that
cannot be fetched) applies nothing of the set and exits as before, but still takes the set's Lease and reconciles the
set's Clusters that exist from their live spec, so a child the Cluster owns that went missing comes back.

The Cluster's image does not exist, so its Pod never runs: what is checked here (its Services, its ServiceAccount,
its spec) needs no node, and nothing writes a Pod's status. Everything is read back with kubectl.
"""
import pathlib
import shutil

import pytest

from git_servers import GIT_HTTP_BACKEND, HttpGitServer, Upstream, require_programs
from kinds_support import install_crds, set_name

ABSENT_IMAGE = "localhost/opctl-e2e-keep-running-absent:15"  # never pulled: no PostgreSQL starts


@pytest.fixture(scope="module", autouse=True)
def crds(cluster):
    install_crds(cluster)


@pytest.fixture
def new_set(cluster, namespace, tmp_path):
    """Names a set for the test. Afterwards its Cluster is deleted and a pass of the set, now empty, finishes it
    (no volume ever held data, so its finalizer goes at once), or the namespace could never be deleted."""
    names = []

    def make():
        names.append(set_name())
        return names[-1]

    yield make
    cluster.kubectl("delete", "clusters.opctl.io", "--all", "-n", namespace, "--wait=false", check=False)
    for name in names:
        empty = tmp_path / f"empty-{name}"
        empty.mkdir()
        (empty / "opctl.yaml").write_text(set_config(name, namespace))
        finished = cluster.reconcile("--path", str(empty))
        assert finished.returncode == 0, output(finished)
    assert not cluster.exists("clusters.opctl.io", "db", "-n", namespace)


def set_config(name, namespace):
    """An opctl.yaml naming the set, with the Lease on (the default)."""
    return f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"


def cluster_yaml(namespace, instances=1, wave=None):
    annotations = f"  annotations:\n    opctl.io/wave: \"{wave}\"\n" if wave is not None else ""
    return (f"apiVersion: opctl.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: db\n  namespace: {namespace}\n"
            f"{annotations}spec:\n  instances: {instances}\n  imageName: {ABSENT_IMAGE}\n  storage:\n    size: 1Gi\n")


def config_map(namespace, name, data):
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\ndata:\n{data}"


def output(result):
    return f"exit {result.returncode}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"


def uid(cluster, *args):
    return cluster.get_json(*args)["metadata"]["uid"]


def lease_version(cluster, namespace, name):
    return cluster.get_json("lease", f"opctl-{name}", "-n", namespace)["metadata"]["resourceVersion"]


def assert_owned_by_db(cluster, namespace, *args):
    owner = cluster.get_json(*args, "-n", namespace)["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"], owner["controller"]) == ("Cluster", "db", True)
    assert owner["uid"] == uid(cluster, "clusters.opctl.io", "db", "-n", namespace)


def delete_children(cluster, namespace):
    """Children of the Cluster that need no node: its primary's Service and its instances' ServiceAccount."""
    cluster.kubectl("delete", "service", "db-rw", "-n", namespace)
    cluster.kubectl("delete", "serviceaccount", "db-1", "-n", namespace)
    assert not cluster.exists("service", "db-rw", "-n", namespace)


def children_back(cluster, namespace):
    return cluster.exists("service", "db-rw", "-n", namespace) and \
        cluster.exists("serviceaccount", "db-1", "-n", namespace)


def test_an_invalid_manifest_applies_nothing_but_the_existing_cluster_is_repaired_from_its_live_spec(
        cluster, namespace, manifests, new_set):
    name = new_set()
    files = {"opctl.yaml": set_config(name, namespace), "db.yaml": cluster_yaml(namespace)}
    root = manifests(files)
    first = cluster.reconcile("--path", str(root))
    assert first.returncode == 0, output(first)
    assert_owned_by_db(cluster, namespace, "service", "db-rw")
    old_service = uid(cluster, "service", "db-rw", "-n", namespace)
    delete_children(cluster, namespace)
    lease_before = lease_version(cluster, namespace, name)

    # The next commit is broken: an invalid ConfigMap, a valid new one, and the Cluster scaled to 2.
    root = manifests({"db.yaml": cluster_yaml(namespace, instances=2),
                      "broken.yaml": config_map(namespace, "broken", "  count: {a: b}\n"),
                      "fresh.yaml": config_map(namespace, "fresh", "  key: value\n")})
    bad = cluster.reconcile("--path", str(root))
    assert bad.returncode == 2, output(bad)
    assert "broken.yaml" in bad.stderr and "nothing was applied" in bad.stderr, output(bad)
    assert "kept 1 Cluster running from its live spec (nothing of the set was applied)" in bad.stderr, output(bad)

    # The Cluster repaired what it owns, from its live spec; nothing of the set was applied.
    assert children_back(cluster, namespace), output(bad)
    assert uid(cluster, "service", "db-rw", "-n", namespace) != old_service
    assert_owned_by_db(cluster, namespace, "service", "db-rw")
    assert_owned_by_db(cluster, namespace, "serviceaccount", "db-1")
    assert not cluster.exists("configmap", "broken", "-n", namespace)
    assert not cluster.exists("configmap", "fresh", "-n", namespace)
    assert cluster.get_json("clusters.opctl.io", "db", "-n", namespace)["spec"]["instances"] == 1
    assert not cluster.exists("pod", "db-2", "-n", namespace)
    assert not cluster.exists("pvc", "db-2", "-n", namespace)
    # It held the set's Lease while it wrote (taken and released: the Lease was written).
    assert lease_version(cluster, namespace, name) != lease_before

    # diff, validate, --dry-run and --no-keep-running reconcile nothing.
    delete_children(cluster, namespace)
    lease_before = lease_version(cluster, namespace, name)
    diff = cluster.opctl("diff", "--kubeconfig", cluster.kubeconfig, "--path", str(root))
    assert diff.returncode >= 2, output(diff)
    validate = cluster.opctl("validate", "--kubeconfig", cluster.kubeconfig, "--path", str(root))
    assert validate.returncode == 2, output(validate)
    dry = cluster.reconcile("--path", str(root), "--dry-run")
    assert dry.returncode == 2 and "kept" not in dry.stderr, output(dry)
    off = cluster.reconcile("--path", str(root), "--no-keep-running")
    assert off.returncode == 2 and "kept" not in off.stderr, output(off)
    assert not cluster.exists("service", "db-rw", "-n", namespace)
    assert not cluster.exists("serviceaccount", "db-1", "-n", namespace)
    assert lease_version(cluster, namespace, name) == lease_before

    # The fixed commit applies as usual.
    (pathlib.Path(root) / "broken.yaml").unlink()
    fixed = cluster.reconcile("--path", str(root))
    assert fixed.returncode == 0, output(fixed)
    assert children_back(cluster, namespace)
    assert cluster.exists("configmap", "fresh", "-n", namespace)
    assert cluster.get_json("clusters.opctl.io", "db", "-n", namespace)["spec"]["instances"] == 2


class GitSource:
    """A repository the test can take away: `file` (the bare repository is moved; opctl says it does not exist,
    exit 2) or `http` (smart HTTP behind basic auth, and the server is stopped; a fetch error, exit 3)."""

    def __init__(self, kind, tmp_path):
        self.kind, self.tmp_path, self.server, self.env = kind, tmp_path, None, {}
        if kind == "http":
            require_programs("git", "lighttpd", GIT_HTTP_BACKEND)
            self.server = HttpGitServer(tmp_path / "http", {"x-access-token": "tok-123"})
            self.env = {"OPCTL_GIT_TOKEN": "tok-123"}
            self.upstream = Upstream(self.server.root)
            self.url = self.server.url("repo.git")
        else:
            require_programs("git")
            self.upstream = Upstream(tmp_path)
            self.url = self.upstream.file_url

    def take_away(self):
        if self.server:
            self.server.stop()
        else:
            shutil.move(str(self.upstream.bare), str(self.tmp_path / "moved.git"))

    def close(self):
        if self.server:
            self.server.stop()


@pytest.fixture(params=["file", "http"])
def git_source(request, tmp_path):
    source = GitSource(request.param, tmp_path)
    yield source
    source.close()


def test_a_git_source_that_cannot_be_fetched_still_repairs_the_existing_cluster(cluster, namespace, tmp_path,
                                                                                new_set, git_source):
    name = new_set()
    git_source.upstream.commit({"manifests/db.yaml": cluster_yaml(namespace)}, "a Cluster")
    config_file = tmp_path / "opctl.yaml"  # -f: the set is known without its source
    config_file.write_text(set_config(name, namespace))
    common = ["--repo", git_source.url, "--path", "manifests", "--cache-dir", str(tmp_path / "cache")]

    def reconcile(*args):
        return cluster.reconcile(*args, *common, env=git_source.env)

    first = reconcile("-f", str(config_file))
    assert first.returncode == 0, output(first)
    delete_children(cluster, namespace)

    git_source.take_away()
    code = {"file": 2, "http": 3}[git_source.kind]
    without_f = reconcile("--name", name)  # the name alone: the set's namespace could be in the source's opctl.yaml
    assert without_f.returncode == code, output(without_f)
    assert "kept" not in without_f.stderr, output(without_f)
    assert not cluster.exists("service", "db-rw", "-n", namespace)

    off = reconcile("-f", str(config_file), "--no-keep-running")
    assert off.returncode == code, output(off)
    assert not cluster.exists("service", "db-rw", "-n", namespace)
    down = reconcile("-f", str(config_file))
    assert down.returncode == code, output(down)  # the fetch error's code
    assert down.stderr.startswith("error: "), output(down)
    assert "kept 1 Cluster running from its live spec" in down.stderr, output(down)
    assert children_back(cluster, namespace), output(down)
    assert_owned_by_db(cluster, namespace, "service", "db-rw")


def test_an_object_that_fails_to_apply_does_not_stop_the_cluster(cluster, namespace, manifests, new_set):
    name = new_set()
    files = {"opctl.yaml": set_config(name, namespace), "db.yaml": cluster_yaml(namespace)}
    root = manifests(files)
    first = cluster.reconcile("--path", str(root))
    assert first.returncode == 0, output(first)
    delete_children(cluster, namespace)

    # Wave 0 holds a Service the API refuses on apply (a nodePort out of range, which no schema says offline);
    # wave 1 the Cluster, scaled to 2, and a ConfigMap: both skipped, so the Cluster runs from its live spec.
    refused = (f"apiVersion: v1\nkind: Service\nmetadata:\n  name: refused\n  namespace: {namespace}\nspec:\n"
               "  type: NodePort\n  selector:\n    app: none\n  ports:\n  - port: 80\n    nodePort: 1\n")
    later = config_map(namespace, "later", "  key: value\n").replace(
        "metadata:\n", "metadata:\n  annotations:\n    opctl.io/wave: \"1\"\n", 1)
    root = manifests({"refused.yaml": refused, "later.yaml": later,
                      "db.yaml": cluster_yaml(namespace, instances=2, wave=1)})
    result = cluster.reconcile("--path", str(root))
    assert result.returncode == 3, output(result)
    assert "refused" in result.stderr, output(result)
    assert "kept running from its live spec" in result.stdout + result.stderr, output(result)
    assert not cluster.exists("service", "refused", "-n", namespace)
    assert not cluster.exists("configmap", "later", "-n", namespace)  # its wave was skipped
    assert children_back(cluster, namespace), output(result)
    assert_owned_by_db(cluster, namespace, "service", "db-rw")
    assert cluster.get_json("clusters.opctl.io", "db", "-n", namespace)["spec"]["instances"] == 1
    assert not cluster.exists("pod", "db-2", "-n", namespace)
