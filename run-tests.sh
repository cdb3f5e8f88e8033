#!/usr/bin/env bash
# Installs what is missing, builds warden and its tests twice (optimized with gcc, and with clang's
# AddressSanitizer + UndefinedBehaviorSanitizer, which also builds the fuzzers), and runs the
# whole suite on both builds:
# unit, end-to-end (real redis-cli and sockets) and differential (the same commands against
# redis-server and warden, replies compared byte for byte).
set -euo pipefail
cd "$(dirname "$0")"

# Each step is timed; the table at the end (also after a failure) shows where the time went.
stage_names=() stage_seconds=()
stage() {  # name command...
  local name=$1 start=$SECONDS rc=0
  shift
  echo "=== run-tests: $name"
  "$@" || rc=$?
  stage_names+=("$name")
  stage_seconds+=($((SECONDS - start)))
  return $rc
}
summary() {
  local rc=$? i
  echo
  echo "run-tests: time per stage"
  for i in "${!stage_names[@]}"; do
    printf '  %6ds  %s\n' "${stage_seconds[$i]}" "${stage_names[$i]}"
  done
  printf '  %6ds  total (exit %d)\n' "$SECONDS" "$rc"
}
trap summary EXIT

stage install scripts/install-deps.sh
jobs=$(nproc)

stage check-source scripts/check-source.sh

# Line tables (-g1) rather than full debug information: stack traces and profiles keep their
# file:line, and the build takes a quarter less. Each test binary runs in four shards rather than
# one process per test (tests/CMakeLists.txt; a build configured without WARDEN_TEST_SHARDS has
# one ctest test per test). The /usr prefix is a package's: the packaging test checks the .deb's
# /etc and /var/lib paths.
stage build-opt bash -c "cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWARDEN_WERROR=ON \
  '-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG' '-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG' \
  -DWARDEN_TEST_SHARDS=4 -DWARDEN_BUILD_TESTS=ON -DWARDEN_BUILD_BENCH=ON \
  -DCMAKE_INSTALL_PREFIX=/usr >/dev/null &&
  cmake --build build -j$jobs"
stage ctest-opt bash -c "cd build && ctest --output-on-failure -j$jobs"
# The Python test double as its users install it (clients/python/README.md): warden-testing into a
# fresh virtual environment, offline; its tests run with no conftest.py, then on two xdist workers.
stage python-package clients/python/test-package.sh build/warden

# One sanitizer build serves both the tests and the fuzzers: clang with AddressSanitizer and
# UndefinedBehaviorSanitizer, the code instrumented for libFuzzer too (WARDEN_FUZZ), each test
# binary run in a few shards rather than once per test (tests/CMakeLists.txt).
stage build-asan bash -c "CC=clang CXX=clang++ cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug \
  '-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1' '-DCMAKE_C_FLAGS_DEBUG=-O1 -g1' -DWARDEN_SANITIZE=ON \
  -DWARDEN_FUZZ=ON -DWARDEN_TEST_SHARDS=4 -DWARDEN_WERROR=ON -DWARDEN_BUILD_BENCH=OFF >/dev/null &&
  cmake --build build-asan -j$jobs"
stage ctest-asan bash -c "cd build-asan && ASAN_OPTIONS=detect_leaks=1 \
  ctest --output-on-failure -j$jobs"

# Real client libraries and redis-cli against warden and redis-server 7.0 side by side, and the
# seeded randomized differential tester (tests/clients/README.md); the tester again on the
# sanitized build, where random input finds undefined behaviour. The suites that mostly wait on
# their libraries' timers (node, sidekiq) run beside the others, each set with servers of its
# own on ports of its own.
stage clients-install tests/clients/run.sh build/warden --install-only
stage clients bash -c 'CLIENTS_PORT_BASE=20000 tests/clients/run.sh build/warden node sidekiq ruby \
    >build/clients-timers.log 2>&1 & timers=$!
  CLIENTS_PORT_BASE=25000 tests/clients/run.sh build/warden cli python redisson twemproxy fuzz docs
  rest=$?; wait $timers; rc=$?; cat build/clients-timers.log; [ $rest -eq 0 ] && [ $rc -eq 0 ]'
stage clients-asan-fuzz tests/clients/run.sh build-asan/warden fuzz

# The Node test double, the npm package warden-testing (clients/node/README.md): its tests,
# which install it into a scratch project from its path; after clients-install, whose TypeScript
# checks the package's types.
stage warden-testing-node bash -c 'cd clients/node &&
  npm ci --no-audit --no-fund --loglevel=error >/dev/null &&
  WARDEN_BINARY="$PWD/../../build/warden" npm test --silent'

# libFuzzer on the request parser, the command layer, scripts, the AOF and RDB loaders and ACL
# rules, for a bounded time each (fuzz/README.md); the seeds and every crash reproducer were
# already replayed by ctest above. Seven targets two at a time run four rounds: 22 s each keeps
# the stage at the 90 s that three rounds of 30 s took with five.
stage fuzzers env FUZZ_BUILD=build-asan FUZZ_ALLOW_TIMEOUTS=1 scripts/run-fuzzers.sh 22

# Lock safety under load and faults (tests/stress/README.md): dozens of clients, stalls,
# vanished holders, SIGSTOP pauses of the server; a short run on each build.
stage stress-unit /usr/bin/python3 -m unittest discover -s tests/stress
stage lock-safety /usr/bin/python3 tests/stress/lock_safety.py --binary build/warden --seconds 8
stage lock-safety-asan /usr/bin/python3 tests/stress/lock_safety.py --binary build-asan/warden \
  --seconds 8

# The append-only file under kill -9 (tests/stress/README.md): every acknowledged lock write
# survives with appendfsync always and with everysec, and the lock-safety run that kills and
# restarts the server finds no violation with appendfsync always.
stage aof-crash /usr/bin/python3 tests/stress/aof_crash.py --binary build/warden
stage aof-crash-everysec /usr/bin/python3 tests/stress/aof_crash.py --binary build/warden \
  --appendfsync everysec
stage lock-safety-kills /usr/bin/python3 tests/stress/lock_safety.py --binary build/warden \
  --seconds 8 --kill-restarts 3

# Locks across Sentinel failovers (tests/stress/README.md): a warden master and two replicas under
# three redis-sentinels, the master stopped or killed again and again; with WAIT 1 and
# min-replicas-to-write 1 no lock is granted twice (~25 s, 2-3 failovers). down-after 2000 ms:
# with 1000 Sentinel itself fails over healthy new masters (its link reset), which is not the
# crash-stop fault this stage judges; TTLs up to 7 s so that leases outlive the slower failover
# and the new master must refuse them.
stage failover-locks /usr/bin/python3 tests/stress/failover_locks.py --binary build/warden \
  --seconds 20 --mode wait --down-after-ms 2000 --ttl-max-ms 7000

# maxmemory 64mb under every policy while three million keys are written (300 MB of them, the
# script's default is ten million): RSS stays near the limit, the evicting policies refuse
# nothing, noeviction refuses (tests/stress/README.md).
stage maxmemory-rss /usr/bin/python3 tests/stress/maxmemory_rss.py --binary build/warden \
  --keys 3000000
