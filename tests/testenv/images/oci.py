#!/usr/bin/env python3
"""OCI image archives for the testenv node, without a registry or a daemon.

  oci.py pack --out A.oci.tar (--rootfs DIR | --layer ROOTFS.tar) --name NAME... [--entrypoint JSON]
              [--cmd JSON] [--env K=V]... [--workdir DIR] [--user U] [--expose 80/tcp]...
      one-layer image; the layer is written deterministically (sorted, mtime 0, gzip -n; --rootfs keeps numeric owners)
  oci.py name --layout DIR --out A.oci.tar --name NAME...
      tar an OCI layout (e.g. from `buildah push ... oci:DIR`) with one index entry per NAME
  oci.py verify A.oci.tar --name NAME...
      index.json names exactly NAME...; every blob's sha256 and size match; config/layers present
  oci.py context REPO
      deterministic tar (stdout) of REPO's build context: tracked files as in the work tree and untracked files
      .gitignore does not ignore, minus what REPO/.dockerignore excludes (Docker's pattern rules)

Every index entry carries `io.containerd.image.name` (the full name; what `ctr images import` uses) and
`org.opencontainers.image.ref.name` (the tag, as `ctr images export` writes it).
"""
import argparse
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile

MT_INDEX = "application/vnd.oci.image.index.v1+json"
MT_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
MT_CONFIG = "application/vnd.oci.image.config.v1+json"
MT_LAYER_GZ = "application/vnd.oci.image.layer.v1.tar+gzip"
DEFAULT_PATH = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def die(msg):
    sys.stderr.write("oci.py: %s\n" % msg)
    sys.exit(1)


class HashWriter(io.RawIOBase):
    """File wrapper that hashes and counts what is written through it."""

    def __init__(self, f):
        self.f, self.h, self.n = f, hashlib.sha256(), 0

    def writable(self):
        return True

    def write(self, b):
        self.h.update(b)
        self.n += len(b)
        return self.f.write(b)


def add_blob(blobs, data):
    d = hashlib.sha256(data).hexdigest()
    with open(os.path.join(blobs, d), "wb") as f:
        f.write(data)
    return "sha256:" + d, len(data)


def normalize(ti, keep_owner=False):
    if not keep_owner:
        ti.uid = ti.gid = 0
    ti.uname = ti.gname = ""
    ti.mtime = 0
    ti.pax_headers = {}
    return ti


def write_layer(blobs, rootfs=None, layer=None):
    """Writes a gzip layer blob; returns (digest, size, diff_id)."""
    tmp = tempfile.NamedTemporaryFile(dir=blobs, delete=False)
    with tmp:
        comp = HashWriter(tmp)
        with gzip.GzipFile(fileobj=comp, mode="wb", compresslevel=6, mtime=0, filename="") as gz:
            raw = HashWriter(gz)
            buf = io.BufferedWriter(raw, 1 << 20)
            if rootfs is not None:
                with tarfile.open(fileobj=buf, mode="w|", format=tarfile.GNU_FORMAT) as out:
                    entries = []
                    for top, dirs, files in os.walk(rootfs):
                        dirs.sort()
                        for n in sorted(dirs + files):
                            entries.append(os.path.join(top, n))
                    entries.sort()
                    for p in entries:
                        rel = os.path.relpath(p, rootfs)
                        ti = normalize(out.gettarinfo(p, rel), keep_owner=True)
                        if ti.isreg():
                            with open(p, "rb") as f:
                                out.addfile(ti, f)
                        else:
                            out.addfile(ti)
            else:
                opener = gzip.open if layer.endswith(".gz") else open
                with opener(layer, "rb") as f:
                    shutil.copyfileobj(f, buf, 1 << 20)
            buf.flush()
    digest = comp.h.hexdigest()
    os.rename(tmp.name, os.path.join(blobs, digest))
    return "sha256:" + digest, comp.n, "sha256:" + raw.h.hexdigest()


def tag_of(name):
    last = name.rsplit("/", 1)[-1]
    return last.split(":", 1)[1] if ":" in last else "latest"


def index_for(manifest_desc, names):
    return {
        "schemaVersion": 2,
        "mediaType": MT_INDEX,
        "manifests": [
            dict(manifest_desc, annotations={"io.containerd.image.name": n,
                                             "org.opencontainers.image.ref.name": tag_of(n)})
            for n in names
        ],
    }


def tar_layout(layout, out):
    """Writes the layout directory as a deterministic tar, atomically."""
    tmp = out + ".tmp%d" % os.getpid()
    with tarfile.open(tmp, "w", format=tarfile.GNU_FORMAT) as t:
        for rel in ["oci-layout", "index.json"]:
            t.add(os.path.join(layout, rel), rel, filter=normalize)
        t.add(os.path.join(layout, "blobs"), "blobs", recursive=False, filter=normalize)
        t.add(os.path.join(layout, "blobs", "sha256"), "blobs/sha256", recursive=False, filter=normalize)
        for b in sorted(os.listdir(os.path.join(layout, "blobs", "sha256"))):
            t.add(os.path.join(layout, "blobs", "sha256", b), "blobs/sha256/" + b, filter=normalize)
    os.replace(tmp, out)


def cmd_pack(a):
    if (a.rootfs is None) == (a.layer is None):
        die("pack needs exactly one of --rootfs, --layer")
    work = tempfile.mkdtemp(prefix="oci-pack.", dir=os.path.dirname(os.path.abspath(a.out)))
    try:
        blobs = os.path.join(work, "blobs", "sha256")
        os.makedirs(blobs)
        ldigest, lsize, diff_id = write_layer(blobs, rootfs=a.rootfs, layer=a.layer)
        cfg = {}
        if a.user:
            cfg["User"] = a.user
        if a.expose:
            cfg["ExposedPorts"] = {p: {} for p in a.expose}
        cfg["Env"] = [DEFAULT_PATH] + a.env
        if a.entrypoint:
            cfg["Entrypoint"] = json.loads(a.entrypoint)
        if a.cmd:
            cfg["Cmd"] = json.loads(a.cmd)
        if a.workdir:
            cfg["WorkingDir"] = a.workdir
        if a.label:
            cfg["Labels"] = dict(kv.split("=", 1) for kv in a.label)
        config = {
            "created": "1970-01-01T00:00:00Z",
            "architecture": "amd64",
            "os": "linux",
            "config": cfg,
            "rootfs": {"type": "layers", "diff_ids": [diff_id]},
            "history": [{"created": "1970-01-01T00:00:00Z", "created_by": "tests/testenv/images/oci.py pack"}],
        }
        cdigest, csize = add_blob(blobs, json.dumps(config, sort_keys=True, separators=(",", ":")).encode())
        manifest = {
            "schemaVersion": 2,
            "mediaType": MT_MANIFEST,
            "config": {"mediaType": MT_CONFIG, "digest": cdigest, "size": csize},
            "layers": [{"mediaType": MT_LAYER_GZ, "digest": ldigest, "size": lsize}],
        }
        mdigest, msize = add_blob(blobs, json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode())
        mdesc = {"mediaType": MT_MANIFEST, "digest": mdigest, "size": msize,
                 "platform": {"architecture": "amd64", "os": "linux"}}
        with open(os.path.join(work, "index.json"), "w") as f:
            json.dump(index_for(mdesc, a.name), f, sort_keys=True, separators=(",", ":"))
        with open(os.path.join(work, "oci-layout"), "w") as f:
            f.write('{"imageLayoutVersion":"1.0.0"}')
        tar_layout(work, a.out)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def cmd_name(a):
    with open(os.path.join(a.layout, "index.json")) as f:
        idx = json.load(f)
    digests = {m["digest"] for m in idx.get("manifests", [])}
    if len(digests) != 1:
        die("%s/index.json: expected one image, found %d" % (a.layout, len(digests)))
    m = dict(idx["manifests"][0])
    m.pop("annotations", None)
    if "platform" not in m and m.get("mediaType") == MT_MANIFEST:
        m["platform"] = {"architecture": "amd64", "os": "linux"}
    with open(os.path.join(a.layout, "index.json"), "w") as f:
        json.dump(index_for(m, a.name), f, sort_keys=True, separators=(",", ":"))
    tar_layout(a.layout, a.out)


def cmd_verify(a):
    problems = []
    with tarfile.open(a.archive) as t:
        members = {m.name.lstrip("./"): m for m in t.getmembers() if m.isfile()}

        def read(name):
            m = members.get(name)
            if m is None:
                raise KeyError(name)
            return t.extractfile(m).read()

        def blob(desc, what):
            d = desc["digest"]
            alg, hexd = d.split(":", 1)
            data = read("blobs/%s/%s" % (alg, hexd))
            if hashlib.sha256(data).hexdigest() != hexd:
                problems.append("%s %s: content does not match its digest" % (what, d))
            if len(data) != desc["size"]:
                problems.append("%s %s: size %d, descriptor says %d" % (what, d, len(data), desc["size"]))
            return data

        try:
            layout = json.loads(read("oci-layout"))
            if layout.get("imageLayoutVersion") != "1.0.0":
                problems.append("oci-layout: %r" % layout)
            idx = json.loads(read("index.json"))
            names = [m.get("annotations", {}).get("io.containerd.image.name") for m in idx["manifests"]]
            if sorted(names) != sorted(a.name):
                problems.append("index.json names %s, expected %s" % (names, a.name))
            for md in idx["manifests"]:
                man = json.loads(blob(md, "manifest"))
                cfg = json.loads(blob(man["config"], "config"))
                if len(cfg["rootfs"]["diff_ids"]) != len(man["layers"]):
                    problems.append("config has %d diff_ids for %d layers" % (len(cfg["rootfs"]["diff_ids"]), len(man["layers"])))
                for ld, diff_id in zip(man["layers"], cfg["rootfs"]["diff_ids"]):
                    data = blob(ld, "layer")
                    if ld["mediaType"].endswith("gzip"):
                        data = gzip.decompress(data)
                    if "sha256:" + hashlib.sha256(data).hexdigest() != diff_id:
                        problems.append("layer %s: uncompressed digest is not diff_id %s" % (ld["digest"], diff_id))
                c = cfg.get("config", {})
                if not (c.get("Entrypoint") or c.get("Cmd")):
                    problems.append("config has neither Entrypoint nor Cmd")
                print("%s: %s layers=%d entrypoint=%s cmd=%s" % (
                    os.path.basename(a.archive), md["digest"][:19], len(man["layers"]),
                    json.dumps(c.get("Entrypoint")), json.dumps(c.get("Cmd"))))
        except KeyError as e:
            problems.append("missing from archive: %s" % e)
    for p in problems:
        sys.stderr.write("%s: %s\n" % (a.archive, p))
    return 1 if problems else 0


def dockerignore_matcher(repo):
    """Docker's .dockerignore rules (moby/patternmatcher): last matching pattern wins, `!` re-includes, a pattern
    that matches a parent directory excludes everything under it, `*` and `?` stay within one path element, `**`
    spans any number of them."""
    rules = []
    try:
        with open(os.path.join(repo, ".dockerignore")) as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return lambda path: False
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        neg = line.startswith("!")
        pat = os.path.normpath(line[1:].strip() if neg else line).lstrip("/")
        rx, i = "", 0
        while i < len(pat):
            c = pat[i]
            if pat.startswith("**/", i):
                rx, i = rx + "(?:.*/)?", i + 3
            elif pat.startswith("**", i):
                rx, i = rx + ".*", i + 2
            elif c == "*":
                rx, i = rx + "[^/]*", i + 1
            elif c == "?":
                rx, i = rx + "[^/]", i + 1
            elif c == "[":
                j = pat.find("]", i)
                if j < 0:
                    rx, i = rx + re.escape(c), i + 1
                else:
                    body = pat[i + 1:j].replace("\\", "\\\\")
                    if body.startswith("^"):
                        body = "!" + body[1:]
                    rx, i = rx + "[" + ("^" + body[1:] if body.startswith("!") else body) + "]", j + 1
            else:
                rx, i = rx + re.escape(c), i + 1
        rules.append((re.compile("^" + rx + "$"), neg))

    def excluded(path):
        parts = path.split("/")
        prefixes = ["/".join(parts[:k]) for k in range(1, len(parts) + 1)]
        out = False
        for rx, neg in rules:
            if any(rx.match(p) for p in prefixes):
                out = not neg
        return out

    return excluded


def cmd_context(a):
    files = subprocess.run(["git", "-C", a.repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           check=True, stdout=subprocess.PIPE).stdout.decode().split("\0")
    excluded = dockerignore_matcher(a.repo)
    names = sorted({f for f in files if f and not excluded(f) and os.path.lexists(os.path.join(a.repo, f))})
    with tarfile.open(fileobj=sys.stdout.buffer, mode="w|", format=tarfile.GNU_FORMAT) as out:
        for n in names:
            p = os.path.join(a.repo, n)
            ti = normalize(out.gettarinfo(p, n))
            if ti.isreg():
                with open(p, "rb") as f:
                    out.addfile(ti, f)
            else:
                out.addfile(ti)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    pk = sub.add_parser("pack")
    pk.add_argument("--out", required=True)
    pk.add_argument("--rootfs")
    pk.add_argument("--layer")
    pk.add_argument("--name", action="append", required=True)
    pk.add_argument("--entrypoint")
    pk.add_argument("--cmd")
    pk.add_argument("--env", action="append", default=[])
    pk.add_argument("--label", action="append", default=[])
    pk.add_argument("--workdir")
    pk.add_argument("--user")
    pk.add_argument("--expose", action="append", default=[])
    nm = sub.add_parser("name")
    nm.add_argument("--layout", required=True)
    nm.add_argument("--out", required=True)
    nm.add_argument("--name", action="append", required=True)
    vf = sub.add_parser("verify")
    vf.add_argument("archive")
    vf.add_argument("--name", action="append", required=True)
    cx = sub.add_parser("context")
    cx.add_argument("repo")
    a = p.parse_args()
    if a.command == "pack":
        cmd_pack(a)
    elif a.command == "name":
        cmd_name(a)
    elif a.command == "context":
        cmd_context(a)
    else:
        sys.exit(cmd_verify(a))


if __name__ == "__main__":
    main()
