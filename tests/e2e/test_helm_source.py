"""Helm charts as a source, end to end: real charts in a real git repository
rendered by the real helm (tests/tools/build.sh helm, from the Go module proxy)
and applied by the real opctl binary, read back with kubectl.

A directory with a Chart.yaml is rendered where the walk finds it; a helm:
entry of opctl.yaml names a chart elsewhere in the repository with values
from yet another path. Hooks are refused (or left out with skipHooks), a
missing helm is an input error naming what to install, and helm never
reaches the cluster or the network.
"""
import json
import os
import pathlib
import shutil
import subprocess

import pytest

from git_servers import Upstream

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def helm_path():
    """A PATH with the tests' helm in front of the usual one."""
    built = subprocess.run([str(ROOT / "tests" / "tools" / "build.sh"), "helm"], capture_output=True, text=True,
                           timeout=1800)
    assert built.returncode == 0, built.stderr
    helm = pathlib.Path(built.stdout.strip())
    return f"{helm.parent}:{os.environ['PATH']}"


CHART_YAML = "apiVersion: v2\nname: {name}\nversion: 1.0.0\n"

CONFIG_TEMPLATE = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
  namespace: {{ .Release.Namespace }}
data:
  greeting: {{ .Values.greeting | quote }}
  size: {{ .Values.size | default "none" | quote }}
  # helm template has no cluster: lookup finds nothing, so this says whether helm reached one.
  cluster: {{ if lookup "v1" "Namespace" "" "kube-system" }}"reached"{{ else }}"not-contacted"{{ end }}
  kubeVersion: {{ .Capabilities.KubeVersion.Version | quote }}
"""

SERVICE_TEMPLATE = """apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}
spec:
  ports: [{port: 80}]
  selector: {app: {{ .Release.Name }}}
"""

HOOK_TEMPLATE = """apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-migrate
  annotations:
    "helm.sh/hook": pre-install,pre-upgrade
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: localhost/shell:1, command: ["true"]}]
"""

TEST_HOOK_TEMPLATE = """apiVersion: v1
kind: Pod
metadata:
  name: {{ .Release.Name }}-test
  annotations:
    "helm.sh/hook": test
spec:
  containers: [{name: t, image: localhost/shell:1}]
"""


def web_chart(prefix="charts/web"):
    return {f"{prefix}/Chart.yaml": CHART_YAML.format(name="web"),
            f"{prefix}/values.yaml": "greeting: from-chart-defaults\n",
            f"{prefix}/templates/configmap.yaml": CONFIG_TEMPLATE,
            f"{prefix}/templates/service.yaml": SERVICE_TEMPLATE,
            f"{prefix}/templates/tests/test-connection.yaml": TEST_HOOK_TEMPLATE}


def opctl_yaml(name, namespace, helm=""):
    return (f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
            f"spec:\n  namespace: {namespace}\n{helm}")


def plain_config_map(name):
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  k: v\n"


def reconcile(cluster, upstream, path, tmp_path, env_path, *args):
    return cluster.reconcile("--repo", upstream.file_url, "--path", path, "--cache-dir", str(tmp_path / "cache"), *args,
                             env={"PATH": env_path})


def test_a_chart_elsewhere_in_the_repo_is_rendered_with_values_from_another_path_and_applied(
        cluster, namespace, tmp_path, helm_path):
    upstream = Upstream(tmp_path)
    files = {**web_chart(), **web_chart("envs/prod/local"),
             "envs/prod/local/Chart.yaml": CHART_YAML.format(name="local"),
             "values/prod/web.yaml": "greeting: from-prod-values\nsize: from-prod-values\n",
             # Next to opctl.yaml and named by it: read by helm (later files win), not as a manifest.
             "envs/prod/web-values.yaml": "greeting: from-env-values\n",
             "envs/prod/plain.yaml": plain_config_map("plain"),
             "envs/prod/opctl.yaml": opctl_yaml("helm1", namespace, f"""  helm:
    - chart: ../../charts/web
      releaseName: web-prod
      namespace: {namespace}
      valuesFiles: [../../values/prod/web.yaml, web-values.yaml]
      kubeVersion: "1.31.0"
""")}
    upstream.commit(files, "a chart, its values elsewhere")
    result = reconcile(cluster, upstream, "envs/prod", tmp_path, helm_path)
    assert result.returncode == 0, result.stdout + result.stderr

    web = cluster.get_json("configmap", "web-prod-config", "-n", namespace)["data"]
    assert web["greeting"] == "from-env-values" and web["size"] == "from-prod-values"
    assert web["cluster"] == "not-contacted"
    assert web["kubeVersion"] == "v1.31.0"
    assert cluster.exists("service", "web-prod", "-n", namespace)
    # The chart below the path, found by the walk: its own values, its name as the release, the set's namespace.
    local = cluster.get_json("configmap", "local-config", "-n", namespace)["data"]
    assert local["greeting"] == "from-chart-defaults" and local["size"] == "none"
    assert cluster.exists("service", "local", "-n", namespace)
    assert cluster.exists("configmap", "plain", "-n", namespace)
    # Test hooks are never part of a release: left out, not applied.
    assert not cluster.exists("pod", "web-prod-test", "-n", namespace)
    assert not cluster.exists("pod", "local-test", "-n", namespace)

    # What opctl reports about a rendered object names its template.
    diff = cluster.opctl("diff", "--kubeconfig", cluster.kubeconfig, "--repo", upstream.file_url, "--path",
                         "envs/prod", "--cache-dir", str(tmp_path / "cache"), "-o", "json", env={"PATH": helm_path})
    assert diff.returncode == 0, diff.stderr
    sources = {(o["kind"], o["name"]): o["source"]["file"] for o in json.loads(diff.stdout)["objects"]}
    assert sources[("ConfigMap", "web-prod-config")].endswith(
        ":charts/web/templates/configmap.yaml (helm release web-prod)")
    assert sources[("Service", "local")].endswith(":envs/prod/local/templates/service.yaml (helm release local)")


def test_an_invalid_rendered_object_is_reported_at_its_template(cluster, namespace, tmp_path, helm_path):
    upstream = Upstream(tmp_path)
    chart = web_chart("app/web")
    chart["app/web/templates/broken.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {a: b}\n"
    upstream.commit({**chart, "app/opctl.yaml": opctl_yaml("helm2", namespace)}, "a template without a name")
    result = reconcile(cluster, upstream, "app", tmp_path, helm_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "app/web/templates/broken.yaml (helm release web)" in result.stderr
    assert not cluster.exists("configmap", "web-config", "-n", namespace)


def test_a_chart_with_a_hook_is_refused_unless_skip_hooks_leaves_the_hook_out(cluster, namespace, tmp_path, helm_path):
    upstream = Upstream(tmp_path)
    chart = web_chart("charts/web")
    chart["charts/web/templates/migrate.yaml"] = HOOK_TEMPLATE
    entry = f"  helm:\n    - chart: ../charts/web\n      releaseName: web\n      namespace: {namespace}\n"
    upstream.commit({**chart, "env/opctl.yaml": opctl_yaml("helm3", namespace, entry), "env/plain.yaml":
                     plain_config_map("plain")}, "a chart with a hook")
    refused = reconcile(cluster, upstream, "env", tmp_path, helm_path)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "charts/web/templates/migrate.yaml (helm release web):6" in refused.stderr
    assert "helm.sh/hook: pre-install,pre-upgrade" in refused.stderr and "skipHooks" in refused.stderr
    # Nothing of the set is applied when one object is refused.
    assert not cluster.exists("configmap", "web-config", "-n", namespace)
    assert not cluster.exists("configmap", "plain", "-n", namespace)

    upstream.commit({"env/opctl.yaml": opctl_yaml("helm3", namespace, entry + "      skipHooks: true\n")},
                    "skip the hooks")
    skipped = reconcile(cluster, upstream, "env", tmp_path, helm_path)
    assert skipped.returncode == 0, skipped.stdout + skipped.stderr
    assert "Helm hook (pre-install,pre-upgrade) left out" in skipped.stderr
    assert cluster.get_json("configmap", "web-config", "-n", namespace)["data"]["greeting"] == "from-chart-defaults"
    assert cluster.get_json("jobs", "-n", namespace)["items"] == []


def test_without_helm_on_path_a_chart_is_an_input_error_naming_what_to_install(cluster, namespace, tmp_path):
    upstream = Upstream(tmp_path)
    upstream.commit({**web_chart("env/web"), "env/opctl.yaml": opctl_yaml("helm4", namespace)}, "a chart")
    path_without_helm = "/usr/local/bin:/usr/bin:/bin"
    assert shutil.which("helm", path=path_without_helm) is None
    result = reconcile(cluster, upstream, "env", tmp_path, path_without_helm)
    assert result.returncode == 2, result.stdout + result.stderr
    assert ":env/web: this directory is a Helm chart, and rendering it needs helm (Helm 3) on PATH" in result.stderr
    assert "install Helm 3" in result.stderr
    assert not cluster.exists("configmap", "web-config", "-n", namespace)


def test_a_chart_whose_dependency_is_not_vendored_fails_without_reaching_the_network(cluster, namespace, tmp_path,
                                                                                     helm_path):
    upstream = Upstream(tmp_path)
    chart = web_chart("env/web")
    chart["env/web/Chart.yaml"] = CHART_YAML.format(name="web") + (
        "dependencies:\n  - name: redis\n    version: 1.0.0\n    repository: https://charts.example.invalid\n")
    upstream.commit({**chart, "env/opctl.yaml": opctl_yaml("helm5", namespace)}, "a dependency not vendored")
    result = reconcile(cluster, upstream, "env", tmp_path, helm_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "helm template failed" in result.stderr and "missing in charts/ directory: redis" in result.stderr
    assert "env/web" in result.stderr and "/tmp/opctl-git-" not in result.stderr


def test_an_entry_supplies_the_values_a_chart_below_the_path_requires_for_validate_and_reconcile(
        cluster, namespace, tmp_path, helm_path):
    root = tmp_path / "env"
    (root / "web" / "templates").mkdir(parents=True)
    (root / "web" / "Chart.yaml").write_text(CHART_YAML.format(name="web"))
    (root / "web" / "templates" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: required-config\n"
        "data:\n  greeting: {{ required \"greeting is required\" .Values.greeting | quote }}\n")
    (root / "values.yaml").write_text("greeting: hello\n")
    entry = "  helm:\n    - chart: web\n      valuesFiles: [values.yaml]\n"
    (root / "opctl.yaml").write_text(opctl_yaml("helm6", namespace, entry))
    no_cluster = {"PATH": helm_path, "HOME": str(tmp_path)}

    valid = cluster.opctl("validate", "--path", str(root), env=no_cluster)
    assert valid.returncode == 0, valid.stdout + valid.stderr
    applied = cluster.reconcile("--path", str(root), env={"PATH": helm_path})
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert cluster.get_json("configmap", "required-config", "-n", namespace)["data"]["greeting"] == "hello"

    # Without the entry the chart is rendered with its own (missing) values, and values.yaml is a manifest again.
    (root / "opctl.yaml").write_text(opctl_yaml("helm6", namespace))
    invalid = cluster.opctl("validate", "--path", str(root), env=no_cluster)
    assert invalid.returncode == 2, invalid.stdout + invalid.stderr
    report = invalid.stdout + invalid.stderr  # validate reports on standard output
    assert "greeting is required" in report and f"{root / 'web'}: helm template failed" in report
