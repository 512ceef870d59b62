#!/usr/bin/env bash
# Issue 34's figures: the hostile data-plane suite (tests/e2e/test_cluster_ha.py) run ROUNDS times on one control
# plane with the node, each case appending its outage, acknowledged commits, lost commits and two-writable samples
# to a JSON-lines file; then bench/cluster_ha_report.py renders the table for bench/CLUSTER.md.
#
#   OPCTL_BIN=build/cli/opctl OPCTL_TESTENV_DIR=/tmp/te bench/cluster_ha.sh [ROUNDS] [RESULTS.jsonl]
#
# A control plane with the node and the current images must be up (tests/e2e/testenv_fixture.sh up /tmp/te).
# Each round takes about 4.5 minutes on 2 cores (20 rounds: about 90 minutes).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-20}
results=${2:-/tmp/opctl-cluster-ha.jsonl}
: "${OPCTL_TESTENV_DIR:?a control plane with the node: tests/e2e/testenv_fixture.sh up DIR}"
export OPCTL_BIN=${OPCTL_BIN:-$here/../build/cli/opctl}
export OPCTL_SOURCE_DIR=$here/..
export OPCTL_HA_RESULTS=$results
failed=0
for round in $(seq 1 "$rounds"); do
  echo "cluster_ha.sh: round $round of $rounds" >&2
  python3 -m pytest -q -p no:cacheprovider "$here/../tests/e2e/test_cluster_ha.py" >&2 || failed=$((failed + 1))
done
python3 "$here/cluster_ha_report.py" "$results"
echo "cluster_ha.sh: $failed of $rounds rounds had a failing case" >&2
