#!/usr/bin/env bash
# Runs the test binary as `nobody`: initdb refuses root. The build tree may sit
# in a directory only root can enter (a CI clone in mktemp -d), so the binary
# is copied to a private directory nobody can read first.
set -euo pipefail
binary=$1
shift
dir=$(mktemp -d /tmp/opctl-instance-tests.XXXXXX)
trap 'rm -rf "$dir"' EXIT
cp "$binary" "$dir/tests"
chmod 0755 "$dir" "$dir/tests"
cd "$dir"
# nobody's own HOME, not root's: libpq reads ~/.postgresql (client certificates) and refuses one it cannot open.
export HOME="$dir"
setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "$dir/tests" "$@"
