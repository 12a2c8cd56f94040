#!/usr/bin/env bash
# A local stand-in for node:24-bookworm-slim, for machines that reach no image registry (the container test builds the
# real Containerfile with --build-arg BASE_IMAGE=<this image>): Debian bookworm from Debian's own packages
# (debootstrap minbase, plus CA certificates so npm reaches its registry over TLS), Node 24 from the `node` package's
# binary, npm and the certificate authorities from this machine. Cached: the root file system under $CACHE, the image in podman's store.
# Usage: base-image.sh <image name> <node binary> <npm folder>
set -euo pipefail
IMAGE=$1
NODE=$2
NPM=$3
CACHE=${VIGIL_BASE_CACHE:-/var/tmp/vigil-base}

if podman image exists "$IMAGE"; then exit 0; fi
mkdir -p "$CACHE"
# one builder at a time (two test runs on one machine)
exec 9>"$CACHE/.lock"
flock 9
if podman image exists "$IMAGE"; then exit 0; fi

ROOTFS=$CACHE/rootfs
if [ ! -f "$ROOTFS/.complete" ]; then
  rm -rf "$ROOTFS"
  debootstrap --variant=minbase --include=ca-certificates bookworm "$ROOTFS" http://deb.debian.org/debian >"$CACHE/debootstrap.log" 2>&1
  # keep the image small: package lists and caches are not needed at run time
  rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/*
  touch "$ROOTFS/.complete"
fi

STAGE=$CACHE/stage
rm -rf "$STAGE"
mkdir -p "$STAGE/usr/local/bin" "$STAGE/usr/local/lib/node_modules"
cp "$NODE" "$STAGE/usr/local/bin/node"
# the `node` package's binary carries its debug information: 30 MB of it, not needed to run
strip --strip-debug "$STAGE/usr/local/bin/node" 2>/dev/null || true
cp -r "$NPM" "$STAGE/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$STAGE/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$STAGE/usr/local/bin/npx"
tar -C "$ROOTFS" --exclude=./.complete -c . | tar -C "$STAGE" -x
# this machine's certificate authorities (an intercepting proxy's among them, where the registry is reached through
# one), so npm inside the build reaches the registry as npm on this machine does
cp /etc/ssl/certs/ca-certificates.crt "$STAGE/etc/ssl/certs/ca-certificates.crt"
tar -C "$STAGE" -c . | podman import --change 'CMD ["node"]' --change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' - "$IMAGE" >/dev/null
rm -rf "$STAGE"
