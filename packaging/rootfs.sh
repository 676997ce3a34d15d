#!/bin/bash
# Builds, without a container engine, the filesystem the Dockerfile's final
# stage would contain: a minbase Debian of the same suite, the same packages,
# the same user and /workspace, and the fsmcp binary and health probe.
#
#   packaging/rootfs.sh BINARY ROOTFS
#
# Needs root and debootstrap (apt-get install debootstrap). The Debian part is
# kept between runs (ROOTFS.base); delete it to fetch again.
set -euo pipefail

bin=${1:?usage: rootfs.sh BINARY ROOTFS}
rootfs=${2:?usage: rootfs.sh BINARY ROOTFS}
here=$(cd "$(dirname "$0")" && pwd)
dockerfile=$here/../Dockerfile

[[ $(id -u) == 0 ]] || { echo "rootfs.sh: debootstrap and chroot need root" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "rootfs.sh: debootstrap is not installed (apt-get install debootstrap)" >&2; exit 1; }

# The suite and package list are read from the Dockerfile so the two agree.
suite=$(sed -n 's/^ARG DEBIAN=\(.*\)$/\1/p' "$dockerfile")
pkgs=$(sed -n 's/.*apt-get install -y --no-install-recommends \(.*\) \\$/\1/p' "$dockerfile")
uid=$(sed -n 's/^USER \([0-9]*\):.*/\1/p' "$dockerfile")
[[ -n $suite && -n $pkgs && -n $uid ]] || { echo "rootfs.sh: cannot read ARG DEBIAN, the apt-get install line or USER from $dockerfile" >&2; exit 1; }

base=$rootfs.base
mkdir -p "$(dirname "$rootfs")"
if [[ ! -e $base/.done ]]; then
	rm -rf "$base"
	echo "rootfs.sh: debootstrap --variant=minbase $suite with: $pkgs"
	debootstrap --variant=minbase --include="${pkgs// /,}" "$suite" "$base" http://deb.debian.org/debian >"$base.log" 2>&1 \
		|| { tail -20 "$base.log" >&2; echo "rootfs.sh: debootstrap failed (full log: $base.log)" >&2; exit 1; }
	# As the slim image does: no apt lists, no caches.
	rm -rf "$base"/var/lib/apt/lists/* "$base"/var/cache/apt/archives/*.deb
	touch "$base/.done"
fi

rm -rf "$rootfs"
cp -a "$base" "$rootfs"
rm -f "$rootfs/.done"
# The Dockerfile's user and workspace, by the same commands.
chroot "$rootfs" useradd --uid "$uid" --user-group --create-home --shell /bin/bash fsmcp
chroot "$rootfs" install -d -o fsmcp -g fsmcp /workspace
install -m 0755 "$bin" "$rootfs/usr/local/bin/fsmcp"
install -m 0755 "$here/healthz" "$rootfs/usr/local/bin/fsmcp-healthz"
echo "rootfs.sh: $rootfs ready ($(du -sh "$rootfs" | cut -f1)); $(chroot "$rootfs" rg --version | head -1), $(chroot "$rootfs" git --version), $(chroot "$rootfs" fsmcp --version)"
