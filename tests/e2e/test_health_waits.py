"""Health waits against Pods that really run on the test node: a Deployment
becomes Available, a crash loop, a missing image and a failing Job each stop
`--wait` at once with exit 5 naming why, and a later wave starts only after
the earlier one is really Ready."""
import os
import subprocess
import time
import uuid

import pytest

from workloads import SHELL, shell_deployment


@pytest.fixture
def setname():
    return "h" + uuid.uuid4().hex[:8]


def config(name, namespace):
    return (f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {name}\n  namespace: {namespace}\n")




def test_wait_returns_when_the_deployment_is_available(cluster, namespace, manifests, setname):
    root = manifests({"opctl.yaml": config(setname, namespace),
                      "d.yaml": shell_deployment("ready", namespace, ["sleep", "3600"], readiness=["true"])})
    result = cluster.reconcile("--path", str(root), "--wait", "--timeout", "120s")
    assert result.returncode == 0, result.stderr + result.stdout
    status = cluster.get_json("deployment", "ready", "-n", namespace)["status"]
    assert status["availableReplicas"] == 1
    pods = cluster.get_json("pods", "-n", namespace, "-l", "app=ready")["items"]
    assert [p["status"]["phase"] for p in pods] == ["Running"]


def test_a_crash_loop_fails_the_wait_at_once_naming_it(cluster, namespace, manifests, setname):
    # With a readiness probe, as a service has: without one, Kubernetes itself counts a container that
    # has just started as available, crash loop or not, and so does every health check built on it.
    root = manifests({"opctl.yaml": config(setname, namespace),
                      "d.yaml": shell_deployment("crasher", namespace, ["sh", "-c", "echo starting; exit 1"],
                                           readiness=["true"])})
    started = time.time()
    result = cluster.reconcile("--path", str(root), "--wait", "--timeout", "5m")
    assert result.returncode == 5, result.stderr + result.stdout
    assert f"apps/Deployment {namespace}/crasher" in result.stderr
    assert "CrashLoopBackOff" in result.stderr, result.stderr
    assert time.time() - started < 120, "the wait ran towards its timeout instead of failing fast"
    restarts = cluster.get_json("pods", "-n", namespace, "-l", "app=crasher")["items"][0]["status"][
        "containerStatuses"][0]["restartCount"]
    assert restarts >= 1


def test_an_image_not_in_the_store_fails_the_wait_naming_the_pull_error(cluster, namespace, manifests, setname):
    root = manifests({"opctl.yaml": config(setname, namespace),
                      "d.yaml": shell_deployment("absent", namespace, ["true"], image="localhost/not-built:1")})
    result = cluster.reconcile("--path", str(root), "--wait", "--timeout", "5m")
    assert result.returncode == 5, result.stderr + result.stdout
    assert "ErrImagePull" in result.stderr or "ImagePullBackOff" in result.stderr, result.stderr
    assert "localhost/not-built:1" in result.stderr


def test_a_failing_job_fails_the_wait(cluster, namespace, manifests, setname):
    job = f"""apiVersion: batch/v1
kind: Job
metadata: {{name: migrate, namespace: {namespace}}}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: {SHELL}
        command: [sh, -c, "echo migration failed; exit 3"]
"""
    root = manifests({"opctl.yaml": config(setname, namespace), "job.yaml": job})
    result = cluster.reconcile("--path", str(root), "--wait", "--timeout", "5m")
    assert result.returncode == 5, result.stderr + result.stdout
    assert f"batch/Job {namespace}/migrate" in result.stderr
    assert "Job failed" in result.stderr and "BackoffLimitExceeded" in result.stderr, result.stderr
    pod = cluster.get_json("pods", "-n", namespace, "-l", "job-name=migrate")["items"][0]
    assert pod["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 3
    assert cluster.kubectl("logs", "job/migrate", "-n", namespace).stdout.strip() == "migration failed"


def test_a_later_wave_starts_only_after_the_earlier_wave_is_really_ready(cluster, namespace, manifests, setname):
    # The readiness probe passes about three seconds after the container starts.
    slow = shell_deployment("slow", namespace, ["sh", "-c", "sleep 3; touch /tmp/ready; exec sleep 3600"],
                      readiness=["test", "-f", "/tmp/ready"])
    after = (f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: after-slow\n  namespace: {namespace}\n"
             "  annotations:\n    opctl.io/wave: \"1\"\ndata:\n  k: v\n")
    root = manifests({"opctl.yaml": config(setname, namespace), "slow.yaml": slow, "after.yaml": after})
    env = dict(os.environ, NO_COLOR="1")
    env.pop("KUBECONFIG", None)
    run = subprocess.Popen([cluster.opctl_bin, "reconcile", "--kubeconfig", cluster.kubeconfig, "--path", str(root),
                            "--wait", "--timeout", "120s"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, env=env)
    try:
        seen_before_ready = False
        while run.poll() is None:
            if cluster.exists("configmap", "after-slow", "-n", namespace):
                available = cluster.get_json("deployment", "slow", "-n", namespace)["status"].get(
                    "availableReplicas", 0)
                seen_before_ready = seen_before_ready or available < 1
            time.sleep(0.3)
        out, err = run.communicate(timeout=10)
        assert run.returncode == 0, err + out
        assert not seen_before_ready, "wave 1 was applied before wave 0's Deployment was available"
        assert cluster.exists("configmap", "after-slow", "-n", namespace)
    finally:
        if run.poll() is None:
            run.kill()
