#!/usr/bin/env bash
# Installs what warden needs on Debian 12, skipping what is there: with --build-only, what
# building and running the server need (run-server.sh); otherwise also what testing and
# benchmarking need (run-tests.sh).
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libuv1-dev libssl-dev openssl liblua5.1-0-dev lua-cjson-dev lua-bitop-dev libxxhash-dev
  liblzf-dev
)
if [ "${1:-}" != --build-only ]; then
  packages+=(
    clang-format clang libclang-rt-14-dev
    googletest libgtest-dev libbenchmark-dev
    redis-server redis-tools
    python3-redis python3-pytest
    python3-venv python3-wheel python3-pytest-xdist  # clients/python: offline install, -n 2
    # The packaging test: the unit checked by systemd-analyze, the man page rendered by groff.
    systemd groff-base
  )
  # Node.js runs the Node example; the machine image usually has it, Debian's package otherwise.
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing: ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
# redis-server is only the reference for tests: keep its packaged service from taking port 6379.
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo_cmd[@]}" tee /usr/sbin/policy-rc.d >/dev/null
  "${sudo_cmd[@]}" chmod +x /usr/sbin/policy-rc.d
  trap '"${sudo_cmd[@]}" rm -f /usr/sbin/policy-rc.d' EXIT
fi
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
