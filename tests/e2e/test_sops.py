"""SOPS-encrypted Secrets end to end: files encrypted by the real sops (built from
the Go module proxy by tests/tools/build.sh) for age keys made by Debian's
age-keygen, pushed to a git server (git http-backend behind lighttpd), fetched,
decrypted and applied by the real opctl, read back with kubectl.

No decrypted value may reach any output: the tests compare values by hash, and
check every output opctl printed with `require_no_plaintext`, which fails
without echoing what it found.
"""
import base64
import subprocess
import uuid

import pytest

from git_servers import HttpGitServer, Upstream, ssh_keygen
from sops_support import AgeKey, digest, require_no_plaintext, secret, sops_bin, sops_encrypt  # noqa: F401 (a fixture)


def config_map(name, namespace):
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\ndata:\n  a: b\n"


def live_password_digest(cluster, namespace, name):
    data = cluster.get_json("secret", name, "-n", namespace)["data"]
    return digest(base64.b64decode(data["password"]).decode())


@pytest.fixture
def http_server(tmp_path):
    server = HttpGitServer(tmp_path / "http", {"alice": "pw-for-git"})
    yield server
    server.stop()


@pytest.fixture
def auth_file(tmp_path):
    path = tmp_path / "git-auth"
    path.write_text("alice:pw-for-git\n")
    return str(path)


def test_a_sops_secret_from_a_git_server_is_decrypted_applied_and_diffed_masked(cluster, namespace, tmp_path,
                                                                                 sops_bin, http_server, auth_file):
    key = AgeKey(tmp_path)
    first, second = f"first-{uuid.uuid4().hex}", f"second-{uuid.uuid4().hex}"
    upstream = Upstream(http_server.root)
    upstream.commit({"manifests/db.sops.yaml": sops_encrypt(sops_bin, key, secret("db", namespace, first)),
                     "manifests/cm.yaml": config_map("plain", namespace)}, "encrypted secret")
    source = ("--repo", http_server.url("repo.git"), "--path", "manifests", "--git-basic-auth-file", auth_file)

    applied = cluster.reconcile(*source, "--sops-age-key-file", str(key.path), "-v")
    assert applied.returncode == 0, applied.stderr
    require_no_plaintext(applied.stdout + applied.stderr, first)
    live = cluster.get_json("secret", "db", "-n", namespace)
    assert "sops" not in live, "the sops block must not be applied as a field"
    assert base64.b64decode(live["data"]["username"]).decode() == "admin"
    assert live_password_digest(cluster, namespace, "db") == digest(first)
    assert cluster.exists("configmap", "plain", "-n", namespace)

    # A new password: the diff says the Secret changes without showing either value.
    upstream.commit({"manifests/db.sops.yaml": sops_encrypt(sops_bin, key, secret("db", namespace, second))},
                    "rotate")
    env = {"SOPS_AGE_KEY_FILE": str(key.path)}  # the environment variable works as the flag does
    for output in ("text", "json", "markdown"):
        diff = cluster.opctl("diff", "--kubeconfig", cluster.kubeconfig, *source, "--exit-code", "-o", output,
                             env=env)
        assert diff.returncode == 1, f"-o {output}: {diff.stderr}"
        require_no_plaintext(diff.stdout + diff.stderr, first, second)
        assert "***" in diff.stdout and "db" in diff.stdout, f"-o {output} names the Secret and masks its values"
    status = cluster.opctl("status", "--kubeconfig", cluster.kubeconfig, *source, env=env)
    require_no_plaintext(status.stdout + status.stderr, first, second)

    rotated = cluster.reconcile(*source, env=env)
    assert rotated.returncode == 0, rotated.stderr
    require_no_plaintext(rotated.stdout + rotated.stderr, first, second)
    assert live_password_digest(cluster, namespace, "db") == digest(second)


def test_a_tampered_or_unopenable_file_stops_the_pass_before_anything_is_applied(cluster, namespace, tmp_path,
                                                                                   sops_bin):
    key, other = AgeKey(tmp_path, "key.txt"), AgeKey(tmp_path, "other.txt")
    password = f"pw-{uuid.uuid4().hex}"
    # Only data and stringData encrypted: the name stays in clear and is covered by the MAC.
    encrypted = sops_encrypt(sops_bin, key, secret("db", namespace, password), "--encrypted-regex",
                             "^(data|stringData)$")
    upstream = Upstream(tmp_path)
    upstream.commit({"manifests/a-cm.yaml": config_map("first-in-order", namespace),
                     "manifests/db.sops.yaml": encrypted.replace("name: db", "name: db-renamed")}, "tampered")
    source = ("--repo", upstream.file_url, "--path", "manifests")

    tampered = cluster.reconcile(*source, "--sops-age-key-file", str(key.path))
    assert tampered.returncode == 2, tampered.stderr
    assert "manifests/db.sops.yaml" in tampered.stderr and "MAC does not match" in tampered.stderr
    assert not cluster.exists("configmap", "first-in-order", "-n", namespace), "nothing is applied"

    upstream.commit({"manifests/db.sops.yaml": encrypted}, "restored")
    wrong_key = cluster.reconcile(*source, "--sops-age-key-file", str(other.path))
    assert wrong_key.returncode == 2, wrong_key.stderr
    assert "no age identity opens this file's data key" in wrong_key.stderr
    no_key = cluster.reconcile(*source, env={"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "none")})
    assert no_key.returncode == 2 and "--sops-age-key-file" in no_key.stderr, no_key.stderr
    for result in (tampered, wrong_key, no_key):
        require_no_plaintext(result.stdout + result.stderr, password)
    assert not cluster.exists("configmap", "first-in-order", "-n", namespace), "nothing is applied"

    # The sops default location (~/.config/sops/age/keys.txt) is read when nothing else is given.
    (tmp_path / "home/.config/sops/age").mkdir(parents=True)
    (tmp_path / "home/.config/sops/age/keys.txt").write_text(key.path.read_text())
    defaulted = cluster.reconcile(*source, env={"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": ""})
    assert defaulted.returncode == 0, defaulted.stderr
    assert live_password_digest(cluster, namespace, "db") == digest(password)
    assert cluster.exists("configmap", "first-in-order", "-n", namespace)


def test_a_data_key_age_wrapped_for_an_ssh_key_opens_with_that_key(cluster, namespace, tmp_path, sops_bin, manifests):
    """age itself wraps the file's data key for an SSH key (the stanza sops would write for an ssh-ed25519
    recipient); opctl unwraps it with the SSH private key as the age identity."""
    key = AgeKey(tmp_path)
    password = f"pw-{uuid.uuid4().hex}"
    encrypted = sops_encrypt(sops_bin, key, secret("db", namespace, password))
    data_key = subprocess.run(["age", "--decrypt", "-i", str(key.path)], input=_stanza(encrypted).encode(),
                              capture_output=True, timeout=30, check=True).stdout
    ssh_key = ssh_keygen(tmp_path / "id_ed25519")
    wrapped = subprocess.run(["age", "--encrypt", "--armor", "-R", f"{ssh_key}.pub"], input=data_key,
                             capture_output=True, timeout=30, check=True).stdout.decode()
    rewrapped = _replace_stanza(encrypted, wrapped)
    assert "BEGIN AGE ENCRYPTED FILE" in rewrapped and rewrapped != encrypted
    directory = manifests({"db.yaml": rewrapped})

    result = cluster.reconcile("--path", str(directory), "--sops-age-key-file", str(ssh_key))
    assert result.returncode == 0, result.stderr
    assert live_password_digest(cluster, namespace, "db") == digest(password)
    validated = cluster.opctl("validate", "--path", str(directory), "--sops-age-key-file", str(ssh_key),
                              "--kubeconfig", cluster.kubeconfig, "-o", "json")
    assert validated.returncode == 0, validated.stdout + validated.stderr
    require_no_plaintext(result.stdout + result.stderr + validated.stdout + validated.stderr, password)


def _stanza_lines(lines):
    start = next(i for i, line in enumerate(lines) if "-----BEGIN AGE ENCRYPTED FILE-----" in line)
    end = next(i for i, line in enumerate(lines) if "-----END AGE ENCRYPTED FILE-----" in line)
    return start, end


def _stanza(encrypted):
    """The armored age stanza of a sops YAML file, with its indentation removed."""
    lines = encrypted.splitlines()
    start, end = _stanza_lines(lines)
    return "\n".join(line.strip() for line in lines[start:end + 1]) + "\n"


def _replace_stanza(encrypted, armored):
    """The sops file with its age stanza replaced by `armored`, indented as the old one."""
    lines = encrypted.splitlines()
    start, end = _stanza_lines(lines)
    indent = lines[start][:len(lines[start]) - len(lines[start].lstrip())]
    new = [indent + line for line in armored.strip().splitlines()]
    return "\n".join(lines[:start] + new + lines[end + 1:]) + "\n"
