"""The Cluster kind's spec checks, on the node-less control plane: a bad spec is refused with file, line and field,
and nothing is applied. Everything else runs with a real PostgreSQL in every instance on the node: bootstrap,
streaming, scaling, failover, switchover, rolling updates, passwords, the major upgrade from 15 to 17 and the
downgrade refusal in test_cluster_dataplane.py; backups, restores and the final backup in test_backup_dataplane.py.
CRDs are cluster-wide and shared: installed idempotently, never deleted.
"""
import pytest


@pytest.fixture(scope="module", autouse=True)
def crds(cluster):
    printed = cluster.opctl("crds")
    assert printed.returncode == 0, printed.stderr
    cluster.kubectl("apply", "--server-side", "--force-conflicts", "-f", "-", input=printed.stdout)
    cluster.kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd/clusters.opctl.io",
                    "crd/backups.opctl.io")


def test_bad_cluster_specs_are_rejected_with_file_line_and_field(cluster, namespace, manifests):
    bad = (f"apiVersion: opctl.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: db\n  namespace: {namespace}\n"
           "spec:\n  instances: 0\n  storage:\n    size: lots\n  primaryUpdateMethod: sometimes\n")
    root = manifests({"db.yaml": bad})
    validate = cluster.opctl("validate", "--path", str(root))
    assert validate.returncode == 2, validate.stdout + validate.stderr
    output = validate.stdout + validate.stderr
    assert "db.yaml:7: spec.instances: must be at least 1" in output, output
    assert 'db.yaml:9: spec.storage.size: "lots" is not a quantity' in output
    assert "db.yaml:10: spec.primaryUpdateMethod:" in output
    result = cluster.reconcile("--path", str(root))
    assert result.returncode == 2 and "nothing was applied" in result.stderr
    assert not cluster.exists("clusters.opctl.io", "db", "-n", namespace)


def test_more_instances_than_the_replication_limits_allow_are_refused_by_opctl_and_by_the_api(cluster, namespace,
                                                                                                manifests):
    # opctl instance sizes max_wal_senders and max_replication_slots for 32 instances (opctl-cluster-kind(5)).
    spec = "apiVersion: opctl.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: db\n  namespace: {}\nspec:\n" \
           "  instances: {}\n  storage:\n    size: 1Gi\n"
    root = manifests({"db.yaml": spec.format(namespace, 33)})
    validate = cluster.opctl("validate", "--path", str(root))
    assert validate.returncode == 2, validate.stdout + validate.stderr
    assert "db.yaml:7: spec.instances: must be at most 32" in validate.stdout + validate.stderr
    result = cluster.reconcile("--path", str(root))
    assert result.returncode == 2 and "nothing was applied" in result.stderr
    assert not cluster.exists("clusters.opctl.io", "db", "-n", namespace)
    # The CRD's schema says so too, for a Cluster written by another client.
    refused = cluster.kubectl("apply", "-f", "-", input=spec.format(namespace, 33), check=False)
    assert refused.returncode != 0 and "spec.instances" in refused.stderr, refused.stderr
    accepted = cluster.kubectl("apply", "--dry-run=server", "-f", "-", input=spec.format(namespace, 32), check=False)
    assert accepted.returncode == 0, accepted.stderr
