"""Renders bench/RESULTS.md from a Bench run (bench.py) or from a saved results.json (python3 report.py WORKDIR)."""
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys

ROWS = [
    # (title, opctl op, opctl label, other op, other tool, other label)
    ("first apply", "first-apply", "opctl reconcile", "first-apply", "kubectl", "kubectl apply --server-side -R"),
    ("no-op pass: reconcile vs apply", "noop-reconcile", "opctl reconcile", "noop-reconcile", "kubectl",
     "kubectl apply --server-side -R"),
    ("no-op pass: diff", "noop-diff", "opctl diff", "noop-diff", "kubectl", "kubectl diff -R"),
    ("1% changed: diff", "diff-1pct", "opctl diff", "diff-1pct", "kubectl", "kubectl diff -R"),
    ("first apply vs Flux", "first-apply", "opctl reconcile", "first-apply", "flux",
     "Flux ssa ApplyAllStaged"),
    ("first apply: default rate vs --qps 0", "first-apply", "opctl reconcile", "first-apply", "opctl-qps0",
     "opctl reconcile --qps 0"),
    ("no-op pass vs Flux", "noop-reconcile", "opctl reconcile", "noop-reconcile", "flux",
     "Flux ssa ApplyAllStaged"),
    ("no-op diff vs Flux", "noop-diff", "opctl diff", "noop-diff", "flux", "Flux ssa Diff (dry-run)"),
    ("1% changed: diff vs Flux", "diff-1pct", "opctl diff", "diff-1pct", "flux", "Flux ssa Diff (dry-run)"),
    ("floor: no-op reconcile vs get", "noop-reconcile", "opctl reconcile", "floor-get", "kubectl",
     "kubectl get (every kind of the set, -A, -o json)"),
    ("floor: no-op diff vs get", "noop-diff", "opctl diff", "floor-get", "kubectl",
     "kubectl get (every kind of the set, -A, -o json)"),
    ("git, unchanged repo", "git-unchanged", "opctl fetch --repo", "git-unchanged", "git", "git fetch (clone)"),
    ("git, one new commit", "git-new-commit", "opctl fetch --repo", "git-new-commit", "git", "git fetch (clone)"),
]


def sh(*cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception as e:  # noqa: BLE001
        return f"({e})"


def runs(results, n, op, tool):
    return [r for r in results if r["n"] == n and r["op"] == op and r["tool"] == tool]


def med(rs, key):
    vals = [r[key] for r in rs]
    return statistics.median(vals) if vals else None


def fmt_time(rs):
    if not rs:
        return "–"
    m = med(rs, "wall")
    lo, hi = min(r["wall"] for r in rs), max(r["wall"] for r in rs)
    err = " ⚠" if any(r.get("error") for r in rs) else ""
    if len(rs) == 1:
        return f"{m:.2f} (1 run){err}"
    return f"{m:.2f} ({lo:.2f}–{hi:.2f}, {len(rs)} runs){err}"


def fmt_rss(rs):
    return f"{max(r['rss_kib'] for r in rs) / 1024:.0f}" if rs else "–"


def fmt_req(rs, tool):
    if tool == "git":
        return "–"
    return f"{med(rs, 'requests'):.0f}" if rs else "–"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "–"
    return f"{a / b:.3f}" if a / b < 0.1 else f"{a / b:.2f}"


def table(results, n):
    out = ["| scenario | opctl | median s (min–max) | peak RSS MiB | API req | other | median s (min–max) | peak RSS MiB "
           "| API req | opctl/other time | opctl/other req |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for title, oop, olabel, kop, ktool, klabel in ROWS:
        o = runs(results, n, oop, "opctl")
        k = runs(results, n, kop, ktool)
        if not o or not k:
            continue
        oreq = med(o, "requests") if o else None
        kreq = med(k, "requests") if k and ktool != "git" else None
        out.append(f"| {title} | `{olabel}` | {fmt_time(o)} | {fmt_rss(o)} | {fmt_req(o, 'opctl')} | `{klabel}` | "
                   f"{fmt_time(k)} | {fmt_rss(k)} | {fmt_req(k, ktool)} | {ratio(med(o, 'wall'), med(k, 'wall'))} | "
                   f"{ratio(oreq, kreq)} |")
    return "\n".join(out)


def scenarios(results, n):
    """The (op, tool) pairs measured at N = n, in the order they first ran; git fetches left out."""
    seen = []
    for r in results:
        key = (r["op"], r["tool"])
        if r["n"] == n and r["tool"] != "git" and key not in seen:
            seen.append(key)
    return seen


def verbs_table(results, n):
    out = ["| run | requests by verb (median run) |", "|---|---|"]
    for op, tool in scenarios(results, n):
        rs = [r for r in runs(results, n, op, tool) if r["verbs"]]
        if not rs:
            continue
        m = sorted(rs, key=lambda x: x["requests"])[len(rs) // 2]
        verbs = ", ".join(f"{v} {c}" for v, c in sorted(m["verbs"].items(), key=lambda kv: -kv[1]))
        out.append(f"| {op} / {tool} | {verbs} |")
    return "\n".join(out)


def targets(results, sizes, profile="classic"):
    # Issue 9's targets are defined at N = 5000; a run that also has larger sets still evaluates them there.
    n = 5000 if 5000 in sizes else max(sizes)
    note = "" if n >= 5000 else f" (**quick run: evaluated at N={n}, the issue's targets are for N=5000**)"

    def m(op, tool, key="wall", nn=n):
        return med(runs(results, nn, op, tool), key)

    rows = ["| target (N=5000) | measured" + note + " | met? |", "|---|---|---|"]

    def add(text, value_text, ok, missed="**missed**"):
        rows.append(f"| {text} | {value_text} | {'met' if ok else missed} |")

    rec, floor = m("noop-reconcile", "opctl"), m("floor-get", "kubectl")
    kdiff, kapply = m("noop-diff", "kubectl"), m("noop-reconcile", "kubectl")
    if None not in (rec, floor):
        add("no-op `opctl reconcile` ≤ 2× the `kubectl get` floor", f"{rec:.2f} s vs {floor:.2f} s = {rec / floor:.2f}×",
            rec <= 2 * floor)
    if None not in (rec, kdiff):
        add("no-op `opctl reconcile` ≥ 10× faster than `kubectl diff`",
            f"{kdiff:.2f} s / {rec:.2f} s = {kdiff / rec:.1f}× faster", kdiff >= 10 * rec)
    if None not in (rec, kapply):
        add("no-op `opctl reconcile` ≥ 5× faster than no-op `kubectl apply --server-side`",
            f"{kapply:.2f} s / {rec:.2f} s = {kapply / rec:.1f}× faster", kapply >= 5 * rec)
    reqs = {s: m("noop-reconcile", "opctl", "requests", s) for s in sorted(sizes)}
    reqs = {s: v for s, v in reqs.items() if v is not None}
    if reqs:
        # kinds × namespaces + 2 cluster-scoped kinds (Namespace, CRD).
        kinds, namespaces = (8, 10) if profile == "classic" else (20, 50)
        bound = kinds * namespaces + 2
        grow = max(reqs.values()) - min(reqs.values())
        desc = ", ".join(f"N={s}: {v:.0f}" for s, v in reqs.items())
        add("no-op `opctl reconcile`: O(kinds × namespaces) API requests, not O(N)",
            f"{desc} (LISTs per kind × namespace: {kinds} × {namespaces} + 2 cluster-scoped = {bound}; growth from the smallest to "
            f"the largest N: {grow:.0f}, because small sets lack some kinds in some namespaces)",
            reqs[max(reqs)] <= 2 * bound)
    fo, fk = m("first-apply", "opctl"), m("first-apply", "kubectl")
    if None not in (fo, fk):
        add("first apply ≥ 3× faster than `kubectl apply --server-side`",
            f"{fk:.2f} s / {fo:.2f} s = {fk / fo:.1f}× faster", fk >= 3 * fo)
    rss = [r["rss_kib"] for r in results if r["n"] == n and r["tool"] == "opctl"]
    if rss:
        add("peak RSS of opctl ≤ 200 MiB", f"max over all opctl runs at N={n}: {max(rss) / 1024:.0f} MiB",
            max(rss) / 1024 <= 200)
    go, gg = m("git-unchanged", "opctl"), m("git-unchanged", "git")
    if None not in (go, gg):
        add("incremental git fetch of an unchanged repo ≤ 1.5× `git fetch`",
            f"{go:.3f} s vs {gg:.3f} s = {go / gg:.2f}× (`opctl fetch --repo`: process start, cache lock, fetch, "
            f"ref resolution, path check)", go <= 1.5 * gg)
    return "\n".join(rows)


def targets_21(results, sizes):
    """The targets of issue 21 (defined at N = 20,000), evaluated at every N of the run."""
    rows = ["| target (issue 21, at N=20000) | N | measured | met? |", "|---|---|---|---|"]
    for n in sorted(sizes, reverse=True):
        def m(op, tool, key="wall"):
            return med(runs(results, n, op, tool), key)

        def add(text, value_text, ok):
            rows.append(f"| {text} | {n} | {value_text} | {'met' if ok else '**missed**'} |")

        rec, floor, frec = m("noop-reconcile", "opctl"), m("floor-get", "kubectl"), m("noop-reconcile", "flux")
        odiff, fdiff = m("noop-diff", "opctl"), m("noop-diff", "flux")
        o1, f1 = m("diff-1pct", "opctl"), m("diff-1pct", "flux")
        fo, ff, fz = m("first-apply", "opctl"), m("first-apply", "flux"), m("first-apply", "opctl-qps0")
        if None not in (rec, floor):
            add("no-op `opctl reconcile` ≤ 1.0× the `kubectl get` floor", f"{rec:.2f} s vs {floor:.2f} s = "
                f"{rec / floor:.2f}×", rec <= floor)
        def faster(text, ours, theirs, factor):
            """A row for "ours ≥ factor× faster than theirs", when both were measured."""
            if None not in (ours, theirs):
                add(text, f"{theirs:.2f} s / {ours:.2f} s = {theirs / ours:.1f}× faster", theirs >= factor * ours)

        faster("no-op `opctl reconcile` ≥ 5× faster than Flux's no-op", rec, frec, 5)
        faster("`opctl diff` ≥ 10× faster than Flux's dry-run diff (no-op)", odiff, fdiff, 10)
        faster("`opctl diff` ≥ 10× faster than Flux's dry-run diff (1% changed)", o1, f1, 10)
        faster("first apply ≥ 1.5× faster than Flux's staged apply", fo, ff, 1.5)
        if None not in (fo, fz):
            add("first apply within 1.3× of opctl's own `--qps 0`", f"{fo:.2f} s vs {fz:.2f} s = {fo / fz:.2f}×",
                fo <= 1.3 * fz)
        req = m("noop-reconcile", "opctl", "requests")
        if req is not None:
            rows.append(f"| no-op API requests O(kinds × namespaces) | {n} | {req:.0f} requests | see the "
                        "per-verb table: LISTs per (kind, namespace) |")
    return "\n".join(rows)


def targets_38(results, sizes):
    """The targets of issue 38: memory at 5,000, 20,000 and 100,000; time against the floor at 20,000 and 100,000."""
    rows = ["| target (issue 38) | N | measured | met? |", "|---|---|---|---|"]
    rss_limits = {5000: 40, 20000: 100, 100000: 350}
    floor_limits = {20000: 0.6, 100000: 0.7}
    for n in sorted(sizes, reverse=True):
        def m(op, tool, key="wall"):
            return med(runs(results, n, op, tool), key)

        def add(text, value_text, ok):
            rows.append(f"| {text} | {n} | {value_text} | {'met' if ok else '**missed**'} |")

        floor = m("floor-get", "kubectl")
        if n in floor_limits and floor:
            limit = floor_limits[n]
            for op, label in (("noop-reconcile", "no-op `opctl reconcile`"), ("noop-diff", "no-op `opctl diff`")):
                ours = m(op, "opctl")
                if ours is not None:
                    add(f"{label} ≤ {limit}× the `kubectl get` floor",
                        f"{ours:.2f} s vs {floor:.2f} s = {ours / floor:.2f}×", ours <= limit * floor)
        if n >= 100000:
            fo, fz = m("first-apply", "opctl"), m("first-apply", "opctl-qps0")
            if None not in (fo, fz):
                add("first apply within 1.2× of opctl's own `--qps 0`", f"{fo:.2f} s vs {fz:.2f} s = {fo / fz:.2f}×",
                    fo <= 1.2 * fz)
        steady = [r["rss_kib"] for r in results
                  if r["n"] == n and r["tool"] == "opctl" and r["op"] in ("noop-reconcile", "noop-diff")]
        if steady and n in rss_limits:
            add(f"peak RSS ≤ {rss_limits[n]} MiB (no-op reconcile and diff)",
                f"max over those runs: {max(steady) / 1024:.0f} MiB", max(steady) / 1024 <= rss_limits[n])
        every = [r["rss_kib"] for r in results if r["n"] == n and r["tool"] in ("opctl", "opctl-qps0")]
        if every:
            rows.append(f"| peak RSS of every opctl run (first applies and 1 % diffs included) | {n} | "
                        f"{max(every) / 1024:.0f} MiB | – |")
    return "\n".join(rows)


def apiserver_cpu_table(results, n):
    """The kube-apiserver's CPU seconds per measured run (median), from its /proc/<pid>/stat."""
    out = ["| run | kube-apiserver CPU s (median) | wall s (median) |", "|---|---|---|"]
    for op, tool in scenarios(results, n):
        rs = [x for x in runs(results, n, op, tool) if x.get("apiserver_cpu_s") is not None]
        if rs:
            out.append(f"| {op} / {tool} | {med(rs, 'apiserver_cpu_s'):.2f} | {med(rs, 'wall'):.2f} |")
    return "\n".join(out) if len(out) > 2 else ""


def machine():
    mem = sh("sh", "-c", "free -m | awk '/^Mem:/ {print $2\" MiB total, \"$7\" MiB available\"}'")
    cpu = sh("sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2")
    return mem, cpu.strip()


def write(args, bench, started, finished=None):
    results = bench.results
    sizes = sorted({r["n"] for r in results}) or args.sizes
    finished = finished or datetime.datetime.now().astimezone()
    mem, cpu = machine()
    server = "?"
    try:
        v = json.loads(subprocess.run(["kubectl", "version", "-o", "json", "--kubeconfig",
                                       getattr(bench, "kubeconfig", "/dev/null")],
                                      capture_output=True, text=True, timeout=20).stdout or "{}")
        server = v.get("serverVersion", {}).get("gitVersion", "?")
    except Exception:  # noqa: BLE001
        pass
    if server == "?":
        server = "v1.36.3 (testenv; already stopped when the report was written)"
    loads = bench.loads or [0]
    L = []
    L.append("# opctl vs kubectl and Flux's apply engine: benchmark results\n")
    L.append(f"Generated by `bench/run.sh{' --quick' if args.quick else ''}` — see `bench/README.md` for what is "
             f"measured and how. Raw data: `{args.workdir}/results.json` (per-run logs next to it).\n")
    L.append("## Machine, versions, date\n")
    L.append(f"- date: {started.strftime('%Y-%m-%d %H:%M %Z')} – {finished.strftime('%H:%M %Z')} "
             f"({(finished - started).total_seconds() / 60:.0f} min)")
    L.append(f"- machine: {os.cpu_count()} CPUs (`nproc` {sh('nproc')}), {cpu}; memory {mem}; "
             f"{platform.platform()}")
    L.append(f"- load average (1 min) sampled before each measured run: min {min(loads):.2f}, median "
             f"{statistics.median(loads):.2f}, max {max(loads):.2f} — the control plane, its controllers and the "
             "tool under test share these CPUs (a load above the CPU count means work queued for a CPU), so absolute "
             "times are noisy; ratios come from runs interleaved in time")
    L.append(f"- opctl: `{sh(args.opctl_bin, 'version').splitlines()[0] if sh(args.opctl_bin, 'version') else '?'}` "
             f"({args.opctl_bin})")
    L.append(f"- kubectl: `{sh('kubectl', 'version', '--client').splitlines()[0]}`; Kubernetes (testenv): {server}")
    L.append(f"- git: `{sh('git', '--version')}`")
    L.append(f"- opctl reads the set from: {'its git repository (`--repo file://…`)' if args.opctl_source == 'git' else 'the directory (`--path`)'}; "
             "kubectl reads the same files from a directory")
    # The most runs any scenario of that N has (a --only-first-apply run has no no-op scenarios).
    reps = {n: max((len(runs(results, n, r["op"], r["tool"])) for r in results if r["n"] == n), default=0)
            for n in sizes}
    L.append("- repetitions per scenario and tool: " + ", ".join(f"N={n}: {r}" for n, r in reps.items()) +
             " (alternating/rotating the tool order each rep); figures are medians, RSS the max over the reps")
    big = [n for n in sizes if n >= 5000]
    if big and runs(results, big[0], "noop-diff", "kubectl"):
        kd = len(runs(results, big[0], "noop-diff", "kubectl"))
        L.append(f"- **N ≥ 5000: {reps[big[0]]} reps instead of 5, and the two `kubectl diff` scenarios {kd} run each** "
                 "(one `kubectl diff` of 5000 objects takes 6–7 min here; 5 reps of everything at N=5000 would take "
                 "well over 2 hours on this machine). The table shows the number of runs behind each median")
    L.append("")
    for n in sizes:
        L.append(f"## N = {n}\n")
        profile = getattr(args, "profile", "classic")
        extra = "10 Namespaces + 1 CRD" if profile == "classic" else \
            "50 Namespaces + 6 CRDs (5 with schemas of 415–610 KB), 20 namespaced kinds"
        L.append(f"{n} namespaced objects + {extra}. Times in seconds. ⚠ = a run exited unexpectedly "
                 "(see the per-run log).\n")
        L.append(table(results, n) + "\n")
        L.append("<details><summary>API requests by verb</summary>\n\n" + verbs_table(results, n) + "\n\n</details>\n")
        cpu = apiserver_cpu_table(results, n)
        if cpu:
            L.append("<details><summary>kube-apiserver CPU per run</summary>\n\n" + cpu + "\n\n</details>\n")
    L.append("## Targets from issue 38\n")
    L.append(targets_38(results, sizes) + "\n")
    if any(r["tool"] == "flux" for r in results):
        L.append("## Targets from issue 21 (time; its memory targets are issue 38's now)\n")
        L.append(targets_21(results, sizes) + "\n")
    L.append("## Targets from issue 9\n")
    L.append(targets(results, sizes, getattr(args, "profile", "classic")) + "\n")
    if bench.notes:
        L.append("## Notes from the run\n")
        L.extend(f"- {x}" for x in bench.notes)
        L.append("")
    extra = os.path.join(os.path.dirname(args.results), "ANALYSIS.md")
    if os.path.exists(extra) and not args.quick:
        with open(extra) as f:
            L.append(f.read())
    with open(args.results, "w") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    # Re-render from a saved run: python3 bench/report.py WORKDIR [--quick]
    import argparse
    import types
    ap = argparse.ArgumentParser()
    ap.add_argument("workdir")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--opctl-bin", default=os.environ.get("OPCTL_BIN", "build/cli/opctl"))
    ap.add_argument("--opctl-source", default="git")
    ap.add_argument("--profile", default="wide")
    ap.add_argument("--results", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS.md"))
    ap.add_argument("--started", help="ISO time the run started (default: its first run's start, if recorded)")
    a = ap.parse_args()
    with open(os.path.join(a.workdir, "results.json")) as f:
        d = json.load(f)
    a.sizes = sorted({r["n"] for r in d["results"]})
    b = types.SimpleNamespace(results=d["results"], loads=d["loads"], notes=d["notes"])
    fin = datetime.datetime.fromtimestamp(os.path.getmtime(os.path.join(a.workdir, "results.json"))).astimezone()
    starts = [r["start"] for r in d["results"] if "start" in r]
    if a.started:
        st = datetime.datetime.fromisoformat(a.started).astimezone()
    elif starts:
        st = datetime.datetime.fromtimestamp(min(starts)).astimezone()
    else:
        st = fin
    write(a, b, st, fin)
