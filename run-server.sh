#!/usr/bin/env bash
# Installs what is missing, builds warden (release), and runs it on 127.0.0.1:6379.
# Extra arguments go to warden: ./run-server.sh --port 7000 --requirepass secret
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target warden
exec build/warden "$@"
