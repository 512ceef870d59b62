"""A Cluster without spec.imageName (issue 37, item 7): it runs the site default (opctl.yaml
spec.clusterDefaults.imageName, --default-postgres-image), else the built-in ghcr.io/opctl/postgresql:15-0.1.0,
which no public registry serves; validate and each pass warn how to build and push deploy/postgresql.Dockerfile.

The test node serves the built-in name as a stand-in (tests/testenv/images/postgresql.recipe tags its build so, as
nginx.recipe tags docker.io/library/nginx:1.27), so such a Cluster runs there. Read back with kubectl: the Cluster
as stored (no imageName: the CRD defaults none), its Pod's image, phase and readiness.
"""
import uuid

import pytest

from postgres_support import IMAGE, UPDATE_IMAGE, prepare_node_suite

BUILTIN = "ghcr.io/opctl/postgresql:15-0.1.0"
WARNING = "spec.imageName: not set, and no site default is"


@pytest.fixture(scope="module")
def node(cluster):
    prepare_node_suite(cluster)


@pytest.fixture
def named_set(cluster, namespace, tmp_path):
    """A set name for the test; afterwards its Clusters are deleted and a pass of the now empty set lets their
    finalizer go, so the namespace can be deleted."""
    name = f"img-{uuid.uuid4().hex[:8]}"
    yield name
    cluster.kubectl("delete", "clusters.opctl.io", "--all", "-n", namespace, "--wait=false", check=False)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "opctl.yaml").write_text(config_yaml(name, namespace))
    cluster.reconcile("--path", str(empty))


def config_yaml(name, namespace, default_image=None):
    text = f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
    if default_image:
        text += f"spec:\n  clusterDefaults:\n    imageName: {default_image}\n"
    return text


def cluster_yaml(namespace, image=None):
    # Line 6 is `spec:`, where the warning points.
    return (f"apiVersion: opctl.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: db\n  namespace: {namespace}\n"
            "spec:\n  instances: 1\n  storage:\n    size: 1Gi\n" + (f"  imageName: {image}\n" if image else ""))


def output(result):
    return f"exit {result.returncode}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"


def test_validate_warns_how_to_build_and_push_the_image_unless_a_site_default_is_set(cluster, namespace,
                                                                                    manifests):
    root = manifests({"db.yaml": cluster_yaml(namespace)})
    warned = cluster.opctl("validate", "--path", str(root))
    assert warned.returncode == 0, output(warned)  # advice, not an error
    text = warned.stdout + warned.stderr
    assert f"db.yaml:6: {WARNING}: the instances run {BUILTIN}, which no public registry serves" in text, text
    assert "docker build -f deploy/postgresql.Dockerfile" in text and "docker push" in text, text
    assert "spec.clusterDefaults.imageName" in text and "--default-postgres-image" in text, text
    assert "0 errors, 1 warnings" in text, text

    flagged = cluster.opctl("validate", "--path", str(root), "--default-postgres-image", IMAGE)
    assert flagged.returncode == 0 and WARNING not in flagged.stdout + flagged.stderr, output(flagged)
    (root / "opctl.yaml").write_text(config_yaml("img-validate", namespace, default_image=IMAGE))
    configured = cluster.opctl("validate", "--path", str(root))
    assert configured.returncode == 0 and WARNING not in configured.stdout + configured.stderr, output(configured)

    # A site default must carry the major version in its tag, as imageName must.
    (root / "opctl.yaml").write_text(config_yaml("img-validate", namespace, default_image="localhost/pg:latest"))
    refused = cluster.opctl("validate", "--path", str(root))
    assert refused.returncode == 2, output(refused)
    assert "db.yaml:6: spec.imageName: not set, and the site default localhost/pg:latest" in \
        refused.stdout + refused.stderr, output(refused)


def test_a_cluster_without_image_name_runs_the_built_in_default_the_test_node_serves(cluster, namespace, manifests,
                                                                                   named_set, node):
    root = manifests({"opctl.yaml": config_yaml(named_set, namespace), "db.yaml": cluster_yaml(namespace)})
    first = cluster.reconcile("--path", str(root))
    assert first.returncode == 0, output(first)
    assert f"db.yaml:6: {WARNING}" in first.stderr, output(first)
    stored = cluster.get_json("clusters.opctl.io", "db", "-n", namespace)
    assert "imageName" not in stored["spec"], stored["spec"]  # the CRD wrote no default over the site's

    def pod():
        return cluster.get_json("pod", "db-1", "-n", namespace) if cluster.exists("pod", "db-1", "-n",
                                                                                  namespace) else None

    def running_and_ready():
        found = pod()
        return found is not None and found.get("status", {}).get("phase") == "Running" and any(
            c["type"] == "Ready" and c["status"] == "True" for c in found["status"].get("conditions", []))

    passes = [first]
    for _ in range(150):  # about 2 s a pass: at most five minutes
        if running_and_ready():
            break
        passes.append(cluster.reconcile("--path", str(root)))
        assert passes[-1].returncode == 0, output(passes[-1])
    found = pod()
    assert found is not None and running_and_ready(), (
        f"db-1 not Running and Ready after {len(passes)} passes: {found and found.get('status')}\n"
        f"{output(passes[-1])}\nstatus: {cluster.get_json('clusters.opctl.io', 'db', '-n', namespace).get('status')}")
    assert [c["image"] for c in found["spec"]["containers"]] == [BUILTIN]
    statuses = found["status"]["containerStatuses"]
    assert all("running" in s["state"] for s in statuses), statuses


def test_the_site_default_of_opctl_yaml_is_what_a_cluster_without_image_name_runs(cluster, namespace, manifests,
                                                                                 named_set, node):
    root = manifests({"opctl.yaml": config_yaml(named_set, namespace, default_image=UPDATE_IMAGE),
                      "db.yaml": cluster_yaml(namespace)})
    result = cluster.reconcile("--path", str(root))
    assert result.returncode == 0, output(result)
    assert WARNING not in result.stderr, output(result)
    pod = cluster.get_json("pod", "db-1", "-n", namespace)
    assert [c["image"] for c in pod["spec"]["containers"]] == [UPDATE_IMAGE]
    assert "imageName" not in cluster.get_json("clusters.opctl.io", "db", "-n", namespace)["spec"]


def test_an_instance_that_cannot_pull_its_image_says_how_to_build_and_push_one(cluster, namespace, manifests,
                                                                              named_set, node):
    absent = "localhost/opctl-e2e-absent-postgresql:15"  # no recipe names it: the kubelet cannot pull it
    root = manifests({"opctl.yaml": config_yaml(named_set, namespace), "db.yaml": cluster_yaml(namespace, absent)})
    message, result = "", None
    for _ in range(60):  # the kubelet reports ErrImagePull within seconds
        result = cluster.reconcile("--path", str(root))
        assert result.returncode == 0, output(result)  # not Degraded: a later pull may succeed
        conditions = cluster.get_json("clusters.opctl.io", "db", "-n", namespace).get("status", {}).get(
            "conditions", [])
        message = next((c.get("message", "") for c in conditions if c["type"] == "Ready"), "")
        if "cannot pull" in message:
            break
    assert "the nodes cannot pull the instance image (db-1: " in message, f"{message}\n{output(result)}"
    assert any(reason in message for reason in ("ErrImagePull", "ImagePullBackOff")), message
    assert "build deploy/postgresql.Dockerfile" in message and "docker push" in message, message
    pod = cluster.get_json("pod", "db-1", "-n", namespace)
    waiting = [s["state"].get("waiting", {}).get("reason") for s in pod["status"]["containerStatuses"]]
    assert set(waiting) & {"ErrImagePull", "ImagePullBackOff"}, waiting
