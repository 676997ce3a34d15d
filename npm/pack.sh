#!/bin/bash
# Packs fsmcp for npm as esbuild and Biome ship native binaries: one package
# per platform, @fsmcp/<os>-<cpu> (os and cpu set, carrying that platform's
# release binary from `make release`), and the package fsmcp, whose
# optionalDependencies name them all and whose bin/fsmcp.js runs the one npm
# installed. No install scripts: npm itself picks the binary.
#
#   npm/pack.sh VERSION DIST OUT [os/arch...]
#
# DIST holds fsmcp_<version>_<os>_<arch>[.exe] (packaging/release.sh);
# the tarballs land in OUT. Without platforms, all six are packed. fsmcp's
# optionalDependencies always name all six, at VERSION.
set -euo pipefail

usage="usage: npm/pack.sh VERSION DIST OUT [os/arch...]"
version=${1:?$usage}
dist=${2:?$usage}
out=${3:?$usage}
shift 3
version=${version#v}
semver='^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$'
[[ $version =~ $semver ]] || { echo "npm/pack.sh: version $version is not semver (npm needs one): make npm VERSION=1.2.3" >&2; exit 2; }
(($#)) || set -- linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
command -v npm >/dev/null || { echo "npm/pack.sh: npm is not installed (Node.js 18+ and npm)" >&2; exit 1; }

here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
# Only what an earlier run made here, so a stale version is never installed.
rm -f "$out"/fsmcp-*.tgz
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# npm's names for Go's.
npmos() { case $1 in windows) echo win32;; *) echo "$1";; esac; }
npmcpu() { case $1 in amd64) echo x64;; *) echo "$1";; esac; }

pack() { # pack DIR: the tarball's name on stdout
	npm pack --silent --pack-destination "$out" "$1"
}

for p in "$@"; do
	goos=${p%/*} goarch=${p#*/}
	os=$(npmos "$goos") cpu=$(npmcpu "$goarch")
	ext=; [[ $goos == windows ]] && ext=.exe
	src=$dist/fsmcp_${version}_${goos}_${goarch}$ext
	[[ -f $src ]] || { echo "npm/pack.sh: $src is missing: make release VERSION=$version builds it" >&2; exit 1; }
	dir=$stage/$os-$cpu
	mkdir -p "$dir/bin"
	install -m 755 "$src" "$dir/bin/fsmcp$ext"
	node - "$dir/package.json" "$version" "$os" "$cpu" <<'JS'
const [file, version, os, cpu] = process.argv.slice(2);
const pkg = {
  name: `@fsmcp/${os}-${cpu}`,
  version,
  description: `The fsmcp binary for ${os} on ${cpu}; install the package fsmcp, which picks it`,
  repository: { type: "git", url: "git+https://github.com/fsmcp/fsmcp.git" },
  os: [os],
  cpu: [cpu],
  files: ["bin/"],
  preferUnplugged: true,
};
require("fs").writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n");
JS
	printf '# @fsmcp/%s-%s\n\nThe fsmcp binary for %s on %s. Install [fsmcp](https://www.npmjs.com/package/fsmcp), which runs it.\n' "$os" "$cpu" "$os" "$cpu" >"$dir/README.md"
	echo "$out/$(pack "$dir")"
done

# The launcher package, its version and its platform packages' versions set to VERSION.
cp -R "$here/fsmcp" "$stage/fsmcp"
node - "$stage/fsmcp/package.json" "$version" <<'JS'
const fs = require("fs");
const [file, version] = process.argv.slice(2);
const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
pkg.version = version;
for (const name of Object.keys(pkg.optionalDependencies)) pkg.optionalDependencies[name] = version;
fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n");
JS
echo "$out/$(pack "$stage/fsmcp")"
