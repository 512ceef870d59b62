"""Trims OpenAPI v3 documents saved with `kubectl get --raw /openapi/v3/<gv>` for
use as test fixtures: drops descriptions and keeps only the create paths
(which name each kind and its scope). Usage: trim.py IN.json OUT.json"""
import json
import sys


def strip(value):
    if isinstance(value, dict):
        return {key: strip(item) for key, item in value.items() if key != "description"}
    if isinstance(value, list):
        return [strip(item) for item in value]
    return value


document = json.load(open(sys.argv[1]))
paths = {}
for path, operations in document["paths"].items():
    post = operations.get("post", {}) if isinstance(operations, dict) else {}
    if "{name}" not in path and "x-kubernetes-group-version-kind" in post:
        paths[path] = {"post": {"x-kubernetes-action": "post",
                                "x-kubernetes-group-version-kind": post["x-kubernetes-group-version-kind"]}}
trimmed = {"openapi": document["openapi"], "info": document["info"], "paths": paths,
           "components": {"schemas": strip(document["components"]["schemas"])}}
with open(sys.argv[2], "w") as out:
    json.dump(trimmed, out, separators=(",", ":"))
    out.write("\n")
