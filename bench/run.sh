#!/usr/bin/env bash
# opctl vs kubectl and Flux's apply engine on one real control plane (testenv). Writes bench/RESULTS.md.
#
#   bench/run.sh            full run: N = 20000 and 5000 (opctl 3 reps, peers 1; kubectl apply/diff only up to
#                           5000), N = 1000 (5 reps); ~3 h on 2 cores, most of it Flux's engine at its 50 QPS
#   bench/run.sh --quick    smoke run: N = 100, 2 reps (~10 min)
#
# Issue 38's run (N = 100000 beside 20000 and 5000, Flux's engine where it fits: up to 20000; ~90 min):
#   bench/run.sh --sizes 100000,20000,5000 --reps-large 2 --reps-huge 1 --kubectl-peer-max-n 1000
#
# Other options go to bench/bench.py (--sizes 1000,5000, --reps 5, --reps-large 3, --reps-huge 1, --peer-reps-large 1,
# --kubectl-peer-max-n 5000, --flux-max-n 20000, --peers kubectl,flux, --profile wide|classic, --only-first-apply, --skip-first-apply, --opctl-source git|dir,
# --workdir DIR, --results FILE, --keep-testenv). The opctl binary comes from $OPCTL_BIN (default build/cli/opctl).
# Needs: kubectl, git, diff, /usr/bin/time (GNU time), python3 with PyYAML, and the cached testenv binary
# (tests/testenv/build.sh). Scratch data goes to /tmp/opctl-bench/run-<timestamp>/.
# Never run by ctest: nothing here is registered as a test.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/.."
for tool in kubectl git diff python3; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool not found" >&2; exit 2; }
done
[[ -x /usr/bin/time ]] || { echo "run.sh: GNU time (/usr/bin/time) not found" >&2; exit 2; }
python3 -c 'import yaml' || { echo "run.sh: python3 needs PyYAML" >&2; exit 2; }
export OPCTL_BIN="${OPCTL_BIN:-$PWD/build/cli/opctl}"
exec python3 "$here/bench.py" "$@"
