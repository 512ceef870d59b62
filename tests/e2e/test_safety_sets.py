"""Safe under mistakes (issue 17): sets never prune each other, a CRD or a
Namespace is not pruned while others' objects remain, no credential reaches an
output, a plain directory is read as git reads a tree, exec plugins time out,
and a pass validates what it applies. Every result is read back with kubectl."""
import json
import os
import pathlib
import uuid

import pytest


def config(name, set_namespace):
    return f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {name}\n  namespace: {set_namespace}\n"


def configmap(name, namespace):
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\ndata:\n  k: v\n"


@pytest.fixture
def setname():
    return "s" + uuid.uuid4().hex[:8]


def write(root, files):
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).write_text(text)
    return root


def test_pruning_an_unnamed_set_is_refused(cluster, namespace, tmp_path):
    # Without --name or metadata.name two sets would share "default" and prune each other.
    root = write(tmp_path / "team-a", {"a.yaml": configmap("a", namespace)})
    result = cluster.reconcile("--path", str(root), "--prune")
    assert result.returncode == 2, result.stderr + result.stdout
    assert "pruning needs a named set" in result.stderr
    assert not cluster.exists("configmap", "a", "-n", namespace), "nothing is applied"
    preview = cluster.opctl("diff", "--kubeconfig", cluster.kubeconfig, "--path", str(root), "--prune")
    assert preview.returncode == 2 and "pruning needs a named set" in preview.stderr
    # Applying without prune still works, in the unnamed set.
    assert cluster.reconcile("--path", str(root)).returncode == 0
    assert cluster.exists("configmap", "a", "-n", namespace)


def test_a_set_written_from_another_source_is_not_pruned_without_take_over(cluster, namespace, tmp_path, setname):
    team_a = write(tmp_path / "team-a", {"a.yaml": configmap("from-a", namespace)})
    team_b = write(tmp_path / "team-b", {"b.yaml": configmap("from-b", namespace)})
    first = cluster.reconcile("--path", str(team_a), "--prune", "--name", setname, "-n", namespace)
    assert first.returncode == 0, first.stderr + first.stdout
    parent = cluster.get_json("secret", f"opctl-{setname}", "-n", "default")
    assert parent["metadata"]["annotations"]["opctl.io/set-source"] == str(team_a.resolve())

    refused = cluster.reconcile("--path", str(team_b), "--prune", "--name", setname)
    assert refused.returncode == 2, refused.stderr + refused.stdout
    assert str(team_a.resolve()) in refused.stderr and str(team_b.resolve()) in refused.stderr
    assert f"ConfigMap {namespace}/from-a" in refused.stderr, refused.stderr
    assert "--take-over" in refused.stderr
    assert cluster.exists("configmap", "from-a", "-n", namespace)
    assert not cluster.exists("configmap", "from-b", "-n", namespace), "a refused pass changes nothing"

    preview = cluster.opctl("diff", "--kubeconfig", cluster.kubeconfig, "--path", str(team_b), "--prune",
                            "--name", setname)
    assert preview.returncode == 2 and "refusing to prune" in preview.stderr, preview.stderr

    taken = cluster.reconcile("--path", str(team_b), "--prune", "--name", setname, "--take-over")
    assert taken.returncode == 0, taken.stderr + taken.stdout
    assert not cluster.exists("configmap", "from-a", "-n", namespace)
    assert cluster.exists("configmap", "from-b", "-n", namespace)
    parent = cluster.get_json("secret", f"opctl-{setname}", "-n", "default")
    assert parent["metadata"]["annotations"]["opctl.io/set-source"] == str(team_b.resolve())
    status = cluster.opctl("status", "--kubeconfig", cluster.kubeconfig, "--path", str(team_b), "--name", setname)
    assert status.returncode == 0, status.stderr
    assert f"ApplySet default/opctl-{setname}" in status.stdout
    assert f"Source: {team_b.resolve()}" in status.stdout, status.stdout
    cluster.kubectl("delete", "secret", f"opctl-{setname}", "-n", "default", check=False)


CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.{group}
spec:
  group: {group}
  scope: Namespaced
  names: {{plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}
"""


def test_a_crd_whose_custom_resources_remain_is_not_pruned(cluster, namespace, manifests, setname):
    group = f"{setname}.example.com"
    root = manifests({"opctl.yaml": config(setname, namespace), "crd.yaml": CRD.format(group=group),
                      "cm.yaml": configmap("anchor", namespace)})
    try:
        first = cluster.reconcile("--path", str(root))
        assert first.returncode == 0, first.stderr + first.stdout
        cluster.kubectl("apply", "-f", "-", input=f"apiVersion: {group}/v1\nkind: Gadget\nmetadata:\n"
                                                   f"  name: someone-elses\n  namespace: {namespace}\n")
        os.remove(root / "crd.yaml")
        preview = cluster.opctl("diff", "--kubeconfig", cluster.kubeconfig, "--path", str(root), "--prune")
        assert preview.returncode == 0, preview.stderr
        assert f"gadgets.{group}" not in preview.stdout, preview.stdout

        kept = cluster.reconcile("--path", str(root), "--prune")
        assert kept.returncode == 0, kept.stderr + kept.stdout
        assert f"CustomResourceDefinition gadgets.{group} kept" in kept.stdout, kept.stdout
        assert f"Gadget {namespace}/someone-elses" in kept.stdout
        assert "--prune-crds" in kept.stdout
        assert cluster.exists("gadgets." + group, "someone-elses", "-n", namespace)

        forced = cluster.reconcile("--path", str(root), "--prune", "--prune-crds")
        assert forced.returncode == 0, forced.stderr + forced.stdout
        assert f"CustomResourceDefinition gadgets.{group} pruned" in forced.stdout
    finally:
        cluster.kubectl("delete", "crd", f"gadgets.{group}", "--wait=false", check=False)


def test_symbolic_links_in_a_directory_are_not_followed(cluster, namespace, tmp_path, setname):
    outside = write(tmp_path / "outside", {"x.yaml": configmap("from-outside", namespace)})
    root = write(tmp_path / "set", {"opctl.yaml": config(setname, namespace), "a.yaml": configmap("inside", namespace)})
    os.symlink(".", root / "loop-a")
    os.symlink(".", root / "loop-b")
    os.symlink(outside, root / "elsewhere")
    result = cluster.reconcile("--path", str(root), timeout=120)
    assert result.returncode == 0, result.stderr + result.stdout
    assert "loop-a: a symbolic link, not followed" in result.stderr
    assert "elsewhere: a symbolic link, not followed" in result.stderr
    assert cluster.exists("configmap", "inside", "-n", namespace)
    assert not cluster.exists("configmap", "from-outside", "-n", namespace)


def test_install_refuses_a_password_in_the_repo_url_and_never_prints_it(cluster, manifests, namespace):
    root = manifests({"a.yaml": configmap("a", namespace)})
    result = cluster.opctl("install", "--repo", "https://robot:s3cr3t-pw@git.example.com/ops.git", "--path", "prod")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "--git-secret" in result.stderr
    assert "s3cr3t-pw" not in result.stdout + result.stderr
    assert root.exists()


def exec_kubeconfig(cluster, tmp_path, script):
    plugin = tmp_path / "plugin.sh"
    plugin.write_text(script)
    plugin.chmod(0o755)
    config = json.loads(cluster.kubectl("config", "view", "--raw", "-o", "json").stdout)
    for user in config["users"]:
        user["user"] = {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": str(plugin),
                                 "interactiveMode": "Never"}}
    path = tmp_path / "kubeconfig"
    path.write_text(json.dumps(config))
    return str(path)


def test_a_hanging_exec_plugin_is_killed_after_the_timeout(cluster, tmp_path, namespace):
    kubeconfig = exec_kubeconfig(cluster, tmp_path, "#!/bin/sh\necho 'waiting for a browser' >&2\nsleep 600\n")
    root = write(tmp_path / "set", {"a.yaml": configmap("a", namespace)})
    result = cluster.opctl("reconcile", "--kubeconfig", kubeconfig, "--path", str(root), "--exec-timeout", "2s",
                           timeout=60)
    assert result.returncode == 3, result.stderr + result.stdout
    assert "plugin.sh did not finish within 2s and was killed" in result.stderr
    assert "waiting for a browser" in result.stderr


def test_an_exec_plugin_printing_nothing_gets_its_own_message(cluster, tmp_path, namespace):
    kubeconfig = exec_kubeconfig(cluster, tmp_path, "#!/bin/sh\necho 'no session' >&2\n")
    root = write(tmp_path / "set", {"a.yaml": configmap("a", namespace)})
    result = cluster.opctl("reconcile", "--kubeconfig", kubeconfig, "--path", str(root), timeout=60)
    assert result.returncode == 3, result.stderr
    assert "printed nothing on stdout" in result.stderr and "no session" in result.stderr
    assert "not an ExecCredential JSON" not in result.stderr


def test_a_pass_validates_secret_data_before_applying_anything(cluster, namespace, manifests, setname):
    secret = (f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: bad\n  namespace: {namespace}\n"
              "data:\n  password: not base64!\n")
    root = manifests({"opctl.yaml": config(setname, namespace), "a.yaml": configmap("first", namespace),
                      "s.yaml": secret})
    result = cluster.reconcile("--path", str(root))
    assert result.returncode == 2, result.stderr + result.stdout
    assert "s.yaml:7" in result.stderr and "base64" in result.stderr, result.stderr
    assert not cluster.exists("configmap", "first", "-n", namespace), "nothing is applied"


def test_uppercase_names_are_invalid_with_file_and_line(cluster, namespace, manifests):
    root = manifests({"a.yaml": f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: MyConfig\n  namespace: {namespace}\n"})
    result = cluster.opctl("validate", "--offline", "--path", str(root))
    assert result.returncode == 2
    assert "a.yaml:4: metadata.name: \"MyConfig\" must be a DNS-1123 subdomain" in result.stdout + result.stderr


def test_verbose_logs_the_lease_requests(cluster, namespace, manifests, setname):
    root = manifests({"opctl.yaml": config(setname, namespace), "a.yaml": configmap("a", namespace)})
    result = cluster.reconcile("--path", str(root), "-v")
    assert result.returncode == 0, result.stderr
    assert f"/namespaces/{namespace}/leases/opctl-{setname}" in result.stderr, result.stderr


def test_a_tls_verification_failure_is_not_retried(cluster, tmp_path, namespace):
    # Given a kubeconfig that trusts another CA, we should fail at once with a clear message, one attempt each.
    import base64
    import subprocess
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=other-ca",
                    "-keyout", str(tmp_path / "ca.key"), "-out", str(tmp_path / "ca.crt")],
                   check=True, capture_output=True)
    config = json.loads(cluster.kubectl("config", "view", "--raw", "-o", "json").stdout)
    for entry in config["clusters"]:
        entry["cluster"].pop("certificate-authority", None)
        entry["cluster"]["certificate-authority-data"] = base64.b64encode((tmp_path / "ca.crt").read_bytes()).decode()
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(json.dumps(config))
    root = write(tmp_path / "set", {"a.yaml": configmap("a", namespace)})
    result = cluster.opctl("diff", "--kubeconfig", str(kubeconfig), "--path", str(root), "-v", timeout=60)
    assert result.returncode == 3, result.stderr
    assert "certificate could not be verified" in result.stderr, result.stderr
    assert "will retry" not in result.stderr


def test_a_failed_prune_says_it_was_a_prune(cluster, namespace, manifests, setname):
    # Given an admission policy that refuses to delete one ConfigMap, the error line should say the prune failed.
    import time
    policy = f"""apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {{name: {setname}}}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {{apiGroups: [""], apiVersions: ["v1"], operations: ["DELETE"], resources: ["configmaps"]}}
  validations:
  - {{expression: "oldObject.metadata.name != 'undeletable'", message: "undeletable is protected"}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {{name: {setname}}}
spec:
  policyName: {setname}
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels: {{kubernetes.io/metadata.name: {namespace}}}
"""
    root = manifests({"opctl.yaml": config(setname, namespace), "a.yaml": configmap("undeletable", namespace),
                      "b.yaml": configmap("anchor", namespace)})
    assert cluster.reconcile("--path", str(root)).returncode == 0
    try:
        cluster.kubectl("apply", "-f", "-", input=policy)
        for _ in range(60):
            probe = cluster.kubectl("delete", "configmap", "undeletable", "-n", namespace, "--dry-run=server",
                                    check=False)
            if probe.returncode != 0:
                break
            time.sleep(0.5)
        os.remove(root / "a.yaml")
        result = cluster.reconcile("--path", str(root), "--prune")
        assert result.returncode == 3, result.stderr + result.stdout
        assert f"ConfigMap {namespace}/undeletable failed: prune (delete) failed:" in result.stderr, result.stderr
        assert "undeletable is protected" in result.stderr
        assert cluster.exists("configmap", "undeletable", "-n", namespace)
    finally:
        cluster.kubectl("delete", "validatingadmissionpolicybinding", setname, check=False)
        cluster.kubectl("delete", "validatingadmissionpolicy", setname, check=False)


def test_a_work_tree_and_its_commit_give_the_same_set_despite_links(cluster, namespace, tmp_path):
    # Given a commit with links in it, read through --repo and through its checkout, we should get one set.
    import subprocess
    write(tmp_path / "outside", {"x.yaml": configmap("from-outside", namespace)})
    repo = write(tmp_path / "repo", {"a.yaml": configmap("inside", namespace)})
    os.symlink(".", repo / "loop")
    os.symlink(tmp_path / "outside", repo / "ext")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "links"], check=True)

    def names(*source):
        result = cluster.opctl("diff", "--kubeconfig", cluster.kubeconfig, *source, "-o", "json",
                               "--cache-dir", str(tmp_path / "cache"))
        assert result.returncode == 0, result.stderr
        assert "loop: a symbolic link, not followed" in result.stderr, result.stderr
        return sorted(o["name"] for o in json.loads(result.stdout)["objects"])

    assert names("--path", str(repo)) == names("--repo", f"file://{repo}") == ["inside"]
