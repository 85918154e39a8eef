#!/usr/bin/env bash
# Proves the release on a machine with nothing else installed, as an operator would install it:
#   1. the release archive (scripts/release.sh, or --archive FILE);
#   2. a minimal Debian 12 root filesystem (debootstrap --variant=minbase): no Swift, no compiler, nothing of ours;
#   3. the archive's server in it (chroot, as an unprivileged user, with the one package the archive's README asks
#      for), and from outside the archive's `passkey` CLI registers and signs in, and the demo page loads;
#   4. the container image from deploy/Containerfile, on that root filesystem imported as debian:bookworm-slim (no
#      registry is needed): the same ceremonies against the running container, its HEALTHCHECK, a non-root user, and
#      a passkey that still signs in after the container is replaced (the volume keeps the data);
#   5. the systemd unit: systemd-analyze verify, and its security exposure.
# Each step's time is printed. Needs root, debootstrap, podman and runc (Debian's packages), curl, and a Debian
# mirror (PASSKEY_DEBIAN_MIRROR, default http://deb.debian.org/debian).
#
# Usage: scripts/prove-release.sh [--archive dist/passkey-<version>-linux-<arch>.tar.gz] [--keep]
# Everything it makes lives in one temporary folder, removed at the end (kept with --keep); podman uses its own
# storage there, so the machine's images and containers are not touched.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

archive=""
keep=no
while [ $# -gt 0 ]; do
    case "$1" in
        --archive) archive="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift 2 ;;
        --keep) keep=yes; shift ;;
        *) echo "usage: scripts/prove-release.sh [--archive FILE] [--keep]" >&2; exit 2 ;;
    esac
done
[ "$(id -u)" = 0 ] || { echo "prove-release: needs root (chroot, mounts, podman)" >&2; exit 2; }
for tool in debootstrap podman runc curl; do
    command -v "$tool" >/dev/null || { echo "prove-release: $tool is missing (apt-get install debootstrap podman runc curl)" >&2; exit 2; }
done
mirror=${PASSKEY_DEBIAN_MIRROR:-http://deb.debian.org/debian}

work=$(mktemp -d /tmp/passkey-release-proof.XXXXXX)
root="$work/rootfs"
chroot_server=""
export CONTAINERS_CONF="$work/containers.conf" CONTAINERS_STORAGE_CONF="$work/storage.conf"
cleanup() {
    status=$?
    if [ -n "$chroot_server" ]; then kill "$chroot_server" 2>/dev/null || true; wait "$chroot_server" 2>/dev/null || true; fi
    if [ -f "$CONTAINERS_CONF" ]; then
        podman rm -f -t 5 passkey-proof >/dev/null 2>&1 || true
        podman system reset -f >/dev/null 2>&1 || true
    fi
    umount "$root/proc" 2>/dev/null || true
    if [ "$status" != 0 ]; then
        echo "== prove-release FAILED (exit $status); logs:" >&2
        for log in "$work"/*.log; do [ -f "$log" ] && { echo "-- $log" >&2; tail -30 "$log" >&2; }; done
    fi
    if [ "$keep" = yes ]; then echo "kept $work"; else rm -rf "$work"; fi
    exit "$status"
}
trap cleanup EXIT

step_start=0
step() { step_start=$(date +%s%N); echo "== $1"; }
took() { local ms=$(( ($(date +%s%N) - step_start) / 1000000 )); printf '   %s took %d.%d s\n' "$1" $((ms / 1000)) $((ms % 1000 / 100)); }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Waits until the server at port $1 answers /health, running the health check given as the remaining arguments.
wait_healthy() {
    local port=$1; shift
    for _ in $(seq 1 120); do
        if "$@" >/dev/null 2>&1; then return 0; fi
        sleep 0.5
    done
    echo "the server on port $port never became healthy" >&2
    return 1
}

# Registers a passkey with the archive's CLI at $1 (a base URL) for user $2, signs in with it by name and without
# (discoverable), and loads the demo page and its script.
ceremonies() {
    local url=$1 user=$2 store="$work/credentials-$2.json"
    "$cli" register --server "$url" --username "$user" --store "$store" | tee -a "$work/cli.log"
    "$cli" login --server "$url" --username "$user" --store "$store" | tee -a "$work/cli.log"
    "$cli" login --server "$url" --store "$store" | tee -a "$work/cli.log"
    # Read whole before searching: `curl | grep -q` fails (curl's 23 under pipefail) when grep stops at an early match.
    local page script
    page=$(curl -fsS "$url/") && grep -q '<title>' <<<"$page" || { echo "the demo page at $url/ did not load" >&2; return 1; }
    script=$(curl -fsS "$url/demo.js") && grep -q 'navigator.credentials' <<<"$script" || { echo "$url/demo.js did not load" >&2; return 1; }
    echo "   demo page and script load from $url"
}

# 1. The archive.
step "release archive"
if [ -z "$archive" ]; then
    scripts/release.sh --output "$work/dist" > "$work/release.log" 2>&1
    archive=$(ls "$work"/dist/passkey-*-linux-*.tar.gz)
fi
(cd "$(dirname "$archive")" && sha256sum --check --quiet "$(basename "$archive").sha256")
name=$(basename "$archive" .tar.gz)
mkdir -p "$work/host" && tar -C "$work/host" -xzf "$archive"
(cd "$work/host/$name" && sha256sum --check --quiet SHA256SUMS)
cli="$work/host/$name/passkey"
"$cli" --version
echo "   $(basename "$archive"): $(du -h "$archive" | cut -f1)"
took "archive"

# 2. A Debian 12 root filesystem with nothing else in it.
step "minimal Debian 12 root filesystem (debootstrap --variant=minbase bookworm)"
debootstrap --variant=minbase bookworm "$root" "$mirror" > "$work/debootstrap.log" 2>&1
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
echo "   $(du -sh "$root" | cut -f1), $(chroot "$root" dpkg-query -f '.\n' -W | wc -l) packages; no swift: $(chroot "$root" sh -c 'command -v swift || echo none')"
# The container's base image is this same tree, taken now, before the chroot run adds SQLite: like debian:bookworm-slim,
# it lacks libsqlite3-0, so the Containerfile's own install is what the image test exercises.
tar -C "$root" -cf "$work/base.tar" .
took "root filesystem"

# 3. The archive's server in the chroot.
step "archive in the chroot: install as the archive's README says, serve, ceremonies from outside"
cp /etc/resolv.conf "$root/etc/resolv.conf"
chroot "$root" apt-get update -qq > "$work/chroot-apt.log" 2>&1
chroot "$root" apt-get install -y -qq --no-install-recommends libsqlite3-0 >> "$work/chroot-apt.log" 2>&1
mkdir -p "$root/opt" && tar -C "$root/opt" -xzf "$archive" && mv "$root/opt/$name" "$root/opt/passkey-server"
mkdir -p "$root/var/lib/passkey-server" && chown 65534:65534 "$root/var/lib/passkey-server"
mount -t proc proc "$root/proc"
port=$(free_port)
chroot --userspec=65534:65534 "$root" /opt/passkey-server/passkey-server --port "$port" \
    --database sqlite:/var/lib/passkey-server/passkey.sqlite > "$work/chroot-server.log" 2>&1 &
chroot_server=$!
wait_healthy "$port" chroot --userspec=65534:65534 "$root" /opt/passkey-server/passkey-server health --port "$port"
chroot --userspec=65534:65534 "$root" /opt/passkey-server/passkey-server health --port "$port"
ceremonies "http://localhost:$port" chroot-user
kill "$chroot_server" && wait "$chroot_server" || true
chroot_server=""
grep -q "passkey-server serving http://localhost:$port" "$work/chroot-server.log"
umount "$root/proc"
took "chroot"

# 4. The container image.
step "container image from deploy/Containerfile"
cat > "$CONTAINERS_CONF" <<CONF
[engine]
# crun refuses hosts with hybrid cgroups; runc runs on them.
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
cat > "$CONTAINERS_STORAGE_CONF" <<CONF
[storage]
driver = "vfs"
graphroot = "$work/containers/storage"
runroot = "$work/containers/run"
CONF
podman import --quiet "$work/base.tar" docker.io/library/debian:bookworm-slim > /dev/null
rm "$work/base.tar"
context="$work/context" && mkdir -p "$context" && cp "$archive" "$context/"
podman build --quiet --network=host --format docker -f "$repo/deploy/Containerfile" \
    --build-arg ARCHIVE="$(basename "$archive")" -t localhost/passkey-server:proof "$context" > "$work/build.log" 2>&1
size=$(podman image inspect --format '{{.Size}}' localhost/passkey-server:proof)
echo "   image localhost/passkey-server:proof: $((size / 1000000)) MB (base $(($(podman image inspect --format '{{.Size}}' docker.io/library/debian:bookworm-slim) / 1000000)) MB)"
took "image build"

step "container: serve on a published loopback port, health check, ceremonies, restart with the same volume"
port=$(free_port)
run_container() {
    # The host's limits are the highest root may set here; the defaults of podman ask for more. Without systemd podman
    # cannot schedule the HEALTHCHECK's timer (it says so on standard error, kept in podman.log): the check is run by
    # hand below instead.
    podman run -d --name passkey-proof -p "127.0.0.1:$port:8080" -v passkey-proof-data:/data \
        --ulimit nofile=20000:20000 --ulimit nproc=4096:4096 --health-interval disable \
        -e PASSKEY_ORIGIN="http://localhost:$port" localhost/passkey-server:proof > /dev/null 2>> "$work/podman.log"
    wait_healthy "$port" curl -fsS "http://127.0.0.1:$port/health"
}
run_container
user=$(podman exec passkey-proof /usr/bin/id -u)
[ "$user" = 10001 ] || { echo "the server runs as uid $user, not 10001" >&2; exit 1; }
echo "   runs as uid $user"
podman healthcheck run passkey-proof 2>> "$work/podman.log"
echo "   HEALTHCHECK: $(podman inspect --format '{{.State.Health.Status}}' passkey-proof)"
ceremonies "http://localhost:$port" container-user
podman logs passkey-proof > "$work/container-server.log" 2>&1
grep -q "passkey-server serving http://0.0.0.0:8080" "$work/container-server.log"
# A new container on the same volume: the passkey registered in the old one still signs in.
podman stop -t 10 passkey-proof > /dev/null 2>> "$work/podman.log" && podman rm passkey-proof > /dev/null 2>> "$work/podman.log"
run_container
"$cli" login --server "http://localhost:$port" --username container-user --store "$work/credentials-container-user.json"
echo "   the passkey registered before the container was replaced still signs in"
took "container"

# 5. The systemd unit, as shipped in the archive.
step "systemd unit"
unit="$work/host/$name/passkey-server.service"
if command -v systemd-analyze >/dev/null; then
    sed "s|^ExecStart=/opt/passkey-server/passkey-server|ExecStart=$work/host/$name/passkey-server|" "$unit" > "$work/passkey-server.service"
    systemd-analyze verify "$work/passkey-server.service"
    echo "   systemd-analyze verify: clean; $(systemd-analyze security --offline=true "$work/passkey-server.service" 2>/dev/null | tail -1)"
else
    echo "   systemd-analyze is missing: unit not checked" >&2
    exit 1
fi
took "unit"
echo "== release proven: archive, chroot on bare Debian 12, container image, systemd unit"
