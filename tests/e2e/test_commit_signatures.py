"""Commit signature verification end to end (issue 19, part 2).

Real signed commits: SSH signatures made by `git commit -S` with a key from
ssh-keygen, checked by opctl against an allowed_signers file with
`ssh-keygen -Y verify`; OpenPGP signatures made with a key generated in a
private GNUPGHOME, checked against its exported keyring with gpgv. The
repositories are served over file:// and over smart HTTP (git http-backend
behind lighttpd); what was applied is read back with kubectl.

A refused commit exits 2 (invalid input), names the commit (short SHA and
subject) and the signer found, and leaves the cluster as it was.

Debian packages: git, openssh-client (ssh-keygen), gnupg (gpg, to sign), gpgv.
"""
import json

import pytest

from git_servers import HttpGitServer
from signing_support import GpgSigner, SigningUpstream, SshSigner


def config_map(name, version):
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  version: \"{version}\"\n"


def version_of(cluster, namespace, name="signed-config"):
    return cluster.get_json("configmap", name, "-n", namespace)["data"]["version"]


@pytest.fixture
def alice(tmp_path):
    return SshSigner(tmp_path / "keys-alice", "alice@example.com")


@pytest.fixture
def mallory(tmp_path):
    return SshSigner(tmp_path / "keys-mallory", "mallory@example.com")


@pytest.fixture
def allowed_signers(tmp_path, alice):
    path = tmp_path / "allowed_signers"
    path.write_text(alice.allowed_signers_line())
    return path


@pytest.fixture
def gpg_signer(tmp_path):
    """Makes GpgSigners in the test's directory, and stops their agents afterwards."""
    made = []

    def make(name, user_id):
        made.append(GpgSigner(tmp_path / f"gnupg-{name}", user_id))
        return made[-1]

    yield make
    for signer in made:
        signer.stop_agent()


@pytest.fixture
def upstream(tmp_path, alice):
    repo = SigningUpstream(tmp_path)
    repo.signed_commit({"manifests/cm.yaml": config_map("signed-config", "1")}, "first signed", alice)
    return repo


class Runner:
    """opctl reconcile from a repository into the test's namespace, with the test's own cache."""

    def __init__(self, cluster, namespace, cache):
        self.cluster, self.namespace, self.cache = cluster, namespace, cache

    def __call__(self, repo, *args):
        return self.cluster.reconcile("--repo", repo, "--path", "manifests", "-n", self.namespace, "--cache-dir",
                                      str(self.cache), *args)

    def fetch(self, repo, *args):
        return self.cluster.opctl("fetch", "--repo", repo, "--path", "manifests", "--cache-dir", str(self.cache), *args)


@pytest.fixture
def run(cluster, namespace, tmp_path):
    return Runner(cluster, namespace, tmp_path / "cache")


def assert_refused(result, sha, subject, *phrases):
    assert result.returncode == 2, f"exit {result.returncode}: {result.stdout}{result.stderr}"
    assert f'commit {sha[:7]} ("{subject}")' in result.stderr, result.stderr
    for phrase in phrases:
        assert phrase in result.stderr, result.stderr


def test_a_commit_signed_by_an_allowed_ssh_key_is_applied(run, upstream, alice, allowed_signers, cluster, namespace,
                                                           tmp_path):
    report = tmp_path / "report.json"
    result = run(upstream.file_url, "--verify-commits", "--verify-allowed-signers", str(allowed_signers),
                 "--report", str(report))
    assert result.returncode == 0, result.stderr
    assert version_of(cluster, namespace) == "1"
    # The run report says who signed what was applied, for the pipeline's audit trail.
    assert json.loads(report.read_text())["source"]["signature"] == {
        "format": "ssh", "verified": True, "principal": "alice@example.com", "key": alice.fingerprint}

    # Without --verify-commits the report says the commit is signed but not that anyone checked it.
    markdown = run(upstream.file_url, "-o", "markdown")
    assert markdown.returncode == 0, markdown.stderr
    assert "Signature: not verified (ssh signature; --verify-commits is off)" in markdown.stdout, markdown.stdout


def test_an_unsigned_commit_is_refused_and_nothing_is_applied(run, upstream, allowed_signers, cluster, namespace):
    verify = ("--verify-commits", "--verify-allowed-signers", str(allowed_signers))
    assert run(upstream.file_url, *verify).returncode == 0
    unsigned = upstream.signed_commit({"manifests/cm.yaml": config_map("signed-config", "2"),
                                       "manifests/intruder.yaml": config_map("intruder", "1")}, "sneak in", None)

    assert_refused(run(upstream.file_url, *verify), unsigned, "sneak in", "is unsigned")
    assert version_of(cluster, namespace) == "1"
    assert not cluster.exists("configmap", "intruder", "-n", namespace)


def test_a_commit_signed_by_a_key_not_in_allowed_signers_is_refused(run, upstream, allowed_signers, mallory,
                                                                      cluster, namespace):
    forged = upstream.signed_commit({"manifests/cm.yaml": config_map("signed-config", "mallory")}, "trust me",
                                    mallory)
    result = run(upstream.file_url, "--verify-commits", "--verify-allowed-signers", str(allowed_signers))
    assert_refused(result, forged, "trust me", f"is signed by SSH key {mallory.fingerprint}",
                   f"which is not in allowed_signers {allowed_signers}")
    assert not cluster.exists("configmap", "signed-config", "-n", namespace)


def test_a_commit_changed_after_signing_is_refused(run, upstream, allowed_signers, cluster, namespace):
    forged = upstream.tampered_commit("first signed, then edited")
    result = run(upstream.file_url, "--verify-commits", "--verify-allowed-signers", str(allowed_signers))
    assert_refused(result, forged, "first signed, then edited", "has a bad SSH signature")
    assert not cluster.exists("configmap", "signed-config", "-n", namespace)


def test_openpgp_signatures_are_checked_against_the_keyring(run, tmp_path, gpg_signer, cluster, namespace):
    gina = gpg_signer("gina", "Gina <gina@example.com>")
    oscar = gpg_signer("oscar", "Oscar <oscar@example.com>")
    (tmp_path / "gpg").mkdir()
    repo = SigningUpstream(tmp_path / "gpg")
    verify = ("--verify-commits", "--verify-gpg-keyring", str(gina.keyring))

    repo.signed_commit({"manifests/cm.yaml": config_map("signed-config", "gina")}, "signed by gina", gina)
    result = run(repo.file_url, *verify)
    assert result.returncode == 0, result.stderr
    assert version_of(cluster, namespace) == "gina"

    outsider = repo.signed_commit({"manifests/cm.yaml": config_map("signed-config", "oscar")}, "signed by oscar",
                                  oscar)
    assert_refused(run(repo.file_url, *verify), outsider, "signed by oscar",
                   f"is signed by OpenPGP key {oscar.fingerprint}", f"which is not in the keyring {gina.keyring}")
    assert version_of(cluster, namespace) == "gina"

    # An SSH-signed commit needs allowed_signers: a keyring alone does not vouch for it.
    alice = SshSigner(tmp_path / "keys-alice", "alice@example.com")
    ssh_signed = repo.signed_commit({"manifests/cm.yaml": config_map("signed-config", "alice")}, "signed by alice",
                                    alice)
    assert_refused(run(repo.file_url, *verify), ssh_signed, "signed by alice", "no allowed_signers file is given")
    assert version_of(cluster, namespace) == "gina"


def test_a_tag_pointing_at_a_signed_commit_is_applied(run, upstream, allowed_signers, cluster, namespace):
    upstream.tag("v1")  # an annotated tag, itself unsigned: the commit's signature is what counts
    unsigned = upstream.signed_commit({"manifests/cm.yaml": config_map("signed-config", "2")}, "unsigned tip", None)
    verify = ("--verify-commits", "--verify-allowed-signers", str(allowed_signers))

    result = run(upstream.file_url, "--ref", "v1", *verify)
    assert result.returncode == 0, result.stderr
    assert version_of(cluster, namespace) == "1"
    assert_refused(run(upstream.file_url, "--ref", "main", *verify), unsigned, "unsigned tip", "is unsigned")
    assert version_of(cluster, namespace) == "1"


def test_verification_over_http(run, tmp_path, alice, allowed_signers, cluster, namespace):
    server = HttpGitServer(tmp_path / "http", {"alice": "s3cret-pw"})
    try:
        repo = SigningUpstream(server.root)
        repo.signed_commit({"manifests/cm.yaml": config_map("signed-config", "1")}, "signed over http", alice)
        auth = tmp_path / "basic"
        auth.write_text("alice:s3cret-pw\n")
        auth.chmod(0o600)
        args = ("--git-basic-auth-file", str(auth), "--verify-commits", "--verify-allowed-signers",
                str(allowed_signers))
        result = run(server.url("repo.git"), *args)
        assert result.returncode == 0, result.stderr
        assert version_of(cluster, namespace) == "1"

        unsigned = repo.signed_commit({"manifests/cm.yaml": config_map("signed-config", "2")}, "unsigned over http",
                                      None)
        assert_refused(run(server.url("repo.git"), *args), unsigned, "unsigned over http", "is unsigned")
        assert version_of(cluster, namespace) == "1"
    finally:
        server.stop()


def test_fetch_prints_the_signer(run, upstream, alice, allowed_signers):
    verify = ("--verify-commits", "--verify-allowed-signers", str(allowed_signers))
    text = run.fetch(upstream.file_url, *verify)
    assert text.returncode == 0, text.stderr
    assert f"signer:  alice@example.com (ssh key {alice.fingerprint}, verified)\n" in text.stdout

    as_json = run.fetch(upstream.file_url, *verify, "-o", "json")
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout)["signature"] == {"format": "ssh", "verified": True,
                                                       "principal": "alice@example.com", "key": alice.fingerprint}

    unverified = run.fetch(upstream.file_url)
    assert unverified.returncode == 0, unverified.stderr
    assert "signer:  not verified (ssh signature; --verify-commits is off)\n" in unverified.stdout

    unsigned = upstream.signed_commit({"manifests/cm.yaml": config_map("signed-config", "2")}, "no signature", None)
    assert "signer:  unsigned\n" in run.fetch(upstream.file_url).stdout
    assert_refused(run.fetch(upstream.file_url, *verify), unsigned, "no signature", "is unsigned")


def test_a_commit_message_beyond_a_pipe_buffer_is_verified(run, upstream, alice, allowed_signers, cluster,
                                                           namespace):
    # The signed payload goes to ssh-keygen on stdin: a commit far beyond a pipe's 64 KiB buffer is verified too.
    body = "\n".join(f"line {i}: " + "x" * 60 for i in range(3000))
    upstream.signed_commit({"manifests/cm.yaml": config_map("signed-config", "long")}, f"long message\n\n{body}",
                           alice)
    result = run(upstream.file_url, "--verify-commits", "--verify-allowed-signers", str(allowed_signers))
    assert result.returncode == 0, result.stderr
    assert version_of(cluster, namespace) == "long"


def test_verify_comes_from_flags_or_f_never_from_the_source(run, upstream, alice, allowed_signers, tmp_path,
                                                           cluster, namespace):
    # The repository's own opctl.yaml asks for verification: a run without it refuses rather than pretend.
    in_source = "apiVersion: opctl.io/v1alpha1\nkind: Config\nspec:\n  verify:\n    commits: true\n"
    upstream.signed_commit({"manifests/opctl.yaml": in_source}, "ask for signatures", alice)
    result = run(upstream.file_url)
    assert result.returncode == 2, result.stderr
    assert "spec.verify.commits" in result.stderr and "-f file outside the source" in result.stderr
    assert not cluster.exists("configmap", "signed-config", "-n", namespace)

    # A -f file outside the source turns verification on and names the trust file.
    outside = tmp_path / "opctl.yaml"
    outside.write_text("apiVersion: opctl.io/v1alpha1\nkind: Config\nspec:\n  verify:\n    commits: true\n"
                       f"    allowedSignersFile: {allowed_signers}\n")
    result = run(upstream.file_url, "-f", str(outside))
    assert result.returncode == 0, result.stderr
    assert version_of(cluster, namespace) == "1"

    unsigned = upstream.signed_commit({"manifests/cm.yaml": config_map("signed-config", "2"),
                                       "manifests/opctl.yaml": None}, "drop the verify block", None)
    assert_refused(run(upstream.file_url, "-f", str(outside)), unsigned, "drop the verify block", "is unsigned")
    assert version_of(cluster, namespace) == "1"


def test_a_plain_directory_cannot_be_verified(cluster, namespace, manifests, allowed_signers):
    directory = manifests({"cm.yaml": config_map("signed-config", "dir")})
    result = cluster.reconcile("--path", str(directory), "-n", namespace, "--verify-commits",
                               "--verify-allowed-signers", str(allowed_signers))
    assert result.returncode == 2, result.stderr
    assert "needs a git source (--repo)" in result.stderr
    assert not cluster.exists("configmap", "signed-config", "-n", namespace)
