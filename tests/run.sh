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

# What does not depend on opctl's sources is built in the background while opctl compiles: the control plane and
# its node, the Go programs the tests use and the base images. On a fresh machine these wait on the Go module proxy
# and Debian's mirror much of the time, which a compile fills. The opctl image (and the images FROM it) comes
# after the optimised build, whose compiler cache it reuses.
# In its own session (setsid), so that when this script stops early the background stops with it.
background_log=$(mktemp "${TMPDIR:-/tmp}/opctl-run-background.XXXXXX")
setsid bash -c '
  set -euo pipefail
  echo "== control plane and node (cached after the first build)"
  tests/testenv/build.sh
  echo "== programs the tests use, from the Go module proxy (cached after the first build)"
  for tool in sops helm pushgateway; do tests/tools/build.sh "$tool"; done
  echo "== node images from Debian'"'"'s packages (cached by content)"
  tests/testenv/images/build.sh debian shell pause nginx
' >"$background_log" 2>&1 &
background=$!
trap 'kill -- "-$background" 2>/dev/null || true' EXIT

echo "== unit tests under ASan + UBSan"
# -g1: line tables are all a sanitizer's stack trace needs, and full debug information was a fifth of the compile.
# A unity build (16 sources per compile): nlohmann/json's, fmt's and Catch2's templates are instantiated once per
# batch instead of once per file, which made a cold compile of 19 of the Cluster's sources 3.8 times faster. The
# optimised build below stays one file per compile, so a file that does not include what it uses still fails CI.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" -DOPCTL_SANITIZE=ON \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 \
  -DOPCTL_WERROR=ON ${compiler_launcher[@]+"${compiler_launcher[@]}"} >/dev/null
cmake --build build-asan -j 2 --target opctl_tests
ctest --test-dir build-asan --output-on-failure

echo "== build (warnings are errors)"
# deploy/Dockerfile compiles opctl with these flags, this locale and the same paths relative to the checkout, and
# the opctl image's recipe gives it this compiler cache: its compile is then a cache hit, not a third compile.
(
  unset LC_ALL LC_CTYPE LC_MESSAGES
  export LANG=C.UTF-8
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DOPCTL_WERROR=ON ${compiler_launcher[@]+"${compiler_launcher[@]}"} >/dev/null
  cmake --build build -j 2 --target opctl opctl_integration_tests opctl_instance_tests opctl_cron_probe
)
if ((${#compiler_launcher[@]})); then ccache --show-stats | grep -iE '^ *(hits|misses)' || true; fi

echo "== what was built in the background"
if ! wait "$background"; then
  cat "$background_log"
  echo "tests/run.sh: building the control plane, the test programs or the base images failed (above)" >&2
  exit 1
fi
trap - EXIT
grep -E '^==|built in' "$background_log" || true
rm -f "$background_log"

echo "== node images from deploy/Dockerfile and the rest (cached by content)"
tests/testenv/images/build.sh

echo "== integration and end-to-end tests (the unit and layering tests ran in the sanitizer build)"
# One suite at a time: the suites share one control plane and the default ApplySet and its Lease (a run of two at
# once, tried once, had one suite's pass prune another's objects and refuse on the other's Lease).
ctest --test-dir build --output-on-failure --exclude-regex '^(unit|layering_.*)$'
