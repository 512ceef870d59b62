"""Running opctl with one of its output streams on a pseudo-terminal, as a user's shell would."""
import os
import pty
import select
import subprocess


def run_on_terminal(args, env, terminal="stdout"):
    """Runs `args` with `terminal` ("stdout", "stderr" or "both") on a pty and the other stream on a pipe.
    Returns (exit code, what the terminal showed, what the pipe got: "" for "both")."""
    leader, follower = pty.openpty()
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    for name in (["stdout", "stderr"] if terminal == "both" else [terminal]):
        streams[name] = follower
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
    pipe = {"stdout": process.stderr, "stderr": process.stdout}.get(terminal)
    piped = pipe.read().decode() if pipe else ""
    return process.wait(timeout=60), shown.decode(), piped
