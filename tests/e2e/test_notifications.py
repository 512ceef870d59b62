"""Notifications after a pass (opctl.yaml spec.notifications), received by local HTTP servers.

A real pass against the real control plane: one that changes something, one in sync, one that fails. The
receiving end is Python's http.server, which records every request, and each test checks the method, the path,
the headers a service expects (GitHub's `Authorization: Bearer`, GitLab's `PRIVATE-TOKEN`) and the JSON body.
"""
import hashlib
import hmac
import http.server
import json
import subprocess
import threading

import pytest

SLACK_PATH = "/slack/services/T000/B000/secretpart"


class Receiver:
    """An HTTP server on loopback that records each request; paths under /broken answer 500."""

    def __init__(self):
        self.requests = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                body = raw.decode()
                receiver.requests.append({"method": self.command, "path": self.path,
                                          "headers": {k.lower(): v for k, v in self.headers.items()},
                                          "body": json.loads(body) if body else None, "raw": raw})
                status = 500 if self.path.startswith("/broken") else 201
                answer = b'{"message": "broken"}' if status == 500 else b"{}"
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def take(self):
        """The requests received since the last call, by path prefix."""
        taken, self.requests = self.requests, []
        return taken

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    server = Receiver()
    yield server
    server.close()


def configmap(name, namespace):
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\ndata:\n  k: v\n"


def git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def setup(tmp_path, namespace, receiver):
    """A git work tree whose origin is on github.com, tokens in a file and in the environment, and a -f
    opctl.yaml outside the source with one entry of each type (and one whose server answers 500)."""
    repo = tmp_path / "repo"
    (repo / "prod").mkdir(parents=True)
    (repo / "prod" / "settings.yaml").write_text(configmap("settings", namespace))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "add", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "first")
    git(repo, "remote", "add", "origin", "https://github.com/acme/ops.git")
    (tmp_path / "webhook-token").write_text("webhook-s3cret\n")
    (tmp_path / "gitlab-token").write_text("glpat-s3cret\n")
    (tmp_path / "hook-key").write_text("hook-k3y-s3cret\n")
    setname = namespace
    config = tmp_path / "opctl.yaml"
    config.write_text(f"""apiVersion: opctl.io/v1alpha1
kind: Config
metadata:
  name: {setname}
  namespace: {namespace}
spec:
  notifications:
    - type: webhook
      url: {receiver.url}/hook
      tokenFile: {tmp_path / "webhook-token"}
      signingKeyFile: {tmp_path / "hook-key"}
      on: [always]
    - type: slack
      urlEnv: TEST_SLACK_URL
      channel: "#deploys"
    - type: github
      apiURL: {receiver.url}/github/api/v3/
      tokenEnv: TEST_GITHUB_TOKEN
      targetURL: https://ci.example/jobs/1
      on: [always]
    - type: gitlab
      apiURL: {receiver.url}/gitlab/api/v4
      project: group/sub/ops
      tokenFile: {tmp_path / "gitlab-token"}
      on: [always]
    - type: webhook
      name: broken
      url: {receiver.url}/broken
      retries: 1
      on: [always]
""")
    env = {"TEST_SLACK_URL": receiver.url + SLACK_PATH, "TEST_GITHUB_TOKEN": "ghp-s3cret"}
    return {"repo": repo, "config": config, "env": env, "set": setname}


def by_path(requests):
    found = {}
    for request in requests:
        key = request["path"].split("/")[1]
        found.setdefault(key, []).append(request)
    return found


def run_pass(cluster, setup, *extra):
    result = cluster.reconcile("-f", str(setup["config"]), "--path", str(setup["repo"] / "prod"), *extra,
                               env=setup["env"])
    for secret in ("webhook-s3cret", "glpat-s3cret", "ghp-s3cret", "secretpart", "hook-k3y-s3cret"):
        assert secret not in result.stdout + result.stderr, "a credential was printed"
    return result


def test_a_changing_pass_notifies_every_receiver_and_a_failed_send_is_a_warning(cluster, namespace, receiver,
                                                                                 setup):
    sha = git(setup["repo"], "rev-parse", "HEAD")
    result = run_pass(cluster, setup)
    assert result.returncode == 0, result.stderr
    assert cluster.exists("configmap", "settings", "-n", namespace)
    got = by_path(receiver.take())

    [hook] = got["hook"]
    assert hook["method"] == "POST"
    assert hook["headers"]["authorization"] == "Bearer webhook-s3cret"
    assert hook["headers"]["content-type"] == "application/json"
    assert "expect" not in hook["headers"], "a receiver that ignores Expect: 100-continue would cost a second"
    # Signed as GitHub signs its webhooks: HMAC-SHA256 of the exact body under the key (its file's newline dropped),
    # checked here with Python's own hmac.
    expected = "sha256=" + hmac.new(b"hook-k3y-s3cret", hook["raw"], hashlib.sha256).hexdigest()
    assert hmac.compare_digest(hook["headers"]["x-opctl-signature-256"], expected)
    body = hook["body"]
    assert (body["set"], body["result"], body["severity"], body["changed"]) == (setup["set"], "succeeded", "info",
                                                                                 True)
    assert body["revision"]["commit"] == sha
    assert body["revision"]["repo"] == "https://github.com/acme/ops.git"
    assert body["counts"]["created"] == 1 and body["counts"]["failed"] == 0

    [slack] = got["slack"]
    assert slack["path"] == SLACK_PATH
    assert "authorization" not in slack["headers"]
    assert slack["body"]["channel"] == "#deploys"
    assert slack["body"]["text"].startswith(f"opctl: set {setup['set']} succeeded at {sha[:7]}: 1 created")
    assert slack["body"]["attachments"][0]["color"] == "good"

    [github] = got["github"]
    assert github["path"] == f"/github/api/v3/repos/acme/ops/statuses/{sha}"
    assert github["headers"]["authorization"] == "Bearer ghp-s3cret"
    assert github["headers"]["accept"] == "application/vnd.github+json"
    assert github["body"]["state"] == "success"
    assert github["body"]["context"] == f"opctl/{setup['set']}"
    assert "1 created" in github["body"]["description"]
    assert github["body"]["target_url"] == "https://ci.example/jobs/1"

    [gitlab] = got["gitlab"]
    assert gitlab["path"] == f"/gitlab/api/v4/projects/group%2Fsub%2Fops/statuses/{sha}"
    assert gitlab["headers"]["private-token"] == "glpat-s3cret"
    assert "authorization" not in gitlab["headers"]
    assert gitlab["body"]["state"] == "success"
    assert gitlab["body"]["name"] == f"opctl/{setup['set']}"

    # The broken receiver was tried twice (retries: 1); the pass still succeeded, with a warning.
    assert len(got["broken"]) == 2
    assert "x-opctl-signature-256" not in got["broken"][0]["headers"], "an entry without a key is not signed"
    assert "warning: notification broken" in result.stderr
    assert "was not sent (2 attempts): HTTP 500" in result.stderr


def test_a_pass_in_sync_and_a_failed_pass_notify_as_their_triggers_say(cluster, namespace, receiver, setup):
    sha = git(setup["repo"], "rev-parse", "HEAD")
    assert run_pass(cluster, setup).returncode == 0
    receiver.take()

    in_sync = run_pass(cluster, setup)
    assert in_sync.returncode == 0, in_sync.stderr
    got = by_path(receiver.take())
    assert "slack" not in got, "slack's default triggers are failure and change"
    assert got["hook"][0]["body"]["changed"] is False
    assert got["hook"][0]["body"]["counts"]["unchanged"] == 1
    assert got["github"][0]["body"]["state"] == "success"

    # A dry run sends nothing.
    assert run_pass(cluster, setup, "--dry-run").returncode == 0
    assert receiver.take() == []

    (setup["repo"] / "prod" / "bad.yaml").write_text(
        f"apiVersion: v1\nkind: Service\nmetadata: {{name: bad, namespace: {namespace}}}\n"
        "spec: {ports: [{port: 99999}]}\n")
    git(setup["repo"], "-c", "user.name=t", "-c", "user.email=t@example.com", "add", ".")
    git(setup["repo"], "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "bad")
    bad_sha = git(setup["repo"], "rev-parse", "HEAD")
    assert bad_sha != sha
    failed = run_pass(cluster, setup)
    assert failed.returncode == 3, failed.stderr
    got = by_path(receiver.take())

    hook = got["hook"][0]["body"]
    assert (hook["result"], hook["severity"]) == ("failed", "error")
    assert hook["revision"]["commit"] == bad_sha
    assert hook["failures"][0]["object"] == f"Service {namespace}/bad"
    assert "99999" in hook["failures"][0]["message"]
    [slack] = got["slack"]
    assert slack["body"]["attachments"][0]["color"] == "danger"
    assert f"set {setup['set']} failed at {bad_sha[:7]}" in slack["body"]["text"]
    [github] = got["github"]
    assert github["path"] == f"/github/api/v3/repos/acme/ops/statuses/{bad_sha}"
    assert github["body"]["state"] == "failure"
    [gitlab] = got["gitlab"]
    assert gitlab["path"].endswith(f"/statuses/{bad_sha}")
    assert gitlab["body"]["state"] == "failed"


def test_a_set_that_cannot_load_is_a_failure_on_the_commit_that_broke_it(cluster, namespace, receiver, setup):
    # Given a commit with a manifest that has no kind, we should exit 2, apply nothing, and still tell every
    # receiver, with a failed commit status on that commit.
    (setup["repo"] / "prod" / "broken.yaml").write_text(f"apiVersion: v1\nmetadata:\n  name: x\n  namespace: {namespace}\n")
    git(setup["repo"], "-c", "user.name=t", "-c", "user.email=t@example.com", "add", ".")
    git(setup["repo"], "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "broken")
    sha = git(setup["repo"], "rev-parse", "HEAD")
    result = run_pass(cluster, setup)
    assert result.returncode == 2, result.stderr
    assert not cluster.exists("configmap", "settings", "-n", namespace)
    got = by_path(receiver.take())
    hook = got["hook"][0]["body"]
    assert (hook["result"], hook["severity"], hook["changed"]) == ("failed", "error", False)
    assert "broken.yaml" in hook["message"]
    assert hook["revision"]["commit"] == sha
    assert got["slack"][0]["body"]["attachments"][0]["color"] == "danger"
    [github] = got["github"]
    assert github["path"] == f"/github/api/v3/repos/acme/ops/statuses/{sha}"
    assert github["body"]["state"] == "failure"
    assert got["gitlab"][0]["body"]["state"] == "failed"


def test_notifications_of_an_opctl_yaml_inside_a_git_source_are_not_sent(cluster, namespace, receiver, tmp_path):
    # Given a git source whose own opctl.yaml points a tokenEnv at a URL, we should apply the commit but send
    # nothing (the commit could send any credential anywhere), and say why.
    repo = tmp_path / "ops"
    (repo / "prod").mkdir(parents=True)
    (repo / "prod" / "settings.yaml").write_text(configmap("settings", namespace))
    (repo / "prod" / "opctl.yaml").write_text(f"""apiVersion: opctl.io/v1alpha1
kind: Config
metadata:
  name: {namespace}
  namespace: {namespace}
spec:
  notifications:
    - type: webhook
      url: {receiver.url}/hook
      tokenEnv: TEST_STOLEN_TOKEN
      on: [always]
""")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "add", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "first")
    result = cluster.reconcile("--repo", str(repo), "--path", "prod", "--cache-dir", str(tmp_path / "cache"),
                               env={"TEST_STOLEN_TOKEN": "stolen-s3cret"})
    assert result.returncode == 0, result.stderr
    assert cluster.exists("configmap", "settings", "-n", namespace)
    assert receiver.take() == []
    assert "spec.notifications of an opctl.yaml inside a git source are not sent" in result.stderr
    assert "stolen-s3cret" not in result.stdout + result.stderr
