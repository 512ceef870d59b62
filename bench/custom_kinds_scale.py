#!/usr/bin/env python3
"""A no-op pass over many custom resources (issue 38, item 2): how many API requests and how much time one
`opctl reconcile` costs with CLUSTERS Clusters and as many Backups (one per Cluster) in one namespace, counted
from the API server's audit log (user agent opctl/...), by verb and resource.

    bench/custom_kinds_scale.py TESTENV_DIR OPCTL_BIN [--clusters 200] [--reps 2] [--baseline OLD_OPCTL]

TESTENV_DIR is a control plane started with its audit log and without a node (`tests/e2e/testenv_fixture.sh
up-api DIR`; the script adds a ServiceCIDR, since 600 Services outgrow its /24). Without a node the instances' Pods
stay Pending: every Cluster keeps its first Pod, volume, Services,
Secrets, ServiceAccount, Role, RoleBinding, disruption budget and Lease, every Backup its CronJob, and the pass
finds nothing to change, which is the no-op this measures (a Cluster whose Pods run has the same children and
more Pods). The set is applied with OPCTL_BIN and settled (passes until one writes nothing), then OPCTL_BIN and,
with --baseline, another opctl (an earlier commit's build) each run REPS no-op passes, alternating. Prints one
JSON line per measured pass and a Markdown table of the medians.
"""
import argparse
import collections
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
import uuid


EXTRA_SERVICE_RANGE = """apiVersion: networking.k8s.io/v1
kind: ServiceCIDR
metadata:
  name: bench-custom-kinds
spec:
  cidrs: ["10.96.0.0/20"]
"""


def documents(namespace, clusters):
    docs = [f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {namespace}\n  namespace: {namespace}\n"]
    for i in range(clusters):
        docs.append(f"apiVersion: opctl.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: db{i:03}\n"
                    f"  namespace: {namespace}\nspec:\n  instances: 3\n  storage:\n    size: 1Gi\n")
        docs.append(f"apiVersion: opctl.io/v1alpha1\nkind: Backup\nmetadata:\n  name: db{i:03}-nightly\n"
                    f"  namespace: {namespace}\nspec:\n  cluster: db{i:03}\n  schedule: \"0 2 * * *\"\n"
                    f"  method: pg_basebackup\n  retention:\n    keep: 7\n  target:\n    pvc: db{i:03}-backups\n")
    return docs


def audited_pass(tenv, opctl, root):
    """One `opctl reconcile`; returns (exit code, seconds, [audit events of its requests])."""
    audit = tenv / "audit.log"
    start = audit.stat().st_size
    began = time.monotonic()
    result = subprocess.run([opctl, "reconcile", "--kubeconfig", str(tenv / "kubeconfig"), "--path", root,
                             "--timeout", "30m", "-q"], capture_output=True, text=True,
                            env=dict(os.environ, NO_COLOR="1"))
    elapsed = time.monotonic() - began
    time.sleep(1)  # the audit log is written as each response completes
    with open(audit) as f:
        f.seek(start)
        events = [json.loads(line) for line in f if line.strip()]
    ours = [e for e in events
            if e.get("userAgent", "").startswith("opctl/") and e.get("stage") == "ResponseComplete"]
    if result.returncode != 0:
        print(result.stderr[-2000:], file=sys.stderr)
    return result.returncode, elapsed, ours


def by_verb_and_resource(events):
    return collections.Counter(f'{e["verb"]} {e.get("objectRef", {}).get("resource", e["requestURI"].split("?")[0])}'
                               for e in events)


def writes(events):
    return [e for e in events if e["verb"] in ("create", "update", "patch", "delete")
            and "dryRun" not in e.get("requestURI", "")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("testenv", type=pathlib.Path)
    parser.add_argument("opctl")
    parser.add_argument("--clusters", type=int, default=200)
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--baseline", help="another opctl binary to measure beside OPCTL_BIN")
    args = parser.parse_args()
    namespace = f"ck-{uuid.uuid4().hex[:6]}"
    binaries = {"opctl": args.opctl}
    if args.baseline:
        binaries["baseline"] = args.baseline
    with tempfile.TemporaryDirectory() as root:
        for n, doc in enumerate(documents(namespace, args.clusters)):
            pathlib.Path(root, "opctl.yaml" if n == 0 else f"o{n:04}.yaml").write_text(doc)
        kubectl = ["kubectl", "--kubeconfig", str(args.testenv / "kubeconfig")]
        # Every Cluster has three Services: more ClusterIPs than the testenv's 10.0.0.0/24 holds. A control plane
        # without a node routes none of them, so a second range for the bench changes nothing else.
        subprocess.run(kubectl + ["apply", "-f", "-"], input=EXTRA_SERVICE_RANGE, text=True, check=True,
                       capture_output=True)
        subprocess.run(kubectl + ["create", "namespace", namespace], check=True, capture_output=True)
        for settle in range(6):
            code, seconds, events = audited_pass(args.testenv, args.opctl, root)
            print(json.dumps({"settling": settle, "exit": code, "seconds": round(seconds, 1),
                              "requests": len(events), "writes": len(writes(events))}), flush=True)
            if not writes(events):
                break
        measured = collections.defaultdict(list)
        for rep in range(args.reps):
            for label, binary in binaries.items():
                code, seconds, events = audited_pass(args.testenv, binary, root)
                row = {"binary": label, "rep": rep, "exit": code, "seconds": round(seconds, 2),
                       "requests": len(events), "writes": len(writes(events)),
                       "by": dict(sorted(by_verb_and_resource(events).items()))}
                print(json.dumps(row), flush=True)
                measured[label].append(row)
    resources = 2 * args.clusters
    print(f"\n{args.clusters} Clusters + {args.clusters} Backups in one namespace, no-op `opctl reconcile`, "
          f"median of {args.reps}:\n")
    print("| binary | requests | writes | seconds | requests per custom resource | ms per custom resource |")
    print("|---|---|---|---|---|---|")
    for label, rows in measured.items():
        requests = statistics.median(r["requests"] for r in rows)
        seconds = statistics.median(r["seconds"] for r in rows)
        print(f"| {label} | {requests:.0f} | {statistics.median(r['writes'] for r in rows):.0f} | {seconds:.1f} | "
              f"{requests / resources:.2f} | {1000 * seconds / resources:.1f} |")


if __name__ == "__main__":
    main()
