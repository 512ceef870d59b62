"""opctl install: the in-cluster manifests, and a reconcile run the way the
CronJob runs it — in-cluster config with a token of the generated
ServiceAccount, under the generated least-privilege RBAC."""
import json
import os
import pathlib
import re
import shutil
import subprocess
import urllib.parse
import uuid

import pytest

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]

EXAMPLE = pathlib.Path(os.environ.get("OPCTL_SOURCE_DIR", pathlib.Path(__file__).parents[2])) / "manifests-example"
INSTALL_NAMESPACE = "opctl-system"


def find_testenv_binary(cluster):
    if cluster.testenv_bin:
        return cluster.testenv_bin
    built = subprocess.run([str(REPO_ROOT / "tests/testenv/build.sh")], capture_output=True, text=True, timeout=1200)
    assert built.returncode == 0, f"testenv binary not available: {built.stderr[-500:]}"
    return built.stdout.strip()


def example_copy(tmp_path, namespace, setname):
    """manifests-example/ with its namespace renamed, plus an opctl.yaml naming the set."""
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root)
    for path in root.glob("*.yaml"):
        text = path.read_text()
        text = text.replace("name: shop\n", f"name: {namespace}\n").replace("namespace: shop\n", f"namespace: {namespace}\n")
        path.write_text(text)
    (root / "opctl.yaml").write_text(
        f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {setname}\n  namespace: {INSTALL_NAMESPACE}\n")
    return root


def by_kind(items, kind):
    return [item for item in items if item["kind"] == kind]


def install_items(cluster, *args):
    result = cluster.opctl("install", "-o", "json", *args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["items"]


def kubectl_apply(cluster, items):
    cluster.kubectl("apply", "--server-side", "-f", "-",
                    input=json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))


def delete_items(cluster, items):
    for item in reversed(items):
        if item["kind"] == "Namespace" and item["metadata"]["name"] == INSTALL_NAMESPACE:
            continue  # shared by the tests of this file
        meta = item["metadata"]
        args = ["delete", item["kind"], meta["name"], "--ignore-not-found", "--wait=false"]
        if "namespace" in meta:
            args += ["-n", meta["namespace"]]
        cluster.kubectl(*args, check=False)


class ServiceAccountIdentity:
    """A token of the generated ServiceAccount, and the files a Pod would see."""

    def __init__(self, cluster, tmp_path, account):
        token = subprocess.run([find_testenv_binary(cluster), "token", "--dir", str(cluster.dir), "--namespace",
                                INSTALL_NAMESPACE, "--serviceaccount", account],
                               capture_output=True, text=True, timeout=120)
        assert token.returncode == 0, token.stderr
        self.token = token.stdout.strip()
        self.dir = tmp_path / "serviceaccount"
        self.dir.mkdir()
        (self.dir / "token").write_text(self.token)
        shutil.copy(cluster.dir / "ca.crt", self.dir / "ca.crt")
        (self.dir / "namespace").write_text(INSTALL_NAMESPACE)
        admin = json.loads(cluster.kubectl("config", "view", "--raw", "-o", "json").stdout)
        self.server = admin["clusters"][0]["cluster"]["server"]
        self.ca = str(cluster.dir / "ca.crt")
        # A Pod's environment: no kubeconfig anywhere, only the service account.
        home = tmp_path / "home"
        home.mkdir()
        parsed = urllib.parse.urlparse(self.server)
        self.env = {"KUBERNETES_SERVICE_HOST": parsed.hostname, "KUBERNETES_SERVICE_PORT": str(parsed.port),
                    "OPCTL_SERVICEACCOUNT_DIR": str(self.dir), "HOME": str(home),
                    "XDG_CACHE_HOME": str(tmp_path / "xdg-cache")}

    def kubectl(self, *args):
        return subprocess.run(["kubectl", "--kubeconfig=/dev/null", f"--server={self.server}",
                               f"--certificate-authority={self.ca}", f"--token={self.token}", *args],
                              capture_output=True, text=True, timeout=60)

    def can(self, *args):
        return self.kubectl("auth", "can-i", *args).stdout.strip() == "yes"


def cronjob_command(items, tmp_path):
    """The CronJob's container arguments, with its mounted paths mapped to local files."""
    config = by_kind(items, "ConfigMap")[0]["data"]["opctl.yaml"]
    config_dir = tmp_path / "etc-opctl-config"
    config_dir.mkdir()
    (config_dir / "opctl.yaml").write_text(config)
    container = by_kind(items, "CronJob")[0]["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]
    mapping = {"/etc/opctl/config/opctl.yaml": str(config_dir / "opctl.yaml"),
               "/var/cache/opctl/git": str(tmp_path / "cache" / "git")}
    return [mapping.get(arg, arg) for arg in container["args"]]


def actions_by_object(stdout, keys):
    actions = {}
    for line in stdout.splitlines():
        words = line.split()
        if len(words) >= 3 and " ".join(words[:2]) in keys:
            actions.setdefault(" ".join(words[:2]), set()).add(words[2].rstrip(":"))
    return actions


@pytest.fixture
def example(tmp_path):
    suffix = uuid.uuid4().hex[:8]
    namespace, setname = f"e2e-install-{suffix}", f"inst{suffix}"
    return example_copy(tmp_path, namespace, setname), namespace, setname


def test_cronjob_identity_converges_the_example_under_the_generated_rbac(cluster, tmp_path, example, namespace):
    root, shop, setname = example
    # Printing needs no cluster: every kind of the example is known offline.
    items = install_items(cluster, "--path", str(root))
    account = f"opctl-{setname}"
    assert by_kind(items, "ServiceAccount")[0]["metadata"]["name"] == account
    assert {role["metadata"]["namespace"] for role in by_kind(items, "Role")} == {shop, INSTALL_NAMESPACE}
    assert not any(binding["roleRef"]["name"] == "cluster-admin" for binding in by_kind(items, "ClusterRoleBinding"))
    try:
        kubectl_apply(cluster, items)
        identity = ServiceAccountIdentity(cluster, tmp_path, account)
        command = cronjob_command(items, tmp_path)
        assert command[0] == "reconcile"

        first = cluster.opctl(*command, env=identity.env)
        output = first.stdout + first.stderr
        assert first.returncode == 0, output
        assert "forbidden" not in output.lower(), output

        # Read back with kubectl as admin: the example converged.
        assert cluster.get_json("namespace", shop)["metadata"]["labels"]["team"] == "storefront"
        assert cluster.get_json("deployment", "web", "-n", shop)["spec"]["replicas"] == 2
        assert cluster.get_json("configmap", "web-config", "-n", shop)["data"]["LOG_LEVEL"] == "info"
        assert cluster.get_json("service", "web", "-n", shop)["spec"]["ports"][0]["port"] == 80
        cron = cluster.get_json("cronjob", "db-nightly", "-n", shop)
        assert cron["metadata"]["ownerReferences"][0]["kind"] == "Backup"
        assert cluster.exists("service", "db-rw", "-n", shop)
        assert cluster.exists("secret", "db-app", "-n", shop)
        assert cluster.exists("role", "db-1", "-n", shop), \
            "the Cluster's own RBAC (one Role per instance) needs no escalation"
        for budget in ("db-primary", "db"):  # the Cluster's PodDisruptionBudgets (policy/v1) are in the RBAC too
            assert cluster.exists("poddisruptionbudget", budget, "-n", shop), budget
        parent = cluster.get_json("secret", f"opctl-{setname}", "-n", INSTALL_NAMESPACE)
        assert parent["metadata"]["annotations"]["applyset.kubernetes.io/tooling"].startswith("opctl/")
        assert cluster.exists("lease", f"opctl-{setname}", "-n", INSTALL_NAMESPACE)
        # The generated RBAC lets the pass leave its Events on the parent.
        events = cluster.get_json("events", "-n", INSTALL_NAMESPACE, "--field-selector",
                                  f"involvedObject.name=opctl-{setname}")["items"]
        assert {"ReconcileStarted", "ReconcileSucceeded"} <= {event["reason"] for event in events}, events

        second = cluster.opctl(*command, "-v", env=identity.env)  # -v: a line per unchanged object
        assert second.returncode == 0, second.stdout + second.stderr
        assert "forbidden" not in (second.stdout + second.stderr).lower()
        desired = {f"Namespace {shop}", f"ConfigMap {shop}/web-config", f"apps/Deployment {shop}/web",
                   f"Service {shop}/web", f"PersistentVolumeClaim {shop}/db-backups",
                   f"opctl.io/Backup {shop}/db-nightly"}
        actions = actions_by_object(second.stdout, desired)
        assert set(actions) == desired, second.stdout
        assert all(found == {"unchanged"} for found in actions.values()), second.stdout
        assert "0 created" in second.stdout, second.stdout

        # The same token reads what it manages, and nothing of a namespace it does not.
        cluster.kubectl("create", "secret", "generic", "not-yours", "-n", namespace, "--from-literal=k=v")
        denied = identity.kubectl("get", "secret", "not-yours", "-n", namespace)
        assert denied.returncode != 0 and "forbidden" in denied.stderr.lower(), denied.stderr
        assert not identity.can("get", "secrets", "-n", namespace)
        assert not identity.can("list", "secrets", "-n", "kube-system")
        assert identity.can("get", "secrets", "-n", shop)
        assert not identity.can("delete", "namespace/kube-system")
        assert identity.can("patch", f"namespace/{shop}")
        assert not identity.can("update", "deployments", "-n", shop), "opctl never PUTs what it applies"
    finally:
        delete_items(cluster, [item for item in items if item["kind"] != "Namespace"])
        cluster.kubectl("delete", "namespace", shop, "--wait=false", "--ignore-not-found", check=False)


def test_rbac_cluster_admin_binds_cluster_admin_only_when_asked(cluster, tmp_path, example):
    root, _, setname = example
    items = install_items(cluster, "--path", str(root), "--rbac", "cluster-admin")
    assert not by_kind(items, "Role") and not by_kind(items, "ClusterRole")
    bindings = by_kind(items, "ClusterRoleBinding")
    assert len(bindings) == 1 and bindings[0]["roleRef"]["name"] == "cluster-admin"
    account = f"system:serviceaccount:{INSTALL_NAMESPACE}:opctl-{setname}"
    try:
        kubectl_apply(cluster, items)
        can = cluster.kubectl("auth", "can-i", "delete", "nodes", f"--as={account}", check=False)
        assert can.stdout.strip() == "yes"
    finally:
        delete_items(cluster, items)


def test_apply_creates_the_objects_and_leaves_existing_namespaces_alone(cluster, tmp_path, manifests, namespace):
    setname = "apply" + uuid.uuid4().hex[:8]
    cluster.kubectl("label", "namespace", namespace, "owner=someone-else")
    root = manifests({"cm.yaml": f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: {namespace}\n",
                      "opctl.yaml": f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {setname}\n"
                                    f"  namespace: {INSTALL_NAMESPACE}\n"})
    items = install_items(cluster, "--path", str(root))
    try:
        applied = cluster.opctl("install", "--path", str(root), "--apply", "--kubeconfig", cluster.kubeconfig)
        assert applied.returncode == 0, applied.stderr
        role = cluster.get_json("role", f"opctl-{setname}", "-n", namespace, "--show-managed-fields")
        assert {entry["manager"] for entry in role["metadata"]["managedFields"]} == {"opctl"}
        assert cluster.exists("cronjob", f"opctl-{setname}", "-n", INSTALL_NAMESPACE)
        ns = cluster.get_json("namespace", namespace, "--show-managed-fields")
        assert ns["metadata"]["labels"]["owner"] == "someone-else"
        assert "opctl" not in {entry["manager"] for entry in ns["metadata"]["managedFields"]}
        again = cluster.opctl("install", "--path", str(root), "--apply", "--kubeconfig", cluster.kubeconfig)
        assert again.returncode == 0, again.stderr
    finally:
        delete_items(cluster, [item for item in items if item["kind"] != "Namespace"])


def test_invalid_manifest_exits_2_and_prints_nothing(cluster, manifests):
    root = manifests({"bad.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: [not, a, map\n"})
    result = cluster.opctl("install", "--path", str(root))
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert "bad.yaml" in result.stderr


def test_bad_schedule_exits_2(cluster, manifests):
    root = manifests({"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: x\n"})
    result = cluster.opctl("install", "--path", str(root), "--schedule", "every day")
    assert result.returncode == 2
    assert "--schedule" in result.stderr


def test_a_metrics_push_the_cronjob_cannot_use_safely_exits_2(cluster, manifests):
    root = manifests({"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: x\n"})
    in_url = cluster.opctl("install", "--path", str(root), "--metrics-push", "https://opctl:hunter2@gw.example")
    assert in_url.returncode == 2 and in_url.stdout == "", in_url.stderr
    assert "--metrics-push: \"https://" in in_url.stderr and "--metrics-push-auth-secret" in in_url.stderr
    assert "hunter2" not in in_url.stderr
    nowhere = cluster.opctl("install", "--path", str(root), "--metrics-push-auth-secret", "opctl-metrics")
    assert nowhere.returncode == 2 and nowhere.stdout == "", nowhere.stderr
    assert "--metrics-push-auth-secret: the runs push nowhere" in nowhere.stderr
    # With the URL in the opctl.yaml the CronJob reads, the Secret's credential goes with it.
    (root / "opctl.yaml").write_text("apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: m\nspec:\n"
                                     "  metrics:\n    push:\n      url: http://gw.example:9091\n")
    items = install_items(cluster, "--path", str(root), "--metrics-push-auth-secret", "opctl-metrics")
    cronjob = next(item for item in items if item["kind"] == "CronJob")
    args = cronjob["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["args"]
    assert "--metrics-push" not in args
    assert args[args.index("--metrics-push-auth-file") + 1] == "/etc/opctl/metrics-push/authorization"
    config = next(item for item in items if item["kind"] == "ConfigMap")
    assert "url: http://gw.example:9091" in config["data"]["opctl.yaml"]

    # Paths of this machine in the installed opctl.yaml are called out: the container has neither.
    (root / "opctl.yaml").write_text("apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: m\nspec:\n"
                                     "  metrics:\n    file: /var/lib/node-exporter/opctl.prom\n    push:\n"
                                     "      url: http://gw.example:9091\n      authFile: /home/me/push-auth\n")
    warned = cluster.opctl("install", "--path", str(root))
    assert warned.returncode == 0, warned.stderr
    assert "opctl.yaml:7: spec.metrics.file: the CronJob's runs write /var/lib/node-exporter/opctl.prom" in \
        warned.stderr, warned.stderr
    assert "opctl.yaml:8: spec.metrics.push.authFile: /home/me/push-auth is not in the CronJob's container: give " \
        "--metrics-push-auth-secret NAME" in warned.stderr, warned.stderr


def test_help_has_examples_and_every_flag_is_in_the_man_page(cluster):
    help_text = cluster.opctl("install", "--help").stdout
    assert "Examples:" in help_text
    page = (pathlib.Path(os.environ.get("OPCTL_SOURCE_DIR", REPO_ROOT)) / "man" / "opctl-install.1").read_text()
    page = page.replace("\\-", "-")
    flags = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]+)", help_text)) - {"--help"}
    missing = sorted(flag for flag in flags if flag not in page)
    assert not missing, f"opctl-install.1 lacks {missing}"


def test_the_unpublished_default_image_is_called_out(cluster, namespace, manifests):
    root = manifests({"cm.yaml": f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: {namespace}\n"})
    default = cluster.opctl("install", "--path", str(root))
    chosen = cluster.opctl("install", "--path", str(root), "--image", "registry.example/opctl:0.1.0")
    assert default.returncode == 0 and chosen.returncode == 0, default.stderr + chosen.stderr
    assert "no registry publishes yet" in default.stderr and "--image" in default.stderr, default.stderr
    assert "no registry publishes" not in chosen.stderr, chosen.stderr
    assert "image: registry.example/opctl:0.1.0" in chosen.stdout
