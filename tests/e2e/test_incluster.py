"""opctl in the cluster, for real: the CronJob that `opctl install` prints runs
on the test node from the image built from deploy/Dockerfile (non-root,
read-only root filesystem, under the generated least-privilege RBAC), fetches
from a git server on the node's network with the credentials of the git
Secret (a token over smart HTTP, or a key and known_hosts over SSH), and
reconciles; a pushed commit lands on the next run, a run after it changes
nothing, a pass that fails fails its Job, and a run pushes its metrics to a
Pushgateway with the credential of a mounted Secret."""
import base64
import contextlib
import json
import os
import signal
import time
import uuid

import pytest

from prometheus_client.parser import text_string_to_metric_families

from git_servers import HttpGitServer, SshGitServer, Upstream
from pushgateway_support import AUTHORIZATION, get, running_pushgateway
from signing_support import SshSigner
from sops_support import AgeKey, digest, require_no_plaintext, secret, sops_bin, sops_encrypt  # noqa: F401 (a fixture)

INSTALL_NAMESPACE = "opctl-system"
IMAGE = "localhost/opctl:dev"
TOKEN = "tok-123"


def configmap(name, namespace, value):
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\ndata:\n  k: {value}\n"


class InstalledSet:
    """A set in a git repository, installed in the cluster with `opctl install`; deleted again afterwards."""

    def __init__(self, cluster, tmp_path, spec="", many=0):
        self.cluster = cluster
        suffix = uuid.uuid4().hex[:8]
        self.suffix, self.name, self.app = suffix, f"ic{suffix}", f"e2e-incluster-{suffix}"
        self.upstream = Upstream(tmp_path)
        config = (f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {self.name}\n"
                  f"  namespace: {INSTALL_NAMESPACE}\n{spec}")
        namespace = f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {self.app}\n"
        files = {"apps/opctl.yaml": config, "apps/ns.yaml": namespace,
                 "apps/cm.yaml": configmap("greeting", self.app, "hello")}
        files.update({f"apps/many/m-{i:03}.yaml": configmap(f"m-{i:03}", self.app, "v") for i in range(many)})
        self.first = self.upstream.commit(files, "first")
        self.items = []
        self.cronjob = None
        self.runs = 0

    def install(self, repo, secret, local_credentials, extra=()):
        """Creates the git Secret and installs with `opctl install --apply` (fetching with local_credentials); returns
        what `opctl install -o json` prints for the same arguments (kept to delete the objects afterwards)."""
        self.cluster.kubectl("create", "namespace", INSTALL_NAMESPACE, check=False)
        self.cluster.kubectl("create", "secret", "generic", f"git-{self.name}", "-n", INSTALL_NAMESPACE,
                             *[f"--from-file={key}={path}" for key, path in secret.items()])
        arguments = ["install", "--kubeconfig", self.cluster.kubeconfig, "--repo", repo, "--path", "apps",
                     *local_credentials, "--git-secret", f"git-{self.name}", "--image", IMAGE, *extra]
        printed = self.cluster.opctl(*arguments, "-o", "json")
        assert printed.returncode == 0, printed.stderr
        self.items = json.loads(printed.stdout)["items"]
        self.cronjob = next(item["metadata"]["name"] for item in self.items if item["kind"] == "CronJob")
        applied = self.cluster.opctl(*arguments, "--apply")
        assert applied.returncode == 0, applied.stdout + applied.stderr
        # The node has the image (its tag is not :latest, so it is not pulled again).
        assert self.cluster.exists("cronjob", self.cronjob, "-n", INSTALL_NAMESPACE)
        # The tests start each run themselves (start()). The schedule's own tick (every 5 minutes) would start one
        # at a moment of its choosing, whose run then holds the set's Lease while a test's run expects it free (a
        # cold CI run met it once). Suspended, the CronJob still makes Jobs for `kubectl create job --from`, and
        # opctl install does not own spec.suspend, so nothing here changes what install wrote.
        self.cluster.kubectl("patch", "cronjob", self.cronjob, "-n", INSTALL_NAMESPACE, "--type=merge",
                             "-p", '{"spec": {"suspend": true}}')
        return printed.stdout

    def start(self):
        """Starts a run of the CronJob now, as its next tick would; returns the Job's name."""
        self.runs += 1
        job = f"run-{self.runs}-{self.suffix}"
        self.cluster.kubectl("create", "job", job, f"--from=cronjob/{self.cronjob}", "-n", INSTALL_NAMESPACE)
        return job

    @contextlib.contextmanager
    def served_over_http(self, tmp_path, extra=()):
        """Serves the repository from the node over smart HTTP behind a token, installs the set with the token in its
        git Secret, and yields what `opctl install` printed; the server stops afterwards."""
        server = HttpGitServer(tmp_path / "http", {"x-access-token": TOKEN}, node=True)
        try:
            (server.root / "repo.git").symlink_to(self.upstream.bare)
            token = tmp_path / "token"
            token.write_text(TOKEN)
            yield self.install(server.url("repo.git"), {"token": token}, ["--git-token-file", str(token)], extra)
        finally:
            server.stop()

    def run(self, succeed=True):
        """Starts a run of the CronJob, waits until it ends, and returns its log."""
        job = self.start()
        deadline = time.time() + 180
        status = {}
        while time.time() < deadline:
            status = self.cluster.get_json("job", job, "-n", INSTALL_NAMESPACE).get("status", {})
            finished = [c for c in status.get("conditions", []) if c["type"] in ("Complete", "Failed")
                        and c["status"] == "True"]
            if finished:
                break
            time.sleep(1)
        log = self.cluster.kubectl("logs", f"job/{job}", "-n", INSTALL_NAMESPACE, check=False)
        outcome = "succeeded" if succeed else "failed"
        assert status.get(outcome), f"run {job} was expected to have {outcome}: {status}\n{log.stdout}{log.stderr}"
        return log.stdout + log.stderr

    def value(self):
        return self.cluster.get_json("configmap", "greeting", "-n", self.app)["data"]["k"]

    def delete(self):
        for item in reversed(self.items):
            if item["kind"] == "Namespace":
                continue
            namespace = ["-n", item["metadata"]["namespace"]] if item["metadata"].get("namespace") else []
            self.cluster.kubectl("delete", item["kind"].lower(), item["metadata"]["name"], *namespace,
                                 "--ignore-not-found", "--wait=false", check=False)
        self.cluster.kubectl("delete", "jobs", "-n", INSTALL_NAMESPACE, "-l",
                             f"app.kubernetes.io/instance={self.name}", "--wait=false", check=False)
        self.cluster.kubectl("delete", "secret", f"git-{self.name}", "-n", INSTALL_NAMESPACE,
                             "--ignore-not-found", check=False)
        self.cluster.kubectl("delete", "namespace", self.app, "--wait=false", "--ignore-not-found", check=False)


@pytest.fixture
def installed(cluster, tmp_path):
    installed_set = InstalledSet(cluster, tmp_path)
    yield installed_set
    installed_set.delete()


def test_the_installed_cronjob_runs_from_the_image_and_converges(cluster, tmp_path, installed):
    with installed.served_over_http(tmp_path) as printed:
        assert TOKEN not in printed

        log = installed.run()
        assert installed.value() == "hello", log
        source = cluster.get_json("configmap", "greeting", "-n", installed.app)["metadata"]["annotations"][
            "opctl.io/source"]
        assert installed.first in source, source
        assert TOKEN not in log

        installed.upstream.commit({"apps/cm.yaml": configmap("greeting", installed.app, "bonjour")}, "second")
        log = installed.run()
        assert installed.value() == "bonjour", log

        log = installed.run()
        assert "0 created, 0 configured" in log, log

        pod = cluster.get_json("pods", "-n", INSTALL_NAMESPACE, "-l",
                               f"job-name=run-{installed.runs}-{installed.suffix}")["items"][0]
        assert pod["spec"]["containers"][0]["image"] == IMAGE
        assert pod["spec"]["securityContext"]["runAsNonRoot"] is True
        assert pod["spec"]["containers"][0]["securityContext"]["readOnlyRootFilesystem"] is True
        assert pod["spec"]["serviceAccountName"] == f"opctl-{installed.name}"


def test_the_cronjob_pushes_its_metrics_with_the_credential_of_a_mounted_secret(cluster, tmp_path, installed):
    # A real Pushgateway on the node's network that wants basic auth; the header's value is in a Secret.
    (tmp_path / "pushgateway").mkdir()
    secret = f"metrics-{installed.name}"
    authorization = tmp_path / "authorization"
    authorization.write_text(AUTHORIZATION + "\n")
    cluster.kubectl("create", "namespace", INSTALL_NAMESPACE, check=False)
    cluster.kubectl("create", "secret", "generic", secret, "-n", INSTALL_NAMESPACE,
                    f"--from-file=authorization={authorization}")
    try:
        with running_pushgateway(tmp_path / "pushgateway", node=True) as gateway, \
                installed.served_over_http(tmp_path, ["--metrics-push", gateway,
                                                      "--metrics-push-auth-secret", secret]) as printed:
            assert AUTHORIZATION.split()[1] not in printed
            log = installed.run()
            assert installed.value() == "hello", log
            assert "warning" not in log, log
            assert AUTHORIZATION.split()[1] not in log

            pushed = {}
            for family in text_string_to_metric_families(get(gateway + "/metrics")):
                for sample in family.samples:
                    if sample.labels.get("set") == installed.name and sample.labels.get("job") == "opctl":
                        pushed[(sample.name, sample.labels.get("action", ""))] = sample.value
            assert pushed.get(("opctl_run_success", "")) == 1, pushed
            # The Namespace (which opctl install made, so the pass configures it) and the ConfigMap read above.
            assert pushed.get(("opctl_objects", "created")) + pushed.get(("opctl_objects", "configured")) == 2, pushed
            assert pushed.get(("opctl_objects", "failed")) == 0, pushed
            assert pushed.get(("push_failure_time_seconds", "")) == 0, pushed

            pod = cluster.get_json("pods", "-n", INSTALL_NAMESPACE, "-l",
                                   f"job-name=run-{installed.runs}-{installed.suffix}")["items"][0]
            volume = next(v for v in pod["spec"]["volumes"] if v["name"] == "metrics-push")
            assert volume["secret"]["items"] == [{"key": "authorization", "path": "authorization"}]
            args = pod["spec"]["containers"][0]["args"]
            assert args[args.index("--metrics-push") + 1] == gateway
            assert args[args.index("--metrics-push-auth-file") + 1] == "/etc/opctl/metrics-push/authorization"
    finally:
        cluster.kubectl("delete", "secret", secret, "-n", INSTALL_NAMESPACE, "--ignore-not-found", check=False)


def test_a_kustomization_is_rendered_inside_the_image_by_its_kustomize(cluster, tmp_path, installed):
    # The image has no kubectl: opctl falls back to the kustomize binary the Dockerfile builds.
    kustomization = ("resources: [ns.yaml, cm.yaml]\n"
                     f"configMapGenerator:\n- name: generated\n  namespace: {installed.app}\n"
                     "  literals: [from=kustomize]\n")
    with installed.served_over_http(tmp_path):
        installed.upstream.commit({"apps/kustomization.yaml": kustomization}, "kustomize")
        log = installed.run()
        assert installed.value() == "hello", log
        generated = [item for item in cluster.get_json("configmaps", "-n", installed.app)["items"]
                     if item["metadata"]["name"].startswith("generated-")]
        assert [item["data"] for item in generated] == [{"from": "kustomize"}], log


def test_a_sops_secret_is_decrypted_in_the_cronjob_with_the_age_identity_of_a_mounted_secret(
        cluster, tmp_path, installed, sops_bin):
    key = AgeKey(tmp_path)
    password = f"pw-{uuid.uuid4().hex}"
    installed.upstream.commit({"apps/db.sops.yaml": sops_encrypt(sops_bin, key, secret("db", installed.app, password))},
                              "an encrypted Secret")
    age_secret = f"age-{installed.name}"
    cluster.kubectl("create", "namespace", INSTALL_NAMESPACE, check=False)
    cluster.kubectl("create", "secret", "generic", age_secret, "-n", INSTALL_NAMESPACE,
                    f"--from-file=age.agekey={key.path}")
    try:
        # opctl install reads the set too (for its RBAC), so it decrypts with the local copy of the identity.
        extra = ("--sops-age-secret", age_secret, "--sops-age-key-file", str(key.path))
        with installed.served_over_http(tmp_path, extra) as printed:
            require_no_plaintext(printed, password)
            log = installed.run()
            require_no_plaintext(log, password)
            live = cluster.get_json("secret", "db", "-n", installed.app)
            assert "sops" not in live
            assert digest(base64.b64decode(live["data"]["password"]).decode()) == digest(password)
            # Least privilege stays: the kubelet mounts the identity, so no rule names the age Secret, and the only
            # Secret opctl may get in the install namespace is its ApplySet parent (it lists Secrets there only to
            # prune by label, as it lists every kind of the set in the parent's namespace).
            for item in json.loads(printed)["items"]:
                in_install_namespace = item["kind"] == "Role" and item["metadata"]["namespace"] == INSTALL_NAMESPACE
                for rule in item.get("rules", []):
                    assert age_secret not in rule.get("resourceNames", []), rule
                    if (in_install_namespace or item["kind"] == "ClusterRole") and "secrets" in rule.get(
                            "resources", []) and "get" in rule["verbs"]:
                        assert rule.get("resourceNames") == [f"opctl-{installed.name}"], rule
            cronjob = next(item for item in json.loads(printed)["items"] if item["kind"] == "CronJob")
            volumes = cronjob["spec"]["jobTemplate"]["spec"]["template"]["spec"]["volumes"]
            assert {"secretName": age_secret, "defaultMode": 0o440,
                    "items": [{"key": "age.agekey", "path": "age.agekey"}]} in [v.get("secret") for v in volumes]
    finally:
        cluster.kubectl("delete", "secret", age_secret, "-n", INSTALL_NAMESPACE, "--ignore-not-found", check=False)


def test_the_cronjob_verifies_commit_signatures_with_the_allowed_signers_of_a_mounted_secret(cluster, tmp_path,
                                                                                             installed):
    signer = SshSigner(tmp_path / "keys", "alice@example.com")
    allowed = tmp_path / "allowed_signers"
    allowed.write_text(signer.allowed_signers_line())
    upstream = installed.upstream
    upstream._write({"apps/cm.yaml": configmap("greeting", installed.app, "signed")})
    upstream._run("add", "-A")
    upstream._run(*signer.git_config, "commit", "-q", "-S", "-m", "signed by alice")
    upstream._run("push", "-q", "origin", "main")
    verify_secret = f"verify-{installed.name}"
    cluster.kubectl("create", "namespace", INSTALL_NAMESPACE, check=False)
    cluster.kubectl("create", "secret", "generic", verify_secret, "-n", INSTALL_NAMESPACE,
                    f"--from-file=allowed_signers={allowed}")
    try:
        extra = ("--verify-commits", "--verify-allowed-signers", str(allowed), "--verify-secret", verify_secret)
        with installed.served_over_http(tmp_path, extra):
            log = installed.run()
            assert installed.value() == "signed", log

            # An unsigned commit on top: the run fails, names the commit, and applies nothing.
            unsigned = installed.upstream.commit({"apps/cm.yaml": configmap("greeting", installed.app, "unsigned")},
                                                 "not signed")
            log = installed.run(succeed=False)
            assert unsigned[:7] in log and "unsigned" in log, log
            assert installed.value() == "signed", log
    finally:
        cluster.kubectl("delete", "secret", verify_secret, "-n", INSTALL_NAMESPACE, "--ignore-not-found",
                        check=False)


def test_the_cronjob_fetches_over_ssh_with_the_secrets_key_and_known_hosts(cluster, tmp_path, installed):
    server = SshGitServer(tmp_path / "ssh", node=True)
    try:
        known_hosts = server.known_hosts(tmp_path / "known_hosts")
        secret = {"ssh-privatekey": server.client_key, "known_hosts": known_hosts}
        installed.install(server.url(str(installed.upstream.bare)), secret,
                          ["--git-ssh-key-file", str(server.client_key), "--git-known-hosts-file", str(known_hosts)])
        log = installed.run()
        assert installed.value() == "hello", log
        assert "PRIVATE KEY" not in log
    finally:
        server.stop()


def test_a_failing_pass_fails_its_job_and_a_fixed_commit_converges(cluster, tmp_path, installed):
    with installed.served_over_http(tmp_path):
        installed.upstream.commit({"apps/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [broken\n"},
                                  "broken")
        log = installed.run(succeed=False)
        assert "cm.yaml" in log, log
        assert not cluster.exists("configmap", "greeting", "-n", installed.app), "an invalid set applies nothing"

        installed.upstream.commit({"apps/cm.yaml": configmap("greeting", installed.app, "fixed")}, "fixed")
        log = installed.run()
        assert installed.value() == "fixed", log


def kill_opctl_in_pods():
    """SIGKILLs the opctl processes running in the node's containers (as a node crash or the OOM killer would);
    they are the only processes whose command line starts with the image's /usr/local/bin/opctl reconcile."""
    killed = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = open(f"/proc/{entry}/cmdline", "rb").read().split(b"\0")
            cgroup = open(f"/proc/{entry}/cgroup").read()
        except OSError:
            continue
        if cmdline[:2] == [b"/usr/local/bin/opctl", b"reconcile"] and "kubepods" in cgroup:
            os.kill(int(entry), signal.SIGKILL)
            killed += 1
    return killed


def test_a_run_killed_mid_pass_is_taken_over_once_its_lease_expires(cluster, tmp_path):
    # 200 objects at 10 requests a second: a pass long enough to kill in the middle.
    spec = "spec:\n  qps: 10\n  burst: 1\n  concurrency: 1\n  lease:\n    duration: 30s\n"
    installed = InstalledSet(cluster, tmp_path, spec=spec, many=200)
    try:
        with installed.served_over_http(tmp_path):
            job = installed.start()
            deadline = time.time() + 120
            while time.time() < deadline:
                applied = cluster.kubectl("get", "configmaps", "-n", installed.app, "-o", "name", check=False).stdout
                if applied.count("configmap/m-") >= 5:
                    break
                time.sleep(0.5)
            assert kill_opctl_in_pods() == 1
            killed_at = time.time()
            cluster.kubectl("delete", "job", job, "-n", INSTALL_NAMESPACE, "--wait=false")
            # The next tick, while the dead run's Lease is live: it touches nothing and its Job fails.
            held = installed.run(succeed=False)
            assert "another run holds the lease" in held, held
            time.sleep(max(0.0, killed_at + 32 - time.time()))  # past the Lease's duration
            log = installed.run()
            names = cluster.kubectl("get", "configmaps", "-n", installed.app, "-o", "name").stdout.split()
            assert len([n for n in names if n.startswith("configmap/m-")]) == 200, log
            assert installed.value() == "hello"
    finally:
        installed.delete()
