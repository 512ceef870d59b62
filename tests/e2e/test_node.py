"""The test control plane's node: Pods really run, from images built on the
machine, with logs, exec, Service routing, DNS and volumes that outlive Pods.
Every check reads back through kubectl, and no test writes a status."""
import json
import time

import pytest

SHELL = "localhost/shell:1"


def pod(name, namespace, command, labels=None, extra_spec=""):
    label_text = "".join(f"\n    {k}: {v}" for k, v in (labels or {}).items())
    return f"""apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: {namespace}
  labels:{label_text or " {}"}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: {SHELL}
    imagePullPolicy: Never
    command: ["sh", "-c", {json.dumps(command)}]
{extra_spec}"""


def wait_for(predicate, timeout=60, message="condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out after {timeout}s waiting for {message}")


def phase(cluster, namespace, name):
    return cluster.get_json("pod", name, "-n", namespace).get("status", {}).get("phase")


@pytest.fixture(scope="module", autouse=True)
def require_node(cluster):
    nodes = cluster.get_json("nodes")["items"]
    if not nodes:
        pytest.fail("the control plane has no node: start it with `testenv up --node` (tests/e2e/testenv_fixture.sh does)")


def test_the_node_is_ready_and_reports_its_bridge_address(cluster):
    node = cluster.get_json("node", "testenv-node")
    ready = [c for c in node["status"]["conditions"] if c["type"] == "Ready"][0]
    assert ready["status"] == "True", ready
    addresses = {a["type"]: a["address"] for a in node["status"]["addresses"]}
    assert addresses["InternalIP"] == "10.213.0.1"


def test_kubectl_run_of_the_shell_image_prints_through_kubectl_logs(cluster, namespace):
    run = cluster.kubectl("run", "hello", "-n", namespace, f"--image={SHELL}", "--image-pull-policy=Never",
                          "--restart=Never", "--command", "--", "sh", "-c", "echo hello from $(hostname); id -u")
    assert run.returncode == 0
    wait_for(lambda: phase(cluster, namespace, "hello") == "Succeeded", message="pod hello to succeed")
    logs = cluster.kubectl("logs", "hello", "-n", namespace).stdout
    assert logs.splitlines() == ["hello from hello", "0"]
    status = cluster.get_json("pod", "hello", "-n", namespace)["status"]["containerStatuses"][0]
    assert status["state"]["terminated"]["exitCode"] == 0
    assert status["state"]["terminated"]["reason"] == "Completed"


def test_exec_env_volumes_security_context_and_downward_api(cluster, namespace):
    cluster.kubectl("create", "secret", "generic", "creds", "-n", namespace, "--from-literal=password=s3cret")
    cluster.kubectl("create", "configmap", "settings", "-n", namespace, "--from-literal=mode=fast",
                    "--from-literal=app.conf=listen 80")
    spec = """    workingDir: /scratch
    env:
    - {name: PASSWORD, valueFrom: {secretKeyRef: {name: creds, key: password}}}
    - {name: MODE, valueFrom: {configMapKeyRef: {name: settings, key: mode}}}
    - {name: POD_IP, valueFrom: {fieldRef: {fieldPath: status.podIP}}}
    - {name: GREETING, value: hello}
    securityContext: {runAsUser: 65532, runAsGroup: 65532, readOnlyRootFilesystem: true}
    volumeMounts:
    - {name: info, mountPath: /info}
    - {name: scratch, mountPath: /scratch}
    - {name: conf, mountPath: /etc/app}
  securityContext: {fsGroup: 2345}
  volumes:
  - name: info
    downwardAPI:
      items:
      - {path: labels, fieldRef: {fieldPath: metadata.labels}}
  - {name: scratch, emptyDir: {}}
  - {name: conf, configMap: {name: settings, items: [{key: app.conf, path: app.conf}]}}
"""
    cluster.kubectl("apply", "-f", "-", input=pod("worker", namespace, "sleep 300", {"tier": "one"}, spec))
    cluster.kubectl("wait", "--for=condition=Ready", "pod/worker", "-n", namespace, "--timeout=60s")

    def sh(script):
        return cluster.kubectl("exec", "worker", "-n", namespace, "--", "sh", "-c", script).stdout

    assert sh('echo "$GREETING $PASSWORD $MODE $(id -u):$(id -g) $(pwd)"').strip() == \
        "hello s3cret fast 65532:65532 /scratch"
    assert sh("touch /x 2>/dev/null && echo writable || echo read-only").strip() == "read-only"
    assert sh("touch /scratch/ok && stat -c %g /scratch").strip() == "2345"  # fsGroup owns the emptyDir
    assert sh("cat /etc/app/app.conf").strip() == "listen 80"
    pod_ip = cluster.get_json("pod", "worker", "-n", namespace)["status"]["podIP"]
    assert pod_ip.startswith("10.213.0.")
    assert sh("echo $POD_IP").strip() == pod_ip
    # The projected service-account token, with the cluster's CA and the namespace.
    account = "/var/run/secrets/kubernetes.io/serviceaccount"
    assert sh(f"cat {account}/namespace").strip() == namespace
    assert sh(f"head -c 27 {account}/ca.crt") == "-----BEGIN CERTIFICATE-----"
    assert sh(f"cut -c1-3 {account}/token").strip() == "eyJ"
    # The downward API follows label changes.
    cluster.kubectl("label", "pod", "worker", "-n", namespace, "tier=two", "--overwrite")
    wait_for(lambda: 'tier="two"' in sh("cat /info/labels"), message="the downward API update")


def test_a_pod_reaches_another_through_a_service_name(cluster, namespace):
    server = pod("server", namespace, "mkdir -p /tmp/www && echo served-by-server > /tmp/www/index.html && "
                                      "exec httpd -f -p 8080 -h /tmp/www", {"app": "server"},
                 "    readinessProbe:\n      httpGet: {path: /index.html, port: 8080}\n      periodSeconds: 1\n"
                 "    livenessProbe:\n      tcpSocket: {port: 8080}\n      periodSeconds: 2\n")
    service = f"""apiVersion: v1
kind: Service
metadata: {{name: backend, namespace: {namespace}}}
spec:
  selector: {{app: server}}
  ports: [{{port: 80, targetPort: 8080}}]
"""
    cluster.kubectl("apply", "-f", "-", input=server + "---\n" + service)
    cluster.kubectl("wait", "--for=condition=Ready", "pod/server", "-n", namespace, "--timeout=60s")
    script = (f"for name in backend backend.{namespace}.svc.cluster.local; do "
              "timeout 5 wget -q -O - http://$name/ || echo failed $name; done; "
              # The apiserver through the kubernetes Service (TLS needs more than busybox: a TCP connect).
              "timeout 5 nc -w 3 kubernetes.default.svc 443 </dev/null && echo apiserver=reached; "
              "echo KUBERNETES_SERVICE_HOST=$KUBERNETES_SERVICE_HOST")
    cluster.kubectl("apply", "-f", "-", input=pod("client", namespace, script))
    wait_for(lambda: phase(cluster, namespace, "client") in ("Succeeded", "Failed"), message="the client Pod")
    logs = cluster.kubectl("logs", "client", "-n", namespace).stdout
    assert logs.count("served-by-server") == 2, logs
    assert "failed" not in logs
    assert "apiserver=reached" in logs, logs
    assert "KUBERNETES_SERVICE_HOST=10.0.0.1" in logs, logs


def test_a_pod_reaches_nothing_outside_the_node(cluster, namespace):
    script = "timeout 3 nc -w 2 192.0.2.1 80 </dev/null && echo reached || echo unreachable; " \
             "nslookup example.com >/dev/null 2>&1 && echo resolved || echo unresolved"
    cluster.kubectl("apply", "-f", "-", input=pod("outside", namespace, script))
    wait_for(lambda: phase(cluster, namespace, "outside") in ("Succeeded", "Failed"), message="the Pod")
    logs = cluster.kubectl("logs", "outside", "-n", namespace).stdout
    assert "unreachable" in logs and "unresolved" in logs, logs


def test_claim_data_survives_the_pod_and_a_deleted_claim_frees_its_volume(cluster, namespace):
    claim = f"""apiVersion: v1
kind: PersistentVolumeClaim
metadata: {{name: data, namespace: {namespace}}}
spec:
  accessModes: [ReadWriteOnce]
  resources: {{requests: {{storage: 1Gi}}}}
"""
    mount = "    volumeMounts: [{name: data, mountPath: /data}]\n  volumes:\n" \
            "  - {name: data, persistentVolumeClaim: {claimName: data}}\n"
    cluster.kubectl("apply", "-f", "-", input=claim + "---\n" + pod("writer", namespace, "echo kept > /data/f", {}, mount))
    wait_for(lambda: phase(cluster, namespace, "writer") == "Succeeded", message="the writer Pod")
    volume = cluster.get_json("pvc", "data", "-n", namespace)["spec"]["volumeName"]
    assert cluster.get_json("pv", volume)["spec"]["storageClassName"] == "testenv-local"
    cluster.kubectl("delete", "pod", "writer", "-n", namespace)
    cluster.kubectl("apply", "-f", "-", input=pod("reader", namespace, "cat /data/f", {}, mount))
    wait_for(lambda: phase(cluster, namespace, "reader") == "Succeeded", message="the reader Pod")
    assert cluster.kubectl("logs", "reader", "-n", namespace).stdout.strip() == "kept"
    # Reclaim policy Delete: the volume goes with the claim.
    cluster.kubectl("delete", "pod", "reader", "-n", namespace)
    cluster.kubectl("delete", "pvc", "data", "-n", namespace)
    wait_for(lambda: not cluster.exists("pv", volume), message=f"PV {volume} to be deleted")


def test_retained_volume_stays_after_its_claim(cluster, namespace):
    klass = "retain-" + namespace
    objects = f"""apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {{name: {klass}}}
provisioner: opctl.io/testenv-local
reclaimPolicy: Retain
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {{name: keep, namespace: {namespace}}}
spec:
  storageClassName: {klass}
  accessModes: [ReadWriteOnce]
  resources: {{requests: {{storage: 1Gi}}}}
"""
    cluster.kubectl("apply", "-f", "-", input=objects)
    wait_for(lambda: cluster.get_json("pvc", "keep", "-n", namespace)["status"].get("phase") == "Bound",
             message="the claim to bind")
    volume = cluster.get_json("pvc", "keep", "-n", namespace)["spec"]["volumeName"]
    cluster.kubectl("delete", "pvc", "keep", "-n", namespace)
    wait_for(lambda: cluster.get_json("pv", volume)["status"]["phase"] == "Released", message="the PV released")
    time.sleep(2)
    assert cluster.exists("pv", volume)
    cluster.kubectl("delete", "pv", volume)
    cluster.kubectl("delete", "storageclass", klass)


def test_graceful_termination_runs_the_trap_then_kills(cluster, namespace):
    script = "trap 'echo got TERM; exit 0' TERM; echo started; while true; do sleep 0.2; done"
    spec = "  terminationGracePeriodSeconds: 20\n"
    text = pod("graceful", namespace, script).replace("  terminationGracePeriodSeconds: 1\n", spec)
    cluster.kubectl("apply", "-f", "-", input=text)
    cluster.kubectl("wait", "--for=condition=Ready", "pod/graceful", "-n", namespace, "--timeout=60s")
    started = time.time()
    cluster.kubectl("delete", "pod", "graceful", "-n", namespace, "--wait=true", "--timeout=60s")
    assert time.time() - started < 15, "SIGTERM was not delivered: the Pod waited for its grace period"


def test_the_opctl_image_built_from_the_dockerfile_runs_as_non_root(cluster, namespace):
    # localhost/opctl:dev is deploy/Dockerfile built on the machine (tests/testenv/images/opctl.recipe).
    spec = """apiVersion: v1
kind: Pod
metadata: {name: opctl-version, namespace: NS}
spec:
  restartPolicy: Never
  containers:
  - name: opctl
    image: localhost/opctl:dev
    imagePullPolicy: Never
    args: [version]
    securityContext: {runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false}
""".replace("NS", namespace)
    cluster.kubectl("apply", "-f", "-", input=spec)
    wait_for(lambda: phase(cluster, namespace, "opctl-version") in ("Succeeded", "Failed"), message="opctl version")
    assert phase(cluster, namespace, "opctl-version") == "Succeeded"
    expected = cluster.opctl("version").stdout.split()[:2]
    assert cluster.kubectl("logs", "opctl-version", "-n", namespace).stdout.split()[:2] == expected
    status = cluster.get_json("pod", "opctl-version", "-n", namespace)["status"]["containerStatuses"][0]
    assert status["state"]["terminated"]["exitCode"] == 0


def test_the_node_s_s3_server_stores_objects_over_http_and_https_behind_real_signatures(cluster, namespace):
    import botocore.exceptions
    import s3_support

    plain, secure = s3_support.client(cluster), s3_support.client(cluster, tls=True)
    bucket = f"node-{namespace}"
    plain.create_bucket(Bucket=bucket)
    plain.put_object(Bucket=bucket, Key="a/one.txt", Body=b"one over http")
    secure.put_object(Bucket=bucket, Key="a/two.txt", Body=b"two over https")
    # The two listeners serve the same buckets; what one wrote, the other reads.
    assert s3_support.keys(secure, bucket, "a/") == ["a/one.txt", "a/two.txt"]
    assert secure.get_object(Bucket=bucket, Key="a/one.txt")["Body"].read() == b"one over http"
    assert plain.get_object(Bucket=bucket, Key="a/two.txt")["Body"].read() == b"two over https"
    # Signatures are checked: a wrong secret key is refused, as a real S3 refuses it.
    wrong = s3_support.client(cluster, secret="not-the-secret-key-of-this-server-00000000")
    with pytest.raises(botocore.exceptions.ClientError) as refused:
        wrong.list_objects_v2(Bucket=bucket)
    assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403, refused.value.response
    assert refused.value.response["Error"]["Code"] == "SignatureDoesNotMatch", refused.value.response
    # A Pod reaches both listeners on the node's address (the health path needs no signature).
    script = ("timeout 5 wget -q -O /dev/null http://10.213.0.1:9000/testenv-health && echo http-ok; "
              "timeout 5 nc -w 2 10.213.0.1 9443 </dev/null && echo https-port-open")
    cluster.kubectl("apply", "-f", "-", input=pod("s3-reach", namespace, script))
    wait_for(lambda: phase(cluster, namespace, "s3-reach") in ("Succeeded", "Failed"), message="the Pod")
    logs = cluster.kubectl("logs", "s3-reach", "-n", namespace).stdout
    assert "http-ok" in logs and "https-port-open" in logs, logs
