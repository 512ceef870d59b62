#!/usr/bin/env python3
"""Generate a realistic desired set of N namespaced objects for the opctl-vs-kubectl benchmark.

The set is written twice, with the same content:

  OUT/tree/   a plain directory (what `kubectl apply -R -f` and `kubectl diff -R -f` read)
  OUT/repo/   a git repository (branch `main`) whose tree is the same files (what `opctl --repo` reads)

Layout (files sort so that `kubectl apply -R` creates Namespaces and the CRD first):

  00-cluster/namespaces.yaml      the ~10 Namespaces of the set
  00-cluster/crd-widgets.yaml     CustomResourceDefinition widgets.bench.opctl.io
  10-apps/<namespace>/<app>.yaml  one file per app: a few of ConfigMap, Secret, Service, Deployment,
                                  ServiceAccount, Role, RoleBinding and Widget (the CRD's kind)

N counts the namespaced objects; the Namespaces and the CRDs come on top. Two profiles:

  classic  10 namespaces, 8 kinds (ServiceAccount, Role, RoleBinding, Secret, ConfigMap, Service, Deployment and
           Widget, the one small CRD's kind): N + 11 objects in all (the earlier benchmark runs)
  wide     50 namespaces, 20 namespaced kinds: the 8 above, NetworkPolicy, PodDisruptionBudget,
           HorizontalPodAutoscaler, Ingress, CronJob (suspended), PersistentVolumeClaim, LimitRange, and the kinds of
           5 CRDs with large schemas (400-650 KB each, as real operators ship, in 00-cluster/crd-<plural>.yaml):
           N + 56 objects in all
Everything is derived from --seed, --n and --prefix, so two runs with the same arguments give the same bytes
(and the same commit id, as author/committer dates are fixed).

  generate.py --n 1000 --seed 1 --prefix b1000 --out /tmp/opctl-bench/sets/b1000
  generate.py --out /tmp/opctl-bench/sets/b1000 --mutate 1%     # change 1% of the objects in a new commit

--mutate rewrites the tree and adds one commit to the repo; it reads the generation parameters back from
OUT/params.json and is itself deterministic (the k-th mutation of a set is always the same).
"""
import argparse
import base64
import json
import os
import random
import shutil
import subprocess
import sys

import yaml

CRD_GROUP = "bench.opctl.io"
TEAMS = ["payments", "checkout", "catalog", "search", "accounts", "shipping", "billing", "media", "reports", "edge",
         "auth", "notify"]
COMPONENTS = ["api", "worker", "web", "cron", "gateway", "indexer", "sync", "cache", "admin", "events", "export",
              "import", "render", "scheduler", "queue", "metrics"]
IMAGES = ["nginx:1.27.{}", "registry.example.com/{team}/{app}:v2.{}.0", "ghcr.io/example/{app}:1.{}",
          "redis:7.2.{}", "busybox:1.36.{}"]
# Kinds of one app, in the order they are written; the weights decide how many apps carry each optional kind.
APP_KINDS = ["ServiceAccount", "Role", "RoleBinding", "Secret", "ConfigMap", "Service", "Deployment", "Widget"]

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"widgets.{CRD_GROUP}"},
    "spec": {
        "group": CRD_GROUP,
        "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
        "versions": [{
            "name": "v1",
            "served": True,
            "storage": True,
            "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {
                    "spec": {
                        "type": "object",
                        "properties": {
                            "size": {"type": "integer", "minimum": 0},
                            "tier": {"type": "string", "enum": ["bronze", "silver", "gold"]},
                            "owner": {"type": "string"},
                            "endpoints": {"type": "array", "items": {
                                "type": "object",
                                "required": ["name", "port"],
                                "properties": {"name": {"type": "string"}, "port": {"type": "integer"}},
                            }, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]},
                            "settings": {"type": "object", "additionalProperties": {"type": "string"}},
                        },
                    },
                    "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                },
            }},
        }],
    },
}


# The wide profile's CRDs with large schemas: (kind, plural, schema size in KB).
LARGE_CRDS = [("Pipeline", "pipelines", 400), ("Probe", "probes", 460), ("Alert", "alerts", 500),
              ("Dataset", "datasets", 560), ("Gateway", "gateways", 610)]
WIDE_KINDS = APP_KINDS + ["NetworkPolicy", "PodDisruptionBudget", "HorizontalPodAutoscaler", "Ingress", "CronJob",
                          "PersistentVolumeClaim", "LimitRange"] + [kind for kind, _, _ in LARGE_CRDS]
WORDS = ["the", "controller", "reconciles", "this", "field", "when", "set", "value", "of", "resource", "must", "be",
         "a", "valid", "name", "defaults", "to", "empty", "which", "means", "no", "limit", "applies", "for", "each",
         "replica", "in", "cluster", "see", "documentation", "more", "details", "about", "configuration"]


def large_schema(rng, size_kb):
    """A structural schema of about size_kb KB: nested objects with long descriptions, as generated CRDs have."""
    def describe(words):
        return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."

    def leaf(depth):
        t = rng.choice(["string", "integer", "boolean", "string"])
        prop = {"type": t, "description": describe(rng.randint(20, 60))}
        if t == "integer":
            prop["format"] = "int32"
        return prop

    def node(depth):
        props = {}
        for i in range(rng.randint(4, 9)):
            name = f"{rng.choice(WORDS)}{rng.choice(WORDS).capitalize()}{i}"
            props[name] = node(depth + 1) if depth < 3 and rng.random() < 0.35 else leaf(depth)
        return {"type": "object", "description": describe(rng.randint(30, 80)), "properties": props}

    template = {"type": "object", "description": describe(40), "properties": {}}
    i = 0
    while len(json.dumps(template, separators=(",", ":"))) < size_kb * 1024 - 8192:
        template["properties"][f"section{i}"] = node(0)
        i += 1
    return {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "replicas": {"type": "integer", "minimum": 0, "description": describe(30)},
            "mode": {"type": "string", "enum": ["active", "passive", "standby"], "description": describe(30)},
            "owner": {"type": "string", "description": describe(20)},
            "settings": {"type": "object", "additionalProperties": {"type": "string"}, "description": describe(20)},
            "template": template}},
        "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}


def large_crds(seed):
    rng = random.Random(f"{seed}/large-crds")
    return [{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
             "metadata": {"name": f"{plural}.{CRD_GROUP}"},
             "spec": {"group": CRD_GROUP, "scope": "Namespaced",
                      "names": {"plural": plural, "singular": kind.lower(), "kind": kind, "listKind": kind + "List"},
                      "versions": [{"name": "v1", "served": True, "storage": True,
                                    "schema": {"openAPIV3Schema": large_schema(rng, size_kb)}}]}}
            for kind, plural, size_kb in LARGE_CRDS]


LARGE_KINDS = {kind for kind, _, _ in LARGE_CRDS}

# `kubectl get` of every namespaced kind of a profile: the floor a no-op pass is compared with.
GET_KINDS = {
    "classic": "configmaps,secrets,services,deployments.apps,serviceaccounts,roles.rbac.authorization.k8s.io,"
               "rolebindings.rbac.authorization.k8s.io,widgets.bench.opctl.io",
}
GET_KINDS["wide"] = GET_KINDS["classic"] + ",networkpolicies.networking.k8s.io,poddisruptionbudgets.policy," \
    "horizontalpodautoscalers.autoscaling,ingresses.networking.k8s.io,cronjobs.batch,persistentvolumeclaims," \
    "limitranges," + ",".join(f"{plural}.{CRD_GROUP}" for _, plural, _ in LARGE_CRDS)
PROFILES = {"classic": {"namespaces": 10, "kinds": APP_KINDS}, "wide": {"namespaces": 50, "kinds": WIDE_KINDS}}


class Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):
    pass


def _str_presenter(dumper, data):
    if "\n" in data:
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


Dumper.add_representer(str, _str_presenter)
Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def dump_docs(docs):
    return "---\n".join(yaml.dump(d, Dumper=Dumper, sort_keys=False, default_flow_style=False) for d in docs)


def labels(team, app, component):
    return {"app.kubernetes.io/name": app, "app.kubernetes.io/component": component,
            "app.kubernetes.io/part-of": team, "team": team}


def config_file(rng, app, revision):
    lines = [f"# {app} configuration, revision {revision}", "server:", f"  port: {rng.choice([8080, 8443, 9000])}",
             f"  workers: {rng.randint(2, 32)}", "  timeouts:", f"    read: {rng.randint(1, 60)}s",
             f"    write: {rng.randint(1, 60)}s", "logging:", f"  level: {rng.choice(['debug', 'info', 'warn'])}",
             "  format: json", "features:"]
    for i in range(rng.randint(2, 8)):
        lines.append(f"  flag_{i}: {rng.choice(['true', 'false'])}")
    return "\n".join(lines) + "\n"


def make_app(rng, ns, team, app, kinds):
    """The objects of one app (only the kinds in `kinds`), as dicts."""
    component = app.rsplit("-", 1)[0]
    lab = labels(team, app, component)
    objs = {}
    sa = f"{app}"
    for kind in kinds:
        meta = {"name": app, "namespace": ns, "labels": dict(lab)}
        if kind == "ServiceAccount":
            objs[kind] = {"apiVersion": "v1", "kind": kind, "metadata": meta}
        elif kind == "Role":
            objs[kind] = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": meta, "rules": [
                {"apiGroups": [""], "resources": ["configmaps", "secrets"], "verbs": ["get", "list", "watch"]},
                {"apiGroups": [CRD_GROUP], "resources": ["widgets"], "verbs": ["get", "list", "watch", "update"]},
            ][: rng.randint(1, 2)]}
        elif kind == "RoleBinding":
            objs[kind] = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": meta,
                          "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": app},
                          "subjects": [{"kind": "ServiceAccount", "name": sa, "namespace": ns}]}
        elif kind == "Secret":
            data = {k: base64.b64encode(rng.randbytes(rng.randint(12, 48))).decode()
                    for k in rng.sample(["password", "token", "api-key", "tls.key", "dsn", "client-secret"],
                                        rng.randint(1, 4))}
            objs[kind] = {"apiVersion": "v1", "kind": kind, "metadata": meta, "type": "Opaque", "data": data}
        elif kind == "ConfigMap":
            data = {"config.yaml": config_file(rng, app, 1), "LOG_LEVEL": rng.choice(["info", "debug", "warn"]),
                    "REGION": rng.choice(["eu-west-1", "us-east-1", "ap-south-1"])}
            for i in range(rng.randint(0, 6)):
                data[f"EXTRA_{i}"] = f"value-{rng.randint(0, 10**6)}"
            objs[kind] = {"apiVersion": "v1", "kind": kind, "metadata": meta, "data": data}
        elif kind == "Service":
            port = rng.choice([80, 443, 8080])
            ports = [{"name": "http", "port": port, "targetPort": 8080, "protocol": "TCP"}]
            if rng.random() < 0.4:
                ports.append({"name": "metrics", "port": 9090, "targetPort": 9090, "protocol": "TCP"})
            objs[kind] = {"apiVersion": "v1", "kind": kind, "metadata": meta,
                          "spec": {"type": "ClusterIP", "selector": {"app.kubernetes.io/name": app}, "ports": ports}}
        elif kind == "Deployment":
            image = rng.choice(IMAGES).format(rng.randint(0, 9), team=team, app=app)
            container = {
                "name": component,
                "image": image,
                "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
                "env": [{"name": "LOG_LEVEL", "value": rng.choice(["info", "debug"])},
                        {"name": "TEAM", "value": team}],
                "resources": {"requests": {"cpu": f"{rng.choice([50, 100, 250])}m",
                                           "memory": f"{rng.choice([64, 128, 256])}Mi"},
                              "limits": {"memory": f"{rng.choice([256, 512])}Mi"}},
                "readinessProbe": {"httpGet": {"path": "/healthz", "port": "http"}, "periodSeconds": 10},
            }
            if "ConfigMap" in kinds:
                container["envFrom"] = [{"configMapRef": {"name": app}}]
            pod_spec = {"containers": [container]}
            if "ServiceAccount" in kinds:
                pod_spec["serviceAccountName"] = sa
            objs[kind] = {"apiVersion": "apps/v1", "kind": kind, "metadata": meta, "spec": {
                "replicas": rng.choice([1, 1, 2]),
                "selector": {"matchLabels": {"app.kubernetes.io/name": app}},
                "template": {"metadata": {"labels": dict(lab)}, "spec": pod_spec},
            }}
        elif kind == "NetworkPolicy":
            objs[kind] = {"apiVersion": "networking.k8s.io/v1", "kind": kind, "metadata": meta, "spec": {
                "podSelector": {"matchLabels": {"app.kubernetes.io/name": app}}, "policyTypes": ["Ingress"],
                "ingress": [{"from": [{"podSelector": {"matchLabels": {"team": team}}}],
                             "ports": [{"protocol": "TCP", "port": 8080}]}]}}
        elif kind == "PodDisruptionBudget":
            objs[kind] = {"apiVersion": "policy/v1", "kind": kind, "metadata": meta, "spec": {
                "maxUnavailable": 1, "selector": {"matchLabels": {"app.kubernetes.io/name": app}}}}
        elif kind == "HorizontalPodAutoscaler":
            # Scales the app's canary Deployment, which the set does not hold: the autoscaler never changes a
            # Deployment the tools apply (its replicas would be drift).
            objs[kind] = {"apiVersion": "autoscaling/v2", "kind": kind, "metadata": meta, "spec": {
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": app + "-canary"},
                "minReplicas": 1, "maxReplicas": rng.randint(3, 10),
                "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                    "type": "Utilization", "averageUtilization": rng.choice([60, 70, 80])}}}]}}
        elif kind == "Ingress":
            objs[kind] = {"apiVersion": "networking.k8s.io/v1", "kind": kind, "metadata": meta, "spec": {
                "ingressClassName": "bench", "rules": [{"host": f"{app}.{team}.example.com", "http": {"paths": [
                    {"path": "/", "pathType": "Prefix",
                     "backend": {"service": {"name": app, "port": {"number": 80}}}}]}}]}}
        elif kind == "CronJob":
            objs[kind] = {"apiVersion": "batch/v1", "kind": kind, "metadata": meta, "spec": {
                "schedule": f"{rng.randint(0, 59)} {rng.randint(0, 23)} * * *", "suspend": True,
                "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "OnFailure", "containers": [
                    {"name": "job", "image": "busybox:1.36", "args": ["sh", "-c", "echo report"]}]}}}}}}
        elif kind == "PersistentVolumeClaim":
            objs[kind] = {"apiVersion": "v1", "kind": kind, "metadata": meta, "spec": {
                "accessModes": ["ReadWriteOnce"], "storageClassName": "bench",
                "resources": {"requests": {"storage": f"{rng.choice([1, 5, 10])}Gi"}}}}
        elif kind == "LimitRange":
            objs[kind] = {"apiVersion": "v1", "kind": kind, "metadata": meta, "spec": {"limits": [
                {"type": "Container", "default": {"memory": "512Mi"}, "defaultRequest": {"memory": "64Mi"}}]}}
        elif kind in LARGE_KINDS:
            objs[kind] = {"apiVersion": f"{CRD_GROUP}/v1", "kind": kind, "metadata": meta, "spec": {
                "replicas": rng.randint(1, 5), "mode": rng.choice(["active", "passive", "standby"]), "owner": team,
                "settings": {f"k{i}": f"v{rng.randint(0, 999)}" for i in range(rng.randint(0, 4))}}}
        elif kind == "Widget":
            objs[kind] = {"apiVersion": f"{CRD_GROUP}/v1", "kind": kind, "metadata": meta, "spec": {
                "size": rng.randint(1, 9), "tier": rng.choice(["bronze", "silver", "gold"]), "owner": team,
                "endpoints": [{"name": f"e{i}", "port": 8000 + i} for i in range(rng.randint(1, 3))],
                "settings": {f"k{i}": f"v{rng.randint(0, 999)}" for i in range(rng.randint(0, 4))},
            }}
    return objs


def build(n, seed, prefix, namespaces, profile="classic"):
    """Returns {relative path: [objects]} for a set of n namespaced objects."""
    app_kinds = PROFILES[profile]["kinds"]
    rng = random.Random(f"{seed}/{n}")
    ns_names = [f"{prefix}-{TEAMS[i % len(TEAMS)]}" + (f"-{i // len(TEAMS)}" if i >= len(TEAMS) else "")
                for i in range(namespaces)]
    files = {"00-cluster/namespaces.yaml": [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": {"team": ns.split("-", 1)[1],
                                                                                         "bench.opctl.io/set": prefix}}}
        for ns in ns_names]}
    files["00-cluster/crd-widgets.yaml"] = [CRD]
    if profile == "wide":
        for crd in large_crds(seed):
            files[f"00-cluster/crd-{crd['spec']['names']['plural']}.yaml"] = [crd]
    count = 0
    app_index = 0
    while count < n:
        ns = ns_names[app_index % len(ns_names)]
        team = ns.split("-", 1)[1]
        app = f"{rng.choice(COMPONENTS)}-{app_index:05d}"
        # Most apps have the full set; some lack a Widget, RBAC or a Service (a batch worker), like real repos.
        kinds = [k for k in app_kinds if not (
            ((k == "Widget" or k in LARGE_KINDS) and rng.random() < 0.35) or
            (k in ("Role", "RoleBinding") and rng.random() < 0.3) or
            (k == "Service" and rng.random() < 0.2) or
            (k == "Secret" and rng.random() < 0.25))]
        kinds = kinds[: n - count]
        objs = make_app(rng, ns, team, app, kinds)
        if "RoleBinding" in objs and "Role" not in objs:
            del objs["RoleBinding"]
        docs = [objs[k] for k in app_kinds if k in objs]
        files[f"10-apps/{ns}/{app}.yaml"] = docs
        count += len(docs)
        app_index += 1
    return files


def mutate(files, rng, fraction):
    """Changes `fraction` of the namespaced objects in place; returns how many."""
    refs = [(path, i) for path in sorted(files) if path.startswith("10-apps/") for i in range(len(files[path]))]
    k = max(1, round(len(refs) * fraction))
    for path, i in rng.sample(refs, k):
        obj = files[path][i]
        kind = obj["kind"]
        if kind == "ConfigMap":
            obj["data"]["LOG_LEVEL"] = "trace" if obj["data"]["LOG_LEVEL"] != "trace" else "info"
            obj["data"]["config.yaml"] += f"# changed {rng.randint(0, 10**6)}\n"
        elif kind == "Secret":
            obj["data"]["rotated"] = base64.b64encode(rng.randbytes(24)).decode()
        elif kind == "Service":
            # targetPort, not port: port is part of the list-map key, and changing a key under two field
            # managers (opctl and kubectl both own the set) would leave the old entry in place.
            obj["spec"]["ports"][0]["targetPort"] += 1
        elif kind == "Deployment":
            c = obj["spec"]["template"]["spec"]["containers"][0]
            c["image"] = c["image"].rsplit(":", 1)[0] + f":m{rng.randint(0, 10**6)}"
        elif kind == "Widget":
            obj["spec"]["size"] = (obj["spec"]["size"] + 1) % 10
        elif kind == "Role":
            obj["rules"][0]["verbs"] = obj["rules"][0]["verbs"] + ["patch"]
        else:  # ServiceAccount, RoleBinding
            obj["metadata"].setdefault("annotations", {})["bench.opctl.io/revision"] = str(rng.randint(0, 10**6))
    return k


def write_tree(root, files):
    if os.path.isdir(root):
        shutil.rmtree(root)
    for rel, docs in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(dump_docs(docs))


def git(repo, *args, env_extra=None):
    env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.com",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.com",
               GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_SYSTEM="/dev/null")
    env.update(env_extra or {})
    return subprocess.run(["git", "-C", repo, *args], check=True, env=env, capture_output=True, text=True).stdout


def commit(repo, tree_files, message, number):
    # Replace the work tree's content with the new files, then commit with a fixed date (deterministic ids).
    for entry in os.listdir(repo):
        if entry != ".git":
            p = os.path.join(repo, entry)
            shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
    write_tree_into(repo, tree_files)
    git(repo, "add", "-A")
    date = f"2026-01-01T00:{number // 60:02d}:{number % 60:02d}Z"
    git(repo, "commit", "-q", "-m", message, env_extra={"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date})
    return git(repo, "rev-parse", "HEAD").strip()


def write_tree_into(root, files):
    for rel, docs in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(dump_docs(docs))


def load_tree(root):
    files = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            if name.endswith(".yaml"):
                path = os.path.join(dirpath, name)
                with open(path) as f:
                    files[os.path.relpath(path, root)] = [d for d in yaml.load_all(f, Loader=Loader) if d is not None]
    return files


def parse_fraction(text):
    text = text.strip()
    return float(text[:-1]) / 100 if text.endswith("%") else float(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output directory (gets tree/, repo/ and params.json)")
    ap.add_argument("--n", type=int, default=100, help="number of namespaced objects (default 100)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--prefix", default="bench", help="namespace name prefix (fresh prefix = fresh objects)")
    ap.add_argument("--profile", choices=sorted(PROFILES), default="classic",
                    help="classic: 10 namespaces, 8 kinds; wide: 50 namespaces, 20 kinds, 5 large CRDs")
    ap.add_argument("--namespaces", type=int, default=None, help="default: the profile's")
    ap.add_argument("--mutate", metavar="PCT", help="change this fraction of the objects (e.g. 1%%) in a new commit")
    ap.add_argument("--no-repo", action="store_true", help="write only tree/ (no git repository)")
    args = ap.parse_args()

    params_path = os.path.join(args.out, "params.json")
    if args.mutate:
        with open(params_path) as f:
            params = json.load(f)
        files = load_tree(os.path.join(args.out, "tree"))
        params["mutations"] = params.get("mutations", 0) + 1
        rng = random.Random(f"{params['seed']}/{params['n']}/mutation/{params['mutations']}")
        changed = mutate(files, rng, parse_fraction(args.mutate))
        write_tree(os.path.join(args.out, "tree"), files)
        head = None
        if os.path.isdir(os.path.join(args.out, "repo", ".git")):
            head = commit(os.path.join(args.out, "repo"), files, f"mutate {args.mutate} ({changed} objects)",
                          params["mutations"])
        with open(params_path, "w") as f:
            json.dump(params, f)
        print(json.dumps({"changed": changed, "commit": head}))
        return

    namespaces = args.namespaces or PROFILES[args.profile]["namespaces"]
    files = build(args.n, args.seed, args.prefix, namespaces, args.profile)
    os.makedirs(args.out, exist_ok=True)
    write_tree(os.path.join(args.out, "tree"), files)
    head = None
    if not args.no_repo:
        repo = os.path.join(args.out, "repo")
        if os.path.isdir(repo):
            shutil.rmtree(repo)
        os.makedirs(repo)
        git(repo, "init", "-q", "-b", "main")
        head = commit(repo, files, f"bench set n={args.n} seed={args.seed} prefix={args.prefix}", 0)
    with open(params_path, "w") as f:
        json.dump({"n": args.n, "seed": args.seed, "prefix": args.prefix, "namespaces": namespaces,
                   "profile": args.profile, "mutations": 0}, f)
    kinds = {}
    for docs in files.values():
        for d in docs:
            kinds[d["kind"]] = kinds.get(d["kind"], 0) + 1
    print(json.dumps({"objects": sum(kinds.values()), "kinds": kinds, "commit": head}))


if __name__ == "__main__":
    sys.exit(main())
