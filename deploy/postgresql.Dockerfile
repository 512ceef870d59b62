# The PostgreSQL instance image of a Cluster (kind opctl.io/v1alpha1 Cluster): Debian's postgresql-15 with opctl as
# PID 1 (`opctl instance run` manages initdb, pg_basebackup, streaming, promotion; `opctl instance ready` is the
# readiness probe). Default imageName of a Cluster: ghcr.io/opctl/postgresql:15-0.1.0 (major = the tag's leading
# digits). Build, with the opctl image built from deploy/Dockerfile first:
#   docker build -f deploy/Dockerfile -t ghcr.io/opctl/opctl:0.1.0 .
#   docker build -f deploy/postgresql.Dockerfile -t ghcr.io/opctl/postgresql:15-0.1.0 .
# (the test node builds it as localhost/opctl-postgresql:15 with --build-arg OPCTL_IMAGE=localhost/opctl:dev,
# tests/testenv/images/postgresql.recipe).
ARG OPCTL_IMAGE=ghcr.io/opctl/opctl:0.1.0
FROM ${OPCTL_IMAGE} AS opctl

FROM debian:bookworm-slim
# uid/gid 26 first: postgresql-common's postinst creates a `postgres` user only when there is none, and the Pod runs
# as 26:26 (runAsUser/runAsGroup/fsGroup). Debian's base-passwd gives gid 26 to `tape` (no file in the image is
# of that group): it moves to 1026 so that gid 26 is `postgres`, as in CloudNativePG's images. postgresql-common is installed before postgresql-15 so that
# create_main_cluster = false is in place when postgresql-15's postinst runs: no cluster in the image, the manager
# runs initdb (or pg_basebackup) into PGDATA on the Pod's volume.
# barman-cli-cloud (Barman Cloud 3.4, what CloudNativePG runs, with python3-boto3): base backups and the WAL archive
# of a Backup whose target is an object store (S3 and compatible), taken where PGDATA is, in the instance.
# opctl's runtime libraries: the same list as deploy/Dockerfile's runtime stage.
# runtime-packages: libgit2-1.5 libyaml-0-2 libyaml-cpp0.7 libcurl4 libfmt9 libpq5 libre2-9 libstdc++6 libgcc-s1 libc6 ca-certificates
RUN groupmod --gid 1026 tape \
 && groupadd --gid 26 postgres \
 && useradd --uid 26 --gid 26 --home-dir /var/lib/postgresql --no-create-home --shell /bin/bash postgres \
 && apt-get update \
 && apt-get install -y --no-install-recommends postgresql-common \
 && sed -ri 's/^#? *create_main_cluster *=.*$/create_main_cluster = false/' /etc/postgresql-common/createcluster.conf \
 && grep -qx 'create_main_cluster = false' /etc/postgresql-common/createcluster.conf \
 && apt-get install -y --no-install-recommends postgresql-15 barman-cli-cloud \
      libgit2-1.5 libyaml-0-2 libyaml-cpp0.7 libcurl4 libfmt9 libpq5 libre2-9 libstdc++6 libgcc-s1 libc6 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && test ! -e /var/lib/postgresql/15/main \
 && mkdir -p /var/lib/postgresql/data /run/opctl /run/postgresql \
 && chown 26:26 /var/lib/postgresql /var/lib/postgresql/data /run/opctl /run/postgresql \
 && chmod 0700 /var/lib/postgresql/data /run/opctl
COPY --from=opctl /usr/local/bin/opctl /usr/local/bin/opctl
ENV PATH=/usr/lib/postgresql/15/bin:$PATH \
    LANG=C.UTF-8
USER 26:26
EXPOSE 5432
ENTRYPOINT ["/usr/local/bin/opctl","instance","run"]
