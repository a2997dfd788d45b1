# Redis for the local compose stack (docker-compose.yml). `redis:7` cannot be
# pulled where no registry is reachable, so this is Debian bookworm's
# redis-server (7.0) on the same base as the service image. /var/cache/apt
# goes too: the debootstrapped base, unlike Debian's official images, has no
# docker-clean apt hook, so apt's ~40 MB package caches would stay.
ARG BASE=rewardbox/debian-base:bookworm
FROM ${BASE}
RUN set -eux; \
    apt-get update; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server; \
    rm -rf /var/lib/apt/lists/* /var/cache/apt/*
USER redis
EXPOSE 6379
# --bind 0.0.0.0 / --protected-mode no: other containers connect over the
# compose network; the port is never published on the host, so that network
# is the only way in. --save "": no snapshots; queue and results are
# short-lived (results expire after REWARDBOX_RESULT_TTL_S anyway).
CMD ["redis-server", "--bind", "0.0.0.0", "--protected-mode", "no", "--save", "", "--appendonly", "no"]
