#!/usr/bin/env bash
# Builds the Flux-engine benchmark peer once per machine and caches it outside
# any build tree (keyed by its module files and sources). Prints the binary's
# absolute path as the only line on stdout; progress goes to stderr.
#
#   F=$(bench/fluxpeer/build.sh) && "$F" apply --kubeconfig K DIR
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"
command -v go >/dev/null || { echo "fluxpeer build.sh: 'go' not found in PATH" >&2; exit 1; }
hash=$(cat go.mod go.sum *.go | sha256sum | cut -c1-12)
out_dir=${XDG_CACHE_HOME:-$HOME/.cache}/opctl/bench/fluxpeer/$hash
bin=$out_dir/fluxpeer
if [[ ! -x $bin ]]; then
  mkdir -p "$out_dir"
  echo "fluxpeer build.sh: building github.com/fluxcd/pkg/ssa's peer into $bin (~3 min cold on 2 cores)" >&2
  tmp=$(mktemp "$out_dir/.fluxpeer.XXXXXX")
  trap 'rm -f "$tmp"' EXIT
  CGO_ENABLED=0 go build -buildvcs=false -trimpath -ldflags "-s -w" -o "$tmp" . >&2
  chmod 0755 "$tmp"
  mv -f "$tmp" "$bin"
  trap - EXIT
fi
echo "$bin"
