#!/usr/bin/env bash
# Installs what opctl needs from Debian's packages, builds a Release, and
# installs the opctl binary and its man pages. Safe to run again.
#
#   ./install.sh [--prefix DIR] [--with-testenv] [--deps-only] [--test-deps]
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: ./install.sh [--prefix DIR] [--with-testenv] [--deps-only] [--test-deps]
  --prefix DIR     install under DIR (default /usr/local)
  --with-testenv   also build the local Kubernetes control plane (tests/testenv)
  --deps-only      install the packages only; do not build or install opctl
  --test-deps      also install what the test suite needs (git servers, kubectl, pytest, and the test
                   node's containerd, runc, CNI plugins and image tools)
USAGE
}

root=$(cd "$(dirname "$0")" && pwd)
prefix=/usr/local
with_testenv=0
deps_only=0
test_deps=0
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --with-testenv) with_testenv=1; shift ;;
    --deps-only) deps_only=1; shift ;;
    --test-deps) test_deps=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done

build_packages=(g++ cmake ninja-build pkg-config git ca-certificates
                libgit2-dev libyaml-dev libyaml-cpp-dev libcurl4-openssl-dev libssl-dev libcli11-dev libfmt-dev libpq-dev libre2-dev zlib1g-dev
                nlohmann-json3-dev catch2)
test_packages=(kubectl openssh-server openssh-client lighttpd lighttpd-mod-openssl openssl groff-base man-db bash-completion
               # the layout check (tests/check_format.sh)
               clang-format
               # tests/run.sh compiles through ccache, its cache kept under ~/.cache/opctl/ccache between runs
               ccache
               # the test node (tests/testenv --node) and the images it runs (tests/testenv/images)
               containerd runc containernetworking-plugins iptables iproute2 util-linux catatonit
               mmdebstrap umoci skopeo buildah busybox-static
               # SOPS files (age unwraps their data keys; sops itself is built by tests/tools/build.sh)
               age
               # the instance manager's loopback tests (tests/instance) and psql for the Cluster e2e tests
               postgresql-15 postgresql-client-15
               # signed commits (tests/e2e/test_commit_signatures.py): gpg signs, gpgv verifies
               # (ssh-keygen, from openssh-client above, signs and verifies SSH signatures)
               gnupg gpgv)
packages=("${build_packages[@]}")
if [ "$test_deps" = 1 ]; then packages+=("${test_packages[@]}"); fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1 || [ "$(id -u)" != 0 ]; then
    echo "install.sh: cannot install packages here (needs root and apt-get)." >&2
    echo "Install these by hand, then run ./install.sh again:" >&2
    echo "  ${missing[*]}" >&2
    exit 1
  fi
  echo "install.sh: installing ${missing[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# psycopg2 (libpq, as an application connects): the HA suite's long-lived client session and its watcher.
# prometheus_client: its text-format parser reads what --metrics-file and --metrics-push write (test_metrics.py).
# boto3: an S3 client independent of the instance image's barman-cloud, to read back the test node's S3 server.
if [ "$test_deps" = 1 ] && ! python3 -c 'import pytest, yaml, psycopg2, prometheus_client, boto3' >/dev/null 2>&1; then
  echo "install.sh: installing pytest, PyYAML, psycopg2, prometheus_client and boto3" >&2
  python3 -m pip install -q pytest pyyaml psycopg2-binary prometheus-client boto3
fi

if [ "$with_testenv" = 1 ] || [ "$test_deps" = 1 ]; then
  if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then export PATH=/usr/local/go/bin:$PATH; fi
  command -v go >/dev/null 2>&1 || { echo "install.sh: the control plane needs Go (https://go.dev), not found" >&2; exit 1; }
fi

if [ "$with_testenv" = 1 ]; then
  echo "install.sh: building the local control plane (the first build takes 15-25 minutes)" >&2
  "$root/tests/testenv/build.sh" >/dev/null
fi

if [ "$deps_only" = 1 ]; then exit 0; fi

# Through ccache when it is installed (install.sh --test-deps installs it), with tests/run.sh's cache, flags and
# locale: deploy/Dockerfile compiles the same way, so the quickstart's opctl image reuses this compile.
launcher=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opctl/ccache}
  export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-4G}
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
(
  unset LC_ALL LC_CTYPE LC_MESSAGES
  export LANG=C.UTF-8
  cmake -S "$root" -B "$root/build-release" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DOPCTL_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX="$prefix" \
    ${launcher[@]+"${launcher[@]}"} >/dev/null
  cmake --build "$root/build-release" -j 2 --target opctl
)
cmake --install "$root/build-release" --strip >/dev/null
echo "install.sh: installed $prefix/bin/opctl and its man pages" >&2
