"""A real Prometheus Pushgateway (built from the Go module proxy by tests/tools/build.sh pushgateway) that wants basic
auth, on a free port of a host address: 127.0.0.1 for runs on this host, the test node's address for the CronJob's
Pods. Read back through its own /metrics with prometheus_client's parser (PyPI)."""
import base64
import contextlib
import os
import pathlib
import socket
import subprocess
import time
import urllib.request

from git_servers import NODE_IP, NODE_NETNS

SOURCE_DIR = pathlib.Path(os.environ.get("OPCTL_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
# The Pushgateway's basic-auth user "opctl" with the password "e2e-push-secret" (bcrypt, cost 10).
PUSH_USER, PUSH_PASSWORD = "opctl", "e2e-push-secret"
PUSH_HASH = "$2a$10$b47gerVckR0djYkNgMg/R.xbEvz9Aqf1K3owsN4PjgvmetLhCNy1a"
# The Authorization header's value that the Pushgateway accepts.
AUTHORIZATION = "Basic " + base64.b64encode(f"{PUSH_USER}:{PUSH_PASSWORD}".encode()).decode()


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(url):
    request = urllib.request.Request(url)
    request.add_header("Authorization", AUTHORIZATION)
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read().decode()


@contextlib.contextmanager
def running_pushgateway(work, node=False):
    """Starts the Pushgateway on 127.0.0.1, or with `node` in the test node's network namespace on its address
    (reachable from Pods, and from here through the route to the node); yields its URL and stops it afterwards."""
    built = subprocess.run([str(SOURCE_DIR / "tests/tools/build.sh"), "pushgateway"], capture_output=True,
                           text=True, timeout=1200)
    assert built.returncode == 0, f"building the Pushgateway failed: {built.stderr[-2000:]}"
    binary = built.stdout.strip().splitlines()[-1]
    work = pathlib.Path(work)
    web_config = work / "web.yml"
    web_config.write_text(f"basic_auth_users:\n  {PUSH_USER}: {PUSH_HASH}\n")
    host = NODE_IP if node else "127.0.0.1"
    url = f"http://{host}:{free_port()}"
    log = open(work / "log", "w")
    enter_node = ["nsenter", f"--net={NODE_NETNS}", "--"] if node else []
    process = subprocess.Popen([*enter_node, binary, f"--web.listen-address={url[len('http://'):]}",
                                f"--web.config.file={web_config}"], stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 60
        while True:
            try:
                get(url + "/-/ready")
                break
            except OSError:
                assert process.poll() is None and time.time() < deadline, (work / "log").read_text()
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()
