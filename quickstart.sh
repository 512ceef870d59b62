#!/usr/bin/env bash
# Installs opctl, starts a local Kubernetes control plane with a node on which Pods run (unless one is running),
# reconciles manifests-example/ into it with --wait and shows what landed: the web Deployment Available, the
# PostgreSQL Cluster Healthy with its replicas streaming, a row written through db-rw and read back from a replica
# through db-ro, `opctl status` and `opctl tree`. Needs root: the node uses a network namespace, iptables, mounts and
# runc.
#
#   OPCTL_QUICKSTART_DIR         the control plane's directory (default ~/.cache/opctl/quickstart)
#   OPCTL_QUICKSTART_KUBECONFIG  show the example on this running cluster (which needs a node with the images of
#                                tests/testenv/images) instead of installing and starting one; with OPCTL_BIN, the
#                                opctl to use (tests/e2e/test_quickstart.py runs the quickstart this way)
set -euo pipefail
root=$(cd "$(dirname "$0")" && pwd)
cd "$root"
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then export PATH=/usr/local/go/bin:$PATH; fi

step() { printf '\n== %s\n' "$*"; }
started=$(date +%s)

if [ -n "${OPCTL_QUICKSTART_KUBECONFIG:-}" ]; then
  kubeconfig=$OPCTL_QUICKSTART_KUBECONFIG
  opctl=${OPCTL_BIN:-$(command -v opctl)}
  stop_hint=
else
  step "installing the packages opctl and the local cluster need (Debian's)"
  ./install.sh --deps-only --test-deps
  # The control plane and the node's base images do not depend on opctl: they are built while opctl compiles
  # (they wait on the Go module proxy and Debian's mirror much of the time).
  step "building opctl, and meanwhile the control plane and the node's images (cached after the first run)"
  log=$(mktemp "${TMPDIR:-/tmp}/opctl-quickstart.XXXXXX")
  setsid bash -c 'set -euo pipefail; tests/testenv/build.sh; tests/testenv/images/build.sh debian shell pause nginx' \
    >"$log" 2>&1 &
  background=$!
  trap 'kill -- "-$background" 2>/dev/null || true' EXIT
  ./install.sh
  if ! wait "$background"; then
    cat "$log" >&2
    echo "quickstart.sh: building the control plane or the node's images failed (above)" >&2
    exit 1
  fi
  trap - EXIT
  rm -f "$log"
  testenv=$(tests/testenv/build.sh)
  # The instance image is built FROM deploy/Dockerfile's image, whose compile reuses install.sh's (same compiler
  # cache, flags and paths; install.sh does not make warnings errors, so neither does this build).
  step "building the PostgreSQL instance image from deploy/Dockerfile and deploy/postgresql.Dockerfile"
  images=$(OPCTL_WERROR=OFF tests/testenv/images/build.sh pause shell nginx postgresql)

  dir=${OPCTL_QUICKSTART_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opctl/quickstart}
  kubeconfig=$dir/kubeconfig
  # A control plane from an earlier quickstart without a node is started again with one.
  if [ -f "$kubeconfig" ] && kubectl --kubeconfig "$kubeconfig" get --raw /readyz >/dev/null 2>&1 &&
     [ -z "$(kubectl --kubeconfig "$kubeconfig" get nodes -o name 2>/dev/null)" ]; then
    "$testenv" down --dir "$dir" >/dev/null
  fi
  step "starting the control plane and its node (kept running afterwards)"
  "$testenv" up --dir "$dir" --node --images "$images" >/dev/null
  opctl=$(command -v opctl || echo "$root/build-release/cli/opctl")
  stop_hint="Stop it with:
  $testenv down --dir $dir"
fi
k() { kubectl --kubeconfig "$kubeconfig" "$@"; }

step "opctl reconcile --path manifests-example --wait"
# Each pass takes the Cluster's next step; --wait runs them until it is Healthy (three instances, one at a time).
"$opctl" reconcile --path manifests-example --kubeconfig "$kubeconfig" --wait --timeout 10m

step "the web Deployment and the database (read back with kubectl)"
k -n shop get deployment web
k -n shop get clusters.opctl.io,backups.opctl.io
k -n shop get pods,services -l opctl.io/cluster=db
# Members of opctl's ApplySet carry its part-of label (KEP-3659).
k -n shop get all,configmaps,persistentvolumeclaims -l applyset.kubernetes.io/part-of

step "a row written through db-rw (the primary) and read back through db-ro (a streaming replica)"
# psql runs in an instance's Pod (the Services' addresses exist inside the cluster only); the connection string,
# password included, comes from the Cluster's db-app Secret on stdin, so it is never printed nor in a process list.
# The uri asks for sslmode=verify-full: the CA it verifies the server against is the Secret's ca.crt, sent after it.
psql_through() { # SERVICE SQL
  {
    k -n shop get secret db-app -o jsonpath='{.data.uri}' | base64 -d | sed "s/@db-rw\./@$1./"
    echo
    k -n shop get secret db-app -o jsonpath='{.data.ca\.crt}' | base64 -d
  } | k -n shop exec -i db-1 -- sh -c 'IFS= read -r uri; ca=$(mktemp); cat >"$ca"
      case $uri in *\?*) uri="$uri&sslrootcert=$ca" ;; *) uri="$uri?sslrootcert=$ca" ;; esac
      psql "$uri" -X -q -v ON_ERROR_STOP=1 -c "$1"; status=$?; rm -f "$ca"; exit $status' psql "$2"
}
psql_through db-rw "CREATE TABLE IF NOT EXISTS orders (id serial PRIMARY KEY, item text NOT NULL);
                    INSERT INTO orders (item) VALUES ('written at $(date -u +%FT%TZ)');
                    SELECT inet_server_addr() AS answered_by, pg_is_in_recovery() AS replica, count(*) AS orders
                    FROM orders"
# Synchronous replication (minSyncReplicas: 1) has the row on a replica when the commit returns; which replica
# db-ro picks, and whether it has replayed the row yet, may vary for a moment.
for attempt in 1 2 3 4 5 6 7 8 9 10; do
  if out=$(psql_through db-ro "SELECT inet_server_addr() AS answered_by, pg_is_in_recovery() AS replica,
                                      item AS last_order FROM orders ORDER BY id DESC LIMIT 1" 2>&1) &&
     grep -q 'written at' <<<"$out"; then
    echo "$out"
    break
  fi
  [ "$attempt" = 10 ] && { echo "$out" >&2; echo "quickstart.sh: the row did not reach db-ro" >&2; exit 1; }
  sleep 1
done

step "opctl status --path manifests-example"
"$opctl" status --path manifests-example --kubeconfig "$kubeconfig"

step "opctl tree --path manifests-example"
"$opctl" tree --path manifests-example --kubeconfig "$kubeconfig"

step "opctl diff --path manifests-example --exit-code (nothing to do now)"
"$opctl" diff --path manifests-example --kubeconfig "$kubeconfig" --exit-code

cat <<EOT

Done in $(( $(date +%s) - started ))s. The cluster keeps running. Use it with:
  export KUBECONFIG=$kubeconfig
${stop_hint}
EOT
