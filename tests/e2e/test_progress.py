"""Progress while long work runs (issue 37, item 4): without a terminal, a plain line on stderr after each
silent --progress-interval during a health wait and a git fetch; on a pseudo-terminal one live line, redrawn
after each line printed above it; `unchanged` objects summarised per kind unless -v; stdout reports untouched."""
import base64
import json
import os
import random
import re
import socket
import threading
import time
import uuid

import pytest

from git_servers import HttpGitServer, Upstream
from terminal import run_on_terminal
from workloads import shell_deployment


@pytest.fixture
def setname():
    return "p" + uuid.uuid4().hex[:8]


def config(name, namespace):
    return f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"


def configmap(name, namespace, extra_metadata=""):
    return (f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
            f"{extra_metadata}data:\n  k: v\n")


def slow_deployment(name, namespace, ready_after=12):
    """A Deployment whose one Pod runs on the test node and turns Ready only after `ready_after` seconds."""
    return shell_deployment(name, namespace, ["sh", "-c", f"sleep {ready_after}; touch /tmp/ready; sleep 3600"],
                            readiness=["test", "-f", "/tmp/ready"])


def plain_env():
    return {k: v for k, v in os.environ.items() if k != "KUBECONFIG"} | {"NO_COLOR": "1"}


def test_a_long_wait_prints_progress_lines_without_a_terminal(cluster, namespace, manifests, setname):
    # Given a Deployment that is Ready only after a while, we should hear what the wait is for while it lasts.
    root = manifests({"opctl.yaml": config(setname, namespace), "d.yaml": slow_deployment("slow", namespace)})
    result = cluster.reconcile("--path", str(root), "--wait", "--timeout", "180s", "--progress-interval", "2s")
    assert result.returncode == 0, result.stderr + result.stdout
    waiting = [line for line in result.stderr.splitlines()
               if line.startswith("wave 0: waiting for 1 object to be healthy, 1/1 done (")]
    assert len(waiting) >= 2, result.stderr
    assert all(f": apps/Deployment {namespace}/slow" in line for line in waiting), waiting
    assert "\r" not in result.stderr and "\x1b" not in result.stderr  # plain lines for a log
    assert f"apps/Deployment {namespace}/slow created" in result.stdout
    assert cluster.get_json("deployment", "slow", "-n", namespace)["status"]["readyReplicas"] == 1


def test_machine_readable_reports_stay_clean_and_quiet_or_0_shows_no_progress(cluster, namespace, manifests,
                                                                                setname):
    # Given -o json with progress on stderr, we should still print exactly the JSON report on stdout.
    root = manifests({"opctl.yaml": config(setname, namespace), "d.yaml": slow_deployment("quiet", namespace, 8)})
    result = cluster.reconcile("--path", str(root), "--wait", "--timeout", "180s", "--progress-interval", "1s",
                               "-o", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["kind"] == "RunReport" and report["summary"] == {"created": 1}
    assert "wave 0: waiting for 1 object to be healthy" in result.stderr, result.stderr

    # Each scale-up brings a new Pod that is slow to be Ready: the wait is long again.
    root.joinpath("d.yaml").write_text(slow_deployment("quiet", namespace, 8).replace("replicas: 1", "replicas: 2"))
    quiet = cluster.reconcile("--path", str(root), "--wait", "--timeout", "180s", "--progress-interval", "1s", "-q")
    assert quiet.returncode == 0, quiet.stderr
    assert "waiting" not in quiet.stderr, quiet.stderr
    root.joinpath("d.yaml").write_text(slow_deployment("quiet", namespace, 8).replace("replicas: 1", "replicas: 3"))
    off = cluster.reconcile("--path", str(root), "--wait", "--timeout", "180s", "--progress-interval", "0")
    assert off.returncode == 0, off.stderr
    assert "waiting" not in off.stderr, off.stderr
    assert cluster.get_json("deployment", "quiet", "-n", namespace)["spec"]["replicas"] == 3
    bad = cluster.reconcile("--path", str(root), "--progress-interval", "soon")
    assert bad.returncode == 2 and "--progress-interval" in bad.stderr, bad.stderr


def test_the_live_line_is_redrawn_after_each_line_on_a_terminal(cluster, namespace, manifests, setname):
    # Given stdout and stderr on one terminal, a per-object line should never wipe out the live line.
    root = manifests({"opctl.yaml": config(setname, namespace), "d.yaml": slow_deployment("live", namespace, 6),
                      "later.yaml": configmap("later", namespace, "  annotations: {opctl.io/wave: \"1\"}\n")})
    args = [cluster.opctl_bin, "reconcile", "--kubeconfig", cluster.kubeconfig, "--path", str(root), "--wait",
            "--timeout", "180s"]
    code, terminal, _ = run_on_terminal(args, plain_env(), terminal="both")
    assert code == 0, terminal
    assert "\x1b[2Kplanning: reading the live state of 2 objects (0s)" in terminal, repr(terminal)
    assert "\x1b[2Kwave 0: waiting for 1 object to be healthy, 1/2 done (" in terminal, repr(terminal)
    assert f"apps/Deployment {namespace}/live (" in terminal, repr(terminal)
    # The wave-1 line is printed above the live line, which comes back at once.
    assert re.search(rf"ConfigMap {namespace}/later created\r?\n\r\x1b\[2Kwave 1: applying 1 object, 2/2 done",
                     terminal), repr(terminal)
    assert "2 objects: 2 created" in terminal
    assert cluster.exists("configmap", "later", "-n", namespace)


def test_unchanged_objects_are_summarised_per_kind_unless_verbose(cluster, namespace, manifests, setname):
    files = {"opctl.yaml": config(setname, namespace),
             "secret.yaml": f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: {namespace}\n"
                            "data:\n  k: dg==\n"}
    files.update({f"cm{i}.yaml": configmap(f"cm{i}", namespace) for i in range(3)})
    root = manifests(files)
    assert cluster.reconcile("--path", str(root)).returncode == 0
    root.joinpath("cm0.yaml").write_text(configmap("cm0", namespace).replace("k: v", "k: changed"))
    second = cluster.reconcile("--path", str(root))
    assert second.returncode == 0, second.stderr
    lines = second.stdout.splitlines()
    assert f"ConfigMap {namespace}/cm0 configured" in lines  # a change keeps its line
    assert "ConfigMap: 2 unchanged" in lines and "Secret: 1 unchanged" in lines, second.stdout
    assert not [line for line in lines if re.fullmatch(r"\S+ \S+/\S+ unchanged", line)], second.stdout
    assert lines[-1].startswith("4 objects: 0 created, 1 configured, 3 unchanged")

    verbose = cluster.reconcile("--path", str(root), "-v")
    assert verbose.returncode == 0, verbose.stderr
    assert f"ConfigMap {namespace}/cm1 unchanged" in verbose.stdout.splitlines()
    assert f"Secret {namespace}/s unchanged" in verbose.stdout.splitlines()
    assert "ConfigMap: " not in verbose.stdout
    quiet = cluster.reconcile("--path", str(root), "-q")
    assert quiet.stdout.splitlines()[0].startswith("4 objects: 0 created, 0 configured, 4 unchanged"), quiet.stdout
    assert cluster.get_json("configmap", "cm0", "-n", namespace)["data"]["k"] == "changed"


class SlowProxy:
    """A TCP proxy on loopback that passes the server's answers on at `rate` bytes a second: a slow network.
    With `first_byte_delay`, each connection's answer starts only after that many seconds: a server slow to
    answer, before which libgit2 reports nothing."""

    def __init__(self, port, rate, first_byte_delay=0.0):
        self.target, self.rate, self.first_byte_delay = port, rate, first_byte_delay
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(("127.0.0.1", self.target))
            except OSError:  # the git server stopped first (a test's teardown): the client sees its connection close
                client.close()
                continue
            threading.Thread(target=self._pipe, args=(client, server, None), daemon=True).start()
            threading.Thread(target=self._pipe, args=(server, client, self.rate, self.first_byte_delay),
                             daemon=True).start()

    @staticmethod
    def _pipe(source, sink, rate, first_byte_delay=0.0):
        chunk = 16384
        try:
            if first_byte_delay:
                time.sleep(first_byte_delay)
            while data := source.recv(chunk):
                sink.sendall(data)
                if rate:
                    time.sleep(len(data) / rate)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def stop(self):
        self.closed = True
        self.listener.close()


@pytest.fixture
def slow_repo(tmp_path):
    """A repository of about 3 MiB that does not compress, served over HTTP through a slow link."""
    server = HttpGitServer(tmp_path / "http", {"alice": "s3cret-pw"})
    upstream = Upstream(server.root)
    noise = random.Random(37)
    files = {f"blobs/{i}.txt": base64.b64encode(noise.randbytes(96 * 1024)).decode() for i in range(24)}
    files["manifests/cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fetched\ndata:\n  k: v\n"
    upstream.commit(files, "big")
    proxy = SlowProxy(server.port, 600 * 1024)
    auth = tmp_path / "basic"
    auth.write_text("alice:s3cret-pw\n")
    auth.chmod(0o600)
    yield f"http://127.0.0.1:{proxy.port}/repo.git", str(auth), upstream
    proxy.stop()
    server.stop()


def test_a_slow_git_fetch_shows_its_transfer(cluster, slow_repo, tmp_path):
    # Given a fetch over a slow link, we should see objects and bytes arrive, in a log and on a terminal.
    url, auth, upstream = slow_repo
    args = ["fetch", "--repo", url, "--git-basic-auth-file", auth, "--path", "manifests"]
    result = cluster.opctl(*args, "--cache-dir", str(tmp_path / "cache-log"), "--progress-interval", "1s")
    assert result.returncode == 0, result.stderr
    assert f"commit:  {upstream.sha('HEAD')}" in result.stdout
    received = [line for line in result.stderr.splitlines()
                if line.startswith(f"fetching {url} (") and not line.endswith("): connecting")]
    assert received, result.stderr
    assert all(re.search(r"\): received \d+/\d+ objects \(\d+%\), [\d.]+ (B|KiB|MiB)$", line) for line in received), \
        received

    code, terminal, stdout = run_on_terminal([cluster.opctl_bin, *args, "--cache-dir", str(tmp_path / "cache-tty")],
                                             plain_env(), terminal="stderr")
    assert code == 0, terminal
    assert re.search(rf"\r\x1b\[2Kfetching {re.escape(url)} \(\d+s\): received \d+/\d+ objects", terminal), \
        repr(terminal)
    assert terminal.endswith("\r\x1b[2K"), repr(terminal[-200:])  # gone before the result is printed
    assert f"commit:  {upstream.sha('HEAD')}" in stdout

    quick = cluster.opctl(*args, "--cache-dir", str(tmp_path / "cache-log"), "--progress-interval", "1s")
    assert quick.returncode == 0 and "fetching" not in quick.stderr, quick.stderr  # nothing new: silent


def test_a_server_slow_to_answer_shows_the_fetch_begun_in_every_command_that_loads_the_set(cluster, tmp_path):
    # Given a git server whose answers start 3 s late, we should see that the fetch has begun before libgit2
    # hears anything, from validate, status and tree as from fetch.
    server = HttpGitServer(tmp_path / "http", {"alice": "s3cret-pw"})
    upstream = Upstream(server.root)
    upstream.commit({"manifests/cm.yaml": configmap("late", "default")}, "one")
    proxy = SlowProxy(server.port, 0, first_byte_delay=3)
    auth = tmp_path / "basic"
    auth.write_text("alice:s3cret-pw\n")
    auth.chmod(0o600)
    url = f"http://127.0.0.1:{proxy.port}/repo.git"
    try:
        for command, extra in (("validate", []), ("status", ["--kubeconfig", cluster.kubeconfig]),
                               ("tree", ["--kubeconfig", cluster.kubeconfig])):
            result = cluster.opctl(command, "--repo", url, "--git-basic-auth-file", str(auth), "--path", "manifests",
                                   "--cache-dir", str(tmp_path / f"cache-{command}"), "--progress-interval", "1s",
                                   *extra)
            assert result.returncode == 0, (command, result.stderr)
            connecting = [line for line in result.stderr.splitlines()
                          if re.fullmatch(rf"fetching {re.escape(url)} \(\d+s\): connecting", line)]
            assert connecting, (command, result.stderr)
            assert "s3cret-pw" not in result.stderr + result.stdout
            assert "late" in result.stdout or command == "validate", (command, result.stdout)
    finally:
        proxy.stop()
        server.stop()
