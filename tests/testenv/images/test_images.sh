#!/usr/bin/env bash
# Checks the images build.sh makes (building what is not cached): each archive's index.json names exactly the
# expected images, every blob matches its digest and size, each layer matches its diff_id, and a few files are
# where the node needs them. Quick once the images are cached (~10 s, mostly gunzipping opctl's layers).
#
#   tests/testenv/images/test_images.sh                 # all images
#   tests/testenv/images/test_images.sh shell pause     # some
#   tests/testenv/images/test_images.sh --containerd    # also import into a private containerd and run them
#                                                        # (needs root, containerd, runc; ~20 s)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
with_ctr=0
args=()
for a in "$@"; do
  if [[ $a == --containerd ]]; then with_ctr=1; else args+=("$a"); fi
done
# IMAGES_DIR=DIR checks the archives in DIR (a directory build.sh printed) instead of calling build.sh.
dir=${IMAGES_DIR:-$("$here/build.sh" ${args[@]+"${args[@]}"})}

declare -A expect=(
  [pause]="localhost/pause:1"
  [shell]="localhost/shell:1"
  [nginx]="localhost/nginx:1 docker.io/library/nginx:1.27"
  [debian]="localhost/debian:bookworm-slim"
  [opctl]="localhost/opctl:dev"
  [postgresql]="localhost/opctl-postgresql:15 localhost/opctl-postgresql:15-update ghcr.io/opctl/postgresql:15-0.1.0"
  [postgresql17]="localhost/opctl-postgresql:17"
)
fail=0
n=0
for f in "$dir"/*.oci.tar; do
  r=${f##*/}
  r=${r%.oci.tar}
  n=$((n + 1))
  [[ -n ${expect[$r]:-} ]] || { echo "FAIL $r: no expected names in test_images.sh" >&2; fail=1; continue; }
  va=()
  for nm in ${expect[$r]}; do va+=(--name "$nm"); done
  if python3 "$here/oci.py" verify "$f" "${va[@]}" && python3 - "$f" "$r" <<'PY'; then echo "ok   $r"; else echo "FAIL $r" >&2; fail=1; fi
import gzip, json, sys, tarfile
path, recipe = sys.argv[1], sys.argv[2]
t = tarfile.open(path)
read = lambda n: t.extractfile("blobs/sha256/" + n.split(":")[1]).read()
idx = json.loads(t.extractfile("index.json").read())
man = json.loads(read(idx["manifests"][0]["digest"]))
cfg = json.loads(read(man["config"]["digest"]))
files = {}
for l in man["layers"]:
    for m in tarfile.open(fileobj=__import__("io").BytesIO(gzip.decompress(read(l["digest"])))):
        files["/" + m.name.lstrip("./")] = m
bad = []
def need(p, ok=lambda m: True, why="missing"):
    if p not in files or not ok(files[p]):
        bad.append("%s: %s" % (p, why))
c = cfg["config"]
if recipe == "pause":
    need("/pause", lambda m: m.isreg() and m.mode & 0o111)
    if set(files) - {"/pause", "/"}:
        bad.append("pause has more than /pause: %s" % sorted(files)[:5])
    if c.get("Entrypoint") != ["/pause", "-P"]: bad.append("entrypoint %s" % c.get("Entrypoint"))
elif recipe == "shell":
    for a in "sh cat echo sleep wget nc nslookup ls mkdir env id hostname timeout".split():
        need("/bin/" + a, lambda m: m.issym(), "not an applet symlink")
    need("/bin/busybox", lambda m: m.isreg())
    need("/tmp", lambda m: m.isdir() and m.mode & 0o7777 == 0o1777, "not mode 1777")
    need("/etc/passwd"); need("/etc/group")
    if c.get("Cmd") != ["sh"] or c.get("Entrypoint"): bad.append("cmd/entrypoint %s %s" % (c.get("Cmd"), c.get("Entrypoint")))
elif recipe == "nginx":
    need("/usr/sbin/nginx"); need("/var/www/html/index.nginx-debian.html")
    junk = [p for p in files if p.startswith(("/usr/share/man/", "/var/lib/apt/lists/")) and files[p].isreg()
            and files[p].size > 0  # apt's empty lists/lock stays, as in the official images
            or p.startswith("/usr/share/doc/") and files[p].isreg() and not p.endswith("/copyright")]
    if junk: bad.append("docs/man/apt lists in the rootfs: %s" % junk[:5])
    if any(p.startswith("/dev/") for p in files): bad.append("device nodes in the rootfs")
    if c.get("Cmd") != ["nginx", "-g", "daemon off;"]: bad.append("cmd %s" % c.get("Cmd"))
elif recipe == "debian":
    need("/usr/bin/apt-get"); need("/usr/sbin/useradd")
elif recipe == "opctl":
    need("/usr/local/bin/opctl", lambda m: m.isreg() and m.mode & 0o111)
    if c.get("Entrypoint") != ["/usr/local/bin/opctl"]: bad.append("entrypoint %s" % c.get("Entrypoint"))
elif recipe == "postgresql":
    need("/usr/local/bin/opctl", lambda m: m.isreg() and m.mode & 0o111)
    need("/usr/lib/postgresql/15/bin/postgres", lambda m: m.isreg() and m.mode & 0o111)
    need("/usr/lib/postgresql/15/bin/pg_basebackup", lambda m: m.isreg() and m.mode & 0o111)
    for tool in ("backup", "wal-archive", "wal-restore", "restore", "backup-delete", "backup-list"):
        need("/usr/bin/barman-cloud-" + tool, lambda m: m.isreg() and m.mode & 0o111)
    need("/run/opctl", lambda m: m.isdir() and (m.uid, m.gid) == (26, 26), "not a directory owned by 26:26")
    need("/etc/postgresql-common/createcluster.conf")
    if any(p.startswith("/var/lib/postgresql/15/") for p in files): bad.append("a cluster was created in the image")
    if c.get("Entrypoint") != ["/usr/local/bin/opctl", "instance", "run"]: bad.append("entrypoint %s" % c.get("Entrypoint"))
    if c.get("User") != "26:26": bad.append("user %s" % c.get("User"))
    if not any(e.startswith("PATH=/usr/lib/postgresql/15/bin:") for e in c.get("Env", [])): bad.append("env %s" % c.get("Env"))
elif recipe == "postgresql17":
    need("/usr/local/bin/opctl", lambda m: m.isreg() and m.mode & 0o111)
    for tool in "postgres initdb pg_ctl pg_basebackup pg_rewind pg_upgrade psql pg_dump".split():
        need("/usr/lib/postgresql/17/bin/" + tool, lambda m: m.isreg() and m.mode & 0o111)
    need("/usr/share/postgresql/17/postgres.bki")
    need("/run/opctl", lambda m: m.isdir() and (m.uid, m.gid) == (26, 26), "not a directory owned by 26:26")
    if any(p.startswith("/usr/lib/postgresql/15/") for p in files): bad.append("PostgreSQL 15 is in the image")
    if c.get("Entrypoint") != ["/usr/local/bin/opctl", "instance", "run"]: bad.append("entrypoint %s" % c.get("Entrypoint"))
    if c.get("User") != "26:26": bad.append("user %s" % c.get("User"))
    if not any(e.startswith("PATH=/usr/lib/postgresql/17/bin:") for e in c.get("Env", [])): bad.append("env %s" % c.get("Env"))
for b in bad: print("%s: %s" % (recipe, b), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
done
((n > 0)) || { echo "FAIL: no archives in $dir" >&2; exit 1; }
((fail == 0)) || exit 1

((with_ctr)) || exit 0
# Import into a private containerd (own config, root, state and socket under a temp dir; CRI plugin off) and run.
# containerd 1.6 still puts its shim sockets in /run/containerd/s while a container runs.
tmp=$(mktemp -d /tmp/images-ctr.XXXXXX)
sock=$tmp/containerd.sock
cat >"$tmp/config.toml" <<TOML
version = 2
root = "$tmp/root"
state = "$tmp/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$sock"
[ttrpc]
  address = "$sock.ttrpc"
TOML
containerd --config "$tmp/config.toml" >"$tmp/containerd.log" 2>&1 &
cpid=$!
cleanup() {
  kill "$cpid" 2>/dev/null && wait "$cpid" 2>/dev/null
  umount -R "$tmp/root" "$tmp/state" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
for _ in $(seq 50); do [[ -S $sock ]] && break; sleep 0.1; done
ctr() { command ctr -n k8s.io --address "$sock" "$@"; }
for f in "$dir"/*.oci.tar; do
  s=$(date +%s%N)
  ctr images import "$f" >/dev/null
  echo "imported ${f##*/} in $((($(date +%s%N) - s) / 1000000)) ms"
done
ctr images ls -q
check() { # NAME EXPECTED-SUBSTRING CMD...   ($runopts: extra `ctr run` options)
  local img=$1 want=$2 out
  shift 2
  if ! out=$(ctr images ls -q | grep -x "$img" >/dev/null && ctr run --rm ${runopts:-} "$img" "t$RANDOM" "$@" 2>&1) ||
    [[ $out != *"$want"* ]]; then
    echo "FAIL ctr run $img $*: $out" >&2
    return 1
  fi
  echo "ok   ctr run $img ${*:-(default)}: $(head -1 <<<"$out")"
}
rc=0
for f in "$dir"/*.oci.tar; do
  case ${f##*/} in
  shell.oci.tar) check localhost/shell:1 hi sh -c 'echo hi; id; ls -ld /tmp' || rc=1 ;;
  pause.oci.tar) check localhost/pause:1 catatonit /pause --version || rc=1 ;;
  nginx.oci.tar)
    check docker.io/library/nginx:1.27 'syntax is ok' nginx -t || rc=1
    # Serves Debian's default page on port 80 (fetched with the host's busybox mounted in; the image has no client).
    runopts="--mount type=bind,src=/bin/busybox,dst=/busybox,options=rbind:ro" check localhost/nginx:1 'Welcome to nginx' \
      sh -c 'nginx && timeout 5 /busybox wget -qO- http://127.0.0.1:80/ | /busybox grep "<title>"' || rc=1
    ;;
  opctl.oci.tar) check localhost/opctl:dev opctl /usr/local/bin/opctl version || rc=1 ;;
  postgresql.oci.tar)
    check localhost/opctl-postgresql:15 '(PostgreSQL) 15.' postgres --version || rc=1
    check localhost/opctl-postgresql:15-update opctl /usr/local/bin/opctl version || rc=1
    check localhost/opctl-postgresql:15 'barman-cloud-wal-archive 3.4' barman-cloud-wal-archive --version || rc=1
    ;;
  postgresql17.oci.tar) check localhost/opctl-postgresql:17 '(PostgreSQL) 17.' pg_upgrade --version || rc=1 ;;
  debian.oci.tar) check localhost/debian:bookworm-slim bookworm cat /etc/os-release || rc=1 ;;
  esac
done
exit $rc
