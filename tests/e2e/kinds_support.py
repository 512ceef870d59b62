"""Helpers shared by the custom-kind e2e suites: installing opctl's CRDs once
per session, writing an opctl.yaml, reading conditions."""
import uuid


def install_crds(cluster):
    """`opctl crds` applied server-side, idempotently; CRDs are shared by every test."""
    crds = cluster.opctl("crds")
    assert crds.returncode == 0, crds.stderr
    cluster.kubectl("apply", "--server-side", "--force-conflicts", "--field-manager", "opctl-e2e-crds", "-f", "-",
                    input=crds.stdout)
    cluster.kubectl("wait", "--for=condition=Established", "crd/backups.opctl.io", "crd/clusters.opctl.io",
                    "--timeout=60s")
    return crds.stdout


def config(name, namespace, extra=""):
    return (f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
            f"spec:\n  lease:\n    enabled: false\n{extra}")


def set_name():
    return "k" + uuid.uuid4().hex[:8]


def condition(obj, kind):
    for entry in obj.get("status", {}).get("conditions", []):
        if entry["type"] == kind:
            return entry
    return None
