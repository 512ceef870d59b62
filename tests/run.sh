#!/usr/bin/env bash
# The whole test suite, as CI runs it: unit tests under AddressSanitizer and
# UndefinedBehaviorSanitizer, then integration and end-to-end tests against a
# real control plane with a node on which Pods run (the control plane and the
# node's images are built once per machine and cached, see tests/testenv).
# Needs root: the node uses a network namespace, iptables, mounts and runc.
#
# Compiles go through ccache when it is installed (install.sh --test-deps does),
# with its cache under ~/.cache/opctl/ccache next to the control plane and the
# images, so a second run compiles only what changed. The unit tests run once,
# in the sanitizer build: the optimised build compiles only what the
# integration and end-to-end tests run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then export PATH=/usr/local/go/bin:$PATH; fi

./install.sh --deps-only --test-deps

compiler_launcher=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opctl/ccache}
  # Paths under the checkout are hashed relative to it, so a clone elsewhere hits the same entries.
  export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-4G}
  compiler_launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  ccache --zero-stats >/dev/null
fi

echo "== layout (clang-format)"
tests/check_format.sh

echo "== unit tests under ASan + UBSan"
# -g1: line tables are all a sanitizer's stack trace needs, and full debug information was a fifth of the compile.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" -DOPCTL_SANITIZE=ON \
  -DOPCTL_WERROR=ON ${compiler_launcher[@]+"${compiler_launcher[@]}"} >/dev/null
cmake --build build-asan -j 2 --target opctl_tests
ctest --test-dir build-asan --output-on-failure

echo "== build (warnings are errors)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DOPCTL_WERROR=ON ${compiler_launcher[@]+"${compiler_launcher[@]}"} >/dev/null
cmake --build build -j 2 --target opctl opctl_integration_tests opctl_instance_tests opctl_cron_probe
if ((${#compiler_launcher[@]})); then ccache --show-stats | grep -iE '^ *(hits|misses)' || true; fi

echo "== control plane and node (cached after the first build)"
tests/testenv/build.sh

echo "== programs the tests use, from the Go module proxy (cached after the first build)"
tests/tools/build.sh sops >/dev/null
tests/tools/build.sh helm >/dev/null
tests/tools/build.sh pushgateway >/dev/null

echo "== node images from Debian's packages and deploy/Dockerfile (cached by content)"
tests/testenv/images/build.sh

echo "== integration and end-to-end tests (the unit and layering tests ran in the sanitizer build)"
# One suite at a time: the suites share one control plane and the default ApplySet and its Lease (a run of two at
# once, tried once, had one suite's pass prune another's objects and refuse on the other's Lease).
ctest --test-dir build --output-on-failure --exclude-regex '^(unit|layering_.*)$'
