#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan+UBSan) and runs each one for the given number of
# seconds (default 60) on a working copy of its seed corpus, with its dictionary, as many at once
# as the machine has cores. Exits non-zero if any target finds a crash, leak, timeout or
# out-of-memory, after printing the path of the input that triggers it.
#
#   FUZZ_TARGETS="fuzz_commands"   a subset
#   FUZZ_BUILD=build-asan          a build configured with -DWARDEN_FUZZ=ON already (run-tests.sh's
#                                  sanitizer build); by default build-fuzz is configured here
#   FUZZ_ALLOW_TIMEOUTS=1          a timeout is reported, not fatal (CI, where a known slow input
#                                  must not block a landing)
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
build=${FUZZ_BUILD:-build-fuzz}
targets=${FUZZ_TARGETS:-fuzz_request_parser fuzz_commands fuzz_scripts fuzz_aof_load fuzz_acl_rules
  fuzz_rdb_codec fuzz_rdb_load}
jobs=$(nproc)

if [[ -z ${FUZZ_BUILD:-} ]]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -DWARDEN_FUZZ=ON -DWARDEN_BUILD_TESTS=OFF \
    -DWARDEN_BUILD_BENCH=OFF >/dev/null
fi
# shellcheck disable=SC2086
cmake --build "$build" -j"$jobs" --target $targets

# One target's run; its verdict goes to <log>.status.
run_one() {
  local target=$1
  # The working corpus grows as the fuzzer finds new paths; the seeds in fuzz/corpus stay small.
  local work=$build/fuzz/work/$target
  local artifacts=$build/fuzz/artifacts/$target
  local log=$build/fuzz/$target.log
  mkdir -p "$work" "$artifacts"
  cp -n "fuzz/corpus/$target"/* "$work"/
  # Binary formats get no dictionary: RESP words would only dilute their mutations.
  local dict=-dict=fuzz/resp.dict
  if [[ $target == fuzz_scripts ]]; then dict=-dict=fuzz/lua.dict; fi
  if [[ $target == fuzz_acl_rules ]]; then dict=-dict=fuzz/acl.dict; fi
  if [[ $target == fuzz_rdb_* ]]; then dict=; fi
  local status=0
  # shellcheck disable=SC2086
  "$build/fuzz/$target" "$work" $dict -max_total_time="$seconds" -rss_limit_mb=2048 \
    -timeout=10 -timeout_exitcode=70 -artifact_prefix="$artifacts/" -print_final_stats=1 \
    >"$log" 2>&1 || status=$?
  echo "$status" >"$log.status"
}

running=0
for target in $targets; do
  echo "run-fuzzers: $target for ${seconds}s (log: $build/fuzz/$target.log)"
  run_one "$target" &
  running=$((running + 1))
  if [[ $running -ge $jobs ]]; then
    wait -n
    running=$((running - 1))
  fi
done
wait

failed=0
for target in $targets; do
  log=$build/fuzz/$target.log
  status=$(cat "$log.status")
  if [[ $status -eq 0 ]]; then
    echo "run-fuzzers: $target: $(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" || echo done)"
  elif [[ $status -eq 70 && ${FUZZ_ALLOW_TIMEOUTS:-0} == 1 ]]; then
    echo "run-fuzzers: $target stopped on a slow input (timeout), not counted as a failure:"
    grep -oE '(Test unit|artifact) written to [^ ]+' "$log" | sed 's/.* to /  /' || true
  else
    failed=1
    tail -n 60 "$log"
    echo "run-fuzzers: $target FAILED; reproducer:" >&2
    grep -oE '(Test unit|artifact) written to [^ ]+' "$log" | sed 's/.* to /  /' >&2 || true
  fi
done
exit "$failed"
