#!/usr/bin/env bash
# Installs what is missing, builds warden and its tests twice (optimized, and with
# AddressSanitizer + UndefinedBehaviorSanitizer), and runs the whole suite on both builds:
# unit, end-to-end (real redis-cli and sockets) and differential (the same commands against
# redis-server and warden, replies compared byte for byte).
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
jobs=$(nproc)

scripts/check-source.sh

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWARDEN_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")
# The examples of using warden as a test double from other languages.
WARDEN_BINARY="$PWD/build/warden" /usr/bin/python3 -m pytest -q -p no:cacheprovider examples/python
(cd examples/node && npm ci --no-audit --no-fund --loglevel=error >/dev/null &&
  WARDEN_BINARY="$PWD/../../build/warden" node --test)

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DWARDEN_SANITIZE=ON -DWARDEN_WERROR=ON \
  -DWARDEN_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j"$jobs")

# Real client libraries and redis-cli against warden and redis-server 7.0 side by side, and the
# seeded randomized differential tester (tests/clients/README.md); the tester again on the
# sanitized build, where random input finds undefined behaviour.
tests/clients/run.sh build/warden
tests/clients/run.sh build-asan/warden fuzz

# libFuzzer on the request parser, the command layer and scripts, for a bounded time each
# (fuzz/README.md); the seeds and every crash reproducer were already replayed by ctest above.
FUZZ_ALLOW_TIMEOUTS=1 scripts/run-fuzzers.sh 30

# Lock safety under load and faults (tests/stress/README.md): dozens of clients, stalls,
# vanished holders, SIGSTOP pauses of the server; a short run on each build.
/usr/bin/python3 -m unittest discover -s tests/stress
/usr/bin/python3 tests/stress/lock_safety.py --binary build/warden --seconds 8
/usr/bin/python3 tests/stress/lock_safety.py --binary build-asan/warden --seconds 8

# The append-only file under kill -9 (tests/stress/README.md): every acknowledged lock write
# survives with appendfsync always and with everysec, and the lock-safety run that kills and
# restarts the server finds no violation with appendfsync always.
/usr/bin/python3 tests/stress/aof_crash.py --binary build/warden
/usr/bin/python3 tests/stress/aof_crash.py --binary build/warden --appendfsync everysec
/usr/bin/python3 tests/stress/lock_safety.py --binary build/warden --seconds 8 --kill-restarts 3

# maxmemory 64mb under every policy while ten million keys are written: RSS stays near the
# limit, the evicting policies refuse nothing, noeviction refuses (tests/stress/README.md).
/usr/bin/python3 tests/stress/maxmemory_rss.py --binary build/warden
