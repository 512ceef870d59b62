"""kubectl habits that cost nothing (issue 37, item 8) against the real control plane: -l/--selector on the
commands that read the set (reports and exit codes of the selected objects only, prune candidates selected by
their live labels, reconcile refusing it), and --wait --timeout 0 (check once, do not wait). What the cluster
holds is read back with kubectl."""
import json
import uuid

from workloads import shell_deployment


def setname():
    return "h" + uuid.uuid4().hex[:8]


def config(name, namespace):
    return f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"


def configmap(name, namespace, app, value="v1"):
    return (f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
            f"  labels:\n    app: {app}\ndata:\n  k: {value}\n")


def run(cluster, command, root, *args):
    return cluster.opctl(command, "--kubeconfig", cluster.kubeconfig, "--path", str(root), *args)


def data_of(cluster, namespace, name):
    return cluster.get_json("configmap", name, "-n", namespace)["data"]["k"]


def selected_set(cluster, namespace, manifests):
    """A set of web and db ConfigMaps, reconciled; then web changes in git and one of each leaves git."""
    files = {"opctl.yaml": config(setname(), namespace),
             "web.yaml": configmap("web", namespace, "web"), "db.yaml": configmap("db", namespace, "db"),
             "gone-web.yaml": configmap("gone-web", namespace, "web"),
             "gone-db.yaml": configmap("gone-db", namespace, "db")}
    root = manifests(files)
    result = cluster.reconcile("--path", str(root))
    assert result.returncode == 0, result.stdout + result.stderr
    (root / "web.yaml").write_text(configmap("web", namespace, "web", value="v2"))
    (root / "gone-web.yaml").unlink()
    (root / "gone-db.yaml").unlink()
    return root


def test_diff_selector_reports_and_exits_for_the_selected_objects_only(cluster, namespace, manifests, tmp_path):
    root = selected_set(cluster, namespace, manifests)

    # db is in sync: with -l app=db there is nothing to report, whatever web does.
    db = run(cluster, "diff", root, "--exit-code", "-l", "app=db")
    assert db.returncode == 0, db.stdout + db.stderr
    assert "web" not in db.stdout and "0 added, 0 changed, 0 pruned, 1 unchanged" in db.stdout, db.stdout

    web = run(cluster, "diff", root, "--exit-code", "--selector", "app in (web)")
    assert web.returncode == 1, web.stdout + web.stderr
    assert f"~ v1 ConfigMap {namespace}/web" in web.stdout and "db" not in web.stdout, web.stdout
    assert "0 added, 1 changed, 0 pruned, 0 unchanged" in web.stdout, web.stdout

    # With --prune, a candidate is selected by its live labels: gone-web is shown, gone-db is not.
    report = tmp_path / "report.json"
    pruned = run(cluster, "diff", root, "--exit-code", "--prune", "-l", "app=web", "--report", str(report))
    assert pruned.returncode == 1, pruned.stdout + pruned.stderr
    objects = {o["name"]: o["action"] for o in json.loads(report.read_text())["objects"]}
    assert objects == {"web": "changed", "gone-web": "pruned"}, objects
    none_pruned = run(cluster, "diff", root, "--exit-code", "--prune", "-l", "app notin (web)")
    assert none_pruned.returncode == 1, none_pruned.stdout + none_pruned.stderr
    assert f"- v1 ConfigMap {namespace}/gone-db" in none_pruned.stdout, none_pruned.stdout
    assert "gone-web" not in none_pruned.stdout and f"{namespace}/web" not in none_pruned.stdout

    # A diff changes nothing: the cluster still holds the old web and both pruned candidates.
    assert data_of(cluster, namespace, "web") == "v1"
    assert cluster.exists("configmap", "gone-web", "-n", namespace)
    assert cluster.exists("configmap", "gone-db", "-n", namespace)


def test_status_selector_shows_inventory_drift_and_plan_of_the_selected_objects(cluster, namespace, manifests):
    root = selected_set(cluster, namespace, manifests)
    result = run(cluster, "status", root, "-l", "app=web", "-o", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    status = json.loads(result.stdout)
    assert status["selector"] == "app=web"
    assert status["inventory"] == {"ConfigMap": 2}, status["inventory"]  # web and gone-web, as kubectl lists them
    assert status["drift"] == [f"~ v1 ConfigMap {namespace}/web"], status["drift"]
    steps = {(s["action"], s["object"]) for s in status["nextPass"]["steps"]}
    assert steps == {("update", f"v1 ConfigMap {namespace}/web"), ("prune", f"v1 ConfigMap {namespace}/gone-web")}
    listed = cluster.kubectl("get", "configmap", "-n", namespace, "-l", "app=web", "-o", "name").stdout.split()
    assert sorted(listed) == ["configmap/gone-web", "configmap/web"]

    text = run(cluster, "status", root, "-l", "app=db")
    assert text.returncode == 0, text.stdout + text.stderr
    assert "Selector: app=db" in text.stdout and "Drift: none, in sync" in text.stdout, text.stdout
    assert "gone-db" in text.stdout and "gone-web" not in text.stdout and f"{namespace}/web" not in text.stdout


def test_tree_and_validate_selector_show_the_selected_objects_only(cluster, namespace, manifests):
    root = selected_set(cluster, namespace, manifests)
    result = run(cluster, "tree", root, "-l", "app=web", "-o", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    shown = sorted((o["name"], o["presence"]) for wave in json.loads(result.stdout)["waves"] for o in wave["objects"])
    assert [name for name, _ in shown] == ["gone-web", "web"], shown
    listed = cluster.kubectl("get", "configmap", "-n", namespace, "-l", "app=web", "-o", "name").stdout.split()
    assert sorted(listed) == ["configmap/gone-web", "configmap/web"]

    checked = run(cluster, "validate", root, "-l", "app=db", "-o", "json")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert json.loads(checked.stdout)["summary"]["objects"] == 1, checked.stdout


def test_a_bad_selector_is_exit_2_naming_the_flag_and_the_character(cluster, namespace, manifests):
    root = manifests({"opctl.yaml": config(setname(), namespace), "web.yaml": configmap("web", namespace, "web")})
    for command in ("diff", "status", "tree", "validate"):
        result = run(cluster, command, root, "-l", "app in (web")
        assert result.returncode == 2, (command, result.stdout + result.stderr)
        assert "--selector: at character 12 of 'app in (web': expected ',' or ')'" in result.stderr, result.stderr


def test_reconcile_refuses_a_selector_and_applies_nothing(cluster, namespace, manifests):
    root = manifests({"opctl.yaml": config(setname(), namespace), "web.yaml": configmap("web", namespace, "web")})
    result = cluster.reconcile("--path", str(root), "-l", "app=web")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "--selector: reconcile applies, prunes and records the whole set" in result.stderr, result.stderr
    assert not cluster.exists("configmap", "web", "-n", namespace)




def test_wait_timeout_0_checks_health_once_and_does_not_wait(cluster, namespace, manifests):
    # Objects healthy at once pass a --timeout 0 wait.
    root = manifests({"opctl.yaml": config(setname(), namespace), "a.yaml": configmap("a", namespace, "web")})
    ok = cluster.reconcile("--path", str(root), "--wait", "--timeout", "0")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert data_of(cluster, namespace, "a") == "v1"

    # A Deployment that is not yet healthy ends the pass at once with exit 5; the later wave is not applied.
    late = configmap("late", namespace, "web").replace("  labels:", "  annotations:\n    opctl.io/wave: \"1\"\n  labels:")
    (root / "web.yaml").write_text(shell_deployment("web", namespace, ["sleep", "3600"], readiness=["false"]))
    (root / "late.yaml").write_text(late)
    result = cluster.reconcile("--path", str(root), "--wait", "--timeout", "0", timeout=120)
    assert result.returncode == 5, result.stdout + result.stderr
    assert "timed out waiting for health in wave 0" in result.stdout + result.stderr, result.stdout + result.stderr
    assert cluster.exists("deployment", "web", "-n", namespace)
    assert not cluster.exists("configmap", "late", "-n", namespace)

    # A sub-second --timeout is a timeout like any other (the Deployment never becomes ready).
    short = cluster.reconcile("--path", str(root), "--wait", "--timeout", "1.5s", timeout=120)
    assert short.returncode == 5, short.stdout + short.stderr
    assert not cluster.exists("configmap", "late", "-n", namespace)


def test_a_duration_without_a_unit_is_exit_2_naming_the_flag(cluster, namespace, manifests):
    root = manifests({"opctl.yaml": config(setname(), namespace), "a.yaml": configmap("a", namespace, "web")})
    result = cluster.reconcile("--path", str(root), "--wait", "--timeout", "5")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "--timeout: '5': must be a duration such as 500ms, 90s, 1m30s or 2h" in result.stderr, result.stderr
    assert not cluster.exists("configmap", "a", "-n", namespace)
    (root / "opctl.yaml").write_text(config(setname(), namespace) + "spec:\n  lease:\n    duration: 1.5s\n")
    bad = cluster.reconcile("--path", str(root))
    assert bad.returncode == 2, bad.stdout + bad.stderr
    assert "opctl.yaml:8: spec.lease.duration: must be whole seconds" in bad.stderr, bad.stderr
    assert not cluster.exists("configmap", "a", "-n", namespace)
