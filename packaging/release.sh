#!/bin/bash
# Cross-compiles static, version-stamped fsmcp binaries into DIST as
# fsmcp_<version>_<os>_<arch>[.exe] (the goreleaser naming: version without
# its leading v) and writes DIST/SHA256SUMS when every platform built.
#
#   packaging/release.sh VERSION DIST PLATFORM...    (PLATFORM: os/arch)
set -euo pipefail

version=${1:?usage: release.sh VERSION DIST os/arch...}
dist=${2:?usage: release.sh VERSION DIST os/arch...}
shift 2
(($#)) || { echo "release.sh: no platforms given" >&2; exit 2; }
go=${GO:-go}
[[ $version != *dirty* ]] || echo "release.sh: warning: version $version: the work tree has uncommitted changes" >&2

mkdir -p "$dist"
# Only what an earlier run made here, so a stale binary never lands in SHA256SUMS.
rm -f "$dist"/fsmcp_* "$dist/SHA256SUMS"

failed=()
for p in "$@"; do
	os=${p%/*} arch=${p#*/}
	[[ -n $os && -n $arch && $p == */* ]] || { echo "release.sh: platform $p is not os/arch" >&2; exit 2; }
	ext=; [[ $os == windows ]] && ext=.exe
	out=$dist/fsmcp_${version#v}_${os}_${arch}$ext
	if CGO_ENABLED=0 GOOS=$os GOARCH=$arch "$go" build -trimpath -ldflags "-s -w -X main.version=$version" -o "$out" .; then
		echo "built $out"
	else
		echo "release.sh: $p does not build" >&2
		failed+=("$p")
	fi
done
if ((${#failed[@]})); then
	echo "release.sh: no SHA256SUMS: ${failed[*]} failed to build" >&2
	exit 1
fi
(cd "$dist" && sha256sum fsmcp_* >SHA256SUMS)
cat "$dist/SHA256SUMS"
