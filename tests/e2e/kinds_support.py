"""Helpers shared by the custom-kind e2e suites: installing opctl's CRDs once
per session, writing an opctl.yaml, and playing the parts of the kubelet and
the Job controller (the control plane has neither kubelet nor scheduler)."""
import datetime
import json
import subprocess
import time
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


def utc(delta_seconds=0):
    moment = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=delta_seconds)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def finish_job(cluster, namespace, name, succeeded=True, when=None, start=None):
    """What the Job controller would write when the backup Pod exits."""
    when = when or utc()
    if succeeded:
        conditions = [{"type": "SuccessCriteriaMet", "status": "True", "lastTransitionTime": when},
                      {"type": "Complete", "status": "True", "lastTransitionTime": when}]
        status = {"active": 0, "succeeded": 1, "completionTime": when, "conditions": conditions}
    else:
        conditions = [{"type": "FailureTarget", "status": "True", "lastTransitionTime": when,
                       "reason": "BackoffLimitExceeded", "message": "backup failed"},
                      {"type": "Failed", "status": "True", "lastTransitionTime": when,
                       "reason": "BackoffLimitExceeded", "message": "backup failed"}]
        status = {"active": 0, "failed": 1, "conditions": conditions}
    if start:
        status["startTime"] = start
    cluster.kubectl("patch", "job", name, "-n", namespace, "--subresource=status", "--type=merge",
                    "-p", json.dumps({"status": status}))


def condition(obj, kind):
    for entry in obj.get("status", {}).get("conditions", []):
        if entry["type"] == kind:
            return entry
    return None


def wait_until(predicate, timeout=60, interval=0.5):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("condition not met in time")


def popen_opctl(cluster, *args):
    import os
    env = dict(os.environ)
    env.pop("KUBECONFIG", None)
    env["NO_COLOR"] = "1"
    return subprocess.Popen([cluster.opctl_bin, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
