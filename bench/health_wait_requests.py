#!/usr/bin/env python3
"""Counts the API requests of one `opctl reconcile --wait` pass, by verb and
resource, from the audit log of a testenv started with --audit (user agent
opctl/...). Each run applies its set to a new namespace.

    bench/health_wait_requests.py TESTENV_DIR OPCTL_BIN mixed|loadbalancers

mixed:         30 ConfigMaps, 10 ClusterIP Services, 5 Secrets: healthy on the first poll.
loadbalancers: 10 LoadBalancer Services: never healthy on a control plane without a
               load-balancer controller, so polled until --timeout 5s (exit 5).
"""
import collections
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time
import uuid


def documents(scenario, ns):
    docs = [f"apiVersion: opctl.io/v1alpha1\nkind: Config\nmetadata:\n  name: {ns}\n  namespace: {ns}\n"]
    if scenario == "mixed":
        docs += [f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm-{i:02}, namespace: {ns}}}\ndata: {{k: v}}\n"
                 for i in range(30)]
        docs += [f"apiVersion: v1\nkind: Service\nmetadata: {{name: svc-{i:02}, namespace: {ns}}}\n"
                 f"spec: {{ports: [{{port: 80}}], selector: {{app: x{i}}}}}\n" for i in range(10)]
        docs += [f"apiVersion: v1\nkind: Secret\nmetadata: {{name: secret-{i}, namespace: {ns}}}\nstringData: {{k: v}}\n"
                 for i in range(5)]
        return docs, "60s"
    docs += [f"apiVersion: v1\nkind: Service\nmetadata: {{name: lb-{i:02}, namespace: {ns}}}\n"
             f"spec: {{type: LoadBalancer, ports: [{{port: 80}}], selector: {{app: x{i}}}}}\n" for i in range(10)]
    return docs, "5s"


def main():
    tenv, opctl, scenario = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    kubeconfig = str(tenv / "kubeconfig")
    ns = f"hw-{scenario}-{uuid.uuid4().hex[:6]}"
    docs, timeout = documents(scenario, ns)
    with tempfile.TemporaryDirectory() as root:
        for n, doc in enumerate(docs):
            pathlib.Path(root, "opctl.yaml" if n == 0 else f"o{n:03}.yaml").write_text(doc)
        subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "create", "namespace", ns], check=True,
                       capture_output=True)
        audit = tenv / "audit.log"
        start = audit.stat().st_size
        began = time.monotonic()
        result = subprocess.run([opctl, "reconcile", "--kubeconfig", kubeconfig, "--path", root, "--wait",
                                 "--timeout", timeout], capture_output=True, text=True,
                                env=dict(os.environ, NO_COLOR="1"))
        elapsed = time.monotonic() - began
    time.sleep(1)  # the audit log is written when the response is; leave it a moment anyway
    with open(audit) as f:
        f.seek(start)
        events = [json.loads(line) for line in f if line.strip()]
    ours = [e for e in events
            if e.get("userAgent", "").startswith("opctl/") and e.get("stage") == "ResponseComplete"]
    by = collections.Counter(f'{e["verb"]} {e.get("objectRef", {}).get("resource", e["requestURI"].split("?")[0])}'
                             for e in ours)
    print(json.dumps({"scenario": scenario, "exit": result.returncode, "seconds": round(elapsed, 2),
                      "requests": len(ours), "by": dict(sorted(by.items()))}))
    if result.returncode not in (0, 5):
        print(result.stderr, file=sys.stderr)


if __name__ == "__main__":
    main()
