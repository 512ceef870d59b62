# Helpers for the image recipes (*.recipe), sourced by build.sh. This file is part of every image's cache key.
#
# In a recipe's build(), these are set: $HERE (this directory), $REPO (repository root), $WORK (an empty scratch
# directory, removed afterwards), $CACHE (the cache root), and the recipe's own variables.

# The apt sources of every Debian rootfs: the host's mirror (deb.debian.org), bookworm + updates + security,
# exactly what the official debian:bookworm images carry.
DEBIAN_SUITE=bookworm
DEBIAN_SOURCES=(
  "deb http://deb.debian.org/debian bookworm main"
  "deb http://deb.debian.org/debian bookworm-updates main"
  "deb http://deb.debian.org/debian-security bookworm-security main"
)

# debian_rootfs OUT.tar [MMDEBSTRAP-ARGS...]: a minbase Debian rootfs as an (uncompressed) tar, "slim" like the
# official debian:*-slim images: dpkg excludes docs, man pages, info and locales (permanently, in
# /etc/dpkg/dpkg.cfg.d/99mmdebstrap, so later apt installs stay slim), no apt lists or caches, no device nodes.
debian_rootfs() {
  local out=$1
  shift
  local slim=(
    --dpkgopt='path-exclude=/usr/share/doc/*'
    --dpkgopt='path-include=/usr/share/doc/*/copyright'
    --dpkgopt='path-exclude=/usr/share/man/*'
    --dpkgopt='path-exclude=/usr/share/groff/*'
    --dpkgopt='path-exclude=/usr/share/info/*'
    --dpkgopt='path-exclude=/usr/share/lintian/*'
    --dpkgopt='path-exclude=/usr/share/linda/*'
    --dpkgopt='path-exclude=/usr/share/locale/*'
    --dpkgopt='path-include=/usr/share/locale/locale.alias'
  )
  # SOURCE_DATE_EPOCH makes mmdebstrap's own files (and the tar's mtimes) reproducible.
  SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-0} mmdebstrap --variant=minbase --mode=root --format=tar \
    "${slim[@]}" \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/cache/apt/archives/*.deb "$1"/var/cache/ldconfig/aux-cache "$1"/var/log/*.log "$1"/var/log/apt/*' \
    "$@" "$DEBIAN_SUITE" "$WORK/mmdebstrap.tar" "${DEBIAN_SOURCES[@]}" >&2
  mmtarfilter --path-exclude='/dev/*' <"$WORK/mmdebstrap.tar" >"$out"
  rm -f "$WORK/mmdebstrap.tar"
}

# Image config from the recipe's variables: ENTRYPOINT/CMD (JSON arrays, may be empty), ENV/EXPOSE (arrays),
# WORKDIR, USER.
_oci_config_args() {
  local a=()
  local n e p
  for n in "${NAMES[@]}"; do a+=(--name "$n"); done
  [[ -n ${ENTRYPOINT:-} ]] && a+=(--entrypoint "$ENTRYPOINT")
  [[ -n ${CMD:-} ]] && a+=(--cmd "$CMD")
  for e in ${ENV[@]+"${ENV[@]}"}; do a+=(--env "$e"); done
  for p in ${EXPOSE[@]+"${EXPOSE[@]}"}; do a+=(--expose "$p"); done
  [[ -n ${WORKDIR:-} ]] && a+=(--workdir "$WORKDIR")
  [[ -n ${USER_ID:-} ]] && a+=(--user "$USER_ID")
  printf '%s\0' "${a[@]}"
}

# pack_rootfs DIR OUT.oci.tar: one-layer image of the directory tree DIR (owned by root in the image).
pack_rootfs() {
  local args=()
  mapfile -d '' args < <(_oci_config_args)
  python3 "$HERE/oci.py" pack --rootfs "$1" --out "$2" "${args[@]}"
}

# pack_layer ROOTFS.tar OUT.oci.tar: one-layer image of a rootfs tarball (e.g. from debian_rootfs).
pack_layer() {
  local args=()
  mapfile -d '' args < <(_oci_config_args)
  python3 "$HERE/oci.py" pack --layer "$1" --out "$2" "${args[@]}"
}

# archive_of RECIPE: the cached archive of another recipe (list it in DEPENDS so it is built first and its key
# feeds this recipe's key).
archive_of() {
  local f=$CACHE/$1/${KEYS[$1]}/image.oci.tar
  [[ -f $f ]] || { echo "archive_of $1: $f missing (is $1 in DEPENDS?)" >&2; return 1; }
  echo "$f"
}

# repo_context_tar: the repository's build context as `docker build .` sees it, as a deterministic tar on stdout:
# tracked files as they are in the work tree (uncommitted changes included) and untracked files .gitignore does not
# ignore, minus what the repository's .dockerignore excludes. A build context and, hashed, a cache key.
repo_context_tar() {
  python3 "$HERE/oci.py" context "$REPO"
}

# buildah with its storage under the cache directory (not /var/lib/containers). skip_mount_home: the overlay
# driver does not keep its directory bind-mounted, so nothing stays mounted between builds.
BUILDAH_ROOT=${BUILDAH_ROOT:-}
bah() {
  buildah --root "$BUILDAH_ROOT/root" --runroot "$BUILDAH_ROOT/runroot" --storage-driver overlay \
    --storage-opt overlay.skip_mount_home=true "$@"
}
