"""Hook kinds end to end: a custom kind whose logic is a small Python script
speaking Metacontroller's composite-controller contract, called by opctl once
per resource and pass (no controller runs in the cluster)."""
import http.server
import json
import os
import subprocess
import threading
import time

import pytest

from kinds_support import condition, config, set_name

GROUP = "hooks.e2e.opctl.io"
HOOK = r'''
import json, os, sys, time
request = json.load(sys.stdin)
parent = request["parent"]
spec = parent.get("spec", {})
name = parent["metadata"]["name"]
mode = spec.get("mode", "ok")
if mode == "fail":
    print("boom", file=sys.stderr)
    sys.exit(1)
if mode == "sleep":
    time.sleep(60)
if mode == "garbage":
    print("this is not json")
    sys.exit(0)
if request["finalizing"]:
    open(os.path.join(sys.argv[1], name + ".finalized"), "w").write("done")
    json.dump({"children": [], "finalized": True}, sys.stdout)
    sys.exit(0)
children = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"{name}-{i}"},
             "data": {"greeting": spec.get("text", "hello")}} for i in range(spec.get("copies", 1))]
seen = sorted(request["children"]["ConfigMap.v1"])
json.dump({"status": {"greeted": spec.get("text", "hello"), "childrenSeen": seen}, "children": children}, sys.stdout)
'''

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": f"greetings.{GROUP}"},
    "spec": {"group": GROUP, "scope": "Namespaced",
             "names": {"plural": "greetings", "singular": "greeting", "kind": "Greeting"},
             "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                           "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                               "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                               "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}}}]}}


@pytest.fixture(scope="session")
def greeting_crd(cluster):
    cluster.kubectl("apply", "--server-side", "--force-conflicts", "-f", "-", input=json.dumps(CRD))
    cluster.kubectl("wait", "--for=condition=Established", f"crd/greetings.{GROUP}", "--timeout=60s")


@pytest.fixture
def hook_dir(tmp_path):
    directory = tmp_path / "hook"
    directory.mkdir()
    (directory / "hook.py").write_text(HOOK)
    return directory


def hook_config(name, namespace, hook_dir):
    return config(name, namespace, f"""  kinds:
    - apiVersion: {GROUP}/v1
      kind: Greeting
      command: [python3, {hook_dir / 'hook.py'}, {hook_dir}]
      timeout: 3s
      finalize: true
      children:
        - apiVersion: v1
          kind: ConfigMap
""")


def greeting(namespace, text="hello", copies=1, mode="ok"):
    return (f"apiVersion: {GROUP}/v1\nkind: Greeting\nmetadata:\n  name: hello\n  namespace: {namespace}\n"
            f"spec:\n  text: {text}\n  copies: {copies}\n  mode: {mode}\n")


@pytest.fixture
def setup(cluster, greeting_crd, namespace, manifests, hook_dir):
    name = set_name()
    files = {"opctl.yaml": hook_config(name, namespace, hook_dir), "greeting.yaml": greeting(namespace, copies=2)}
    root = manifests(files)

    def write(**kwargs):
        files["greeting.yaml"] = greeting(namespace, **kwargs)
        manifests(files)

    return root, write


def test_hook_children_and_status_follow_the_spec(cluster, namespace, setup):
    root, write = setup
    first = cluster.reconcile("--path", str(root))
    assert first.returncode == 0, first.stderr + first.stdout
    assert f"ConfigMap {namespace}/hello-0 created" in first.stdout
    parent = cluster.get_json("greeting", "hello", "-n", namespace)
    for index in (0, 1):
        child = cluster.get_json("configmap", f"hello-{index}", "-n", namespace)
        assert child["data"]["greeting"] == "hello"
        assert child["metadata"]["ownerReferences"][0]["uid"] == parent["metadata"]["uid"]
        assert child["metadata"]["ownerReferences"][0]["controller"] is True
        assert child["metadata"]["labels"]["opctl.io/owner-uid"] == parent["metadata"]["uid"]
    assert parent["status"]["greeted"] == "hello"
    assert parent["status"]["childrenSeen"] == []
    assert parent["status"]["observedGeneration"] == parent["metadata"]["generation"]
    assert condition(parent, "Ready")["status"] == "True"
    assert parent["metadata"]["finalizers"] == ["opctl.io/hook-finalizer"]

    second = cluster.reconcile("--path", str(root))
    assert second.returncode == 0, second.stderr
    assert f"ConfigMap {namespace}/hello-1 unchanged" in second.stdout
    assert cluster.get_json("greeting", "hello", "-n", namespace)["status"]["childrenSeen"] == ["hello-0", "hello-1"]

    write(text="hi", copies=1)
    third = cluster.reconcile("--path", str(root))
    assert third.returncode == 0, third.stderr
    assert f"ConfigMap {namespace}/hello-1 pruned" in third.stdout
    assert cluster.get_json("configmap", "hello-0", "-n", namespace)["data"]["greeting"] == "hi"
    assert not cluster.exists("configmap", "hello-1", "-n", namespace)


@pytest.mark.parametrize("mode, message", [
    ("fail", "exited with status 1: boom"),
    ("sleep", "timed out after 3s and was killed"),
    ("garbage", "the hook's answer is not a JSON object"),
])
def test_hook_failures_are_degraded_and_delete_nothing(cluster, namespace, setup, mode, message):
    root, write = setup
    assert cluster.reconcile("--path", str(root)).returncode == 0
    write(copies=0, mode=mode)
    started = time.time()
    result = cluster.reconcile("--path", str(root))
    assert time.time() - started < 30
    assert result.returncode == 3, result.stderr + result.stdout
    assert message in result.stderr
    parent = cluster.get_json("greeting", "hello", "-n", namespace)
    degraded = condition(parent, "Degraded")
    assert (degraded["status"], degraded["reason"]) == ("True", "HookFailed")
    assert message in degraded["message"]
    assert parent["status"]["greeted"] == "hello"  # the hook's last status stays
    assert cluster.exists("configmap", "hello-0", "-n", namespace)
    assert cluster.exists("configmap", "hello-1", "-n", namespace)


def test_a_pruned_resource_is_finalized_by_its_hook(cluster, namespace, setup, hook_dir):
    root, _ = setup
    assert cluster.reconcile("--path", str(root)).returncode == 0
    os.remove(root / "greeting.yaml")
    root.joinpath("anchor.yaml").write_text(
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: anchor\n  namespace: {namespace}\n")
    result = cluster.reconcile("--path", str(root), "--prune")
    assert result.returncode == 0, result.stderr + result.stdout
    assert f"Greeting {namespace}/hello pruned" in result.stdout
    assert (hook_dir / "hello.finalized").read_text() == "done"
    deadline = time.time() + 30
    while cluster.exists("greeting", "hello", "-n", namespace) and time.time() < deadline:
        time.sleep(0.5)
    assert not cluster.exists("greeting", "hello", "-n", namespace)


class HookOverHttp:
    """The same hook behind a URL: a local HTTP server that runs hook.py with the POSTed body on stdin and answers
    200 with its output, or 500 with its stderr when it fails; records each request's method, path and headers."""

    def __init__(self, hook_dir):
        requests = self.requests = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                requests.append((self.command, self.path, self.headers["Content-Type"], self.headers["User-Agent"]))
                run = subprocess.run(["python3", str(hook_dir / "hook.py"), str(hook_dir)], input=body,
                                     capture_output=True)
                self.send_response(200 if run.returncode == 0 else 500)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(run.stdout if run.returncode == 0 else run.stderr)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/greeting"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def test_a_hook_behind_a_url_gets_the_request_as_a_json_post_and_its_failures_are_degraded(
        cluster, greeting_crd, namespace, manifests, hook_dir):
    hook = HookOverHttp(hook_dir)
    try:
        files = {"opctl.yaml": hook_config(set_name(), namespace, hook_dir).replace(
                     f"command: [python3, {hook_dir / 'hook.py'}, {hook_dir}]", f"url: {hook.url}"),
                 "greeting.yaml": greeting(namespace, copies=2)}
        root = manifests(files)
        first = cluster.reconcile("--path", str(root))
        assert first.returncode == 0, first.stderr + first.stdout
        assert hook.requests and hook.requests[0] == ("POST", "/greeting", "application/json", "opctl-hook")
        parent = cluster.get_json("greeting", "hello", "-n", namespace)
        assert parent["status"]["greeted"] == "hello"
        assert condition(parent, "Ready")["status"] == "True"
        assert cluster.get_json("configmap", "hello-1", "-n", namespace)["data"]["greeting"] == "hello"

        for mode, message in [("fail", "answered HTTP 500: boom"), ("sleep", "did not answer within 3s")]:
            files["greeting.yaml"] = greeting(namespace, copies=0, mode=mode)
            manifests(files)
            result = cluster.reconcile("--path", str(root))
            assert result.returncode == 3, result.stderr + result.stdout
            assert message in result.stderr, result.stderr
            degraded = condition(cluster.get_json("greeting", "hello", "-n", namespace), "Degraded")
            assert (degraded["status"], degraded["reason"]) == ("True", "HookFailed")
            assert cluster.exists("configmap", "hello-1", "-n", namespace)  # nothing deleted on a failure
    finally:
        hook.stop()
