"""The test node's S3 server (tests/testenv/s3.go: Versity's gateway, real SigV4), read through boto3, a client
independent of the barman-cloud tools the instance image runs. `testenv up --node` writes DIR/s3.json with its two
endpoints (HTTP and HTTPS with a certificate from the testenv CA) and its root credentials."""
import json
import pathlib

import boto3
from botocore.config import Config


def settings(cluster):
    path = pathlib.Path(cluster.dir) / "s3.json"
    if not path.exists():
        raise AssertionError(f"{path} is missing: the node's S3 server starts with `testenv up --node`")
    return json.loads(path.read_text())


def client(cluster, tls=False, secret=None):
    """A boto3 S3 client for the node's server; secret overrides the secret key (to test a wrong one)."""
    s3 = settings(cluster)
    return boto3.client(
        "s3",
        endpoint_url=s3["tlsEndpoint"] if tls else s3["endpoint"],
        region_name=s3["region"],
        aws_access_key_id=s3["accessKeyId"],
        aws_secret_access_key=secret if secret is not None else s3["secretAccessKey"],
        verify=s3["caFile"] if tls else None,
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}, connect_timeout=5,
                      read_timeout=30),
    )


def keys(s3_client, bucket, prefix=""):
    """Every object key under prefix, across pages."""
    found = []
    for page in s3_client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        found.extend(item["Key"] for item in page.get("Contents", []))
    return sorted(found)
