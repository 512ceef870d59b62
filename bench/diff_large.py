#!/usr/bin/env python3
"""`opctl diff` against `kubectl diff --server-side` on a set of large CRDs (issue 36, item 3).

Eleven generated CRDs (about 4.2 MB of YAML, the largest about 13,000 lines, nested schemas with long descriptions
as operators ship them) are diffed by both tools against one real control plane, alternating, REPS times each:

  new      the CRDs are not on the cluster: every line of every object is an addition
  changed  the CRDs are applied (by opctl), then one description in every tenth schema section is reworded:
           large objects with small changes spread through them

Wall time and peak RSS come from GNU /usr/bin/time. The figures are written as Markdown to --results (default
bench/DIFF.md). Nothing here is run by CI.

  python3 bench/diff_large.py --testenv /tmp/testenv-shared [--opctl build/cli/opctl] [--reps 3] [--baseline OLD]
"""
import argparse
import datetime
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate  # noqa: E402  (WORDS, dump_docs)

GROUP = "diffbench.opctl.io"
# (kind, plural, lines of YAML): eleven sizes, as one operator's bundle of CRDs has.
CRDS = [("Alpha", "alphas", 1000), ("Bravo", "bravos", 1500), ("Charlie", "charlies", 2000),
        ("Delta", "deltas", 2800), ("Echo", "echoes", 3300), ("Foxtrot", "foxtrots", 3800), ("Golf", "golves", 4400),
        ("Hotel", "hotels", 5000), ("India", "indias", 5800), ("Juliett", "julietts", 7000),
        ("Kilo", "kilos", 9500)]


def schema(rng, lines):
    """A structural schema of about `lines` lines of YAML: nested objects whose fields have one-line descriptions,
    as generated operator CRDs (controller-gen) have."""
    budget = [lines]

    def describe():
        return " ".join(rng.choice(generate.WORDS) for _ in range(rng.randint(4, 9))).capitalize() + "."

    def node(depth):
        properties = {}
        for i in range(rng.randint(3, 8)):
            name = f"{rng.choice(generate.WORDS)}{rng.choice(generate.WORDS).capitalize()}{i}"
            if depth < 6 and rng.random() < 0.3:
                properties[name] = node(depth + 1)
            else:
                kind = rng.choice(["string", "integer", "boolean", "string"])
                properties[name] = {"description": describe(), "type": kind, **(
                    {"format": "int32"} if kind == "integer" else {})}
                budget[0] -= 3
        budget[0] -= 4
        return {"description": describe(), "properties": properties, "type": "object"}

    sections = {}
    while budget[0] > 0:
        sections[f"section{len(sections)}"] = node(0)
    return {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"template": {"type": "object", "properties": sections}}},
        "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}


def crd(rng, kind, plural, lines):
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{GROUP}"},
            "spec": {"group": GROUP, "scope": "Namespaced",
                     "names": {"plural": plural, "singular": kind.lower(), "kind": kind, "listKind": kind + "List"},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": schema(rng, lines)}}]}}


def write_set(directory, crds):
    os.makedirs(directory, exist_ok=True)
    sizes = []
    for document in crds:
        text = generate.dump_docs([document])
        path = os.path.join(directory, f"crd-{document['spec']['names']['plural']}.yaml")
        with open(path, "w") as out:
            out.write(text)
        sizes.append((len(text.encode()), text.count("\n")))
    return sizes


def reword(crds, seed):
    """One description in every tenth schema section gets new words."""
    rng = random.Random(f"{seed}/reword")
    for document in crds:
        template = document["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"][
            "template"]
        for index, name in enumerate(sorted(template["properties"])):
            if index % 10 == 0:
                template["properties"][name]["description"] = f"Reworded {rng.randint(0, 10**9)}: " + \
                    template["properties"][name]["description"]


def timed(command, env):
    """(exit code, wall seconds, peak RSS in MB) of one run."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as timing:
        run = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", timing.name, *command], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall, rss_kb = timing.read().split()[-2:]
    return run.returncode, float(wall), int(rss_kb) / 1024, run.stderr


def measure(label, commands, reps, env, results):
    for rep in range(reps):
        for tool, command in commands.items():
            code, wall, rss, stderr = timed(command, env)
            if code not in (0, 1):
                sys.exit(f"{tool} ({label}) exited {code}: {stderr[-2000:]}")
            results.append({"scenario": label, "tool": tool, "rep": rep, "wall_s": wall, "rss_mb": rss})
            print(f"{label:8} {tool:7} rep {rep}: {wall:6.2f} s {rss:7.1f} MB", flush=True)


def table(results):
    rows = ["| scenario | tool | wall s (median) | wall s (max) | peak RSS MB (median) | reps |",
            "|---|---|---|---|---|---|"]
    for scenario in dict.fromkeys(r["scenario"] for r in results):
        for tool in dict.fromkeys(r["tool"] for r in results):
            runs = [r for r in results if r["scenario"] == scenario and r["tool"] == tool]
            walls = [r["wall_s"] for r in runs]
            rss = [r["rss_mb"] for r in runs]
            rows.append(f"| {scenario} | {tool} | {statistics.median(walls):.2f} | {max(walls):.2f} | "
                        f"{statistics.median(rss):.0f} | {len(runs)} |")
    return "\n".join(rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--testenv", required=True, help="a running tests/testenv directory (holds kubeconfig)")
    parser.add_argument("--opctl", default="build/cli/opctl")
    parser.add_argument("--kubectl", default="kubectl")
    parser.add_argument("--baseline", help="an older opctl binary to measure as well (e.g. one built before a change)")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--results", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "DIFF.md"))
    args = parser.parse_args()

    kubeconfig = os.path.join(args.testenv, "kubeconfig")
    env = dict(os.environ, KUBECONFIG=kubeconfig, NO_COLOR="1")
    rng = random.Random(f"{args.seed}/crds")
    crds = [crd(rng, kind, plural, size) for kind, plural, size in CRDS]
    work = tempfile.mkdtemp(prefix="opctl-diffbench-")
    directory = os.path.join(work, "set")
    sizes = write_set(directory, crds)
    total_mb = sum(size for size, _ in sizes) / 1e6
    largest_lines = max(lines for _, lines in sizes)
    print(f"{len(crds)} CRDs, {total_mb:.1f} MB of YAML, the largest {largest_lines} lines, in {directory}")

    def commands():
        opctl_diff = ["diff", "--kubeconfig", kubeconfig, "--path", directory, "--no-color"]
        tools = {"opctl": [args.opctl, *opctl_diff],
                 "kubectl": [args.kubectl, "--kubeconfig", kubeconfig, "diff", "--server-side", "--force-conflicts",
                             "-f", directory]}
        if args.baseline:
            tools["baseline"] = [args.baseline, *opctl_diff]
        return tools

    delete = [args.kubectl, "--kubeconfig", kubeconfig, "delete", "crd", "--ignore-not-found", "--wait=true",
              *[f"{plural}.{GROUP}" for _, plural, _ in CRDS]]
    subprocess.run(delete, check=True, stdout=subprocess.DEVNULL)
    results = []
    try:
        measure("new", commands(), args.reps, env, results)
        applied = subprocess.run([args.opctl, "reconcile", "--kubeconfig", kubeconfig, "--path", directory, "--name",
                                  "diffbench", "--no-color", "-q"], env=env, capture_output=True, text=True)
        if applied.returncode != 0:
            sys.exit(f"opctl reconcile failed: {applied.stderr[-2000:]}")
        reword(crds, args.seed)
        write_set(directory, crds)
        measure("changed", commands(), args.reps, env, results)
    finally:
        subprocess.run(delete, stdout=subprocess.DEVNULL)
        subprocess.run([args.kubectl, "--kubeconfig", kubeconfig, "delete", "secret", "-n", "default",
                        "--ignore-not-found", "opctl-diffbench"], stdout=subprocess.DEVNULL)

    opctl_version = subprocess.run([args.opctl, "--version"], capture_output=True, text=True).stdout.strip()
    kubectl_version = subprocess.run([args.kubectl, "version", "--client", "-o", "json"], capture_output=True,
                                     text=True).stdout
    kubectl_version = json.loads(kubectl_version)["clientVersion"]["gitVersion"] if kubectl_version else "?"
    with open(args.results, "w") as out:
        out.write(f"# `opctl diff` against `kubectl diff --server-side`: large CRDs\n\n"
                  f"Written by `bench/diff_large.py` on {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC "
                  f"({opctl_version}, kubectl {kubectl_version}; one control plane from `tests/testenv`, 2 cores).\n\n"
                  f"The set: {len(crds)} CustomResourceDefinitions, {total_mb:.1f} MB of YAML, the largest "
                  f"{largest_lines} lines. **new**: none is on the cluster, so every line is an addition. "
                  f"**changed**: applied by opctl, then one description in every tenth schema section reworded. "
                  f"The tools alternate, {args.reps} runs each; wall time and peak RSS from GNU time."
                  + (f" **baseline**: `{args.baseline}` (an older opctl)." if args.baseline else "") + "\n\n"
                  f"{table(results)}\n")
    print(f"wrote {args.results}")


if __name__ == "__main__":
    main()
