#!/usr/bin/env python3
"""Renders bench/cluster_ha.sh's JSON lines (one per fault case and round, written by tests/e2e/test_cluster_ha.py)
as the Markdown table of bench/CLUSTER.md: per fault, how many rounds, the outage (the longest time the long-lived
client session went without an acknowledged commit, from the fault on) as median and max, acknowledged commits,
commits lost, and samples in which two instances accepted writes.

    bench/cluster_ha_report.py RESULTS.jsonl
"""
import collections
import json
import statistics
import sys


def main():
    cases = collections.OrderedDict()
    with open(sys.argv[1]) as lines:
        for line in lines:
            if line.strip():
                case = json.loads(line)
                cases.setdefault(case["fault"], []).append(case)
    print("| fault (no pass running) | rounds | outage median | outage max | acknowledged commits | lost | "
          "samples | two writable |")
    print("|---|---|---|---|---|---|---|---|")
    for fault, runs in cases.items():
        outages = [run["outage_seconds"] for run in runs]
        print(f"| {fault} | {len(runs)} | {statistics.median(outages):.1f} s | {max(outages):.1f} s | "
              f"{sum(run['acknowledged'] for run in runs)} | {sum(run['lost'] for run in runs)} | "
              f"{sum(run['samples'] for run in runs)} | {sum(run['two_writable'] for run in runs)} |")


if __name__ == "__main__":
    main()
