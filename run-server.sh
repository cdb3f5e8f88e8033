#!/usr/bin/env bash
# Installs what is missing, builds warden (release), and runs it on 127.0.0.1:6379.
# Extra arguments go to warden: ./run-server.sh --port 7000 --requirepass secret
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh --build-only
# The server alone: the tests and benchmarks (and their packages) are run-tests.sh's, which
# turns them back on in the same build directory.
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
tests=OFF bench=OFF
have googletest && have libgtest-dev && tests=ON
have libbenchmark-dev && bench=ON
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWARDEN_BUILD_TESTS=$tests \
  -DWARDEN_BUILD_BENCH=$bench >/dev/null
cmake --build build -j"$(nproc)" --target warden
exec build/warden "$@"
