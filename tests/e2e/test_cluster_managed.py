"""Declarative roles and databases (spec.managed) on a real PostgreSQL instance on the test node, applied by the
primary's instance manager (`opctl instance run` in the image), as CloudNativePG's managed roles and Database kind.

One 1-instance Cluster for the whole file (module fixture), created with two roles (one that logs in with a password
from a kubernetes.io/basic-auth Secret, with a connection limit and a membership) and a database owned by it with
an extension. The tests then change it in order: the Secret's password rotated, a role altered, a role and the
database declared absent (retain keeps the data and the owner cannot be dropped, delete drops both). Everything is
read back independently of opctl: PostgreSQL with the host's psql inside the node's network namespace (as the role
itself, and as the superuser), the status with kubectl. Refusals of reserved names are checked with
`opctl validate` and a pass, both exiting 2 with the file's line.
"""
import base64
import os
import subprocess

import pytest

from postgres_support import IMAGE, cluster_yaml, node_psql, suite_namespace

ROLE_PASSWORDS = ["first-password-for-alice", "second-password-for-alice"]


def secret_yaml(namespace, password, username="alice"):
    encode = lambda text: base64.b64encode(text.encode()).decode()  # noqa: E731
    return (f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: alice-password\n  namespace: {namespace}\n"
            f"type: kubernetes.io/basic-auth\ndata:\n  username: {encode(username)}\n  password: {encode(password)}\n")


def managed_yaml(roles, databases):
    """spec.managed from two lists of flow mappings (one per item)."""
    lines = ["  managed:", "    roles:"] + [f"    - {role}" for role in roles]
    lines += ["    databases:"] + [f"    - {database}" for database in databases]
    return "\n".join(lines) + "\n"


class Managed:
    """The shared Cluster, what it declares and the password its Secret holds."""

    def __init__(self, db):
        self.db = db
        self.password = ROLE_PASSWORDS[0]
        self.alice = "{name: alice, login: true, connectionLimit: 3, inRoles: [readers], " \
                     "passwordSecret: {name: alice-password}}"
        self.roles = [self.alice, "{name: readers, comment: read only}", "{name: temp, login: true}"]
        self.shop = "{name: shop, owner: alice, encoding: UTF8, extensions: [{name: pg_trgm}]}"

    def write(self):
        namespace = self.db.namespace
        self.db.write_files({
            "db.yaml": cluster_yaml(namespace, instances=1, image=IMAGE,
                                    extra=managed_yaml(self.roles, [self.shop])),
            "secret.yaml": secret_yaml(namespace, self.password),
        })

    def roles_status(self):
        return self.db.status().get("managedRolesStatus", {})

    def databases_status(self):
        return self.db.status().get("managedDatabasesStatus", {})

    def until(self, predicate, what, timeout=90):
        self.db.passes_until(predicate, what, timeout=timeout, interval=2)

    def superuser(self, sql, dbname="postgres"):
        return self.db.on_pod(self.db.status()["currentPrimary"], sql, dbname=dbname)

    def as_alice(self, sql, password=None, dbname="shop"):
        ip = self.db.pod_ip(self.db.status()["currentPrimary"])
        return node_psql(ip, sql, "alice", password or self.password, dbname)


@pytest.fixture(scope="module")
def managed(cluster, tmp_path_factory):
    with suite_namespace(cluster, tmp_path_factory, "managed", only_latest_files=True) as db:
        state = Managed(db)
        state.write()
        state.db.settle(timeout=180)
        yield state


def test_roles_and_a_database_are_created_as_declared(managed):
    # Given a new Cluster declaring roles and a database, the primary should create them, and alice should log in
    # to her database with the Secret's password.
    managed.until(lambda: sorted(managed.roles_status().get("byStatus", {}).get("reconciled", [])) ==
                  ["alice", "readers", "temp"]
                  and managed.databases_status().get("byStatus", {}).get("reconciled") == ["shop"],
                  "roles and database reconciled")
    assert managed.as_alice("SELECT current_user").stdout.strip() == "alice"
    assert managed.superuser("SELECT rolcanlogin, rolconnlimit FROM pg_roles WHERE rolname = 'alice'") == "t|3"
    assert managed.superuser("SELECT g.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid "
                             "JOIN pg_roles u ON u.oid = m.member WHERE u.rolname = 'alice'") == "readers"
    assert managed.superuser("SELECT shobj_description(oid, 'pg_authid') FROM pg_roles "
                             "WHERE rolname = 'readers'") == "read only"
    assert managed.superuser("SELECT pg_get_userbyid(datdba), pg_encoding_to_char(encoding) FROM pg_database "
                             "WHERE datname = 'shop'") == "alice|UTF8"
    assert managed.superuser("SELECT extname FROM pg_extension WHERE extname = 'pg_trgm'", dbname="shop") == \
        "pg_trgm"
    written = managed.as_alice("CREATE TABLE kept (id int); INSERT INTO kept VALUES (1), (2), (3)")
    assert written.returncode == 0, written.stderr
    # The instance may read the role's Secret, by name, and no other (its Role grants the Cluster's own and it).
    names = next(rule["resourceNames"] for rule in managed.db.get("role", "db-1")["rules"]
                 if rule["resources"] == ["secrets"])
    assert set(names) - {"db-app", "db-replication", "db-superuser", "db-server", "db-ca"} == {"alice-password"}, \
        names
    # No password anywhere in what the Pod or the Cluster publish.
    published = str(managed.db.pods()["db-1"]["metadata"]) + str(managed.db.status())
    assert ROLE_PASSWORDS[0] not in published


def test_a_rotated_secret_replaces_the_password(managed):
    # Given the Secret's password changed, the new one should work and the old one be refused.
    managed.password = ROLE_PASSWORDS[1]
    managed.write()
    managed.until(lambda: managed.as_alice("SELECT 1").returncode == 0, "the new password accepted")
    old = managed.as_alice("SELECT 1", password=ROLE_PASSWORDS[0])
    assert old.returncode != 0 and "password authentication failed" in old.stderr, old.stderr


def test_an_altered_role_follows_its_declaration(managed):
    managed.alice = managed.alice.replace("connectionLimit: 3", "connectionLimit: 7").replace(
        "inRoles: [readers]", "inRoles: []")
    managed.roles[0] = managed.alice
    managed.write()
    managed.until(lambda: managed.superuser("SELECT rolconnlimit FROM pg_roles WHERE rolname = 'alice'") == "7",
                  "connection limit 7")
    assert managed.superuser("SELECT count(*) FROM pg_auth_members m JOIN pg_roles u ON u.oid = m.member "
                             "WHERE u.rolname = 'alice'") == "0"


def test_reserved_names_are_refused_by_validate_and_by_a_pass(managed, cluster, tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "cluster.yaml").write_text(cluster_yaml(
        managed.db.namespace, name="refused", instances=1, image=IMAGE,
        extra=managed_yaml(["{name: bob}", "{name: postgres}"], ["{name: template1, owner: bob}"])))
    checked = cluster.opctl("validate", "--path", str(bad))
    output = checked.stdout + checked.stderr
    assert checked.returncode == 2, output
    assert "cluster.yaml:14" in output and "spec.managed.roles[1].name" in output, output
    assert "cluster.yaml:16" in output and "spec.managed.databases[0].name" in output, output
    passed = cluster.reconcile("--path", str(bad), "--name", f"{managed.db.namespace}-refused")
    assert passed.returncode == 2, passed.stdout + passed.stderr
    assert "spec.managed.roles[1].name" in passed.stdout + passed.stderr
    assert not cluster.exists("clusters.opctl.io", "refused", "-n", managed.db.namespace)


def test_absent_with_retain_keeps_the_data_and_a_role_that_owns_it_cannot_be_dropped(managed):
    # Given the database absent with retain, and its owner and another role absent: the data stays, the owner is
    # reported as cannotReconcile (it owns the database), the other role is dropped.
    managed.roles = [managed.alice.replace("{name: alice,", "{name: alice, ensure: absent,"),
                     "{name: readers}", "{name: temp, ensure: absent}"]
    managed.shop = managed.shop.replace("{name: shop,", "{name: shop, ensure: absent,")
    managed.write()
    managed.until(lambda: managed.databases_status().get("byStatus", {}).get("retained") == ["shop"]
                  and managed.roles_status().get("byStatus", {}).get("removed") == ["temp"]
                  and managed.roles_status().get("byStatus", {}).get("cannotReconcile") == ["alice"],
                  "shop retained, temp removed, alice refused")
    assert "2BP01" in managed.roles_status()["cannotReconcile"]["alice"], managed.roles_status()
    assert managed.superuser("SELECT count(*) FROM pg_roles WHERE rolname = 'temp'") == "0"
    assert managed.superuser("SELECT count(*) FROM kept", dbname="shop") == "3"
    assert managed.db.status()["phase"] == "Healthy"
    # opctl cluster status says the same in its header.
    shown = subprocess.run([managed.db.cluster.opctl_bin, "cluster", "status", "db", "--kubeconfig",
                            managed.db.cluster.kubeconfig, "-n", managed.db.namespace],
                           capture_output=True, text=True, env=dict(os.environ, NO_COLOR="1"), timeout=60)
    assert shown.returncode == 0, shown.stderr
    line = next(text for text in shown.stdout.splitlines() if text.strip().startswith("Managed roles:"))
    assert "1 cannotReconcile" in line and "alice: " in line and "2BP01" in line, shown.stdout
    assert "1 retained" in next(text for text in shown.stdout.splitlines() if text.strip().startswith("Databases:"))


def test_absent_with_delete_drops_the_database_and_then_its_owner(managed):
    managed.shop = managed.shop.replace("{name: shop,", "{name: shop, reclaimPolicy: delete,")
    managed.write()
    managed.until(lambda: managed.databases_status().get("byStatus", {}).get("removed") == ["shop"]
                  and sorted(managed.roles_status().get("byStatus", {}).get("removed", [])) == ["alice", "temp"],
                  "shop and alice removed")
    assert managed.superuser("SELECT count(*) FROM pg_database WHERE datname = 'shop'") == "0"
    assert managed.superuser("SELECT count(*) FROM pg_roles WHERE rolname = 'alice'") == "0"
    assert "cannotReconcile" not in managed.roles_status()
