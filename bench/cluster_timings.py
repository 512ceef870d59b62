#!/usr/bin/env python3
"""Issue 15's targets for the Cluster data plane, measured on the test node (never asserted in a test):

- how long a 3-instance Cluster takes from its first pass to Healthy with every replica streaming (images cached);
- how long a failover takes, passes run back to back, from the moment the primary is gone to a promoted replica that
  is Ready behind the -rw Service: once with the primary's postmaster killed (SIGKILL), once with its Pod deleted
  (then the old primary first shuts down cleanly, smart then fast, which the clock includes).

Usage (a control plane with the node and the instance image, e.g. `tests/e2e/testenv_fixture.sh up /tmp/te`):

    OPCTL_BIN=build/cli/opctl OPCTL_TESTENV_DIR=/tmp/te bench/cluster_timings.py [--reps 3] [--results FILE]

It reuses the e2e suite's helpers (tests/e2e/conftest.py, postgres_support.py), so it reads everything back the
way the tests do: kubectl for the Cluster and its Pods, psql for PostgreSQL.
"""
import argparse
import pathlib
import statistics
import sys
import tempfile
import time
import uuid

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "e2e"))

import conftest  # noqa: E402
import postgres_support  # noqa: E402

PGDATA = "/var/lib/postgresql/data/pgdata"


def manifests_writer(root):
    def write(files):
        root.mkdir(exist_ok=True)
        for name, text in files.items():
            (root / name).write_text(text)
        return root
    return write


def promoted(db, old):
    status = db.status()
    new = status.get("currentPrimary")
    if not new or new == old:
        return False
    pod = db.pods().get(new)
    return pod is not None and db.ready(pod) and db.rw_endpoints() == [new]


def one_run(cluster, work):
    namespace = f"bench-{uuid.uuid4().hex[:8]}"
    cluster.kubectl("create", "namespace", namespace)
    try:
        db = postgres_support.PgCluster(cluster, namespace, manifests_writer(work / namespace))
        db.write(instances=3)
        start = time.time()
        db.passes_until(db.healthy_and_streaming, "Healthy with 2 streaming replicas", timeout=300, interval=0)
        ready = time.time() - start

        old = db.status()["currentPrimary"]
        cluster.kubectl("exec", "-n", namespace, old, "-c", "postgres", "--", "sh", "-c",
                        f"kill -9 $(head -1 {PGDATA}/postmaster.pid)")
        start = time.time()
        db.passes_until(lambda: promoted(db, old), "failed over after the postmaster was killed", timeout=300,
                        interval=0)
        after_kill = time.time() - start
        db.settle()

        old = db.status()["currentPrimary"]
        cluster.kubectl("delete", "pod", old, "-n", namespace, "--wait=false")
        start = time.time()
        db.passes_until(lambda: promoted(db, old), "failed over after the Pod was deleted", timeout=300,
                        interval=0)
        after_delete = time.time() - start
        return ready, after_kill, after_delete
    finally:
        cluster.kubectl("delete", "namespace", namespace, "--wait=false", check=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--results", default=str(HERE / "CLUSTER.md"))
    args = parser.parse_args()
    cluster = conftest.Cluster()
    crds = cluster.opctl("crds")
    cluster.kubectl("apply", "--server-side", "--force-conflicts", "-f", "-", input=crds.stdout)
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for rep in range(args.reps):
            rows.append(one_run(cluster, pathlib.Path(scratch)))
            print(f"rep {rep + 1}: ready {rows[-1][0]:.1f}s, failover after kill {rows[-1][1]:.1f}s, "
                  f"after Pod deletion {rows[-1][2]:.1f}s", flush=True)
    columns = list(zip(*rows))
    lines = [
        "# Cluster data plane timings",
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `bench/cluster_timings.py` on the test "
        "node (2 cores), images cached, `opctl reconcile` passes back to back, failoverDelay 0, "
        f"{args.reps} runs. Targets (issue 15): Ready ≤ 30 s, failover ≤ 10 s + failoverDelay after the primary is gone.",
        "",
        "| | median | min | max |",
        "|---|---|---|---|",
    ]
    for label, values in zip(["3 instances: first pass → Healthy, 2 replicas streaming",
                              "failover: postmaster killed → new primary Ready behind -rw",
                              "failover: primary Pod deleted → new primary Ready behind -rw (includes its clean "
                              "shutdown)"], columns):
        lines.append(f"| {label} | {statistics.median(values):.1f} s | {min(values):.1f} s | {max(values):.1f} s |")
    pathlib.Path(args.results).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
