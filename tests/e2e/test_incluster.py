"""opctl in the cluster, for real: the CronJob that `opctl install` prints runs
on the test node from the image built from deploy/Dockerfile (non-root,
read-only root filesystem, under the generated least-privilege RBAC), fetches
from a git server on the node's network with a token from the git Secret, and
reconciles; a pushed commit lands on the next run, and a run after it
changes nothing."""
import json
import time
import uuid

from git_servers import HttpGitServer, Upstream

INSTALL_NAMESPACE = "opctl-system"
IMAGE = "localhost/opctl:dev"


def configmap(name, namespace, value):
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\ndata:\n  k: {value}\n"


def run_job(cluster, cronjob, job):
    """Starts a run of the CronJob now (as its next tick would) and waits until it ends; returns its Pod's log."""
    cluster.kubectl("create", "job", job, f"--from=cronjob/{cronjob}", "-n", INSTALL_NAMESPACE)
    deadline = time.time() + 180
    while time.time() < deadline:
        status = cluster.get_json("job", job, "-n", INSTALL_NAMESPACE).get("status", {})
        if status.get("succeeded") or status.get("failed"):
            break
        time.sleep(1)
    log = cluster.kubectl("logs", f"job/{job}", "-n", INSTALL_NAMESPACE, check=False)
    status = cluster.get_json("job", job, "-n", INSTALL_NAMESPACE).get("status", {})
    assert status.get("succeeded") == 1, f"run {job} did not succeed: {status}\n{log.stdout}{log.stderr}"
    return log.stdout


def test_the_installed_cronjob_runs_from_the_image_and_converges(cluster, tmp_path):
    suffix = uuid.uuid4().hex[:8]
    setname, app = f"ic{suffix}", f"e2e-incluster-{suffix}"
    upstream = Upstream(tmp_path)
    config = (f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {setname}\n"
              f"  namespace: {INSTALL_NAMESPACE}\n")
    namespace = f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {app}\n"
    first = upstream.commit({"apps/opctl.yaml": config, "apps/ns.yaml": namespace,
                             "apps/cm.yaml": configmap("greeting", app, "hello")}, "first")
    server = HttpGitServer(tmp_path / "http", {"x-access-token": "tok-123"}, node=True)
    (server.root / "repo.git").symlink_to(upstream.bare)
    token = tmp_path / "token"
    token.write_text("tok-123")
    repo = server.url("repo.git")
    items = []
    try:
        cluster.kubectl("create", "namespace", INSTALL_NAMESPACE, check=False)
        cluster.kubectl("create", "secret", "generic", f"git-{setname}", "-n", INSTALL_NAMESPACE,
                        "--from-literal=token=tok-123")
        printed = cluster.opctl("install", "--kubeconfig", cluster.kubeconfig, "--repo", repo, "--path", "apps",
                                "--git-token-file", str(token), "--git-secret", f"git-{setname}",
                                "--image", IMAGE, "-o", "json")
        assert printed.returncode == 0, printed.stderr
        assert "tok-123" not in printed.stdout
        items = json.loads(printed.stdout)["items"]
        for item in items:  # the node has the image; a registry would be asked for it otherwise
            if item["kind"] == "CronJob":
                for container in item["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"]:
                    container["imagePullPolicy"] = "Never"
        cluster.kubectl("apply", "--server-side", "-f", "-",
                        input=json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
        cronjob = next(item["metadata"]["name"] for item in items if item["kind"] == "CronJob")

        log = run_job(cluster, cronjob, f"run-1-{suffix}")
        assert cluster.get_json("configmap", "greeting", "-n", app)["data"]["k"] == "hello", log
        source = cluster.get_json("configmap", "greeting", "-n", app)["metadata"]["annotations"]["opctl.io/source"]
        assert first in source, source
        assert "tok-123" not in log

        second = upstream.commit({"apps/cm.yaml": configmap("greeting", app, "bonjour")}, "second")
        log = run_job(cluster, cronjob, f"run-2-{suffix}")
        assert cluster.get_json("configmap", "greeting", "-n", app)["data"]["k"] == "bonjour", log
        assert second[:7] in log or "configured" in log, log

        log = run_job(cluster, cronjob, f"run-3-{suffix}")
        assert "0 created, 0 configured" in log, log

        pod = cluster.get_json("pods", "-n", INSTALL_NAMESPACE, "-l", f"job-name=run-3-{suffix}")["items"][0]
        assert pod["spec"]["containers"][0]["image"] == IMAGE
        assert pod["spec"]["securityContext"]["runAsNonRoot"] is True
        assert pod["spec"]["containers"][0]["securityContext"]["readOnlyRootFilesystem"] is True
        assert pod["spec"]["serviceAccountName"] == f"opctl-{setname}"
    finally:
        server.stop()
        for item in reversed(items):
            if item["kind"] == "Namespace":
                continue
            cluster.kubectl("delete", item["kind"].lower(), item["metadata"]["name"],
                            *(["-n", item["metadata"]["namespace"]] if item["metadata"].get("namespace") else []),
                            "--ignore-not-found", "--wait=false", check=False)
        cluster.kubectl("delete", "jobs", "-n", INSTALL_NAMESPACE, "-l", f"app.kubernetes.io/instance={setname}",
                        "--wait=false", check=False)
        cluster.kubectl("delete", "namespace", app, "--wait=false", "--ignore-not-found", check=False)
