"""Shared fixtures for the end-to-end tests.

Every test drives the real `opctl` binary against the real control plane that
ctest's `testenv_up` fixture started, and reads results back with `kubectl`,
an independent client, so a bug in opctl's own client cannot hide itself.
Each test works in its own namespace.
"""
import json
import os
import pathlib
import subprocess
import uuid

import pytest

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]


def _require_env(name):
    value = os.environ.get(name)
    if not value:
        pytest.exit(f"{name} is not set: run the e2e tests through ctest (see README)", returncode=2)
    return value


class Cluster:
    """The control plane started by testenv, and helpers to talk to it."""

    def __init__(self):
        self.dir = pathlib.Path(_require_env("OPCTL_TESTENV_DIR"))
        self.kubeconfig = str(self.dir / "kubeconfig")
        self.opctl_bin = _require_env("OPCTL_BIN")
        self.testenv_bin = os.environ.get("OPCTL_TESTENV_BIN", "")

    def kubectl(self, *args, check=True, input=None):
        result = subprocess.run(
            ["kubectl", "--kubeconfig", self.kubeconfig, *args],
            capture_output=True, text=True, input=input, timeout=120,
        )
        if check and result.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed: {result.stderr}")
        return result

    def get_json(self, *args):
        return json.loads(self.kubectl("get", "-o", "json", *args).stdout)

    def exists(self, *args):
        return self.kubectl("get", *args, check=False).returncode == 0

    def opctl(self, *args, env=None, timeout=300):
        full_env = dict(os.environ)
        full_env.pop("KUBECONFIG", None)
        full_env["NO_COLOR"] = "1"
        if env:
            full_env.update(env)
        return subprocess.run(
            [self.opctl_bin, *args], capture_output=True, text=True, env=full_env, timeout=timeout,
        )

    def reconcile(self, *args, **kwargs):
        return self.opctl("reconcile", "--kubeconfig", self.kubeconfig, *args, **kwargs)


@pytest.fixture(scope="session")
def cluster():
    return Cluster()


def pods_report(cluster, namespace):
    """What the Pods of a namespace did: their state, events and logs."""
    def run(*args):
        result = cluster.kubectl(*args, check=False)
        return result.stdout + result.stderr

    parts = [f"== Pods in {namespace}\n" + run("get", "pods", "-n", namespace, "-o", "wide"),
             f"== events in {namespace}\n" + run("get", "events", "-n", namespace, "--sort-by=.lastTimestamp")]
    for name in cluster.kubectl("get", "pods", "-n", namespace, "-o", "name", check=False).stdout.split():
        parts.append(f"== logs of {name}\n" + run("logs", name, "-n", namespace, "--all-containers", "--prefix",
                                                   "--tail=50"))
    return "\n".join(parts)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test that used a namespace shows what the Pods in it did."""
    outcome = yield
    report = outcome.get_result()
    funcargs = getattr(item, "funcargs", {})
    if report.when == "call" and report.failed and "namespace" in funcargs and "cluster" in funcargs:
        try:
            report.sections.append(("Pods of the failed test", pods_report(funcargs["cluster"],
                                                                           funcargs["namespace"])))
        except (OSError, subprocess.SubprocessError) as error:
            report.sections.append(("Pods of the failed test", f"could not read them: {error}"))


@pytest.fixture
def namespace(cluster):
    """A fresh namespace for one test; deleted afterwards without waiting."""
    name = f"e2e-{uuid.uuid4().hex[:8]}"
    cluster.kubectl("create", "namespace", name)
    yield name
    cluster.kubectl("delete", "namespace", name, "--wait=false", check=False)


@pytest.fixture
def manifests(tmp_path):
    """Writes manifest files into a temporary directory: manifests({'a.yaml': text})."""

    def write(files):
        root = tmp_path / "manifests"
        root.mkdir(exist_ok=True)
        for name, text in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        return root

    return write
