#!/usr/bin/env bash
# ctest fixture: `up DIR` builds (or reuses the cached) testenv and starts a
# control plane in DIR; `down DIR` stops it. One control plane per test run.
set -euo pipefail
action=$1
dir=$2
here=$(cd "$(dirname "$0")" && pwd)
binary=$("$here/../testenv/build.sh")
case "$action" in
  up)
    "$binary" down --dir "$dir" >/dev/null 2>&1 || true
    rm -rf "$dir"
    "$binary" up --dir "$dir" --audit
    ;;
  down) "$binary" down --dir "$dir" ;;
  *) echo "usage: $0 up|down DIR" >&2; exit 2 ;;
esac
