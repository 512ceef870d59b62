"""The git source end to end: real repositories served over file://, smart HTTP
(git http-backend behind lighttpd with basic auth) and SSH (sshd with its own
host key), fetched by the real opctl binary into its cache and applied to the
real control plane, read back with kubectl.

Exit codes (opctl(1)): 2 for input the user must fix (unknown ref, missing
path, unreadable credential files, kustomize without kubectl); 3 for failures
reaching the repository (unreachable, authentication rejected, SSH host key
unknown or changed).
"""
import json
import pathlib
import subprocess

import pytest

from git_servers import HttpGitServer, SshGitServer, Upstream, ssh_keygen


def config_map(name, version):
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  version: \"{version}\"\n"


def version_of(cluster, namespace, name="git-config"):
    return cluster.get_json("configmap", name, "-n", namespace)["data"]["version"]


def cache_entries(cache):
    return sorted(path for path in pathlib.Path(cache).iterdir() if path.is_dir())


def packs(entry):
    return sorted(path.name for path in (entry / "objects" / "pack").glob("*.pack"))


@pytest.fixture
def upstream(tmp_path):
    repo = Upstream(tmp_path)
    repo.commit({"manifests/cm.yaml": config_map("git-config", "1"), "README.md": "not a manifest\n"}, "first")
    return repo


@pytest.fixture
def http_server(tmp_path):
    server = HttpGitServer(tmp_path / "http", {"alice": "s3cret-pw", "x-access-token": "tok-123"})
    yield server
    server.stop()


@pytest.fixture
def http_upstream(http_server):
    repo = Upstream(http_server.root)
    repo.commit({"manifests/cm.yaml": config_map("git-config", "1")}, "first")
    return repo


@pytest.fixture
def ssh_server(tmp_path):
    server = SshGitServer(tmp_path / "ssh")
    yield server
    server.stop()


@pytest.fixture
def secret_file(tmp_path):
    def write(name, text):
        path = tmp_path / name
        path.write_text(text + "\n")
        path.chmod(0o600)
        return str(path)

    return write


class Runner:
    """opctl reconcile from a repository into the test's namespace, with the test's own cache."""

    def __init__(self, cluster, namespace, cache):
        self.cluster, self.namespace, self.cache = cluster, namespace, cache

    def __call__(self, repo, *args, env=None):
        return self.cluster.reconcile("--repo", repo, "-n", self.namespace, "--cache-dir", str(self.cache), *args,
                                      env=env)

    def ok(self, repo, *args, env=None):
        result = self(repo, *args, env=env)
        assert result.returncode == 0, f"exit {result.returncode}: {result.stderr}"
        return result


@pytest.fixture
def run(cluster, namespace, tmp_path):
    return Runner(cluster, namespace, tmp_path / "cache")


def test_file_repo_is_cloned_and_new_commits_are_fetched_into_the_same_cache(run, upstream, cluster, namespace):
    run.ok(upstream.file_url, "--path", "manifests")
    assert version_of(cluster, namespace) == "1"
    [entry] = cache_entries(run.cache)
    first_inode, first_packs = entry.stat().st_ino, packs(entry)

    upstream.commit({"manifests/cm.yaml": config_map("git-config", "2")}, "second")
    run.ok(upstream.file_url, "--path", "manifests")
    assert version_of(cluster, namespace) == "2"
    assert cache_entries(run.cache) == [entry]
    assert entry.stat().st_ino == first_inode, "the cache was re-created instead of fetched into"
    assert set(first_packs) < set(packs(entry)), "an incremental fetch adds a pack and keeps the old ones"


def test_the_default_cache_is_under_xdg_cache_home(cluster, namespace, upstream, tmp_path):
    xdg = tmp_path / "xdg"
    result = cluster.reconcile("--repo", upstream.file_url, "--path", "manifests", "-n", namespace,
                               env={"XDG_CACHE_HOME": str(xdg)})
    assert result.returncode == 0, result.stderr
    [entry] = cache_entries(xdg / "opctl" / "git")
    assert entry.name.startswith("repo-")
    assert (xdg / "opctl" / "git" / (entry.name + ".lock")).exists()


def test_tags_branches_and_short_shas_resolve(run, upstream, cluster, namespace):
    first = upstream.sha("HEAD")
    upstream.tag("v1")
    second = upstream.commit({"manifests/cm.yaml": config_map("git-config", "2")}, "second")
    upstream.commit({"manifests/cm.yaml": config_map("git-config", "feature")}, "feature", branch="feature/x")

    for ref, version in [("v1", "1"), (second[:7], "2"), ("feature/x", "feature"), (first, "1"), ("main", "2")]:
        run.ok(upstream.file_url, "--ref", ref, "--path", "manifests")
        assert version_of(cluster, namespace) == version, f"--ref {ref}"


def test_a_force_pushed_branch_is_followed(run, http_upstream, http_server, secret_file, cluster, namespace):
    auth = secret_file("basic", "alice:s3cret-pw")
    http_upstream.commit({"manifests/cm.yaml": config_map("git-config", "2")}, "second")
    run.ok(http_server.url("repo.git"), "--path", "manifests", "--git-basic-auth-file", auth)
    assert version_of(cluster, namespace) == "2"

    rewritten = http_upstream.rewrite({"manifests/cm.yaml": config_map("git-config", "rewritten")})
    run.ok(http_server.url("repo.git"), "--path", "manifests", "--git-basic-auth-file", auth)
    assert version_of(cluster, namespace) == "rewritten"
    [entry] = cache_entries(run.cache)
    assert subprocess.run(["git", "--git-dir", str(entry), "rev-parse", "refs/remotes/origin/main"],
                          capture_output=True, text=True).stdout.strip() == rewritten


def test_http_end_to_end_applies_manifests_with_basic_auth(run, http_upstream, http_server, secret_file, cluster,
                                                           namespace):
    # The scenario: opctl reconcile --repo http://127.0.0.1:PORT/repo.git --path manifests.
    auth = secret_file("basic", "alice:s3cret-pw")
    run.ok(http_server.url("repo.git"), "--path", "manifests", "--git-basic-auth-file", auth)
    config = cluster.get_json("configmap", "git-config", "-n", namespace)
    assert config["data"] == {"version": "1"}

    # A second pass fetches incrementally over the same connection: one authenticated
    # ref advertisement and one upload-pack POST, into the same cache.
    http_upstream.commit({"manifests/cm.yaml": config_map("git-config", "2")}, "second")
    before = len(http_server.requests(until=lambda lines: any("POST" in line for line in lines)))
    run.ok(http_server.url("repo.git"), "--path", "manifests", "--git-basic-auth-file", auth)
    assert version_of(cluster, namespace) == "2"
    second_pass = http_server.requests(after=before, until=lambda lines: any("POST" in line for line in lines))
    assert sum("POST /repo.git/git-upload-pack" in line and " 200 " in line for line in second_pass) == 1
    assert len(cache_entries(run.cache)) == 1


def test_https_with_a_private_ca_from_ssl_cert_file(run, tmp_path, secret_file, cluster, namespace):
    server = HttpGitServer(tmp_path / "https", {"alice": "s3cret-pw"}, tls=True)
    try:
        Upstream(server.root).commit({"manifests/cm.yaml": config_map("git-config", "tls")}, "first")
        args = ("--path", "manifests", "--git-basic-auth-file", secret_file("basic", "alice:s3cret-pw"))
        untrusted = run(server.url("repo.git"), *args)
        assert untrusted.returncode == 3
        assert "certificate" in untrusted.stderr and "SSL_CERT_FILE" in untrusted.stderr
        run.ok(server.url("repo.git"), *args, env={"SSL_CERT_FILE": str(server.ca_certificate)})
        assert version_of(cluster, namespace) == "tls"
    finally:
        server.stop()


def test_http_tokens_from_a_file_or_the_environment(run, http_upstream, http_server, secret_file, cluster, namespace):
    run.ok(http_server.url("repo.git"), "--path", "manifests", "--git-token-file", secret_file("token", "tok-123"))
    assert version_of(cluster, namespace) == "1"
    http_upstream.commit({"manifests/cm.yaml": config_map("git-config", "2")}, "second")
    run.ok(http_server.url("repo.git"), "--path", "manifests", env={"OPCTL_GIT_TOKEN": "tok-123"})
    assert version_of(cluster, namespace) == "2"


def test_http_netrc_is_used_without_explicit_credentials(run, http_upstream, http_server, secret_file, cluster,
                                                         namespace):
    netrc = secret_file("netrc", "machine 127.0.0.1 login alice password s3cret-pw")
    run.ok(http_server.url("repo.git"), "--path", "manifests", env={"NETRC": netrc})
    assert version_of(cluster, namespace) == "1"


def test_http_wrong_password_is_a_clear_error_without_the_password(run, http_upstream, http_server, secret_file,
                                                                   cluster, namespace):
    result = run(http_server.url("repo.git"), "--path", "manifests",
                 "--git-basic-auth-file", secret_file("basic", "alice:hunter2-wrong"))
    assert result.returncode == 3
    assert "authentication rejected" in result.stderr
    assert http_server.url("repo.git") in result.stderr
    assert "hunter2-wrong" not in result.stdout + result.stderr

    port = http_server.port
    in_url = run(f"http://alice:hunter2-wrong@127.0.0.1:{port}/repo.git", "--path", "manifests")
    assert in_url.returncode == 3
    assert "hunter2-wrong" not in in_url.stdout + in_url.stderr
    assert f"http://127.0.0.1:{port}/repo.git" in in_url.stderr

    anonymous = run(http_server.url("repo.git"), "--path", "manifests", env={"NETRC": "/nonexistent"})
    assert anonymous.returncode == 3
    assert "authentication required" in anonymous.stderr
    assert not cluster.exists("configmap", "git-config", "-n", namespace)


def test_unreachable_repository_is_a_cluster_class_error(run, upstream, http_server):
    port = http_server.port
    http_server.stop()
    result = run(f"http://127.0.0.1:{port}/repo.git", "--path", "manifests")
    assert result.returncode == 3
    assert f"cannot fetch http://127.0.0.1:{port}/repo.git (ref default branch)" in result.stderr


def test_ssh_clone_and_fetch_with_a_verified_host_key(run, ssh_server, upstream, tmp_path, cluster, namespace):
    known_hosts = ssh_server.known_hosts(tmp_path / "known_hosts")
    args = ("--path", "manifests", "--git-ssh-key-file", str(ssh_server.client_key),
            "--git-known-hosts-file", str(known_hosts))
    run.ok(ssh_server.url(str(upstream.bare)), *args)
    assert version_of(cluster, namespace) == "1"
    upstream.commit({"manifests/cm.yaml": config_map("git-config", "2")}, "second")
    run.ok(ssh_server.url(str(upstream.bare)), *args)
    assert version_of(cluster, namespace) == "2"
    assert len(cache_entries(run.cache)) == 1


def test_ssh_key_with_a_passphrase(run, ssh_server, upstream, tmp_path, secret_file, cluster, namespace):
    known_hosts = ssh_server.known_hosts(tmp_path / "known_hosts")
    args = ("--path", "manifests", "--git-ssh-key-file", str(ssh_server.passphrase_key),
            "--git-known-hosts-file", str(known_hosts))
    without = run(ssh_server.url(str(upstream.bare)), *args)
    assert without.returncode == 3
    assert "--git-ssh-passphrase-file" in without.stderr
    run.ok(ssh_server.url(str(upstream.bare)), *args,
           "--git-ssh-passphrase-file", secret_file("passphrase", ssh_server.passphrase))
    assert version_of(cluster, namespace) == "1"


def test_ssh_wrong_host_key_is_refused(run, ssh_server, upstream, tmp_path, cluster, namespace):
    impostor = ssh_keygen(tmp_path / "impostor")
    known_hosts = ssh_server.known_hosts(tmp_path / "known_hosts", key=impostor)
    result = run(ssh_server.url(str(upstream.bare)), "--path", "manifests",
                 "--git-ssh-key-file", str(ssh_server.client_key), "--git-known-hosts-file", str(known_hosts))
    assert result.returncode == 3
    assert "host key verification failed" in result.stderr
    assert f"[127.0.0.1]:{ssh_server.port} presented ssh-ed25519 key SHA256:" in result.stderr
    assert "does not match" in result.stderr
    assert not cluster.exists("configmap", "git-config", "-n", namespace)


def test_ssh_unknown_host_needs_the_insecure_flag(run, ssh_server, upstream, tmp_path, cluster, namespace):
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text("# nobody yet\n")
    args = ("--path", "manifests", "--git-ssh-key-file", str(ssh_server.client_key),
            "--git-known-hosts-file", str(known_hosts))
    result = run(ssh_server.url(str(upstream.bare)), *args)
    assert result.returncode == 3
    assert f"[127.0.0.1]:{ssh_server.port} is not in {known_hosts}" in result.stderr
    assert "--git-insecure-ignore-host-key" in result.stderr

    run.ok(ssh_server.url(str(upstream.bare)), *args, "--git-insecure-ignore-host-key")
    assert version_of(cluster, namespace) == "1"


@pytest.mark.parametrize("damage", ["truncated pack", "deleted index", "deleted HEAD", "other URL"])
def test_a_damaged_cache_is_cloned_again_with_a_warning(run, upstream, cluster, namespace, damage):
    run.ok(upstream.file_url, "--path", "manifests")
    [entry] = cache_entries(run.cache)
    pack_dir = entry / "objects" / "pack"
    if damage == "truncated pack":
        for pack in pack_dir.glob("*.pack"):
            with open(pack, "r+b") as file:
                file.truncate(12)
    elif damage == "deleted index":
        for index in pack_dir.glob("*.idx"):
            index.unlink()
    elif damage == "deleted HEAD":
        (entry / "HEAD").unlink()
    else:
        subprocess.run(["git", "--git-dir", str(entry), "remote", "set-url", "origin", "https://elsewhere/x.git"],
                       check=True)

    result = run.ok(upstream.file_url, "--path", "manifests")
    assert f"warning: git cache {entry}" in result.stderr
    assert result.stderr.count("\n") == 1, "one line of warning"
    assert version_of(cluster, namespace) == "1"

    # The fresh clone is a healthy cache: the next change is fetched without a warning.
    upstream.commit({"manifests/cm.yaml": config_map("git-config", "2")}, "second")
    assert "warning" not in run.ok(upstream.file_url, "--path", "manifests").stderr
    assert version_of(cluster, namespace) == "2"


def test_unknown_ref_and_missing_path_are_input_errors(run, upstream, cluster, namespace):
    unknown = run(upstream.file_url, "--ref", "no-such-branch", "--path", "manifests")
    assert unknown.returncode == 2
    assert f'repo {upstream.file_url} has no branch, tag or commit "no-such-branch"' in unknown.stderr

    missing = run(upstream.file_url, "--ref", "main", "--path", "no/such/dir")
    assert missing.returncode == 2
    assert f"repo {upstream.file_url} at ref main (commit {upstream.sha('HEAD')[:7]})" in missing.stderr
    assert 'has no path "no/such/dir"' in missing.stderr
    assert not cluster.exists("configmap", "git-config", "-n", namespace)


def test_manifest_errors_name_the_repo_commit_and_file(run, upstream):
    sha = upstream.commit({"manifests/broken.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: [\n"}, "broken")
    result = run(upstream.file_url, "--path", "manifests")
    assert result.returncode == 2
    assert f"{upstream.file_url}@{sha[:7]}:manifests/broken.yaml" in result.stderr


def test_opctlignore_is_honoured_for_git_and_directory_sources(run, upstream, cluster, namespace):
    upstream.commit({
        ".opctlignore": "# drafts are never applied\n**/drafts/\n",
        "manifests/.opctlignore": "*.local.yaml\n!keep.local.yaml\n",
        "manifests/drafts/broken.yaml": "this: [is not valid\n",
        "manifests/mine.local.yaml": config_map("local-only", "x"),
        "manifests/keep.local.yaml": config_map("kept", "1"),
    }, "ignore files")
    run.ok(upstream.file_url, "--path", "manifests")
    assert version_of(cluster, namespace, "kept") == "1"
    assert not cluster.exists("configmap", "local-only", "-n", namespace)

    # The same commit checked out and read as a plain directory gives the same set.
    directory = cluster.reconcile("--path", str(upstream.work / "manifests"), "-n", namespace)
    assert directory.returncode == 0, directory.stderr
    assert not cluster.exists("configmap", "local-only", "-n", namespace)


def test_a_kustomization_is_rendered_with_kubectl_and_without_kubectl_or_kustomize_is_an_input_error(run, upstream, cluster, namespace, tmp_path):
    upstream.commit({
        "base/kustomization.yaml": "resources: [cm.yaml]\n",
        "base/cm.yaml": config_map("app", "base"),
        "overlays/prod/kustomization.yaml": "resources: [../../base]\nnamePrefix: prod-\n",
    }, "kustomize")
    run.ok(upstream.file_url, "--path", "overlays/prod")
    assert version_of(cluster, namespace, "prod-app") == "base"

    empty_path = tmp_path / "empty-bin"
    empty_path.mkdir()
    without_kubectl = run(upstream.file_url, "--path", "overlays/prod", env={"PATH": str(empty_path)})
    assert without_kubectl.returncode == 2
    assert "needs kubectl or kustomize on PATH" in without_kubectl.stderr
    assert "overlays/prod" in without_kubectl.stderr


def test_concurrent_runs_share_one_cache(cluster, namespace, upstream, tmp_path):
    # Both runs clone into the same empty cache; the lock makes the second wait and then fetch.
    cache = tmp_path / "shared-cache"
    command = [cluster.opctl_bin, "diff", "--kubeconfig", cluster.kubeconfig, "--repo", upstream.file_url,
               "--path", "manifests", "-n", namespace, "--cache-dir", str(cache)]
    runs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    for process in runs:
        out, err = process.communicate(timeout=120)
        assert process.returncode in (0, 1), err  # diff: 0 in sync, 1 differences, >=2 errors
        assert "warning" not in err
    [entry] = cache_entries(cache)
    assert subprocess.run(["git", "--git-dir", str(entry), "fsck", "--no-progress"],
                          capture_output=True).returncode == 0


def fetch(cluster, *args, env=None):
    return cluster.opctl("fetch", *args, env=env)


def test_fetch_warms_the_cache_and_names_the_commit_a_pinned_pass_applies(cluster, namespace, upstream, tmp_path):
    cache = tmp_path / "cache"
    first = fetch(cluster, "--repo", upstream.file_url, "--path", "manifests", "--cache-dir", str(cache), "-o", "json")
    assert first.returncode == 0, first.stderr
    revision = json.loads(first.stdout)
    assert revision["commit"] == upstream.sha("HEAD")
    assert (revision["ref"], revision["path"], revision["subject"]) == ("main", "manifests", "first")
    [entry] = cache_entries(cache)
    assert not cluster.exists("configmap", "git-config", "-n", namespace), "fetch must not apply anything"

    # A new commit: the next fetch is incremental, into the same cache entry, and names the new commit.
    first_packs = packs(entry)
    second = upstream.commit({"manifests/cm.yaml": config_map("git-config", "2"),
                              "manifests/extra.yaml": config_map("extra", "1")}, "second")
    text = fetch(cluster, "--repo", upstream.file_url, "--path", "manifests", "--cache-dir", str(cache), "-v")
    assert text.returncode == 0, text.stderr
    assert f"commit:  {second}" in text.stdout
    assert "path:    manifests" in text.stdout
    assert "new objects into" in text.stderr
    assert cache_entries(cache) == [entry]
    assert set(first_packs) < set(packs(entry))

    # The reviewed commit, passed on as --ref, is what the pass applies even though main moved on.
    upstream.commit({"manifests/cm.yaml": config_map("git-config", "3")}, "third")
    pinned = cluster.reconcile("--repo", upstream.file_url, "--ref", revision["commit"], "--path", "manifests",
                               "-n", namespace, "--cache-dir", str(cache))
    assert pinned.returncode == 0, pinned.stderr
    assert version_of(cluster, namespace) == "1"


def test_fetch_errors_use_the_exit_codes_of_a_pass(cluster, upstream, http_server, tmp_path):
    cache = str(tmp_path / "cache")
    unknown = fetch(cluster, "--repo", upstream.file_url, "--ref", "nope", "--cache-dir", cache)
    assert unknown.returncode == 2
    assert 'no branch, tag or commit "nope"' in unknown.stderr
    missing = fetch(cluster, "--repo", upstream.file_url, "--path", "absent", "--cache-dir", cache)
    assert missing.returncode == 2
    assert 'has no path "absent"' in missing.stderr
    no_directory = fetch(cluster, "--path", str(tmp_path / "absent"))
    assert no_directory.returncode == 2
    assert f"{tmp_path / 'absent'}: no such file or directory" in no_directory.stderr
    http_server.stop()
    unreachable = fetch(cluster, "--repo", http_server.url("repo.git"), "--cache-dir", cache)
    assert unreachable.returncode == 3, unreachable.stderr


def test_fetch_over_http_never_prints_the_password(cluster, http_upstream, http_server, secret_file, tmp_path):
    auth = secret_file("basic", "alice:s3cret-pw")
    result = fetch(cluster, "--repo", http_server.url("repo.git"), "--git-basic-auth-file", auth, "--cache-dir",
                   str(tmp_path / "cache"), "-v", "-o", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["commit"] == http_upstream.sha("HEAD")
    assert "s3cret-pw" not in result.stdout + result.stderr
