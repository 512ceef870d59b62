"""TLS of a Cluster on real PostgreSQL instances on the test node: the CA and server certificate opctl issues, psql
with sslmode=verify-full against that CA, plain TCP refused once spec.postgresql.requireSSL is set, replication
over TLS (pg_stat_ssl on the primary, verify-full in the replica's primary_conninfo), a certificate re-issued on
request (opctl.io/renew-certificates) and served without a restart while the primary keeps its Lease, a CA near
its end rotated (its successor signs, both trusted) with the instances serving and replicating throughout, a client
certificate for the cert method of pg_hba, and a server certificate the user brings instead of opctl's.

One 2-instance Cluster for the file (module fixture), changed in order by the tests; the last test has a Cluster of
its own that starts on an image whose instance manager predates TLS and moves to TLS by an image update. Everything is read back
without opctl: Secrets with kubectl, certificates with openssl (`openssl s_client -starttls postgres` against each
Pod, the server's own answer), the database with the host's psql inside the node's network namespace. A Pod IP is
not among the certificate's names, so verify-full checks the name with libpq's host= while hostaddr= reaches the
Pod.
"""
import base64
import json
import os
import subprocess
import time

import pytest

from postgres_support import IMAGE, NODE_NETNS, PgCluster, prepare_node_suite, suite_namespace

# The app user must present a client certificate for the postgres database (the cert method of pg_hba).
SPEC = """  certificates:
    clientCertificates: [app]
  postgresql:
    pg_hba:
    - hostssl postgres app all cert
    - host postgres app all reject
"""


def tls_psql(db, pod, sql, user, dbname, password="", **options):
    """One psql connection from the host (node network namespace) to a Pod by IP, named as the -rw Service for
    verify-full (hostaddr=). Options become conninfo keywords (sslmode, sslrootcert, sslcert, sslkey)."""
    conninfo = (f"host={db.name}-rw.{db.namespace}.svc hostaddr={db.pod_ip(pod)} port=5432 user={user} "
                f"dbname={dbname} " + " ".join(f"{key}={value}" for key, value in options.items()))
    env = dict(os.environ, PGPASSWORD=password, PGCONNECT_TIMEOUT="5")
    env.pop("PGSSLMODE", None)
    return subprocess.run(["timeout", "20", "nsenter", f"--net={NODE_NETNS}", "--", "psql", conninfo, "--no-psqlrc",
                           "-v", "ON_ERROR_STOP=1", "-Atc", sql], capture_output=True, text=True, env=env,
                          timeout=40)


def served_serial(db, pod):
    """The serial of the certificate PostgreSQL on `pod` presents, as openssl sees it in the TLS handshake."""
    shell = (f"openssl s_client -starttls postgres -connect {db.pod_ip(pod)}:5432 </dev/null 2>/dev/null "
             "| openssl x509 -noout -serial")
    out = subprocess.run(["timeout", "20", "nsenter", f"--net={NODE_NETNS}", "--", "sh", "-c", shell],
                         capture_output=True, text=True, timeout=40).stdout.strip()
    return out.removeprefix("serial=")


def secret_serial(db, secret, key="tls.crt"):
    pem = db.secret(secret)[key] if not secret.startswith("/") else open(secret).read()
    out = subprocess.run(["openssl", "x509", "-noout", "-serial"], input=pem, capture_output=True, text=True,
                         check=True).stdout.strip()
    return out.removeprefix("serial=")


class Tls:
    def __init__(self, db, files):
        self.db, self.files = db, files
        self.extra = SPEC

    def write(self):
        self.db.write(instances=2, image=IMAGE, extra=self.extra)

    def file(self, name, text):
        path = self.files / name
        path.write_text(text)
        path.chmod(0o600)
        return str(path)

    def ca_file(self):
        return self.file("ca.crt", self.db.secret("app")["ca.crt"])


@pytest.fixture(scope="module")
def tls(cluster, tmp_path_factory):
    files = tmp_path_factory.mktemp("tls-files")
    with suite_namespace(cluster, tmp_path_factory, "tls") as db:
        state = Tls(db, files)
        state.write()
        state.db.settle(timeout=240)
        yield state


def test_psql_verify_full_with_the_clusters_ca_succeeds_on_every_instance(tls):
    # Given a new Cluster, opctl should have issued a server certificate its CA verifies for the -rw name, and the
    # -app Secret should carry that CA and a uri asking for verify-full.
    db = tls.db
    app = db.secret("app")
    assert app["uri"].endswith("?sslmode=verify-full"), "the uri asks for verify-full"
    assert app["ca.crt"] == db.secret("server")["ca.crt"] == db.secret("ca")["ca.crt"]
    ca = tls.ca_file()
    for pod in db.pod_names():
        result = tls_psql(db, pod, "SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
                          app["username"], app["dbname"], app["password"], sslmode="verify-full", sslrootcert=ca)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip().startswith("t|TLSv1."), result.stdout
        assert served_serial(db, pod) == secret_serial(db, "server")
    # Another CA does not verify it: verify-full means something.
    other = tls.file("other-ca.crt", subprocess.run(
        ["sh", "-c", "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout /dev/null "
                     "-subj /CN=other -days 1 2>/dev/null"], capture_output=True, text=True, check=True).stdout)
    refused = tls_psql(db, db.pod_names()[0], "SELECT 1", app["username"], app["dbname"], app["password"],
                       sslmode="verify-full", sslrootcert=other)
    assert refused.returncode != 0 and "certificate verify failed" in refused.stderr, refused.stderr


def test_replication_runs_over_tls_verifying_the_primary(tls):
    db = tls.db
    primary = db.status()["currentPrimary"]
    replica = next(name for name in db.pod_names() if name != primary)
    rows = db.on_pod(primary, "SELECT r.application_name, s.ssl FROM pg_stat_replication r "
                              "JOIN pg_stat_ssl s USING (pid)")
    assert rows == f"{replica}|t", rows
    conninfo = db.on_pod(replica, "SHOW primary_conninfo")
    assert "sslmode=verify-full" in conninfo and "sslrootcert=" in conninfo, conninfo


def test_a_client_certificate_authenticates_where_pg_hba_asks_for_one(tls):
    db = tls.db
    client = db.secret("client-app")
    ca = tls.ca_file()
    cert, key = tls.file("app.crt", client["tls.crt"]), tls.file("app.key", client["tls.key"])
    pod = db.status()["currentPrimary"]
    with_cert = tls_psql(db, pod, "SELECT current_user", "app", "postgres", sslmode="verify-full", sslrootcert=ca,
                         sslcert=cert, sslkey=key)
    assert with_cert.returncode == 0 and with_cert.stdout.strip() == "app", with_cert.stderr
    app = db.secret("app")
    with_password = tls_psql(db, pod, "SELECT 1", "app", "postgres", app["password"], sslmode="verify-full",
                             sslrootcert=ca)
    assert with_password.returncode != 0, with_password.stdout


def test_plain_connections_are_refused_once_ssl_is_required(tls):
    db = tls.db
    app = db.secret("app")
    pod = db.status()["currentPrimary"]
    plain = tls_psql(db, pod, "SELECT 1", app["username"], app["dbname"], app["password"], sslmode="disable")
    assert plain.returncode == 0, "plain TCP is still accepted by default: " + plain.stderr
    tls.extra = SPEC + "    requireSSL: true\n"
    tls.write()
    db.passes_until(lambda: db.status().get("configuration", {}).get("phase") == "Applied"
                    and db.status().get("phase") == "Healthy", "requireSSL applied", timeout=120)
    for pod in db.pod_names():
        plain = tls_psql(db, pod, "SELECT 1", app["username"], app["dbname"], app["password"], sslmode="disable")
        assert plain.returncode != 0 and "no encryption" in plain.stderr, plain.stderr
        encrypted = tls_psql(db, pod, "SELECT 1", app["username"], app["dbname"], app["password"],
                             sslmode="require")
        assert encrypted.returncode == 0, encrypted.stderr
    db.settle(timeout=60)  # the replica still streams (over TLS)


def test_a_renewed_certificate_is_served_without_a_restart_and_the_primary_stays(tls, cluster):
    # Given opctl.io/renew-certificates, the next pass should issue a new server certificate from the same CA, and
    # every instance should serve it after a reload: same postmaster, same Lease holder, same primary.
    db = tls.db
    primary = db.status()["currentPrimary"]
    holder = db.get("lease", "db-primary")["spec"]["holderIdentity"]
    assert holder == primary
    started = {pod: db.on_pod(pod, "SELECT pg_postmaster_start_time()") for pod in db.pod_names()}
    before, ca = secret_serial(db, "server"), db.secret("ca")["ca.crt"]
    cluster.kubectl("annotate", "clusters.opctl.io", "db", "-n", db.namespace, "opctl.io/renew-certificates=e2e-1")
    db.reconcile()
    after = secret_serial(db, "server")
    assert after != before and db.secret("ca")["ca.crt"] == ca
    deadline = time.time() + 60
    while {pod: served_serial(db, pod) for pod in db.pod_names()} != {pod: after for pod in db.pod_names()}:
        assert time.time() < deadline, {pod: served_serial(db, pod) for pod in db.pod_names()}
        time.sleep(1)
    assert {pod: db.on_pod(pod, "SELECT pg_postmaster_start_time()") for pod in db.pod_names()} == started
    assert db.get("lease", "db-primary")["spec"]["holderIdentity"] == primary
    assert db.status()["currentPrimary"] == primary
    events = db.get("events", "--field-selector", "reason=CertificateIssued")["items"]
    assert any("opctl.io/renew-certificates" in event["message"] for event in events), events
    db.reconcile()  # the same request again issues nothing
    assert secret_serial(db, "server") == after


def test_a_ca_near_its_end_is_rotated_and_the_instances_keep_serving_and_replicating(tls, cluster):
    # Given <cluster>-ca replaced by a CA with 30 days left, the next pass should make its successor and sign with
    # it at once (under 97 days left), keep the old CA trusted beside it in every ca.crt, and issue the server
    # certificate again from the successor; the instances should serve it after a reload (same postmasters, same
    # primary), psql verify-full should succeed with the app Secret's ca.crt, and the replica should stream again.
    db = tls.db
    primary = db.status()["currentPrimary"]
    started = {pod: db.on_pod(pod, "SELECT pg_postmaster_start_time()") for pod in db.pod_names()}
    key, crt = tls.files / "short-ca.key", tls.files / "short-ca.crt"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", str(key), "-out", str(crt), "-subj", "/CN=short-lived CA", "-days", "30"],
                   check=True, capture_output=True)
    short = crt.read_text()
    data = {"ca.crt": base64.b64encode(short.encode()).decode(),
            "ca.key": base64.b64encode(key.read_bytes()).decode()}
    cluster.kubectl("patch", "secret", "db-ca", "-n", db.namespace, "--type=merge", "-p", json.dumps({"data": data}))
    db.reconcile()
    ca = db.secret("ca")
    assert ca["previous-ca.crt"] == short and ca["ca.crt"] != short
    bundle = db.secret("app")["ca.crt"]
    assert bundle.count("BEGIN CERTIFICATE") == 2 and short in bundle and ca["ca.crt"] in bundle
    assert db.secret("server")["ca.crt"] == bundle
    new_ca = tls.file("new-ca.crt", ca["ca.crt"])
    wanted = secret_serial(db, "server")
    deadline = time.time() + 60
    while {pod: served_serial(db, pod) for pod in db.pod_names()} != {pod: wanted for pod in db.pod_names()}:
        assert time.time() < deadline, {pod: served_serial(db, pod) for pod in db.pod_names()}
        time.sleep(1)
    app = db.secret("app")
    for pod in db.pod_names():
        for root in (tls.ca_file(), new_ca):
            result = tls_psql(db, pod, "SELECT 1", app["username"], app["dbname"], app["password"],
                              sslmode="verify-full", sslrootcert=root)
            assert result.returncode == 0, result.stderr
    events = db.get("events", "--field-selector", "reason=CertificateAuthorityRotated")["items"]
    assert events and "stays trusted" in events[0]["message"], events
    db.settle(timeout=90)  # the replica streams again, verifying the primary against the bundle
    assert {pod: db.on_pod(pod, "SELECT pg_postmaster_start_time()") for pod in db.pod_names()} == started
    assert db.status()["currentPrimary"] == primary


def test_a_server_certificate_the_user_brings_is_served_instead(tls, cluster):
    db = tls.db
    ca_key, ca_crt = tls.files / "user-ca.key", tls.files / "user-ca.crt"
    key, csr, crt = tls.files / "user.key", tls.files / "user.csr", tls.files / "user.crt"
    names = ",".join(f"DNS:db-{svc}.{db.namespace}.svc" for svc in ("rw", "ro", "r")) + ",DNS:db-rw"
    for command in (
            f"openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout {ca_key} -out {ca_crt} "
            f"-subj /CN=user-ca -days 2",
            f"openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout {key} -out {csr} -subj /CN=db",
            f"openssl x509 -req -in {csr} -CA {ca_crt} -CAkey {ca_key} -CAcreateserial -out {crt} -days 2 "
            f"-extfile <(printf 'subjectAltName={names}')"):
        subprocess.run(["bash", "-c", command], check=True, capture_output=True)
    cluster.kubectl("create", "secret", "tls", "user-tls", "-n", db.namespace, f"--cert={crt}", f"--key={key}")
    cluster.kubectl("create", "secret", "generic", "user-ca", "-n", db.namespace, f"--from-file=ca.crt={ca_crt}")
    tls.extra = ("  certificates:\n    serverTLSSecret: user-tls\n    serverCASecret: user-ca\n" +
                 SPEC.split("\n", 2)[2] + "    requireSSL: true\n")
    tls.write()
    wanted = secret_serial(db, str(crt))
    db.passes_until(lambda: all(served_serial(db, pod) == wanted for pod in db.pod_names()),
                    "the user's certificate served", timeout=90, interval=2)
    app = db.secret("app")
    assert app["ca.crt"] == ca_crt.read_text()
    for pod in db.pod_names():
        result = tls_psql(db, pod, "SELECT 1", app["username"], app["dbname"], app["password"],
                          sslmode="verify-full", sslrootcert=str(ca_crt))
        assert result.returncode == 0, result.stderr
    db.settle(timeout=60)


# An instance image whose manager predates TLS (main's build on the shared node); once that image carries TLS too,
# the test still checks that an image update keeps every row and ends with TLS everywhere.
PRE_TLS_IMAGE = os.environ.get("OPCTL_E2E_PRE_TLS_IMAGE", "localhost/opctl-postgresql:15")


def test_a_cluster_from_before_tls_moves_to_tls_with_an_image_update_and_keeps_its_data(cluster, namespace,
                                                                                          manifests):
    # Given a Cluster whose instances run a manager without TLS, the pass issues its certificates at once; updating
    # the image (replicas first, then a switchover) should end with every instance serving TLS, the replica
    # streaming over verified TLS, and every row kept.
    prepare_node_suite(cluster)
    db = PgCluster(cluster, namespace, manifests)
    try:
        upgraded(db)
    finally:
        # No pass runs after the namespace's deletion to take the final-backup finalizer off.
        cluster.kubectl("patch", "clusters.opctl.io", "db", "-n", namespace, "--type=merge",
                        "-p", '{"metadata":{"finalizers":null}}', check=False)


def upgraded(db):
    db.write(instances=2, image=PRE_TLS_IMAGE)
    db.settle(timeout=240)
    db.app("CREATE TABLE kept (id int PRIMARY KEY); INSERT INTO kept SELECT generate_series(1, 300)")
    assert db.secret("server")["tls.crt"].startswith("-----BEGIN CERTIFICATE-----")
    db.write(instances=2, image=IMAGE)
    db.passes_until(lambda: db.healthy_and_streaming() and set(db.images().values()) == {IMAGE},
                    "every instance on the TLS image", timeout=300)
    primary = db.status()["currentPrimary"]
    replica = next(name for name in db.pod_names() if name != primary)
    assert {pod: db.on_pod(pod, "SHOW ssl") for pod in db.pod_names()} == {pod: "on" for pod in db.pod_names()}
    assert db.on_pod(primary, "SELECT s.ssl FROM pg_stat_replication r JOIN pg_stat_ssl s USING (pid)") == "t"
    assert "sslmode=verify-full" in db.on_pod(replica, "SHOW primary_conninfo")
    assert db.app("SELECT count(*) FROM kept") == "300"
    for pod in db.pod_names():
        assert served_serial(db, pod) == secret_serial(db, "server")
