#!/usr/bin/env bash
# exec.sh PROGRAM ARGS...: runs a Windows program under Wine in the prefix
# setup.sh made ($WINEPREFIX); go test -exec uses it to run Windows test
# binaries (make test-windows). Wine's own messages are turned off.
set -eu
: "${WINEPREFIX:?set WINEPREFIX to the prefix setup.sh made}"
export WINEDEBUG=-all
exec wine "$@"
