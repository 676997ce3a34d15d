#!/usr/bin/env bash
# setup.sh PREFIX: a Wine prefix in PREFIX that runs Go 1.26 Windows
# programs (make test-windows). Installs Debian's wine64 and the MinGW-w64
# compiler when they are missing, builds the stand-in bcryptprimitives.dll
# from bcryptprimitives.c and puts it in the prefix's system32. Prints
# nothing on success but what it installs or makes.
set -euo pipefail
prefix=$1
here=$(cd "$(dirname "$0")" && pwd)
need=""
command -v wine >/dev/null 2>&1 || need="$need wine64"
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || need="$need gcc-mingw-w64-x86-64-win32"
if [ -n "$need" ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  echo "wine: installing$need" >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq $need >/dev/null
fi
export WINEPREFIX=$prefix WINEDEBUG=-all
dll=$prefix/drive_c/windows/system32/bcryptprimitives.dll
if [ ! -f "$prefix/system.reg" ]; then
  echo "wine: making the prefix $prefix" >&2
  mkdir -p "$prefix"
  wineboot -i >/dev/null 2>&1
  wineserver -w
fi
if [ ! -f "$dll" ] || [ "$here/bcryptprimitives.c" -nt "$dll" ]; then
  x86_64-w64-mingw32-gcc -O2 -shared -s -o "$dll" "$here/bcryptprimitives.c" -ladvapi32
fi
