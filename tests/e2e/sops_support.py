"""SOPS for the e2e tests: the real sops (built from the Go module proxy by
tests/tools/build.sh), age keys from Debian's age-keygen, and the checks that no
decrypted value reaches an output."""
import hashlib
import json
import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("OPCTL_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture(scope="session")
def sops_bin():
    result = subprocess.run([str(SOURCE_DIR / "tests/tools/build.sh"), "sops"], capture_output=True, text=True,
                            timeout=1200)
    assert result.returncode == 0, f"building sops failed: {result.stderr[-2000:]}"
    return result.stdout.strip().splitlines()[-1]


class AgeKey:
    def __init__(self, directory, name="key.txt"):
        self.path = pathlib.Path(directory) / name
        subprocess.run(["age-keygen", "-o", str(self.path)], check=True, capture_output=True, timeout=30)
        self.recipient = next(line.split(": ")[1] for line in self.path.read_text().splitlines()
                              if line.startswith("# public key: "))


def sops_encrypt(sops_bin, key, text, *args):
    """The ciphertext of `text` (YAML) as `sops encrypt` writes it for `key`."""
    result = subprocess.run([sops_bin, "encrypt", "--age", key.recipient, *args, "--input-type", "yaml",
                             "--output-type", "yaml", "/dev/stdin"], input=text, capture_output=True, text=True,
                            timeout=60, env=dict(os.environ, SOPS_DISABLE_VERSION_CHECK="1"))
    assert result.returncode == 0, f"sops encrypt failed: {result.stderr}"
    return result.stdout


def secret(name, namespace, password):
    return (f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
            f"type: Opaque\nstringData:\n  username: admin\n  password: {json.dumps(password)}\n")


def digest(value):
    return hashlib.sha256(value.encode()).hexdigest()


def require_no_plaintext(text, *plaintexts):
    """Fails naming the position only: the message must not print the value."""
    for index, plaintext in enumerate(plaintexts):
        if plaintext in text:
            pytest.fail(f"a decrypted value (#{index}) appears in opctl's output at offset {text.index(plaintext)}",
                        pytrace=False)
