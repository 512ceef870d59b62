"""Running opctl with one of its output streams on a pseudo-terminal, as a user's shell would."""
import os
import pty
import select
import subprocess


def run_on_terminal(args, env, terminal="stdout"):
    """Runs `args` with `terminal` ("stdout" or "stderr") on a pty and the other stream on a pipe.
    Returns (exit code, what the terminal showed, what the pipe got)."""
    leader, follower = pty.openpty()
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, terminal: follower}
    process = subprocess.Popen(args, stdout=streams["stdout"], stderr=streams["stderr"], env=env)
    os.close(follower)
    shown = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    piped = (process.stderr if terminal == "stdout" else process.stdout).read().decode()
    return process.wait(timeout=60), shown.decode(), piped
