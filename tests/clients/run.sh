#!/usr/bin/env bash
# Real client libraries and redis-cli against warden and redis-server 7.0, side by side, plus
# the randomized differential tester. Every scenario runs against both servers in the same run:
# one that passes on Redis and fails on warden is a warden bug; one that fails on both is a
# broken test. See tests/clients/README.md.
#
#   tests/clients/run.sh path/to/warden [suite ...]
#   suites: cli python redisson ruby sidekiq node twemproxy fuzz docs
#
# Installs what is missing (pinned Debian packages; `npm ci` from the committed lock file),
# starts three redis-server and three warden instances on free loopback ports, runs each suite,
# prints a table per suite and server and a closing "N passed, M failed" line, and exits
# non-zero on any failure. FUZZ_SEEDS and FUZZ_LENGTH size the differential run.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
  echo "usage: $0 path/to/warden [cli python redisson ruby sidekiq node twemproxy fuzz docs]" >&2
  exit 2
fi
warden_bin=$(realpath "$1")
shift
suites=("$@")
# --install-only: what the suites need, and nothing else (run-tests.sh installs once, then runs
# two sets of suites side by side).
if [ "${suites[*]}" = "--install-only" ]; then
  install_only=1
  suites=()
fi
[ ${#suites[@]} -eq 0 ] && suites=(cli python redisson ruby sidekiq node twemproxy fuzz docs)

# Debian 12's client libraries, pinned; pytest comes with them, minitest with ruby.
debian_pins=(python3-redis=4.3.4-3 ruby-redis=4.8.0-1 python3-pytest=7.2.1-2
  python3-portalocker=2.2.1-1 ruby-sidekiq=6.4.1+dfsg-1 nutcracker=0.5.0+dfsg-2
  prometheus-redis-exporter=1.45.0-2+b4)
# command:package for the tools the suites run (ruby comes with ruby-redis).
debian_tools=(redis-server:redis-server redis-cli:redis-tools timeout:coreutils openssl:openssl)
py=/usr/bin/python3  # Debian's interpreter: python3-redis is installed for it alone
export PYTHONDONTWRITEBYTECODE=1

install_missing() {
  local wanted=() pkg name version
  for pkg in "${debian_pins[@]}"; do
    name=${pkg%%=*}
    version=${pkg#*=}
    [ "$(dpkg-query -W -f='${Version}' "$name" 2>/dev/null)" = "$version" ] || wanted+=("$pkg")
  done
  for pkg in "${debian_tools[@]}"; do
    command -v "${pkg%%:*}" >/dev/null 2>&1 || wanted+=("${pkg#*:}")
  done
  if [ ${#wanted[@]} -gt 0 ]; then
    echo "clients: installing ${wanted[*]}"
    local sudo_cmd=()
    [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
    export DEBIAN_FRONTEND=noninteractive
    # The packaged redis-server must not start its own service on port 6379.
    local policy_added=0
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\nexit 101\n' | "${sudo_cmd[@]}" tee /usr/sbin/policy-rc.d >/dev/null
      "${sudo_cmd[@]}" chmod +x /usr/sbin/policy-rc.d
      policy_added=1
    fi
    "${sudo_cmd[@]}" apt-get update -qq &&
      "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends --allow-downgrades \
        "${wanted[@]}" >/dev/null
    local rc=$?
    [ $policy_added -eq 1 ] && "${sudo_cmd[@]}" rm -f /usr/sbin/policy-rc.d
    [ $rc -eq 0 ] || { echo "clients: apt-get install failed" >&2; exit 1; }
  fi
  # ioredis 6 and node-redis 6 need node 20 or later, which Debian 12 does not package: the
  # machine image brings it.
  local node_major
  node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  if [ "$node_major" -lt 20 ]; then
    echo "clients: node >= 20 is required (found: $node_major)" >&2
    exit 1
  fi
  # node_modules follows the committed lock file; reinstall only when the lock file changed.
  local stamp="$here/node/node_modules/.lock-sha256"
  local want
  want=$(sha256sum "$here/node/package-lock.json" | cut -d' ' -f1)
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    (cd "$here/node" && npm ci --no-audit --no-fund --loglevel=error) ||
      { echo "clients: npm ci failed" >&2; exit 1; }
    echo "$want" >"$stamp"
  fi
}

install_missing
[ "${install_only:-0}" = 1 ] && exit 0
redis-server --version | grep -q ' v=7\.0\.' ||
  { echo "clients: redis-server is not 7.0: $(redis-server --version)" >&2; exit 1; }

work=$(mktemp -d /tmp/warden-clients.XXXXXX)
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Both servers get the same flags, with sixteen databases (Redis's default and warden's): the
# differential tester uses several.
flags=(--bind 127.0.0.1 --save '' --appendonly no --enable-debug-command yes --databases 16)

# A port nothing listens on. With CLIENTS_PORT_BASE set, one from the 5,000 above it: two runs
# side by side take ports from ranges of their own, so one cannot start a server on a port the
# other has just been given.
free_port() {
  "$py" -c 'import os, random, socket
base = int(os.environ.get("CLIENTS_PORT_BASE", "0"))
while True:
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", random.randrange(base, base + 5000) if base else 0))
        break
    except OSError:
        s.close()
print(s.getsockname()[1])'
}

# TLS: a CA, and a server and a client certificate it signed, made for this run. The first
# instance of each server also takes TLS clients, on a port of its own (the tls suites).
tls_dir="$work/tls"
make_certificates() {
  mkdir -p "$tls_dir" && cd "$tls_dir" || return 1
  openssl genrsa -out ca.key 2048 2>/dev/null &&
    openssl req -x509 -new -nodes -sha256 -key ca.key -days 30 \
      -subj "/O=warden test/CN=Certificate Authority" -out ca.crt || return 1
  local name
  for name in server client; do
    openssl genrsa -out $name.key 2048 2>/dev/null &&
      openssl req -new -sha256 -key $name.key -subj "/O=warden test/CN=$name" -out $name.csr &&
      echo "subjectAltName=IP:127.0.0.1,DNS:localhost" >$name.ext &&
      openssl x509 -req -sha256 -in $name.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
        -days 30 -extfile $name.ext -out $name.crt 2>/dev/null || return 1
  done
  cd - >/dev/null
}
make_certificates || { echo "clients: could not make the TLS certificates" >&2; exit 1; }
tls_flags() {  # port
  echo --tls-port "$1" --tls-cert-file "$tls_dir/server.crt" --tls-key-file "$tls_dir/server.key" \
    --tls-ca-cert-file "$tls_dir/ca.crt"
}

wait_ping() {  # port pid
  local i
  for i in $(seq 100); do
    kill -0 "$2" 2>/dev/null || return 1
    [ "$(redis-cli -p "$1" PING 2>/dev/null)" = PONG ] && return 0
    sleep 0.05
  done
  return 1
}

start_redis() {  # name [extra flags...]
  local name=$1 port attempt
  shift
  for attempt in 1 2 3 4 5; do
    port=$(free_port)
    redis-server --port "$port" --daemonize no "${flags[@]}" "$@" >"$work/$name.log" 2>&1 &
    local pid=$!
    if wait_ping "$port" "$pid"; then
      pids+=("$pid")
      echo "$pid $port" >"$work/$name.addr"
      return 0
    fi
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  echo "clients: could not start redis-server ($name)" >&2
  return 1
}

start_warden() {  # name [extra flags...]
  "$warden_bin" --port 0 --port-file "$work/$1.port" "${flags[@]}" "${@:2}" >"$work/$1.log" 2>&1 &
  local pid=$! i
  for i in $(seq 200); do
    [ -s "$work/$1.port" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  local port
  port=$(cat "$work/$1.port" 2>/dev/null)
  if [ -z "$port" ] || ! wait_ping "$port" "$pid"; then
    echo "clients: warden ($1) did not start:" >&2
    cat "$work/$1.log" >&2
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 1
  fi
  pids+=("$pid")
  echo "$pid $port" >"$work/$1.addr"
}

redis_ports=() warden_ports=()
REDIS_TLS_PORT=$(free_port)
WARDEN_TLS_PORT=$(free_port)
for n in 1 2 3; do
  redis_tls=() warden_tls=()
  if [ $n -eq 1 ]; then
    read -ra redis_tls <<<"$(tls_flags "$REDIS_TLS_PORT")"
    # With a TLS port, port 0 means no plain port (Redis's TLS-only setup), so warden1 is
    # given one.
    read -ra warden_tls <<<"--port $(free_port) $(tls_flags "$WARDEN_TLS_PORT")"
  fi
  start_redis "redis$n" "${redis_tls[@]}" || exit 1
  start_warden "warden$n" "${warden_tls[@]}" || exit 1
  redis_ports+=("$(cut -d' ' -f2 "$work/redis$n.addr")")
  warden_ports+=("$(cut -d' ' -f2 "$work/warden$n.addr")")
done
export REDIS_PORTS="${redis_ports[*]}" WARDEN_PORTS="${warden_ports[*]}"
export REDIS_TLS_PORT WARDEN_TLS_PORT TLS_DIR="$tls_dir"
# Scenarios that end a server (SHUTDOWN) start their own warden from this binary.
WARDEN_BIN="$(cd "$(dirname "$warden_bin")" && pwd)/$(basename "$warden_bin")"
export WARDEN_BIN
echo "clients: redis-server on ${REDIS_PORTS}, warden on ${WARDEN_PORTS}"

results="$work/results"
mkdir -p "$results"
failed_suites=()

run_suite() {  # name timeout_s command...
  local name=$1 limit=$2
  shift 2
  echo
  echo "=== clients: $name"
  local start=$SECONDS
  timeout --kill-after=10 "$limit" "$@"
  local rc=$?
  [ $rc -eq 124 ] && echo "clients: $name timed out after ${limit}s"
  echo "=== clients: $name exited $rc after $((SECONDS - start))s"
  [ $rc -eq 0 ] || failed_suites+=("$name")
}

for suite in "${suites[@]}"; do
  case "$suite" in
    cli)
      run_suite redis-cli 150 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/redis-cli.xml" "$here/python/test_redis_cli.py" ;;
    python)
      run_suite redis-py 120 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/redis-py.xml" "$here/python/test_redis_py_lock.py"
      run_suite redis-py-pubsub 60 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/redis-py-pubsub.xml" "$here/python/test_redis_py_pubsub.py"
      run_suite blocking 120 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/blocking.xml" "$here/python/test_blocking.py" \
        "$here/python/test_blocking_endings.py" "$here/python/test_blocking_contexts.py" \
        "$here/python/test_stream_blocking.py"
      run_suite pubsub 180 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/pubsub.xml" "$here/python/test_pubsub.py"
      run_suite tracking 60 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/tracking.xml" "$here/python/test_tracking.py"
      run_suite operator-config 90 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/operator-config.xml" "$here/python/test_operator_config.py" \
        "$here/python/test_operator_process.py"
      run_suite ldb 60 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/ldb.xml" "$here/python/test_ldb.py"
      run_suite redis-py-pipeline 60 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/redis-py-pipeline.xml" "$here/python/test_redis_py_pipeline.py"
      run_suite redis-py-recipes 90 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/redis-py-recipes.xml" "$here/python/test_redis_py_recipes.py"
      run_suite redis-py-streams 120 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/redis-py-streams.xml" "$here/python/test_redis_py_streams.py"
      run_suite redis-py-functions 60 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/redis-py-functions.xml" "$here/python/test_redis_py_functions.py"
      run_suite transactions 120 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/transactions.xml" "$here/python/test_transactions.py"
      run_suite notifications 120 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/notifications.xml" "$here/python/test_notifications.py"
      run_suite client-admin 120 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/client-admin.xml" "$here/python/test_client_admin.py"
      run_suite stats 60 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/stats.xml" "$here/python/test_stats.py"
      run_suite debug-command-log 60 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/debug-command-log.xml" "$here/python/test_debug_command_log.py"
      run_suite debug-faults 60 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/debug-faults.xml" "$here/python/test_debug_faults.py"
      run_suite debug-snapshots 60 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/debug-snapshots.xml" "$here/python/test_debug_snapshots.py"
      run_suite debug-clock 90 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/debug-clock.xml" "$here/python/test_debug_clock.py"
      run_suite lock-libraries 120 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/lock-libraries.xml" "$here/python/test_portalocker.py" \
        "$here/python/test_python_redis_lock.py"
      run_suite acl 90 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/acl.xml" "$here/python/test_acl.py"
      run_suite rdb-versions 90 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/rdb-versions.xml" "$here/python/test_rdb_versions.py"
      run_suite migrate 60 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/migrate.xml" "$here/python/test_migrate_sockets.py"
      run_suite replication 120 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/replication.xml" "$here/python/test_replication.py" \
        "$here/python/test_replication_interface.py"
      run_suite sentinel 180 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/sentinel.xml" "$here/python/test_sentinel.py"
      run_suite tls 90 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/tls.xml" "$here/python/test_tls.py"
      run_suite script-libraries 90 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/script-libraries.xml" "$here/python/test_script_libraries.py" ;;
    redisson)
      run_suite redisson 120 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/redisson.xml" "$here/python/test_redisson_locks.py" \
        "$here/python/test_redisson_sync.py" ;;
    ruby)
      run_suite ruby-redis 60 env JUNIT_OUT="$results/ruby-redis.xml" \
        ruby -W0 "$here/ruby/lock_test.rb" ;;
    sidekiq)
      run_suite sidekiq 180 env JUNIT_OUT="$results/sidekiq.xml" \
        ruby -W0 "$here/ruby/sidekiq_test.rb" ;;
    twemproxy)
      run_suite twemproxy 120 "$py" -m pytest -q -p no:cacheprovider \
        --junitxml="$results/twemproxy.xml" "$here/python/test_twemproxy.py" ;;
    node)
      run_suite node 180 bash -c 'cd "$1/node" && exec node --test --test-concurrency=1 \
        --test-reporter=spec --test-reporter-destination=stdout \
        --test-reporter=junit --test-reporter-destination="$2/node.xml" test/' _ \
        "$here" "$results" ;;
    fuzz)
      # The harness on Redis alone first (a mismatch there is a broken tester), then warden.
      run_suite fuzz_diff-harness 60 "$py" "$here/fuzz_diff.py" --seeds 3 \
        --redis-port "${redis_ports[0]}" --second-redis-port "${redis_ports[1]}" --both-redis \
        --junit "$results/fuzz_diff-harness.xml"
      run_suite fuzz_diff 180 "$py" "$here/fuzz_diff.py" --seeds "${FUZZ_SEEDS:-20}" \
        --length "${FUZZ_LENGTH:-300}" --keep-going --shrink-seconds 20 \
        --redis-port "${redis_ports[0]}" --warden-port "${warden_ports[0]}" \
        --junit "$results/fuzz_diff.xml" ;;
    docs)
      # Every code block of README.md and docs/ run against this binary (tests/docs), with
      # servers of its own; here because nutcracker, which checks the twemproxy pool, is. The
      # suite's name puts its row in the warden column of the table.
      run_suite docs 300 env WARDEN_BINARY="$WARDEN_BIN" "$py" -m pytest -q -p no:cacheprovider \
        -o "junit_suite_name=README.md and docs/ [warden]" --junitxml="$results/docs.xml" \
        "$here/../docs" ;;
    *)
      echo "clients: unknown suite $suite" >&2
      failed_suites+=("$suite") ;;
  esac
done

# A server that died during the run is a failure even if every test before it passed.
for n in 1 2 3; do
  for kind in redis warden; do
    read -r pid port <"$work/$kind$n.addr"
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "clients: $kind$n (port $port) died during the run; its log:" >&2
      tail -n 30 "$work/$kind$n.log" >&2
      failed_suites+=("$kind$n-died")
    fi
  done
done

echo
"$py" "$here/summarize.py" "$results" "${failed_suites[@]}"
