#!/usr/bin/env bash
# Installs opctl, starts a local Kubernetes control plane (unless one is
# already running), reconciles manifests-example/ into it, and shows the result.
set -euo pipefail
root=$(cd "$(dirname "$0")" && pwd)
cd "$root"
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then export PATH=/usr/local/go/bin:$PATH; fi

./install.sh --with-testenv --test-deps
testenv=$(tests/testenv/build.sh)
dir=${OPCTL_QUICKSTART_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opctl/quickstart}
"$testenv" up --dir "$dir" >/dev/null
kubeconfig=$dir/kubeconfig
opctl=$(command -v opctl || echo "$root/build-release/cli/opctl")

echo "== opctl reconcile --path manifests-example/"
"$opctl" reconcile --path manifests-example --kubeconfig "$kubeconfig"
echo
echo "== what landed (read back with kubectl)"
kubectl --kubeconfig "$kubeconfig" get namespace shop
# Members of opctl's ApplySet carry its part-of label (KEP-3659).
kubectl --kubeconfig "$kubeconfig" get namespaces,customresourcedefinitions -l applyset.kubernetes.io/part-of
kubectl --kubeconfig "$kubeconfig" -n shop get all,configmaps,persistentvolumeclaims -l applyset.kubernetes.io/part-of
echo
echo "== the custom kinds and what their reconcilers made"
kubectl --kubeconfig "$kubeconfig" -n shop get clusters.opctl.io,backups.opctl.io
kubectl --kubeconfig "$kubeconfig" -n shop get pods,services,secrets -l opctl.io/cluster=db
kubectl --kubeconfig "$kubeconfig" -n shop get cronjobs
echo
echo "== opctl diff (nothing to do now)"
"$opctl" diff --path manifests-example --kubeconfig "$kubeconfig" --exit-code
cat <<EOT

The control plane keeps running. Use it with:
  export KUBECONFIG=$kubeconfig
Stop it with:
  $testenv down --dir $dir
EOT
