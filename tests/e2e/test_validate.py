"""opctl validate against the real control plane, and offline.

The schemas are the control plane's own OpenAPI v3 documents: fetched by opctl
from the cluster, or saved with `kubectl get --raw` into a --schema-dir, which
must give the same findings without any cluster.
"""
import json
import os
import pathlib
import re
import subprocess

import pytest

EXAMPLE = pathlib.Path(os.environ.get("OPCTL_SOURCE_DIR", pathlib.Path(__file__).parents[2])) / "manifests-example"
MAN_PAGE = pathlib.Path(os.environ.get("OPCTL_SOURCE_DIR", pathlib.Path(__file__).parents[2])) / "man" / "opctl-validate.1"

BAD_DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: "two"
  selector:
    matchLabels:
      app: web
  templat:
    metadata: {}
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - image: nginx:1.27
          imagePullPolicy: Sometimes
"""

# (line, field, message start) of every problem in BAD_DEPLOYMENT.
BAD_DEPLOYMENT_ERRORS = [
    (7, "spec.replicas", 'must be an integer, not the string "two"'),
    (11, "spec.templat", 'unknown field (did you mean "template"?)'),
    (19, "spec.template.spec.containers[0].name", 'missing required field "name"'),
    (20, "spec.template.spec.containers[0].imagePullPolicy", 'unsupported value "Sometimes"'),
]

UNREACHABLE_KUBECONFIG = """apiVersion: v1
kind: Config
current-context: nowhere
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: nowhere, context: {cluster: c, user: u}}]
"""


def validate(cluster, *args, env=None):
    return cluster.opctl("validate", *args, env=env)


def error_lines(stdout):
    return [line for line in stdout.splitlines() if line.startswith("error: ")]


def assert_bad_deployment_errors(result, file_path):
    assert result.returncode == 2, result.stdout + result.stderr
    errors = error_lines(result.stdout)
    for line, field, message in BAD_DEPLOYMENT_ERRORS:
        expected = f"error: {file_path}:{line}: {field}: {message}"
        assert any(e.startswith(expected) for e in errors), f"missing {expected!r} in:\n{result.stdout}"
    assert len(errors) == len(BAD_DEPLOYMENT_ERRORS), result.stdout
    assert "1 objects, 4 errors, 0 warnings" in result.stdout


@pytest.fixture(scope="module")
def schema_dir(cluster, tmp_path_factory):
    """The control plane's OpenAPI v3 documents, saved the way opctl-validate(1) says."""
    directory = tmp_path_factory.mktemp("schemas")
    for group_version in ["api/v1", "apis/apps/v1", "apis/rbac.authorization.k8s.io/v1"]:
        text = cluster.kubectl("get", "--raw", f"/openapi/v3/{group_version}").stdout
        (directory / (group_version.replace("/", "__") + ".json")).write_text(text)
    return directory


@pytest.fixture
def unreachable_kubeconfig(tmp_path):
    path = tmp_path / "unreachable-kubeconfig"
    path.write_text(UNREACHABLE_KUBECONFIG)
    return str(path)


@pytest.fixture
def cache_home(tmp_path):
    """A private XDG_CACHE_HOME, so the schema cache is observable and no test shares it."""
    return {"XDG_CACHE_HOME": str(tmp_path / "cache")}


def test_bad_deployment_against_the_cluster_reports_every_problem(cluster, manifests, cache_home):
    root = manifests({"deploy.yaml": BAD_DEPLOYMENT})
    result = validate(cluster, "--path", str(root), "--kubeconfig", cluster.kubeconfig, env=cache_home)
    assert_bad_deployment_errors(result, root / "deploy.yaml")


def test_schemas_are_fetched_once_then_cached_by_hash(cluster, manifests, cache_home):
    root = manifests({"deploy.yaml": BAD_DEPLOYMENT})
    first = validate(cluster, "--path", str(root), "--kubeconfig", cluster.kubeconfig, "-v", env=cache_home)
    assert "/openapi/v3/apis/apps/v1" in first.stderr, first.stderr
    cached = list((pathlib.Path(cache_home["XDG_CACHE_HOME"]) / "opctl" / "openapi").glob("apis__apps__v1.*.json"))
    assert len(cached) == 1
    second = validate(cluster, "--path", str(root), "--kubeconfig", cluster.kubeconfig, "-v", env=cache_home)
    assert "/openapi/v3/apis/apps/v1" not in second.stderr, second.stderr
    assert error_lines(first.stdout) == error_lines(second.stdout)


def test_example_is_valid_against_the_cluster(cluster, cache_home):
    result = validate(cluster, "--path", str(EXAMPLE), "--kubeconfig", cluster.kubeconfig, env=cache_home)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"^\d+ objects, 0 errors, \d+ warnings$", result.stdout, re.M), result.stdout


def test_schema_dir_gives_the_same_errors_without_a_cluster(cluster, manifests, schema_dir, unreachable_kubeconfig):
    root = manifests({"deploy.yaml": BAD_DEPLOYMENT})
    result = validate(cluster, "--path", str(root), "--schema-dir", str(schema_dir),
                      "--kubeconfig", unreachable_kubeconfig)
    assert_bad_deployment_errors(result, root / "deploy.yaml")
    assert "127.0.0.1:1" not in result.stderr


def test_json_output_lists_findings_and_a_summary(cluster, manifests, schema_dir):
    root = manifests({"deploy.yaml": BAD_DEPLOYMENT})
    result = validate(cluster, "--path", str(root), "--schema-dir", str(schema_dir), "-o", "json")
    assert result.returncode == 2
    report = json.loads(result.stdout)
    assert report["kind"] == "ValidationReport"
    assert report["summary"] == {"objects": 1, "errors": 4, "warnings": 0, "valid": False}
    first = report["findings"][0]
    assert (first["file"], first["line"], first["field"]) == (str(root / "deploy.yaml"), 7, "spec.replicas")
    assert first["severity"] == "error"
    assert first["object"] == "apps/Deployment shop/web"


def test_offline_without_schemas_still_catches_parse_scope_and_reference_problems(cluster, manifests,
                                                                                 unreachable_kubeconfig):
    root = manifests({
        "a-syntax.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n",
        "b-identity.yaml": "apiVersion: v1\nmetadata:\n  name: nokind\n",
        "c-dup.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: twice, namespace: shop}\n",
        "d-dup.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: twice, namespace: shop}\n",
        "e-scope.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  namespace: default\n",
        "f-rbac.yaml": """apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader, namespace: shop}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: writers, namespace: shop}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: writer}
subjects: [{kind: User, name: jane}]
""",
        "g-wave.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: w\n  namespace: shop\n"
                       "  annotations:\n    opctl.io/wave: soon\n",
    })
    result = validate(cluster, "--path", str(root), "--offline", "--kubeconfig", unreachable_kubeconfig)
    assert result.returncode == 2, result.stdout + result.stderr
    out = result.stdout.replace(f"{root}/", "")
    assert re.search(r"^error: a-syntax\.yaml:[45]: YAML syntax error", out, re.M), out
    assert "error: b-identity.yaml:1: kind: missing required field" in out
    assert "error: d-dup.yaml:1: duplicate object ConfigMap shop/twice (first defined at c-dup.yaml:1)" in out
    assert "error: e-scope.yaml:5: metadata.namespace: Namespace is cluster-scoped" in out
    assert "warning: f-rbac.yaml:8: roleRef.name: Role shop/writer is not in the manifests" in out
    assert "error: g-wave.yaml:7: metadata.annotations.opctl.io/wave: must be an integer" in out
    assert "6 objects, 5 errors, 1 warnings" in out
    assert "note: schema checks skipped: --offline without --schema-dir" in result.stderr
    assert "127.0.0.1:1" not in result.stderr


def test_warnings_alone_exit_0(cluster, manifests):
    root = manifests({"rbac.yaml": """apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader, namespace: shop}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: writers, namespace: shop}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: writer}
"""})
    result = validate(cluster, "--path", str(root), "--offline")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 objects, 0 errors, 1 warnings" in result.stdout
    quiet = validate(cluster, "--path", str(root), "--offline", "--quiet")
    assert "warning:" not in quiet.stdout and "note:" not in quiet.stderr


def test_no_cluster_configured_skips_schemas_with_a_note(cluster, manifests, tmp_path):
    root = manifests({"deploy.yaml": BAD_DEPLOYMENT})
    env = {"HOME": str(tmp_path / "home"), "KUBERNETES_SERVICE_HOST": ""}
    result = validate(cluster, "--path", str(root), env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 objects, 0 errors, 0 warnings" in result.stdout
    notes = [line for line in result.stderr.splitlines() if line.startswith("note: ")]
    assert len(notes) == 1 and "schema checks skipped" in notes[0], result.stderr


def test_unreachable_cluster_skips_schemas_with_a_note(cluster, manifests, unreachable_kubeconfig):
    root = manifests({"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\n"})
    result = validate(cluster, "--path", str(root), "--kubeconfig", unreachable_kubeconfig)
    assert result.returncode == 0, result.stdout + result.stderr
    notes = [line for line in result.stderr.splitlines() if line.startswith("note: ")]
    assert len(notes) == 1, result.stderr
    assert notes[0].startswith("note: schema checks skipped: ") and "127.0.0.1:1" in notes[0], notes


def test_cluster_knows_scopes_and_kinds_the_table_does_not(cluster, manifests, cache_home):
    root = manifests({"x.yaml": """apiVersion: example.com/v1
kind: Gizmo
metadata: {name: z}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high, namespace: shop}
value: 1000
"""})
    result = validate(cluster, "--path", str(root), "--kubeconfig", cluster.kubeconfig, env=cache_home)
    assert result.returncode == 2
    out = result.stdout.replace(f"{root}/", "")
    assert 'error: x.yaml:2: kind: the cluster does not serve kind "Gizmo"' in out
    assert "error: x.yaml:7: metadata.namespace: PriorityClass is cluster-scoped" in out


def test_builtin_scope_table_matches_the_cluster(cluster, manifests):
    """Every cluster-scoped kind the control plane serves is known offline."""
    listing = cluster.kubectl("api-resources", "--namespaced=false", "-o", "wide", "--no-headers").stdout
    crd_groups = {item["spec"]["group"] for item in cluster.get_json("crd")["items"]}
    documents = []
    for line in listing.splitlines():
        fields = line.split()
        # NAME [SHORTNAMES] APIVERSION NAMESPACED KIND VERBS [CATEGORIES]
        namespaced_at = fields.index("false")
        api_version, kind = fields[namespaced_at - 1], fields[namespaced_at + 1]
        if "/" in api_version and api_version.split("/")[0] in crd_groups:
            continue
        documents.append(f"apiVersion: {api_version}\nkind: {kind}\nmetadata: {{name: x, namespace: default}}\n")
    root = manifests({"all.yaml": "---\n".join(documents)})
    result = validate(cluster, "--path", str(root), "--offline")
    scope_errors = [line for line in error_lines(result.stdout) if "is cluster-scoped" in line]
    assert len(scope_errors) == len(documents), result.stdout


def test_every_flag_is_in_the_man_page(cluster):
    help_text = cluster.opctl("validate", "--help").stdout
    flags = set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", help_text))
    page = MAN_PAGE.read_text().replace("\\-", "-")
    missing = sorted(flag for flag in flags if flag not in page)
    assert not missing, missing
    rendered = subprocess.run(["man", "--warnings", "-l", str(MAN_PAGE)], capture_output=True, text=True,
                              env={**os.environ, "MANWIDTH": "100"})
    assert rendered.returncode == 0 and rendered.stderr == "", rendered.stderr
