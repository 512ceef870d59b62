"""What users touch besides the passes: shell completion, man pages and --help,
flag suggestions, the container image's runtime packages, and the CI recipes."""
import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest
import yaml

from git_servers import Upstream

ROOT = pathlib.Path(os.environ.get("OPCTL_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
SUBCOMMANDS = ["reconcile", "diff", "validate", "status", "history", "rollback", "install", "crds", "backup",
               "promote", "fetch", "version", "completion", "instance run", "instance ready", "cluster status",
               "cluster restart", "cluster reload", "cluster psql", "cluster report"]


def run(cluster, *args):
    return subprocess.run([cluster.opctl_bin, *args], capture_output=True, text=True, timeout=60)


def complete(cluster, *words):
    script = run(cluster, "completion", "bash").stdout
    probe = (f"{script}\nCOMP_WORDS=({' '.join(words)}); COMP_CWORD={len(words) - 1}; _opctl; "
             "printf '%s\\n' \"${COMPREPLY[@]}\"")
    return subprocess.run(["bash", "-c", probe], capture_output=True, text=True).stdout.split()


def test_bash_completion_completes_subcommands_and_flags(cluster):
    assert complete(cluster, "opctl", "rec") == ["reconcile"]
    assert "--prune" in complete(cluster, "opctl", "reconcile", "--pru")
    assert complete(cluster, "opctl", "diff", "--exit") == ["--exit-code"]


def test_zsh_and_fish_scripts_name_every_subcommand(cluster):
    for shell in ["zsh", "fish"]:
        script = run(cluster, "completion", shell).stdout
        for command in ["reconcile", "diff", "status"]:
            assert command in script, (shell, command)
    if shutil.which("zsh"):
        assert subprocess.run(["zsh", "-n"], input=run(cluster, "completion", "zsh").stdout, text=True).returncode == 0


def test_mistyped_flag_and_command_get_a_suggestion(cluster):
    flag = run(cluster, "reconcile", "--path", ".", "--prnue")
    assert flag.returncode == 2
    assert "unknown flag --prnue, did you mean --prune?" in flag.stderr
    command = run(cluster, "reconcle")
    assert command.returncode == 2
    assert "did you mean reconcile?" in command.stderr


@pytest.mark.parametrize("page", sorted(p.name for p in (ROOT / "man").iterdir()))
def test_man_page_renders_without_warnings(page):
    result = subprocess.run(["man", "--warnings", "-l", str(ROOT / "man" / page)], capture_output=True, text=True,
                            env={**os.environ, "MANWIDTH": "100", "LC_ALL": "C.UTF-8"})
    assert result.returncode == 0
    assert result.stderr == "", result.stderr


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_every_flag_in_help_is_in_the_man_page(cluster, command):
    help_text = run(cluster, *command.split(), "--help").stdout
    assert "Usage:" in help_text
    page = (ROOT / "man" / f"opctl-{command.split()[0]}.1").read_text().replace("\\-", "-")
    flags = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]+)", help_text)) - {"--help"}
    missing = sorted(flag for flag in flags if flag not in page)
    assert not missing, f"opctl-{command}.1 lacks {missing}"


def test_every_subcommand_has_help_with_examples(cluster):
    for command in ["reconcile", "diff", "status", "completion", "fetch", "backup"]:
        assert "Examples:" in run(cluster, command, "--help").stdout, command


def packages_with_dependencies(names):
    """The installed packages `names` pull in, recursively (what apt-get would install)."""
    seen, queue = set(), list(names)
    while queue:
        name = queue.pop()
        if name in seen:
            continue
        seen.add(name)
        depends = subprocess.run(["dpkg-query", "-W", "-f=${Depends},${Pre-Depends}", name],
                                 capture_output=True, text=True).stdout
        for clause in depends.split(","):
            alternative = clause.split("|")[0].strip()
            if alternative:
                queue.append(alternative.split()[0].split(":")[0])
    return seen


def test_dockerfile_runtime_packages_cover_every_shared_library(cluster):
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    runtime_stage = dockerfile.split("FROM debian:bookworm-slim\n", 1)[1]
    install = re.search(r"apt-get install -y --no-install-recommends (.*?) \\\n &&", runtime_stage, re.S).group(1)
    listed = install.replace("\\\n", " ").split()
    covered = packages_with_dependencies(listed)
    libraries = re.findall(r"=> (/\S+)", subprocess.run(["ldd", cluster.opctl_bin], capture_output=True, text=True).stdout)
    assert libraries
    uncovered = []
    for library in libraries:
        owner = subprocess.run(["dpkg", "-S", os.path.realpath(library)], capture_output=True, text=True).stdout
        if not owner:
            owner = subprocess.run(["dpkg", "-S", library], capture_output=True, text=True).stdout
        package = owner.split(":")[0]
        if package not in covered:
            uncovered.append((library, package))
    assert not uncovered, uncovered
    assert "USER 65532" in runtime_stage


def recipe_steps_github():
    workflow = yaml.safe_load((ROOT / "examples" / "ci" / "github-actions.yml").read_text())
    steps = workflow["jobs"]["diff"]["steps"]
    return [(step.get("env", {}), step["run"]) for step in steps if "run" in step and "install.sh" not in step["run"]]


def recipe_steps_gitlab():
    job = yaml.safe_load((ROOT / "examples" / "ci" / "gitlab-ci.yml").read_text())["opctl-diff"]
    return [line for line in job["script"] if "install.sh" not in line]


@pytest.fixture
def recipe_workspace(tmp_path, cluster, namespace):
    """A pull request's checkout: origin/main holds manifests-example/ with one ConfigMap, the checked-out
    branch adds another; neither is in the cluster yet."""
    upstream = Upstream(tmp_path)
    upstream.commit({"manifests-example/kept.yaml": config_map("kept", namespace)}, "base")
    upstream.commit({"manifests-example/cm.yaml": config_map("from-pr", namespace)}, "the pull request", branch="pr")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "opctl").symlink_to(cluster.opctl_bin)
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    return upstream.work, env


def config_map(name, namespace):
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\ndata:\n  k: v\n"


def assert_pull_request_report(report):
    """The change adds one object; against the cluster, the head adds both."""
    assert report["kind"] == "RevisionDiffReport"
    assert report["base"]["ref"] == "origin/main"
    assert report["summary"]["added"] == 1 and report["summary"]["unchanged"] == 1
    assert [o["name"] for o in report["objects"] if o["action"] == "added"] == ["from-pr"]
    assert report["live"]["summary"]["added"] == 2


def test_github_actions_recipe_posts_the_markdown_diff(cluster, recipe_workspace, tmp_path):
    checkout, env = recipe_workspace
    runner_temp = tmp_path / "runner"
    runner_temp.mkdir()
    env.update(RUNNER_TEMP=str(runner_temp), GITHUB_STEP_SUMMARY=str(runner_temp / "summary.md"),
               GITHUB_BASE_REF="main")
    for step_env, script in recipe_steps_github():
        step_env = {k: pathlib.Path(cluster.kubeconfig).read_text() if "secrets." in v else v for k, v in step_env.items()}
        result = subprocess.run(["bash", "-e", "-c", script], cwd=checkout, env={**env, **step_env},
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, (script, result.stdout, result.stderr)
    summary = (runner_temp / "summary.md").read_text()
    assert "### opctl diff: what this change does" in summary
    assert "from-pr" in summary and "#### Against the cluster" in summary
    assert_pull_request_report(json.loads((runner_temp / "diff.json").read_text()))


def test_github_actions_recipe_without_the_secret_compares_the_revisions_only(cluster, recipe_workspace, tmp_path):
    checkout, env = recipe_workspace
    runner_temp = tmp_path / "runner"
    runner_temp.mkdir()
    env.update(RUNNER_TEMP=str(runner_temp), GITHUB_STEP_SUMMARY=str(runner_temp / "summary.md"),
               GITHUB_BASE_REF="main", HOME=str(tmp_path))
    for step_env, script in recipe_steps_github():
        step_env = {k: "" if "secrets." in v else v for k, v in step_env.items()}  # a fork's pull request
        result = subprocess.run(["bash", "-e", "-c", script], cwd=checkout, env={**env, **step_env},
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, (script, result.stdout, result.stderr)
    report = json.loads((runner_temp / "diff.json").read_text())
    assert report["summary"]["added"] == 1 and report["live"] is None


def test_gitlab_recipe_runs_and_leaves_artifacts(cluster, recipe_workspace):
    checkout, env = recipe_workspace
    env.update(KUBECONFIG_READONLY=cluster.kubeconfig, CI_MERGE_REQUEST_TARGET_BRANCH_NAME="main")
    script = "\n".join(recipe_steps_gitlab())
    result = subprocess.run(["bash", "-e", "-c", script], cwd=checkout, env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "from-pr" in (checkout / "diff.md").read_text()
    assert_pull_request_report(json.loads((checkout / "diff.json").read_text()))


def test_install_puts_the_binary_and_every_man_page_where_man_finds_them(cluster, tmp_path):
    build_dir = pathlib.Path(cluster.opctl_bin).resolve().parents[1]
    prefix = tmp_path / "prefix"
    installed = subprocess.run(["cmake", "--install", str(build_dir), "--prefix", str(prefix)], capture_output=True,
                               text=True)
    assert installed.returncode == 0, installed.stderr
    assert os.access(prefix / "bin" / "opctl", os.X_OK)
    for page in sorted((ROOT / "man").iterdir()):
        section = page.suffix[1:]
        assert (prefix / "share" / "man" / f"man{section}" / page.name).is_file(), page.name
        found = subprocess.run(["man", "-M", str(prefix / "share" / "man"), "-w", section, page.stem],
                               capture_output=True, text=True)
        assert found.returncode == 0, f"man {section} {page.stem}: {found.stderr}"


def test_the_examples_crds_are_what_opctl_crds_prints(cluster):
    # manifests-example/crds.yaml is generated: a schema change that is not regenerated there makes the example's
    # CRD conflict with one installed from `opctl crds` (server-side apply, another field manager).
    printed = cluster.opctl("crds")
    assert printed.returncode == 0, printed.stderr
    assert (ROOT / "manifests-example" / "crds.yaml").read_text() == printed.stdout, \
        "regenerate it: opctl crds > manifests-example/crds.yaml"
