#!/usr/bin/env bash
# ctest fixture: `up DIR` builds (or reuses the cached) testenv and images and
# starts a control plane with a node in DIR; `up-api DIR` starts one without a
# node (see CMakeLists.txt for which suites); `down DIR` stops either and fails if
# the node left anything on the machine or changed the host's network,
# iptables, mounts or kernel settings (compared with a snapshot taken by `up`).
set -euo pipefail
action=$1
dir=$2
here=$(cd "$(dirname "$0")" && pwd)
binary=$("$here/../testenv/build.sh")
snapshot="$dir.host-before"

# What the node must leave as it found it: host interfaces, addresses and
# routes, network namespaces, iptables rules (counters dropped), mount points
# and the kernel settings the kubelet changes.
host_state() {
  ip -o link show | awk '{print $2}' | sed 's/@.*//'
  ip -o addr show | awk '{print $2, $4}'
  ip route show
  ip netns list 2>/dev/null || true
  for save in iptables-save ip6tables-save; do
    # An empty ruleset is fine: the pipeline may match nothing.
    if command -v "$save" >/dev/null 2>&1; then { "$save" 2>/dev/null || true; } | sed -e '/^#/d' -e 's/\[[0-9]*:[0-9]*\]//'; fi
  done
  awk '{print $5}' /proc/self/mountinfo | sort
  for key in vm/overcommit_memory vm/panic_on_oom kernel/panic kernel/panic_on_oops \
             kernel/keys/root_maxkeys kernel/keys/root_maxbytes; do
    echo "$key $(cat /proc/sys/$key)"
  done
}

case "$action" in
  up)
    "$binary" down --dir "$dir" >/dev/null 2>&1 || true
    rm -rf "$dir"
    images=$("$here/../testenv/images/build.sh")
    # A node left by a run that died (or by another testenv directory) goes first, so the snapshot is the host's.
    "$binary" down-node
    host_state >"$snapshot"
    "$binary" up --dir "$dir" --audit --node --images "$images"
    ;;
  up-api)
    "$binary" down --dir "$dir" >/dev/null 2>&1 || true
    rm -rf "$dir" "$snapshot"
    "$binary" up --dir "$dir" --audit
    ;;
  down)
    "$binary" down --dir "$dir"
    [ -f "$snapshot" ] || exit 0 # a control plane without a node changes nothing on the host
    status=0
    if ! left=$("$binary" leftovers --dir "$dir"); then
      echo "testenv down left these behind:" >&2
      echo "$left" >&2
      status=1
    fi
    if ! changes=$(diff <(cat "$snapshot") <(host_state)); then
      echo "the host's state changed between testenv up and down:" >&2
      echo "$changes" >&2
      status=1
    fi
    rm -f "$snapshot"
    exit $status
    ;;
  *) echo "usage: $0 up|up-api|down DIR" >&2; exit 2 ;;
esac
