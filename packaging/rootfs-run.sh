#!/bin/bash
# Runs fsmcp inside a filesystem built by rootfs.sh the way the image runs it
# (tini as PID 1, the image's user, /workspace, the entrypoint's flags, the
# token from FSMCP_AUTH_TOKEN), in its own mount and PID namespaces, serving
# HTTP on a loopback port, and checks over HTTP with curl:
#   the image's health probe and GET /healthz answer;
#   fs_grep finds a line in /workspace with the rg backend;
#   fs_bash runs `echo hi` in the sandboxed (Landlock) shell.
#
#   packaging/rootfs-run.sh ROOTFS [PORT [UID]]
#
# UID runs fsmcp as that user instead of the image's (as `docker run --user`),
# owning /workspace as a bind mount of the user's files would be.
# Needs root, unshare(1), curl and jq on the host.
set -euo pipefail

rootfs=${1:?usage: rootfs-run.sh ROOTFS [PORT [UID]]}
port=${2:-18080}
run_uid=${3:-}
for c in unshare curl jq; do
	command -v "$c" >/dev/null || { echo "rootfs-run.sh: $c is not installed" >&2; exit 1; }
done
[[ -x $rootfs/usr/local/bin/fsmcp ]] || { echo "rootfs-run.sh: $rootfs has no fsmcp; run rootfs.sh first" >&2; exit 1; }

work=$(mktemp -d)
srv=
# stop: SIGTERM to the namespace's PID 1 (tini, which passes it to fsmcp),
# as `docker stop` does; unshare then returns with its status.
stop() {
	local init
	init=$(pgrep -P "$srv" || true)
	kill -TERM "${init:-$srv}" 2>/dev/null || true
	wait "$srv"
}
cleanup() {
	[[ -z $srv ]] || stop 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; echo "--- fsmcp stderr:" >&2; cat "$work/stderr" >&2; exit 1; }

uid=${run_uid:-$(chroot "$rootfs" id -u fsmcp)}
printf 'alpha\nthe needle is here\nomega\n' >"$rootfs/workspace/notes.txt"
rm -f "$rootfs/workspace/x"
chown "$uid:$uid" "$rootfs/workspace" "$rootfs/workspace/notes.txt"
# HOME as an engine sets it: the user's passwd entry, else /.
home=$(chroot "$rootfs" getent passwd "$uid" | cut -d: -f6 || true)
home=${home:-/}
echo "running as uid $uid, HOME=$home"
token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')

# Inside the new namespaces: a /dev like an engine's (a tmpfs with the usual
# nodes bound in, not the host's whole /dev), then the image's entrypoint.
# shellcheck disable=SC2016 # expanded by the inner shell
inner='
set -e
r=$1 uid=$2 home=$3; shift 3
mount -t tmpfs -o mode=755,nosuid tmpfs "$r/dev"
for n in null zero full random urandom tty; do touch "$r/dev/$n"; mount --bind "/dev/$n" "$r/dev/$n"; done
ln -s /proc/self/fd "$r/dev/fd"
mkdir "$r/dev/shm"; mount -t tmpfs -o nosuid,nodev tmpfs "$r/dev/shm"
exec chroot --userspec="$uid:$uid" "$r" env -i -C /workspace \
	HOME="$home" PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	FSMCP_AUTH_TOKEN="$FSMCP_AUTH_TOKEN" "$@"
'
FSMCP_AUTH_TOKEN=$token unshare --mount --pid --fork --kill-child=SIGTERM --mount-proc="$rootfs/proc" \
	bash -c "$inner" inner "$rootfs" "$uid" "$home" \
	tini -- fsmcp --transport http --listen "127.0.0.1:$port" /workspace \
	2>"$work/stderr" &
srv=$!

# Up when the image's own HEALTHCHECK command passes (bounded: 10 s).
for _ in $(seq 100); do
	chroot "$rootfs" fsmcp-healthz "$port" 2>/dev/null && break
	kill -0 "$srv" 2>/dev/null || fail "fsmcp exited"
	sleep 0.1
done
chroot "$rootfs" fsmcp-healthz "$port" || fail "the health probe does not pass"
echo "ok: HEALTHCHECK probe (fsmcp-healthz) passes"
echo "ok: GET /healthz -> $(curl -fsS "http://127.0.0.1:$port/healthz")"

url=http://127.0.0.1:$port/mcp
hdr=(-H "Authorization: Bearer $token" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')
# rpc BODY: POST one message, print the JSON-RPC answer (from JSON or SSE).
rpc() {
	curl -sS --max-time 30 "${hdr[@]}" -H "MCP-Protocol-Version: $proto" -H "Mcp-Session-Id: $sid" \
		-D "$work/headers" -d "$1" "$url" | sed -n 's/^data: //p; t; /^{/p'
}

code=$(curl -sS -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' -d '{}' "$url")
[[ $code == 401 ]] || fail "a request without the token got $code, not 401"
echo "ok: no bearer token -> 401"

proto=2025-06-18 sid=
init=$(rpc '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"rootfs-run","version":"0"}}}')
sid=$(sed -n 's/^mcp-session-id: *\([^\r]*\).*/\1/ip' "$work/headers")
proto=$(jq -r '.result.protocolVersion' <<<"$init")
[[ -n $sid && $proto != null ]] || fail "initialize: $init"
echo "ok: initialize -> $(jq -c '.result.serverInfo | {name, version}' <<<"$init"), protocol $proto, session ${sid:0:8}..."
rpc '{"jsonrpc":"2.0","method":"notifications/initialized"}' >/dev/null

grep -q 'search_backend=rg' "$work/stderr" || fail "the search backend is not rg"
echo "ok: stderr names the backend: $(grep -o 'search_backend=[a-z]*' "$work/stderr")"

out=$(rpc '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fs_grep","arguments":{"pattern":"needle","path":"/workspace","output_mode":"content"}}}')
text=$(jq -r '.result.content[0].text' <<<"$out")
[[ $text == *'notes.txt'*'the needle is here'* && $(jq -r '.result.isError' <<<"$out") != true ]] || fail "fs_grep: $out"
echo "ok: fs_grep needle -> $(tr '\n' ' ' <<<"$text")"

# shellcheck disable=SC2016 # $TMPDIR is fs_bash's
out=$(rpc '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fs_bash","arguments":{"command":"echo hi; id -un; rg --version | head -1; git init -q \"$TMPDIR/r\" && git -C \"$TMPDIR/r\" status --short && git --version"}}}')
text=$(jq -r '.result.content[0].text' <<<"$out")
[[ $text == hi* && $(jq -r '.result.isError' <<<"$out") != true ]] || fail "fs_bash: $out"
echo "ok: fs_bash -> $(tr '\n' '|' <<<"$text")"
grep -iq 'sandbox' "$work/stderr" || fail "stderr does not state a sandboxed shell"
echo "ok: shell mode: $(grep -io '[^"]*landlock[^"]*' "$work/stderr" | head -1)"

out=$(rpc '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"fs_bash","arguments":{"command":"cat /etc/hostname > /workspace/x; touch /home/fsmcp/escape"}}}')
[[ ! -e $rootfs/home/fsmcp/escape ]] || fail "fs_bash wrote outside /workspace"
echo "ok: fs_bash cannot write outside /workspace -> $(jq -c '.result.content[0].text' <<<"$out" | cut -c1-120)"

status=0; stop || status=$?; srv=
echo "--- fsmcp stderr (exit status $status after SIGTERM):"; cat "$work/stderr"
