#!/usr/bin/env bash
# Builds the release archive of passkey-server and the passkey CLI:
#   dist/passkey-<version>-linux-<arch>.tar.gz  (and its .sha256)
# holding both executables (release mode, the Swift runtime linked in statically, stripped), the resource bundles they
# read beside them, LICENSE, the operators' README, the systemd unit, an example settings file, VERSION and SHA256SUMS.
#
# Needs the Swift toolchain, and libcurl's development files (libcurl4-openssl-dev): with the runtime linked in
# statically, the CLI's URLSession links libcurl itself.
#
# Usage: scripts/release.sh [--output DIR]
# The commit is written into the build (Sources/PasskeyVersion/BuildCommit.swift, put back afterwards), so
# `passkey-server --version` prints it; a tree with uncommitted changes is marked "-dirty".
set -euo pipefail
cd "$(dirname "$0")/.."

output=dist
while [ $# -gt 0 ]; do
    case "$1" in
        --output) output="$2"; shift 2 ;;
        *) echo "usage: scripts/release.sh [--output DIR]" >&2; exit 2 ;;
    esac
done

version=$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/PasskeyVersion/PasskeyVersion.swift)
commit=$(git rev-parse --short=12 HEAD)
[ -z "$(git status --porcelain --untracked-files=no)" ] || commit="$commit-dirty"
arch=$(uname -m)
name="passkey-$version-linux-$arch"
echo "== release $name (commit $commit)"

# The commit goes into this build only.
commit_file=Sources/PasskeyVersion/BuildCommit.swift
cp "$commit_file" "$commit_file.orig"
restore() { mv -f "$commit_file.orig" "$commit_file"; }
trap restore EXIT
cat > "$commit_file" <<SWIFT
extension PasskeyVersion {
    static let buildCommit: String? = "$commit"
}
SWIFT

start=$(date +%s)
for product in passkey-server passkey; do
    swift build -c release --static-swift-stdlib --product "$product"
done
echo "built in $(( $(date +%s) - start )) s"
bin=$(swift build -c release --static-swift-stdlib --show-bin-path)

stage="$output/$name"
rm -rf "$stage" && mkdir -p "$stage"
for product in passkey-server passkey; do
    cp "$bin/$product" "$stage/"
    strip "$stage/$product"
done
# The bundles the executables open at run time (found beside the executable): the demo page and dashboard, the
# authenticator names, GRDB's. Test bundles are left out.
for bundle in "$bin"/*.resources; do
    case "$(basename "$bundle")" in *Tests.resources) continue ;; esac
    cp -R "$bundle" "$stage/"
done
cp LICENSE "$stage/"
cp deploy/README.md "$stage/README.md"
cp deploy/passkey-server.service deploy/passkey-server.conf.example "$stage/"
echo "$version ($commit)" > "$stage/VERSION"
(cd "$stage" && find . -type f ! -name SHA256SUMS -print0 | sort -z | xargs -0 sha256sum > SHA256SUMS)

# The executables say what they are.
"$stage/passkey-server" --version
"$stage/passkey" --version

tar -C "$output" -czf "$output/$name.tar.gz" "$name"
(cd "$output" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
echo "== $output/$name.tar.gz: $(du -h "$output/$name.tar.gz" | cut -f1) ($(du -sh "$stage" | cut -f1) unpacked; passkey-server $(du -h "$stage/passkey-server" | cut -f1))"
