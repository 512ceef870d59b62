#!/usr/bin/env bash
# Checks that every C++ file of the repository is laid out as the repo's
# .clang-format says (Debian's clang-format 14, which install.sh --test-deps
# installs); prints the first differences and fails otherwise. CI runs it
# before anything is built. With --fix, formats the files in place instead.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h')
if [ "${1:-}" = --fix ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
if ! clang-format --dry-run -Werror "${files[@]}" 2>/tmp/opctl-format.$$; then
  head -40 /tmp/opctl-format.$$ >&2
  echo "check_format.sh: $(grep -c 'error:' /tmp/opctl-format.$$) lines differ from .clang-format;" \
    "run tests/check_format.sh --fix (or git clang-format for your changes only)" >&2
  rm -f /tmp/opctl-format.$$
  exit 1
fi
rm -f /tmp/opctl-format.$$
echo "check_format.sh: ${#files[@]} files match .clang-format"
