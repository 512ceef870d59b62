#!/usr/bin/env python3
"""opctl vs kubectl and Flux's apply engine on one real control plane. Run through bench/run.sh; see bench/README.md.

Starts a testenv (with the apiserver audit log on), and for each N runs, alternating the tools rep by rep:
first apply (opctl also with --qps 0), no-op reconcile/apply, no-op diff, 1%-changed diff, the kubectl-get floor
and the git fetch comparisons. The Flux peer (bench/fluxpeer, github.com/fluxcd/pkg/ssa) runs the first apply,
the no-op pass and both diffs. Every run is timed (wall clock), its peak RSS taken from /usr/bin/time, and its API requests counted
from the audit log (events with the tool's User-Agent). Writes WORK/results.json and bench/RESULTS.md.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import generate  # noqa: E402



def log(msg):
    print(f"[{datetime.datetime.now().strftime('%H:%M:%S')}] {msg}", flush=True)


class Bench:
    def __init__(self, args):
        self.args = args
        self.work = args.workdir
        self.opctl = args.opctl_bin
        self.results = []          # one dict per measured run
        self.loads = []            # 1-minute load average before each measured run
        self.notes = []
        os.makedirs(self.work, exist_ok=True)
        self.logdir = os.path.join(self.work, "logs")
        os.makedirs(self.logdir, exist_ok=True)
        self.env = dict(os.environ)
        self.env["XDG_CACHE_HOME"] = os.path.join(self.work, "xdg-cache")   # opctl's git cache
        self.env["NO_COLOR"] = "1"
        self.env.pop("KUBECTL_EXTERNAL_DIFF", None)
        self.kube_cache = os.path.join(self.work, "kubectl-cache")
        self.seq = 0
        self.peers = [p for p in args.peers.split(",") if p]
        self.get_kinds = generate.GET_KINDS[args.profile]

    # ---------------------------------------------------------------- control plane
    def up(self):
        if "flux" in self.peers:
            log("building the Flux peer (bench/fluxpeer; cached after the first build)")
            self.fluxpeer = subprocess.run([os.path.join(HERE, "fluxpeer/build.sh")], check=True,
                                           capture_output=True, text=True).stdout.strip()
        self.testenv = subprocess.run([os.path.join(REPO_ROOT, "tests/testenv/build.sh")], check=True,
                                      capture_output=True, text=True).stdout.strip()
        self.tedir = os.path.join(self.work, "testenv")
        log(f"testenv up --dir {self.tedir}")
        # A /16 service range: the default /24 holds only ~250 ClusterIPs, the N=5000 set has ~630 Services.
        out = subprocess.run([self.testenv, "up", "--dir", self.tedir, "--audit",
                              "--apiserver-arg=--service-cluster-ip-range=10.0.0.0/16",
                              # The audit log rotates at 100 MB by default (a full run writes several GB of events).
                              "--apiserver-arg=--audit-log-maxsize=100000"],
                             check=True, capture_output=True, text=True)
        self.kubeconfig = out.stdout.strip().splitlines()[-1]
        self.env["KUBECONFIG"] = self.kubeconfig
        self.audit = os.path.join(self.tedir, "audit.log")
        self.apiserver_pid = self.component_pid("kube-apiserver")
        log(out.stderr.strip())

    def component_pid(self, name):
        """The pid of a control-plane component, from the testenv's pid file ("<name> <pid>" lines)."""
        try:
            with open(os.path.join(self.tedir, "testenv.pid")) as f:
                for line in f:
                    parts = line.split()
                    if len(parts) == 2 and parts[0] == name:
                        return int(parts[1])
        except OSError:
            pass
        return None

    def apiserver_cpu(self):
        """CPU seconds (user + system) the kube-apiserver has used so far, from /proc; None when unknown."""
        if not getattr(self, "apiserver_pid", None):
            return None
        try:
            with open(f"/proc/{self.apiserver_pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return None

    def down(self):
        if getattr(self, "testenv", None):
            subprocess.run([self.testenv, "down", "--dir", self.tedir], capture_output=True)

    def kubectl(self, *args, check=True, capture=True):
        cmd = ["kubectl", "--cache-dir", self.kube_cache, *args]
        r = subprocess.run(cmd, env=self.env, capture_output=capture, text=True)
        if check and r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr[-2000:]}")
        return r

    # ---------------------------------------------------------------- measuring
    def measure(self, n, op, tool, cmd, rep, cwd=None, ok=(0,), ua=None):
        """Runs cmd once under /usr/bin/time; returns and records {wall, rss_kib, requests, ...}."""
        self.seq += 1
        tag = f"{self.seq:04d}-n{n}-{op}-{tool}-r{rep}"
        tfile = os.path.join(self.logdir, tag + ".time")
        out = open(os.path.join(self.logdir, tag + ".out"), "w")
        err = open(os.path.join(self.logdir, tag + ".err"), "w")
        load = os.getloadavg()[0]
        self.loads.append(load)
        st = os.stat(self.audit)
        offset = (st.st_ino, st.st_size)
        started = time.time()
        cpu0 = self.apiserver_cpu()
        t0 = time.monotonic()
        r = subprocess.run(["/usr/bin/time", "-f", "%M %e", "-o", tfile, *cmd], env=self.env, cwd=cwd,
                           stdout=out, stderr=err)
        wall = time.monotonic() - t0
        cpu1 = self.apiserver_cpu()
        out.close()
        err.close()
        with open(tfile) as f:
            rss_kib = int(f.read().split()[-2])
        requests, verbs = self.count_requests(offset, ua) if ua else (0, {})
        rec = {"n": n, "op": op, "tool": tool, "rep": rep, "start": started, "wall": wall, "rss_kib": rss_kib, "requests": requests,
               "verbs": verbs, "apiserver_cpu_s": None if None in (cpu0, cpu1) else cpu1 - cpu0, "rc": r.returncode, "load1": load, "cmd": " ".join(cmd), "log": tag}
        self.results.append(rec)
        flag = "" if r.returncode in ok else f"  UNEXPECTED EXIT {r.returncode} (see {self.logdir}/{tag}.err)"
        log(f"  N={n} {op:<14} {tool:<8} rep {rep}: {wall:7.2f}s  {rss_kib / 1024:6.1f} MiB  "
            f"{requests:6d} req  load {load:.2f}{flag}")
        if r.returncode not in ok:
            rec["error"] = True
        self.save()
        return rec

    def audit_segments(self, offset):
        """(path, start offset) of the audit log written since `offset` = (inode, size), across a rotation."""
        inode, size = offset
        if os.stat(self.audit).st_ino == inode:
            return [(self.audit, size)]
        segments = []
        for name in os.listdir(self.tedir):
            path = os.path.join(self.tedir, name)
            if name.startswith("audit-") and name.endswith(".log") and os.stat(path).st_ino == inode:
                segments.append((path, size))
        self.notes.append("the audit log rotated during a run; counted across the rotated file")
        return segments + [(self.audit, 0)]

    def count_requests(self, offset, ua):
        # The audit log is written in blocking mode: an event is on disk before its response is sent.
        ids = set()
        verbs = {}
        for path, start in self.audit_segments(offset):
            self._count_file(path, start, ua, ids, verbs)
        return len(ids), verbs

    def _count_file(self, path, start, ua, ids, verbs):
        with open(path, "rb") as f:
            f.seek(start)
            for line in f:
                if ua.encode() not in line:
                    continue
                try:
                    ev = json.loads(line)
                except ValueError:
                    continue
                if not ev.get("userAgent", "").startswith(ua) or ev["auditID"] in ids:
                    continue
                ids.add(ev["auditID"])
                verbs[ev.get("verb", "?")] = verbs.get(ev.get("verb", "?"), 0) + 1

    # ---------------------------------------------------------------- commands
    def opctl_cmd(self, sub, setdir, *extra):
        if self.args.opctl_source == "git":
            src = ["--repo", "file://" + os.path.join(setdir, "repo")]
        else:
            src = ["--path", os.path.join(setdir, "tree")]
        return [self.opctl, sub, *src, "--kubeconfig", self.kubeconfig, "--no-color", *extra]

    def flux_cmd(self, mode, setdir):
        return [self.fluxpeer, mode, "--kubeconfig", self.kubeconfig, os.path.join(setdir, "tree")]

    def kubectl_cmd(self, *args):
        return ["kubectl", "--kubeconfig", self.kubeconfig, "--cache-dir", self.kube_cache, *args]

    def gen(self, n, prefix):
        setdir = os.path.join(self.work, "sets", prefix)
        subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), "--n", str(n), "--seed",
                        str(self.args.seed), "--prefix", prefix, "--profile", self.args.profile, "--out", setdir],
                       check=True, capture_output=True)
        return setdir

    def delete_set(self, prefix):
        t0 = time.monotonic()
        self.kubectl("delete", "namespace", "-l", f"bench.opctl.io/set={prefix}", "--wait=true", "--timeout=15m")
        log(f"  (deleted set {prefix} in {time.monotonic() - t0:.1f}s, untimed)")

    # ---------------------------------------------------------------- phases
    def setup(self):
        os.makedirs(os.path.join(self.work, "sets"), exist_ok=True)
        crd = os.path.join(self.work, "crds.yaml")
        crds = [generate.CRD] + (generate.large_crds(self.args.seed) if self.args.profile == "wide" else [])
        with open(crd, "w") as f:
            f.write(generate.dump_docs(crds))
        # The CRDs are part of every set but installed once up front: `kubectl apply -R` cannot create a CRD and its
        # custom resources in one invocation (the REST mapping of Widget fails), so every tool finds them in place.
        self.kubectl("apply", "--server-side", "--field-manager=bench-setup", "-f", crd)
        for c in crds:
            self.kubectl("wait", "--for=condition=Established", f"crd/{c['metadata']['name']}", "--timeout=120s")
        # Warm both tools' discovery caches (kubectl's on disk; opctl's per process).
        self.kubectl("api-resources")
        warm = self.gen(10, "warmup")
        subprocess.run(self.opctl_cmd("diff", warm, "-q"), env=self.env, capture_output=True)
        shutil.rmtree(warm)

    def reps_for(self, n):
        if n >= 100000:
            return self.args.reps_huge
        return self.args.reps_large if n >= 5000 else self.args.reps

    def peer_runs(self, tool, n, rep):
        """Whether a peer's run takes place in this rep. opctl and the floor run every rep. At N >= 5000 the peers
        (one run of Flux's engine at N=20000 takes ~15-20 min at its 50 QPS) run only the last --peer-reps-large
        reps, and kubectl's apply and diff not at all above --kubectl-peer-max-n (kubectl's get floor always)."""
        if tool in ("opctl", "opctl-qps0", "floor"):
            return True
        if tool == "flux" and ("flux" not in self.peers or n > self.args.flux_max_n):
            return False
        if tool == "kubectl" and ("kubectl" not in self.peers or n > self.args.kubectl_peer_max_n):
            return False
        reps = self.reps_for(n)
        peer_reps = min(reps, self.args.peer_reps_large) if n >= 5000 else reps
        return rep >= reps - peer_reps

    def first_apply(self, n):
        reps = self.reps_for(n)
        log(f"N={n}: first apply, {reps} reps (fresh namespaces each run; deleted afterwards, untimed)")
        keep = None
        tools = ["opctl", "kubectl", "flux", "opctl-qps0"]
        for rep in range(reps):
            present = [t for t in tools if self.peer_runs(t, n, rep)]
            k = rep % len(present)
            order = present[k:] + present[:k]
            # The set kept for the steady phase is applied by a tool whose no-op the steady phase measures; by the
            # slowest such tool when it runs, so that the untimed applies that bring the set under the other tools'
            # field managers are the quick ones.
            if rep == reps - 1:
                keeper = next((t for t in ("flux", "kubectl", "opctl") if t in order), "opctl")
                order = [t for t in order if t != keeper] + [keeper]
            elif order[-1] == "opctl-qps0":
                order = order[-1:] + order[:-1]
            for tool in order:
                prefix = f"b{n}r{rep}{ {'opctl': 'o', 'kubectl': 'k', 'flux': 'f', 'opctl-qps0': 'z'}[tool] }"
                setdir = self.gen(n, prefix)
                if tool == "opctl":
                    self.measure(n, "first-apply", "opctl", self.opctl_cmd("reconcile", setdir, "-q"), rep,
                                 ua="opctl/")
                elif tool == "opctl-qps0":
                    self.measure(n, "first-apply", "opctl-qps0", self.opctl_cmd("reconcile", setdir, "-q", "--qps", "0"),
                                 rep, ua="opctl/")
                elif tool == "flux":
                    self.measure(n, "first-apply", "flux", self.flux_cmd("apply", setdir), rep, ua="fluxpeer/")
                else:
                    self.measure(n, "first-apply", "kubectl",
                                 self.kubectl_cmd("apply", "--server-side", "-R", "-f", os.path.join(setdir, "tree")),
                                 rep, ua="kubectl/")
                last = rep == reps - 1 and tool == order[-1]
                if last:
                    keep = (prefix, setdir, tool)
                else:
                    self.delete_set(prefix)
                    shutil.rmtree(setdir)
        return keep

    def steady_set_untimed(self, n):
        """--skip-first-apply: the steady phase's set, applied once by opctl and not timed."""
        prefix = f"b{n}s"
        setdir = self.gen(n, prefix)
        log(f"N={n}: applying set {prefix} with opctl, untimed (--skip-first-apply)")
        r = subprocess.run(self.opctl_cmd("reconcile", setdir, "-q"), env=self.env, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"opctl apply of the steady set failed: {r.stderr[-2000:]}")
        return prefix, setdir, "opctl"

    def steady(self, n, keep):
        prefix, setdir, applied_by = keep
        # Bring the kept set under every tool's field manager (untimed), so that each no-op is really a no-op.
        log(f"N={n}: steady set {prefix} (applied by {applied_by}); applying it with the other tools, untimed")
        reps = self.reps_for(n)
        # Commands built only for the tools in this run: Flux's engine is not even built without --peers flux.
        for tool, cmd in [("opctl", lambda: self.opctl_cmd("reconcile", setdir, "-q")),
                          ("kubectl", lambda: self.kubectl_cmd("apply", "--server-side", "-R", "-f",
                                                               os.path.join(setdir, "tree"))),
                          ("flux", lambda: self.flux_cmd("apply", setdir))]:
            if tool == applied_by or not self.peer_runs(tool, n, reps - 1):
                continue
            r = subprocess.run(cmd(), env=self.env, capture_output=True, text=True)
            if r.returncode != 0:
                raise RuntimeError(f"{tool} apply of the steady set failed: {r.stderr[-2000:]}")
        tree = os.path.join(setdir, "tree")
        ops = [
            ("noop-reconcile", "opctl", lambda: self.opctl_cmd("reconcile", setdir, "-q"), (0,), "opctl/"),
            ("noop-reconcile", "kubectl", lambda: self.kubectl_cmd("apply", "--server-side", "-R", "-f", tree), (0,),
             "kubectl/"),
            ("noop-diff", "opctl", lambda: self.opctl_cmd("diff", setdir, "-q"), (0,), "opctl/"),
            ("noop-diff", "kubectl", lambda: self.kubectl_cmd("diff", "-R", "-f", tree), (0,), "kubectl/"),
            ("floor-get", "kubectl", lambda: self.kubectl_cmd("get", self.get_kinds, "-A", "-o", "json"), (0,),
             "kubectl/"),
            ("noop-reconcile", "flux", lambda: self.flux_cmd("apply", setdir), (0,), "fluxpeer/"),
            ("noop-diff", "flux", lambda: self.flux_cmd("diff", setdir), (0,), "fluxpeer/"),
        ]
        log(f"N={n}: no-op pass and floor, {reps} reps, order rotated each rep")
        for rep in range(reps):
            k = rep % len(ops)
            for op, tool, cmd, ok, ua in ops[k:] + ops[:k]:
                if not self.peer_runs("floor" if op == "floor-get" else tool, n, rep):
                    continue
                self.measure(n, op, tool, cmd(), rep, ok=ok, ua=ua)
        if not self.args.quick:
            # Profiled while the set is still in sync: after the mutations below, a reconcile would hit
            # field conflicts with kubectl's field manager (both tools own the set).
            self.profile(n, setdir)
        # 1% of the objects changed, in a new commit (opctl reads the repo, kubectl the tree).
        out = subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), "--out", setdir, "--mutate", "1%"],
                             check=True, capture_output=True, text=True).stdout
        changed = json.loads(out)["changed"]
        log(f"N={n}: 1% changed ({changed} objects, new commit), {reps} reps")
        for rep in range(reps):
            tools = [t for t in ("opctl", "kubectl", "flux") if self.peer_runs(t, n, rep)]
            k = rep % len(tools)
            for tool in tools[k:] + tools[:k]:
                if tool == "flux":
                    rec = self.measure(n, "diff-1pct", "flux", self.flux_cmd("diff", setdir), rep, ua="fluxpeer/")
                    rec["changed_objects"] = changed
                elif tool == "opctl":
                    rec = self.measure(n, "diff-1pct", "opctl", self.opctl_cmd("diff", setdir, "-q", "-o", "json"),
                                       rep, ua="opctl/")
                    rec["changed_objects"] = changed
                    rec["reported_changed"] = self.opctl_reported_changes(rec["log"])
                else:
                    rec = self.measure(n, "diff-1pct", "kubectl", self.kubectl_cmd("diff", "-R", "-f", tree), rep,
                                       ok=(1,), ua="kubectl/")
                    rec["changed_objects"] = changed
        return prefix, setdir

    def opctl_reported_changes(self, tag):
        try:
            with open(os.path.join(self.logdir, tag + ".out")) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            return None
        summary = doc.get("summary") if isinstance(doc, dict) else None
        return summary

    def git_phase(self, n, setdir):
        reps = self.reps_for(n)
        repo = os.path.join(setdir, "repo")
        clone = os.path.join(self.work, "sets", f"clone-{n}")
        shutil.rmtree(clone, ignore_errors=True)
        subprocess.run(["git", "clone", "-q", "file://" + repo, clone], check=True, env=self.env)
        opctl_fetch = [self.opctl, "fetch", "--repo", "file://" + repo]
        fetch = ["git", "-C", clone, "fetch", "-q", "origin"]
        # Both caches are warm: opctl's from the runs above, the clone from the fetch/clone just done.
        subprocess.run(opctl_fetch, env=self.env, capture_output=True)
        subprocess.run(fetch, env=self.env, capture_output=True)
        log(f"N={n}: git, unchanged repo, {reps} reps")
        for rep in range(reps):
            order = [("opctl", opctl_fetch), ("git", fetch)]
            for tool, cmd in (order if rep % 2 == 0 else order[::-1]):
                self.measure(n, "git-unchanged", tool, cmd, rep)
        log(f"N={n}: git, one new commit (1% of objects) before each rep, {reps} reps")
        for rep in range(reps):
            subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), "--out", setdir, "--mutate", "1%"],
                           check=True, capture_output=True)
            order = [("opctl", opctl_fetch), ("git", fetch)]
            for tool, cmd in (order if rep % 2 == 0 else order[::-1]):
                self.measure(n, "git-new-commit", tool, cmd, rep)

    def profile(self, n, setdir):
        """One opctl no-op reconcile under perf (if present), to say where the time goes."""
        if not shutil.which("perf"):
            return
        data = os.path.join(self.work, f"perf-n{n}.data")
        cmd = ["perf", "record", "--call-graph", "dwarf,16384", "-F", "500", "-o", data, "--"] + self.opctl_cmd("reconcile", setdir, "-q")
        r = subprocess.run(cmd, env=self.env, capture_output=True, text=True)
        if r.returncode != 0:
            self.notes.append(f"perf record failed at N={n}: {r.stderr.strip()[-300:]}")
            return
        rep = subprocess.run(["perf", "report", "-i", data, "--children", "--stdio", "--percent-limit", "3",
                              "--sort", "symbol", "-g", "none"], capture_output=True, text=True).stdout
        with open(os.path.join(self.work, f"perf-n{n}.txt"), "w") as f:
            f.write(rep)

    def run(self):
        try:
            self.up()
            self.setup()
            for n in self.args.sizes:
                keep = self.steady_set_untimed(n) if self.args.skip_first_apply else self.first_apply(n)
                if self.args.only_first_apply:
                    self.save()
                    self.delete_set(keep[0])
                    continue
                prefix, setdir = self.steady(n, keep)
                self.git_phase(n, setdir)
                self.save()
                self.delete_set(prefix)
        finally:
            self.save()
            if not self.args.keep_testenv:
                self.down()

    # ---------------------------------------------------------------- report
    def save(self):
        with open(os.path.join(self.work, "results.json"), "w") as f:
            json.dump({"results": self.results, "loads": self.loads, "notes": self.notes}, f, indent=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smoke run: N=100 only, 2 reps")
    ap.add_argument("--sizes", default="20000,5000,1000",
                    help="largest first, so a cut-short run has the largest N's data")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--reps-large", type=int, default=3, help="reps for N >= 5000 (default 3)")
    ap.add_argument("--reps-huge", type=int, default=1,
                    help="reps for N >= 100000 (default 1: one first apply there takes minutes, and each set is "
                         "deleted again)")
    ap.add_argument("--peer-reps-large", type=int, default=1,
                    help="reps of the peers' runs (kubectl apply and diff, Flux's engine) at N >= 5000 (default 1): "
                         "each takes minutes there; opctl and the kubectl-get floor run every rep")
    ap.add_argument("--kubectl-peer-max-n", type=int, default=5000,
                    help="largest N at which kubectl's apply and diff run (default 5000; kubectl diff takes ~20 min "
                         "at N=20000); its get floor runs at every N")
    ap.add_argument("--flux-max-n", type=int, default=20000,
                    help="largest N at which Flux's engine runs (default 20000: one first apply takes ~19 min there, "
                         "and it grows with N)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", choices=["classic", "wide"], default="wide",
                    help="the generated set: wide (50 namespaces, 20 kinds, 5 large CRDs; default) or classic "
                         "(10 namespaces, 8 kinds: the runs before 2026-12-02)")
    ap.add_argument("--peers", default="kubectl,flux",
                    help="comma-separated peers besides kubectl's floor: kubectl, flux (default both)")
    ap.add_argument("--opctl-bin", default=os.environ.get("OPCTL_BIN", os.path.join(REPO_ROOT, "build/cli/opctl")))
    ap.add_argument("--opctl-source", choices=["git", "dir"], default="git",
                    help="opctl reads the set's git repo (default) or its directory")
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--results", default=os.path.join(HERE, "RESULTS.md"))
    ap.add_argument("--keep-testenv", action="store_true")
    ap.add_argument("--skip-first-apply", action="store_true",
                    help="run only the steady scenarios (no-op, diff, git), on a set opctl applies untimed")
    ap.add_argument("--only-first-apply", action="store_true",
                    help="run only the first-apply scenario (opctl and kubectl alternating, as in a full run)")
    args = ap.parse_args()
    if args.quick:
        args.sizes, args.reps, args.reps_large = "100", 2, 2
    args.sizes = [int(s) for s in args.sizes.split(",")]
    args.opctl_bin = os.path.abspath(args.opctl_bin)
    if not os.access(args.opctl_bin, os.X_OK):
        sys.exit(f"opctl binary not found at {args.opctl_bin}; set OPCTL_BIN")
    if args.workdir is None:
        args.workdir = f"/tmp/opctl-bench/run-{datetime.datetime.now().strftime('%Y%m%d-%H%M%S')}"
    b = Bench(args)
    started = datetime.datetime.now().astimezone()
    try:
        b.run()
    finally:
        import report
        report.write(args, b, started)
        log(f"wrote {args.results} (raw data: {args.workdir}/results.json)")


if __name__ == "__main__":
    main()
