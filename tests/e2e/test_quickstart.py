"""The quickstart's demonstration (issue 37, item 6), run by the suite on the test node.

`./quickstart.sh` on a fresh machine installs opctl, builds and starts a control plane with a node, and then shows
manifests-example/ running. The install and start are what tests/run.sh itself does before the suite; this test runs
the rest of the script, unchanged, on the suite's control plane (OPCTL_QUICKSTART_KUBECONFIG), and checks with
kubectl and psql that what it claims is true: the web Deployment Available, the Cluster Healthy with streaming
replicas, a row written through db-rw read back from a replica.
"""
import base64
import os
import pathlib
import re
import subprocess

import pytest

REPO = pathlib.Path(os.environ.get("OPCTL_SOURCE_DIR", pathlib.Path(__file__).parents[2]))


def remove_shop(cluster):
    """Deletes manifests-example's namespace. The Cluster's final-backup finalizer is removed first: an opctl pass
    would take that backup, and no pass runs after the test."""
    for kind in ("clusters.opctl.io", "backups.opctl.io"):
        names = cluster.kubectl("get", kind, "-n", "shop", "-o", "name", check=False).stdout.split()
        for name in names:
            cluster.kubectl("patch", name, "-n", "shop", "--type=merge", "-p", '{"metadata":{"finalizers":null}}',
                            check=False)
    cluster.kubectl("delete", "namespace", "shop", "--ignore-not-found", "--wait=true", "--timeout=100s")


@pytest.fixture
def shop(cluster):
    """manifests-example's namespace, gone before and after: the example's three instances ask for 1.5 CPUs of the
    node's two."""
    remove_shop(cluster)
    yield "shop"
    remove_shop(cluster)


def run_quickstart(cluster):
    env = dict(os.environ, OPCTL_QUICKSTART_KUBECONFIG=cluster.kubeconfig, OPCTL_BIN=cluster.opctl_bin, NO_COLOR="1")
    env.pop("KUBECONFIG", None)
    return subprocess.run([str(REPO / "quickstart.sh")], capture_output=True, text=True, env=env, timeout=900)


def section(output, title):
    """The lines of the quickstart's section that starts with `== TITLE`."""
    match = re.search(r"^== " + re.escape(title) + r".*?\n(.*?)(?=^== |\Z)", output, re.S | re.M)
    assert match, f"no section {title!r} in:\n{output}"
    return match.group(1)


def secret_value(cluster, name, key):
    data = cluster.get_json("secret", name, "-n", "shop")["data"]
    return base64.b64decode(data[key]).decode()


def test_quickstart_shows_the_database_running(cluster, shop):
    result = run_quickstart(cluster)
    out = result.stdout
    assert result.returncode == 0, f"stdout:\n{out}\nstderr:\n{result.stderr}"

    # The web tier is Available, as kubectl itself says.
    web = cluster.get_json("deployment", "web", "-n", shop)
    available = [c for c in web["status"]["conditions"] if c["type"] == "Available"]
    assert available and available[0]["status"] == "True"
    assert web["status"].get("readyReplicas") == 2
    assert re.search(r"^web\s+2/2\s+2\s+2\b", section(out, "the web Deployment"), re.M), out

    # The Cluster is Healthy with three Ready instances, one primary and two streaming replicas.
    db = cluster.get_json("clusters.opctl.io", "db", "-n", shop)
    assert db["status"]["phase"] == "Healthy", db["status"]
    pods = cluster.get_json("pods", "-n", shop, "-l", "opctl.io/cluster=db")["items"]
    assert len(pods) == 3
    assert all(any(c["type"] == "Ready" and c["status"] == "True" for c in p["status"]["conditions"]) for p in pods)
    primary = db["status"]["currentPrimary"]
    superuser = secret_value(cluster, "db-superuser", "username")
    password = secret_value(cluster, "db-superuser", "password")
    streaming = cluster.kubectl(
        "exec", "-i", "-n", shop, primary, "--", "sh", "-c",
        'IFS= read -r PGPASSWORD; export PGPASSWORD; exec psql -h 127.0.0.1 -U "$0" -d postgres -X -A -t '
        '-c "SELECT count(*) FROM pg_stat_replication WHERE state = \'streaming\'"', superuser,
        input=password + "\n").stdout.strip()
    assert streaming == "2", streaming

    # The row the quickstart wrote through db-rw is on the replicas, and the replica that answered said so.
    answered = section(out, "a row written through db-rw")
    assert re.search(r"\|\s*t\s*\|\s*written at ", answered), answered
    for pod in pods:
        if pod["metadata"]["name"] == primary:
            continue
        rows = cluster.kubectl(
            "exec", "-i", "-n", shop, pod["metadata"]["name"], "--", "sh", "-c",
            'IFS= read -r PGPASSWORD; export PGPASSWORD; exec psql -h 127.0.0.1 -U "$0" -d shop -X -A -t '
            '-c "SELECT pg_is_in_recovery(), count(*) FROM orders"', superuser,
            input=password + "\n").stdout.strip()
        assert rows == "t|1", (pod["metadata"]["name"], rows)

    # What opctl says: status with each instance's role and lag, the tree with the Cluster's children, no drift.
    status = section(out, "opctl status")
    assert re.search(r"Cluster shop/db: Ready=True", status), status
    assert len(re.findall(r"\breplica\s+Ready\b.*\blag\b", status)) == 2, status
    tree = section(out, "opctl tree")
    for child in ("Pod shop/db-1", "Service shop/db-rw", "Secret shop/db-app", "PersistentVolumeClaim shop/db-3"):
        assert child in tree, tree
    assert "Deployment shop/web" in tree
    assert "Done in" in out

    # Nothing secret was printed.
    for secret in ("db-app", "db-superuser", "db-replication"):
        assert secret_value(cluster, secret, "password") not in out + result.stderr
