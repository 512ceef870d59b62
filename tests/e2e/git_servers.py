"""Real git servers on loopback for the git source's end-to-end tests.

`Upstream` is a bare repository the test changes with the git CLI (commits,
tags, force pushes) through a work clone. `HttpGitServer` serves a directory of
bare repositories over smart HTTP: `git http-backend` run as CGI by lighttpd,
behind basic authentication, optionally over TLS with a private CA. `SshGitServer` is an sshd with its own host key
that lets one test key in and runs git-upload-pack for it. Each server listens
on a free loopback port and is stopped by the fixture that started it.

Debian packages: git, lighttpd, lighttpd-mod-openssl, openssl, openssh-server, openssh-client.
"""
import os
import pathlib
import pwd
import shutil
import socket
import subprocess
import time

import pytest

GIT_HTTP_BACKEND = "/usr/lib/git-core/git-http-backend"
SSHD = "/usr/sbin/sshd"
# The test node's network namespace and address (tests/testenv --node): a server started there with
# `node=True` is reachable from Pods, and from the host through its route to the node.
NODE_NETNS = "/run/netns/opctl-testenv"
NODE_IP = "10.213.0.1"


def require_programs(*programs):
    """Skips the test, saying what to install, when a server program is missing."""
    for program in programs:
        if not (os.path.isabs(program) and os.access(program, os.X_OK)) and shutil.which(program) is None:
            pytest.skip(f"{program} is not installed (apt-get install git lighttpd lighttpd-mod-openssl openssl "
                        "openssh-server openssh-client)")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port, process, log, timeout=10.0, host="127.0.0.1"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}: {pathlib.Path(log).read_text()}")
        try:
            with socket.create_connection((host, port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"server did not listen on port {port}: {pathlib.Path(log).read_text()}")


def stop(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class Upstream:
    """A bare repository (`bare`) and a work clone the test commits and pushes from."""

    def __init__(self, root, name="repo.git"):
        self.bare = pathlib.Path(root) / name
        self.work = pathlib.Path(root) / (name + "-work")
        self._env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="Ann Author",
                         GIT_AUTHOR_EMAIL="ann@example.com", GIT_COMMITTER_NAME="Ann Author",
                         GIT_COMMITTER_EMAIL="ann@example.com", GIT_TERMINAL_PROMPT="0")
        self._run("init", "-q", "--bare", "-b", "main", str(self.bare), cwd=root)
        self._run("clone", "-q", str(self.bare), str(self.work), cwd=root)
        self._run("checkout", "-q", "-b", "main")

    def _run(self, *args, cwd=None):
        result = subprocess.run(["git", *args], cwd=cwd or self.work, env=self._env, capture_output=True,
                                text=True, timeout=60)
        if result.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {result.stderr}")
        return result.stdout.strip()

    def _write(self, files):
        for name, text in files.items():
            path = self.work / name
            if text is None:
                path.unlink()
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)

    def commit(self, files, message="change", branch="main"):
        """Writes `files` ({path: text, or None to delete}) on `branch`, commits and pushes; returns the SHA."""
        if self._run("symbolic-ref", "--short", "HEAD") != branch:
            exists = self._run("branch", "--list", branch)
            self._run("checkout", "-q", *([] if exists else ["-b"]), branch)
        self._write(files)
        self._run("add", "-A")
        self._run("commit", "-q", "-m", message)
        self._run("push", "-q", "origin", branch)
        return self.sha("HEAD")

    def rewrite(self, files, message="rewritten", branch="main"):
        """Replaces the tip of `branch` with a new commit and force-pushes it; returns the SHA."""
        self._run("checkout", "-q", branch)
        self._run("reset", "-q", "--hard", "HEAD~1")
        self._write(files)
        self._run("add", "-A")
        self._run("commit", "-q", "-m", message)
        self._run("push", "-q", "--force", "origin", branch)
        return self.sha("HEAD")

    def tag(self, name, ref="HEAD"):
        self._run("tag", "-a", "-m", name, name, ref)
        self._run("push", "-q", "origin", name)

    def sha(self, ref):
        return self._run("rev-parse", ref)

    @property
    def file_url(self):
        return f"file://{self.bare}"


class HttpGitServer:
    """lighttpd running `git http-backend` for every repository under `root`, behind basic auth."""

    def __init__(self, directory, users, tls=False, node=False):
        require_programs("lighttpd", GIT_HTTP_BACKEND, *(["openssl"] if tls else []))
        if node and not pathlib.Path(NODE_NETNS).exists():
            pytest.fail("the test node is not running (tests/testenv up --node)")
        self.host = NODE_IP if node else "127.0.0.1"
        if tls and not pathlib.Path("/usr/lib/lighttpd/mod_openssl.so").exists():
            pytest.skip("lighttpd's TLS module is not installed (apt-get install lighttpd-mod-openssl)")
        self.dir = pathlib.Path(directory)
        self.scheme = "https" if tls else "http"
        self.root = self.dir / "repos"
        self.root.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.access_log = self.dir / "access.log"
        self.error_log = self.dir / "error.log"
        users_file = self.dir / "users"
        users_file.write_text("".join(f"{user}:{password}\n" for user, password in users.items()))
        config = self.dir / "lighttpd.conf"
        config.write_text(f"""
server.modules = ("mod_alias", "mod_auth", "mod_authn_file", "mod_setenv", "mod_cgi", "mod_accesslog")
server.document-root = "{self.root}"
server.bind = "{self.host}"
server.port = {self.port}
server.errorlog = "{self.error_log}"
accesslog.filename = "{self.access_log}"
auth.backend = "plain"
auth.backend.plain.userfile = "{users_file}"
auth.require = ("/" => ("method" => "basic", "realm" => "git", "require" => "valid-user"))
alias.url = ("/" => "{GIT_HTTP_BACKEND}/")
cgi.assign = ("" => "")
setenv.add-environment = ("GIT_PROJECT_ROOT" => "{self.root}", "GIT_HTTP_EXPORT_ALL" => "")
{self._tls_config() if tls else ""}
""")
        log = self.dir / "lighttpd.out"
        with open(log, "w") as out:
            enter_node = ["nsenter", f"--net={NODE_NETNS}", "--"] if node else []
            self.process = subprocess.Popen([*enter_node, "lighttpd", "-D", "-f", str(config)], stdout=out,
                                            stderr=out)
        try:
            wait_for_port(self.port, self.process, log, host=self.host)
        except Exception:
            stop(self.process)
            raise

    def _tls_config(self):
        """A private CA (`ca_certificate`) and a certificate for localhost signed by it."""
        self.ca_certificate = self.dir / "ca.crt"
        key, csr, cert, ext = (self.dir / name for name in ("server.key", "server.csr", "server.crt", "san.ext"))
        ext.write_text("subjectAltName=DNS:localhost\n")
        ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for command in (["req", "-x509", *ec, "-keyout", self.dir / "ca.key", "-out", self.ca_certificate, "-days", "2",
                         "-subj", "/CN=opctl e2e CA"],
                        ["req", *ec, "-keyout", key, "-out", csr, "-subj", "/CN=localhost"],
                        ["x509", "-req", "-in", csr, "-CA", self.ca_certificate, "-CAkey", self.dir / "ca.key",
                         "-CAcreateserial", "-out", cert, "-days", "2", "-extfile", ext]):
            subprocess.run(["openssl", *map(str, command)], check=True, capture_output=True, timeout=30)
        return (f'server.modules += ("mod_openssl")\nssl.engine = "enable"\n'
                f'ssl.pemfile = "{cert}"\nssl.privkey = "{key}"\n')

    def url(self, name):
        host = "localhost" if self.scheme == "https" else self.host
        return f"{self.scheme}://{host}:{self.port}/{name}"

    def requests(self, after=0, until=None, timeout=30.0):
        """The access log's request lines ("GET /repo.git/info/refs?... 200") from line `after` on.

        lighttpd writes its access log about once a second (later on a loaded machine), so with `until` this waits
        (up to `timeout`) for the lines to satisfy it.
        """
        deadline = time.monotonic() + timeout
        while True:
            text = self.access_log.read_text() if self.access_log.exists() else ""
            lines = text.splitlines()[after:]
            if until is None or until(lines) or time.monotonic() > deadline:
                return lines
            time.sleep(0.1)

    def stop(self):
        stop(self.process)


def ssh_keygen(path, passphrase=""):
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-C", "", "-f", str(path)],
                   check=True, timeout=30)
    return path


def public_key(path):
    """"type base64" of a key's .pub file, as known_hosts and authorized_keys want it."""
    return " ".join(pathlib.Path(f"{path}.pub").read_text().split()[:2])


class SshGitServer:
    """sshd on loopback with its own ed25519 host key; `client_key` (and `passphrase_key`) may log in."""

    def __init__(self, directory, node=False):
        require_programs(SSHD, "ssh-keygen", "git-upload-pack")
        if node and not pathlib.Path(NODE_NETNS).exists():
            pytest.fail("the test node is not running (tests/testenv up --node)")
        self.host = NODE_IP if node else "127.0.0.1"
        self.dir = pathlib.Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.user = pwd.getpwuid(os.getuid()).pw_name
        self.host_key = ssh_keygen(self.dir / "host_key")
        self.client_key = ssh_keygen(self.dir / "client_key")
        self.passphrase = "correct horse battery staple"
        self.passphrase_key = ssh_keygen(self.dir / "passphrase_key", self.passphrase)
        (self.dir / "authorized_keys").write_text(
            f"{public_key(self.client_key)}\n{public_key(self.passphrase_key)}\n")
        config = self.dir / "sshd_config"
        config.write_text(f"""
Port {self.port}
ListenAddress {self.host}
HostKey {self.host_key}
AuthorizedKeysFile {self.dir / 'authorized_keys'}
StrictModes no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PidFile {self.dir / 'sshd.pid'}
LogLevel VERBOSE
""")
        if os.geteuid() == 0:
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # sshd's privilege separation directory
        self.log = self.dir / "sshd.log"
        with open(self.log, "w") as out:
            enter_node = ["nsenter", f"--net={NODE_NETNS}", "--"] if node else []
            self.process = subprocess.Popen([*enter_node, SSHD, "-D", "-e", "-f", str(config)], stdout=out,
                                            stderr=out)
        try:
            wait_for_port(self.port, self.process, self.log, host=self.host)
        except Exception:
            stop(self.process)
            raise

    def url(self, path):
        return f"ssh://{self.user}@{self.host}:{self.port}{path}"

    def known_hosts(self, path, key=None):
        """Writes a known_hosts file trusting `key` (default: this server's host key) for [host]:port."""
        path = pathlib.Path(path)
        path.write_text(f"[{self.host}]:{self.port} {public_key(key or self.host_key)}\n")
        return path

    def stop(self):
        stop(self.process)
