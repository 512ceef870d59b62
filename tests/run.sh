#!/usr/bin/env bash
# The whole test suite, as CI runs it: unit tests under AddressSanitizer and
# UndefinedBehaviorSanitizer, then unit and end-to-end tests against a real
# control plane with a node on which Pods run (the control plane and the
# node's images are built once per machine and cached, see tests/testenv).
# Needs root: the node uses a network namespace, iptables, mounts and runc.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then export PATH=/usr/local/go/bin:$PATH; fi

./install.sh --deps-only --test-deps

echo "== layout (clang-format)"
tests/check_format.sh

echo "== unit tests under ASan + UBSan"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DOPCTL_SANITIZE=ON -DOPCTL_WERROR=ON >/dev/null
cmake --build build-asan -j 2 --target opctl_tests
ctest --test-dir build-asan --output-on-failure

echo "== build (warnings are errors)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPCTL_WERROR=ON >/dev/null
cmake --build build -j 2

echo "== control plane and node (cached after the first build)"
tests/testenv/build.sh

echo "== programs the tests use, from the Go module proxy (cached after the first build)"
tests/tools/build.sh sops >/dev/null
tests/tools/build.sh helm >/dev/null

echo "== node images from Debian's packages and deploy/Dockerfile (cached by content)"
tests/testenv/images/build.sh

echo "== unit and end-to-end tests"
ctest --test-dir build --output-on-failure
