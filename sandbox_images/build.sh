#!/usr/bin/env bash
# Build the sandbox images: rewardbox/sandbox-<language>:latest.
#
#   sandbox_images/build.sh [--base auto|registry|debootstrap] [LANGUAGE ...]
#
# Each language folder holds a Dockerfile built FROM $BASE with the executor
# (service/sandbox/executor) copied in. BASE is the official debian image when a
# registry is reachable; without one (--base debootstrap, or auto when the pull
# fails) a Debian bookworm base is made with debootstrap from Debian's package
# mirror and `docker import`ed as rewardbox/debian-base:bookworm.
# After building, every language's echo self-test runs in a real sandbox.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
base_mode=auto
langs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --base) base_mode=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) langs+=("$1"); shift ;;
  esac
done
if [ ${#langs[@]} -eq 0 ]; then
  for d in "$here"/*/; do [ -f "$d/Dockerfile" ] && langs+=("$(basename "$d")"); done
fi
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=bookworm
local_base=rewardbox/debian-base:$suite

debootstrap_base() {
  if docker image inspect "$local_base" >/dev/null 2>&1; then echo "$local_base"; return; fi
  command -v debootstrap >/dev/null || { echo "debootstrap is not installed (apt-get install debootstrap)" >&2; exit 1; }
  rootfs=$(mktemp -d)
  echo "debootstrap $suite into $rootfs ..." >&2
  if ! debootstrap --variant=minbase --include=python3 "$suite" "$rootfs" "$mirror" > "$rootfs.log" 2>&1; then
    tail -20 "$rootfs.log" >&2; exit 1
  fi
  rm -f "$rootfs.log"
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | docker import - "$local_base" >/dev/null
  rm -rf "$rootfs"
  echo "$local_base"
}

case "$base_mode" in
  registry) base=debian:$suite-slim ;;
  debootstrap) base=$(debootstrap_base) ;;
  auto)
    if docker image inspect "debian:$suite-slim" >/dev/null 2>&1 || timeout 60 docker pull -q "debian:$suite-slim" >/dev/null 2>&1; then
      base=debian:$suite-slim
    else
      base=$(debootstrap_base)
    fi ;;
  *) echo "unknown --base $base_mode" >&2; exit 2 ;;
esac

for lang in "${langs[@]}"; do
  ctx=$(mktemp -d)
  cp -r "$here/$lang/." "$ctx/"
  mkdir -p "$ctx/executor" "$ctx/extra-ca"
  cp "$root"/service/sandbox/executor/*.py "$root"/service/sandbox/executor/*.js "$ctx/executor/"
  # Extra CA certificates of this host (e.g. a TLS-inspecting proxy in front of
  # the package registries), for build steps that download (npm).
  cp /usr/local/share/ca-certificates/*.crt "$ctx/extra-ca/" 2>/dev/null || true
  echo "building rewardbox/sandbox-$lang from $base" >&2
  if ! docker build -q --network host --build-arg "BASE=$base" -t "rewardbox/sandbox-$lang:latest" "$ctx" \
      >"$ctx.log" 2>&1; then
    tail -30 "$ctx.log" >&2; exit 1
  fi
  rm -f "$ctx.log"
  rm -rf "$ctx"
done
docker image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep '^rewardbox/sandbox-' >&2 || true
