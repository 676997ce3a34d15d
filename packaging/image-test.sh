#!/bin/bash
# Runs the image with an engine and checks what the README promises:
#   the image's HEALTHCHECK is kept and passes, GET /healthz answers;
#   the token comes from FSMCP_AUTH_TOKEN (no token: 401);
#   rg is inside and serves fs_grep;
#   fs_bash is kept to /workspace (it cannot write the image user's home);
#   the default user is not root (uid 10001);
#   --user makes the agent's edits that user's on the host;
#   without FSMCP_AUTH_TOKEN, the banner names a usable address, not [::].
#
#   packaging/image-test.sh ENGINE IMAGE
#
# Where the engine's default runtime cannot start a container here (crun on
# a hybrid cgroup hierarchy, or raising RLIMIT_NOFILE/NPROC without
# CAP_SYS_RESOURCE), it retries with runc and limits no higher than this
# shell's, and says so. Needs curl and jq.
set -euo pipefail

engine=${1:?usage: image-test.sh ENGINE IMAGE}
image=${2:?usage: image-test.sh ENGINE IMAGE}
for c in curl jq; do
	command -v "$c" >/dev/null || { echo "image-test.sh: $c is not installed" >&2; exit 1; }
done

work=$(mktemp -d)
names=()
cleanup() {
	for n in "${names[@]}"; do "$engine" rm -f "$n" >/dev/null 2>&1 || true; done
	rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; for n in "${names[@]}"; do echo "--- $n logs:" >&2; "$engine" logs "$n" >&2 || true; done; exit 1; }

# The image as built.
hc=$("$engine" image inspect --format '{{json .Config.Healthcheck}}' "$image")
[[ $hc == *fsmcp-healthz* ]] || fail "the image has no HEALTHCHECK (podman needs --format docker): $hc"
echo "ok: HEALTHCHECK kept: $(jq -c .Test <<<"$hc")"
user=$("$engine" image inspect --format '{{.Config.User}}' "$image")
[[ $user == 10001:10001 ]] || fail "the image's user is $user, not 10001:10001"
echo "ok: default user $user"

# Can this engine start a container as it is? If not, say why and use runc.
opts=()
if ! probe=$("$engine" run --rm --entrypoint /bin/true "$image" 2>&1); then
	echo "image-test.sh: the engine cannot start a container with its defaults here: $probe" >&2
	command -v runc >/dev/null || { echo "image-test.sh: installing runc" >&2; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq runc >/dev/null; }
	opts=(--runtime runc --ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit nproc=4096:4096)
	echo "image-test.sh: retrying with ${opts[*]}" >&2
	"$engine" run --rm "${opts[@]}" --entrypoint /bin/true "$image" || fail "no container starts here, with runc either"
fi

port() { # a free loopback port
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
# start NAME WORKSPACE [ENGINE ARGS...]: run the image detached, its port
# 8080 on a loopback port ($p), and wait (bounded) until /healthz answers.
start() {
	local name=$1 ws=$2; shift 2
	p=$(port)
	names+=("$name")
	"$engine" run -d --name "$name" "${opts[@]}" -p "127.0.0.1:$p:8080" -v "$ws:/workspace" "$@" "$image" >/dev/null \
		|| fail "$engine run $name"
	for _ in $(seq 100); do
		curl -fsS "http://127.0.0.1:$p/healthz" >/dev/null 2>&1 && return 0
		[[ $("$engine" inspect --format '{{.State.Running}}' "$name") == true ]] || fail "$name exited"
		sleep 0.1
	done
	fail "$name: /healthz does not answer on 127.0.0.1:$p"
}
hdr=()
# rpc BODY: POST one message to the current server, print the JSON-RPC answer.
rpc() {
	curl -sS --max-time 30 "${hdr[@]}" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
		-H "MCP-Protocol-Version: $proto" -H "Mcp-Session-Id: $sid" \
		-D "$work/headers" -d "$1" "http://127.0.0.1:$p/mcp" | sed -n 's/^data: //p; t; /^{/p'
}
connect() {
	proto=2025-06-18 sid=
	local init
	init=$(rpc '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"image-test","version":"0"}}}')
	sid=$(sed -n 's/^mcp-session-id: *\([^\r]*\).*/\1/ip' "$work/headers")
	[[ -n $sid ]] || fail "initialize: $init"
	rpc '{"jsonrpc":"2.0","method":"notifications/initialized"}' >/dev/null
}
call() { # call TOOL ARGS-JSON: the result's text; fails on a protocol error
	local out
	out=$(rpc "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"$1\",\"arguments\":$2}}")
	jq -e .result >/dev/null <<<"$out" || fail "$1 $2: $out"
	jq -r '(if .result.isError then "ERROR: " else "" end) + ([.result.content[].text] | join(""))' <<<"$out"
}

# 1. The default user, the token from FSMCP_AUTH_TOKEN.
ws=$work/ws; mkdir -p "$ws"
printf 'alpha\nthe needle is here\nomega\n' >"$ws/notes.txt"
chown -R 10001:10001 "$ws"
token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
start fsmcp-it-default "$ws" -e FSMCP_AUTH_TOKEN="$token"
echo "ok: GET /healthz -> $(curl -fsS "http://127.0.0.1:$p/healthz")"
if [[ $(basename "$engine") == podman ]]; then
	"$engine" healthcheck run fsmcp-it-default || fail "the HEALTHCHECK does not pass"
	echo "ok: the HEALTHCHECK passes (podman healthcheck run)"
fi
code=$(curl -sS -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' -d '{}' "http://127.0.0.1:$p/mcp")
[[ $code == 401 ]] || fail "a request without the token got $code, not 401"
hdr=(-H "Authorization: Bearer wrong")
code=$(curl -sS -o /dev/null -w '%{http_code}' "${hdr[@]}" -H 'Content-Type: application/json' -d '{}' "http://127.0.0.1:$p/mcp")
[[ $code == 401 ]] || fail "a wrong token got $code, not 401"
echo "ok: no token or a wrong one -> 401"
hdr=(-H "Authorization: Bearer $token")
connect
echo "ok: the token from FSMCP_AUTH_TOKEN is accepted"
logs=$("$engine" logs fsmcp-it-default 2>&1)
[[ $logs == *search_backend=rg* ]] || fail "the search backend is not rg"
text=$(call fs_grep '{"pattern":"needle","path":"/workspace","output_mode":"content"}')
[[ $text == *notes.txt*'the needle is here'* ]] || fail "fs_grep: $text"
echo "ok: rg inside serves fs_grep: $(tr '\n' ' ' <<<"$text")"
text=$(call fs_bash '{"command":"id -u; rg --version | head -1"}')
[[ $text == 10001$'\n'ripgrep* ]] || fail "fs_bash id -u: $text"
echo "ok: non-root by default: $(tr '\n' ' ' <<<"$text")"
text=$(call fs_bash '{"command":"echo in > /workspace/in.txt; touch /home/fsmcp/escape; cd /tmp; pwd"}')
"$engine" exec fsmcp-it-default test -e /workspace/in.txt || fail "fs_bash could not write /workspace: $text"
if "$engine" exec fsmcp-it-default test -e /home/fsmcp/escape; then
	fail "fs_bash wrote /home/fsmcp/escape, outside /workspace"
fi
echo "ok: fs_bash writes /workspace and nothing outside it: $(tr '\n' ' ' <<<"$text" | cut -c1-160)"
mode=$(grep -o 'fs_bash: [^"]*' <<<"$logs" || true)
echo "ok: shell mode: ${mode%%$'\n'*}"

# 2. --user: the agent's edits belong to that user on the host.
ws2=$work/ws2; mkdir -p "$ws2"; chown 12345:12345 "$ws2"
start fsmcp-it-user "$ws2" --user 12345:12345 -e FSMCP_AUTH_TOKEN="$token"
connect
text=$(call fs_write '{"file_path":"/workspace/mine.txt","content":"mine\n"}')
[[ $text != ERROR* ]] || fail "fs_write as --user: $text"
owner=$(stat -c %u:%g "$ws2/mine.txt")
[[ $owner == 12345:12345 ]] || fail "--user 12345:12345 wrote a file owned by $owner"
echo "ok: --user 12345:12345 -> the edit is owned by $owner on the host"

# 3. No FSMCP_AUTH_TOKEN: a token is made and the banner names a usable address.
start fsmcp-it-banner "$ws"
banner=$("$engine" logs fsmcp-it-banner 2>&1)
[[ $banner == *'Authorization: Bearer '* ]] || fail "no token banner: $banner"
[[ $banner != *'http://[::]'* && $banner != *'http://0.0.0.0'* ]] || fail "the banner names an address a client cannot use: $banner"
[[ $banner == *'http://127.0.0.1:8080/mcp'*'port mapped to 8080'* ]] || fail "the banner does not say the port is mapped: $banner"
echo "ok: banner: $(grep -o 'HTTP clients of [^ ]*' <<<"$banner")"

echo "image-test: all checks passed with $engine ($image)"
