"""Signed commits for the e2e tests: an SSH key (ssh-keygen) or an OpenPGP key
(gpg, in a private GNUPGHOME) that signs with `git commit -S`, and an upstream
whose commits are signed by one of them."""
import os
import pathlib
import subprocess

from git_servers import Upstream, require_programs, ssh_keygen


class SshSigner:
    """An ed25519 key that signs commits as `principal` (gpg.format=ssh)."""

    def __init__(self, directory, principal):
        require_programs("ssh-keygen")
        self.principal = principal
        pathlib.Path(directory).mkdir(parents=True, exist_ok=True)
        self.key = ssh_keygen(pathlib.Path(directory) / principal.replace("@", "_at_"))
        listed = subprocess.run(["ssh-keygen", "-l", "-f", f"{self.key}.pub"], capture_output=True, text=True,
                                check=True, timeout=30).stdout.split()
        self.fingerprint = f"{listed[-1].strip('()')} {listed[1]}"  # "ED25519 SHA256:...", as opctl names it
        self.git_config = ["-c", "gpg.format=ssh", "-c", f"user.signingkey={self.key}"]
        self.env = {}

    def allowed_signers_line(self):
        public = " ".join(pathlib.Path(f"{self.key}.pub").read_text().split()[:2])
        return f'{self.principal} namespaces="git" {public}\n'


class GpgSigner:
    """An OpenPGP key in its own GNUPGHOME; `keyring` is its public key as gpgv reads it."""

    def __init__(self, directory, user_id):
        require_programs("gpg", "gpgv")
        self.home = pathlib.Path(directory)
        self.home.mkdir(mode=0o700, parents=True)
        self.env = {"GNUPGHOME": str(self.home)}
        self.user_id = user_id
        self._gpg("--batch", "--passphrase", "", "--quick-gen-key", user_id, "ed25519", "sign", "never")
        colons = self._gpg("--list-keys", "--with-colons", user_id)
        self.fingerprint = next(line.split(":")[9] for line in colons.splitlines() if line.startswith("fpr:"))
        self.keyring = self.home.parent / f"{self.home.name}.gpg"
        self.keyring.write_bytes(subprocess.run(["gpg", "--export", self.fingerprint], env=self._environment(),
                                                capture_output=True, check=True, timeout=60).stdout)
        self.git_config = ["-c", "gpg.format=openpgp", "-c", "gpg.program=gpg", "-c",
                           f"user.signingkey={self.fingerprint}"]

    def _environment(self):
        return dict(os.environ, **self.env)

    def stop_agent(self):
        """gpg and git's signing started a gpg-agent for this home: it must not outlive the test."""
        subprocess.run(["gpgconf", "--kill", "gpg-agent"], env=self._environment(), capture_output=True, timeout=30)

    def _gpg(self, *args):
        return subprocess.run(["gpg", *args], env=self._environment(), capture_output=True, text=True, check=True,
                              timeout=120).stdout


class SigningUpstream(Upstream):
    """Upstream whose commits are signed by a signer (or not, with signer=None)."""

    def _git(self, *args, env=None):
        result = subprocess.run(["git", *args], cwd=self.work, env=dict(self._env, **(env or {})),
                                capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {result.stderr}")
        return result.stdout.strip()

    def signed_commit(self, files, message, signer):
        self._write(files)
        self._git("add", "-A")
        message_file = self.work.parent / f"{self.work.name}.message"  # -F: a message may exceed an argument's limit
        message_file.write_text(message)
        if signer is None:
            self._git("commit", "-q", "-F", str(message_file))
        else:
            self._git(*signer.git_config, "commit", "-q", "-S", "-F", str(message_file), env=signer.env)
        self._git("push", "-q", "origin", "main")
        return self.sha("HEAD")

    def tampered_commit(self, message):
        """A copy of HEAD with its message changed but its signature kept, pushed as the new main."""
        raw = self._git("cat-file", "commit", "HEAD") + "\n"
        header, _, _ = raw.partition("\n\n")
        forged = subprocess.run(["git", "hash-object", "-t", "commit", "-w", "--stdin"], cwd=self.work, env=self._env,
                                input=f"{header}\n\n{message}\n", capture_output=True, text=True, check=True,
                                timeout=60).stdout.strip()
        self._git("update-ref", "refs/heads/main", forged)
        self._git("push", "-q", "--force", "origin", "main")
        return forged
