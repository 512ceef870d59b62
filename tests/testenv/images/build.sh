#!/usr/bin/env bash
# Builds the container images of the testenv node from Debian's packages, once per content hash, and prints the
# absolute path of a directory holding exactly one <recipe>.oci.tar per requested image (symlinks into the cache)
# as the only line on stdout. Progress goes to stderr. See README.md.
#
#   D=$(tests/testenv/images/build.sh)            # every recipe
#   D=$(tests/testenv/images/build.sh shell pause) # only these
#   for a in "$D"/*.oci.tar; do ctr -n k8s.io --address SOCK images import "$a"; done
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(git -C "$HERE" rev-parse --show-toplevel)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/opctl/images
BUILDAH_ROOT=$CACHE/buildah
export HERE REPO CACHE BUILDAH_ROOT
# shellcheck source=lib.sh
source "$HERE/lib.sh"

log() { echo "images build.sh: $*" >&2; }
die() { log "$*"; exit 1; }

all=()
for f in "$HERE"/*.recipe; do
  r=${f##*/}
  all+=("${r%.recipe}")
done
if (($#)); then
  want=("$@")
else
  want=("${all[@]}")
fi

# Reads one recipe in a subshell and prints a variable of it (recipes are bash).
recipe_var() { # RECIPE VAR
  (
    source "$HERE/$1.recipe"
    eval "for v in \${$2[@]+\"\${$2[@]}\"}; do printf '%s\n' \"\$v\"; done"
  )
}

declare -A KEYS=()
order=()
# Cache key of a recipe: sha256 of lib.sh, oci.py, the recipe file, the output of its key_inputs() (e.g. host
# package versions, the repository's sources) and the keys of the recipes it DEPENDS on. Also fixes build order.
compute_key() { # RECIPE [CHAIN]
  local r=$1 chain=${2:-}
  [[ -n ${KEYS[$r]:-} ]] && return 0
  [[ -f $HERE/$r.recipe ]] || die "no recipe '$r' (have: ${all[*]})"
  [[ " $chain " == *" $r "* ]] && die "recipe $r: DEPENDS cycle:$chain $r"
  local deps d extra
  mapfile -t deps < <(recipe_var "$r" DEPENDS)
  for d in ${deps[@]+"${deps[@]}"}; do compute_key "$d" "$chain $r"; done
  set +e
  extra=$(
    set -euo pipefail
    source "$HERE/$r.recipe"
    if declare -F key_inputs >/dev/null; then key_inputs; fi
  )
  local rc=$?
  set -e
  ((rc == 0)) || die "recipe $r: key_inputs failed (exit $rc)"
  KEYS[$r]=$(
    cat "$HERE/lib.sh" "$HERE/oci.py" "$HERE/$r.recipe"
    echo "$extra"
    for d in ${deps[@]+"${deps[@]}"}; do echo "dep $d ${KEYS[$d]}"; done
  )
  KEYS[$r]=$(sha256sum <<<"${KEYS[$r]}" | cut -c1-16)
  order+=("$r")
}
for r in "${want[@]}"; do compute_key "$r"; done

archive() { echo "$CACHE/$1/${KEYS[$1]}/image.oci.tar"; }

# The output directory: one per combination of requested recipes and their keys.
set_key=$(for r in "${want[@]}"; do echo "$r ${KEYS[$r]}"; done | sort -u | sha256sum | cut -c1-16)
set_dir=$CACHE/sets/$set_key

all_cached() {
  local r
  [[ -d $set_dir ]] || return 1
  for r in "${order[@]}"; do [[ -f $(archive "$r") ]] || return 1; done
}
if all_cached; then
  echo "$set_dir"
  exit 0
fi

for r in "${order[@]}"; do
  out=$(archive "$r")
  [[ -f $out ]] && continue
  # One lock per recipe: concurrent callers building the same recipe wait for each other, others go on.
  mkdir -p "$CACHE/$r"
  exec 9>"$CACHE/$r/.lock"
  if ! flock -n 9; then
    log "$r: waiting for another build.sh building it (lock $CACHE/$r/.lock)"
    flock 9
  fi
  if [[ -f $out ]]; then
    log "$r: built by another build.sh ($out)"
    exec 9>&-
    continue
  fi
  log "$r: building (key ${KEYS[$r]})"
  start=$(date +%s%N)
  WORK=$(mktemp -d "$CACHE/.work.$r.XXXXXX")
  export WORK
  trap 'rm -rf "$WORK"' EXIT
  tmp_out=$WORK/image.oci.tar
  # Not inside `if`/`||`, so that `set -e` holds in the recipe's build().
  set +e
  (
    set -euo pipefail
    cd "$WORK"
    source "$HERE/$r.recipe"
    build "$tmp_out"
  ) >&2 9>&- # the build's processes never see the lock's fd
  rc=$?
  set -e
  # buildah 1.28 can leave working containers (and their overlay mounts) behind, also after a killed build.
  # Only recipes that call `bah` use that storage, and each recipe's builds are serialized by its lock.
  if grep -q '\bbah ' "$HERE/$r.recipe" && [[ -d $BUILDAH_ROOT/root ]]; then
    bah rm --all >/dev/null 2>&1 || log "$r: 'buildah rm --all' on $BUILDAH_ROOT failed"
  fi
  if ((rc != 0)) || [[ ! -f $tmp_out ]]; then
    rm -rf "$WORK"
    die "recipe $r FAILED (exit $rc; its errors are above); nothing was cached"
  fi
  mapfile -t names < <(recipe_var "$r" NAMES)
  verify_args=()
  for n in "${names[@]}"; do verify_args+=(--name "$n"); done
  python3 "$HERE/oci.py" verify "$tmp_out" "${verify_args[@]}" >&2 ||
    { rm -rf "$WORK"; die "recipe $r: the archive it built does not verify"; }
  mkdir -p "${out%/*}"
  mv -f "$tmp_out" "$out"
  rm -rf "$WORK"
  trap - EXIT
  exec 9>&-
  ms=$((($(date +%s%N) - start) / 1000000))
  log "$r: built in $((ms / 1000)).$(printf '%03d' $((ms % 1000)))s, $(du -h "$out" | cut -f1) -> $out"
done

if [[ ! -d $set_dir ]]; then
  mkdir -p "$CACHE/sets"
  tmp_set=$(mktemp -d "$CACHE/sets/.tmp.XXXXXX")
  for r in "${want[@]}"; do ln -sfn "$(archive "$r")" "$tmp_set/$r.oci.tar"; done
  chmod 0755 "$tmp_set"
  mv -T "$tmp_set" "$set_dir" 2>/dev/null || rm -rf "$tmp_set"
fi
echo "$set_dir"
