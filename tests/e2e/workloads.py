"""Workloads the e2e tests run on the test node, as manifest text: a Deployment of busybox's shell image whose
readiness a test controls (Ready at once, after a while, never), shared so each test file does not carry its own
copy of the same Deployment."""
import json

SHELL = "localhost/shell:1"


def shell_deployment(name, namespace, command, image=SHELL, readiness=None, replicas=1, extra_metadata=""):
    """A Deployment named `name` (its Pods labelled app=`name`) running `command`; `readiness`, when given, is the
    exec readiness probe's command, checked every second."""
    probe = ""
    if readiness:
        probe = f"        readinessProbe: {{exec: {{command: {json.dumps(readiness)}}}, periodSeconds: 1}}\n"
    return f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: {namespace}
{extra_metadata}spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: main
        image: {image}
        command: {json.dumps(command)}
{probe}"""
