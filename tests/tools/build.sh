#!/usr/bin/env bash
# Builds a Go program the tests use (never part of opctl) from the Go module
# proxy, once per machine, cached outside any build tree like the control
# plane. Prints the binary's absolute path as the only line on stdout.
#
#   SOPS=$(tests/tools/build.sh sops)
set -euo pipefail

case "${1:-}" in
  # The reference SOPS, to encrypt the files the tests decrypt with opctl.
  sops) module=github.com/getsops/sops/v3/cmd/sops version=v3.13.3 ;;
  # Helm 3, to render the charts opctl reads as a source (helm template).
  helm) module=helm.sh/helm/v3/cmd/helm version=v3.22.0 ;;
  # The Prometheus Pushgateway, which `opctl reconcile --metrics-push` sends to.
  pushgateway) module=github.com/prometheus/pushgateway version=v1.11.5 ;;
  *) echo "usage: tests/tools/build.sh sops|helm|pushgateway" >&2; exit 2 ;;
esac
name=$1

if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then export PATH=/usr/local/go/bin:$PATH; fi
command -v go >/dev/null 2>&1 || { echo "tests/tools/build.sh: 'go' not found in PATH" >&2; exit 1; }

out_dir=${XDG_CACHE_HOME:-$HOME/.cache}/opctl/tools/$name-$version
bin=$out_dir/$name
if [[ -x $bin ]]; then echo "$bin"; exit 0; fi

mkdir -p "$out_dir"
exec 9>"$out_dir/.lock"
flock 9
if [[ -x $bin ]]; then echo "$bin"; exit 0; fi

echo "tests/tools/build.sh: building $module@$version (a few minutes the first time)" >&2
work=$(mktemp -d "$out_dir/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
GOBIN=$work CGO_ENABLED=0 GOFLAGS=-buildvcs=false go install -trimpath -ldflags "-s -w" "$module@$version" >&2
mv -f "$work/$name" "$bin"
echo "$bin"
