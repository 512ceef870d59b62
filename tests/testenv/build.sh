#!/usr/bin/env bash
# Builds the testenv binary once per machine and caches it outside any build
# tree, with the node's S3 server (versitygw, from the s3gw module) next to it.
# Prints the testenv binary's absolute path as the only line on stdout;
# progress goes to stderr.
#
#   B=$(tests/testenv/build.sh) && "$B" up --dir /tmp/te
set -euo pipefail
export LC_ALL=C # stable glob order for the cache key

K8S_VERSION=v1.36.3
K8S_MINOR=36

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"

if ! command -v go >/dev/null 2>&1; then
  echo "testenv build.sh: 'go' not found in PATH; install Go >= 1.26 (https://go.dev/dl/)" >&2
  exit 1
fi

# Cache key: the module files and Go sources of this directory and of s3gw/.
hash=$(cat go.mod go.sum *.go s3gw/go.mod s3gw/go.sum s3gw/*.go | sha256sum | cut -c1-12)
cache_root=${XDG_CACHE_HOME:-$HOME/.cache}/opctl/testenv/$K8S_VERSION
out_dir=$cache_root/$hash
bin=$out_dir/testenv
gateway=$out_dir/versitygw

if [[ -x $bin && -x $gateway ]]; then
  echo "$bin"
  exit 0
fi

mkdir -p "$out_dir"
# Serialize concurrent builds of the same version (e.g. parallel test jobs).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$out_dir/.lock"
  flock 9
  if [[ -x $bin && -x $gateway ]]; then
    echo "$bin"
    exit 0
  fi
fi

ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$K8S_VERSION"
  ldflags+=" -X $pkg.gitMajor=1"
  ldflags+=" -X $pkg.gitMinor=$K8S_MINOR"
  ldflags+=" -X $pkg.gitTreeState=clean"
done

echo "testenv build.sh: building kube-apiserver/controller-manager/etcd $K8S_VERSION into $bin" >&2
echo "testenv build.sh: a cold build takes ~10 min on 2 cores; later builds reuse the Go build cache" >&2
start=$(date +%s)
tmp=$(mktemp "$out_dir/.testenv.XXXXXX")
trap 'rm -f "$tmp"' EXIT
# The gateway first: testenv is what the cache check above looks for last.
echo "testenv build.sh: building the node's S3 server (versitygw) into $gateway" >&2
(cd s3gw && CGO_ENABLED=0 go build -buildvcs=false -trimpath -ldflags "-s -w" -o "$tmp" \
  github.com/versity/versitygw/cmd/versitygw) >&2
chmod 0755 "$tmp"
mv -f "$tmp" "$gateway"
tmp=$(mktemp "$out_dir/.testenv.XXXXXX")
CGO_ENABLED=0 go build -buildvcs=false -trimpath -ldflags "$ldflags" -o "$tmp" . >&2
chmod 0755 "$tmp"
mv -f "$tmp" "$bin"
trap - EXIT
echo "testenv build.sh: built in $(( $(date +%s) - start ))s" >&2
echo "$bin"
