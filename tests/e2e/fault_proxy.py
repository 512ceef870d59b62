"""The testenv's fault-injecting proxy (`testenv proxy --faults FILE`), in front
of the shared API server, for tests of opctl under 429, 503, resets and latency."""
import json
import os
import re
import subprocess

import pytest

from conftest import REPO_ROOT


def testenv_binary(cluster):
    if cluster.testenv_bin:
        return cluster.testenv_bin
    built = subprocess.run([str(REPO_ROOT / "tests/testenv/build.sh")], capture_output=True, text=True, timeout=1200)
    if built.returncode != 0:
        pytest.skip(f"testenv binary not available: {built.stderr[-500:]}")
    return built.stdout.strip()


class FaultProxy:
    """The proxy with its request counters; with a faults_file, also the fault rules set_faults writes there."""

    def __init__(self, cluster, faults_file=None):
        self.faults_file = faults_file
        faults = []
        if faults_file is not None:
            self.set_faults([])
            faults = ["--faults", str(faults_file)]
        self.process = subprocess.Popen([testenv_binary(cluster), "proxy", "--dir", str(cluster.dir), "--listen",
                                         "127.0.0.1:0", *faults],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        match = re.match(r"listening on (127\.0\.0\.1:\d+)", line)
        assert match, f"proxy said {line!r}"
        self.address = match.group(1)
        self.kubeconfig = str(cluster.dir / f"proxy-{self.address.split(':')[1]}.kubeconfig")
        self.ca = str(cluster.dir / "ca.crt")

    def set_faults(self, rules):
        """Replaces the rules atomically (the proxy re-reads the file on every request)."""
        temporary = self.faults_file.with_suffix(".tmp")
        temporary.write_text(json.dumps(rules))
        os.replace(temporary, self.faults_file)

    def _control(self, method, path):
        result = subprocess.run(["curl", "-sS", "--fail", "-X", method, "--cacert", self.ca,
                                 f"https://{self.address}/__testenv/{path}"], capture_output=True, text=True, timeout=30)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    def reset(self):
        return self._control("POST", "requests/reset")

    def counts(self):
        return self._control("GET", "requests")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)
