#!/usr/bin/env python3
"""What a pytest suite pays per test for a clean Redis: warden-testing's `warden_client` (one
warden per session, flushed before each test) beside the approach pytest-redis takes with
redis-server (one server per session, a new client and FLUSHALL for each test).

A generated file of --tests tests, each taking a lock and reading it back through its client,
runs once per --rounds round in three suites with the same test bodies:
  warden        warden-testing's plugin, the `warden_client` fixture
  redis-server  a session-scoped redis-server on a free port and a fixture that sends FLUSHALL
                and yields a new client (closed after the test), as pytest-redis's redisdb
  floor         a fixture that yields a client on no server: pytest's own cost per fixture
A timing plugin records pytest's durations of each test's setup, call and teardown; the first
test, which also starts the server, is left out and its setup reported as the start. Reported,
median of the rounds: the mean fixture time per test (setup + teardown), the call (the body,
whose first command opens the client's connection) and the start.

    bench/pytest_fixture_bench.py build/warden [--tests 200] [--rounds 5]

The plugin is clients/python/src's, loaded with -p warden_testing.plugin.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

BODY = '''
def test_lock_{i}({fixture}):
    assert {fixture}.set("lock:{i}", "me", nx=True, px=30000)
    assert {fixture}.get("lock:{i}") == "me"
'''

REDIS_SERVER_FIXTURES = '''
import os, socket, subprocess, tempfile, time
import pytest, redis


@pytest.fixture(scope="session")
def redis_proc():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    workdir = tempfile.mkdtemp(dir=os.path.dirname(__file__))  # removed with the bench's directory
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                             "--save", "", "--appendonly", "no", "--dir", workdir],
                            stdout=subprocess.DEVNULL)
    probe = redis.Redis(port=port)
    while True:
        try:
            probe.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.002)
    probe.close()
    yield port
    proc.terminate()
    proc.wait()


@pytest.fixture
def redis_client(redis_proc):
    client = redis.Redis(port=redis_proc, decode_responses=True)
    client.flushall()
    yield client
    client.close()
'''

FLOOR_FIXTURES = '''
import pytest, redis


@pytest.fixture
def floor_client():
    client = redis.Redis(port=1, decode_responses=True)  # never connects
    yield client
    client.close()
'''

FLOOR_BODY = '''
def test_lock_{i}(floor_client):
    assert floor_client is not None
'''

TIMING_PLUGIN = '''
import json, os

durations = []


def pytest_runtest_logreport(report):
    durations.append((report.nodeid, report.when, report.duration, report.outcome))


def pytest_sessionfinish(session):
    with open(os.environ["BENCH_TIMINGS"], "w") as f:
        json.dump(durations, f)
'''


def write_suite(directory, name, header, body, fixture):
    path = os.path.join(directory, f"test_{name}.py")
    with open(path, "w") as f:
        f.write(header)
        for i in range(ARGS.tests):
            f.write(body.format(i=i, fixture=fixture))
    return path


def run_suite(directory, test_file, extra_args=(), env_extra=None):
    timings = os.path.join(directory, "timings.json")
    extra = dict(env_extra or {})
    paths = [directory, *filter(None, [extra.pop("PYTHONPATH", None)])]
    env = dict(os.environ, BENCH_TIMINGS=timings, PYTHONPATH=os.pathsep.join(paths), **extra)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
               "bench_timing", *extra_args, test_file]
    done = subprocess.run(command, cwd=directory, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")
    with open(timings) as f:
        rows = json.load(f)
    per_test = {}
    for nodeid, when, duration, _outcome in rows:
        per_test.setdefault(nodeid, {})[when] = duration
    tests = list(per_test.values())
    first, rest = tests[0], tests[1:]
    return {
        "start_ms": first["setup"] * 1e3,
        "fixture_ms": statistics.mean(t["setup"] + t["teardown"] for t in rest) * 1e3,
        "setup_ms": statistics.mean(t["setup"] for t in rest) * 1e3,
        "teardown_ms": statistics.mean(t["teardown"] for t in rest) * 1e3,
        "call_ms": statistics.mean(t["call"] for t in rest) * 1e3,
    }


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary", help="the warden binary")
    parser.add_argument("--tests", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    ARGS = parser.parse_args()
    if shutil.which("redis-server") is None:
        sys.exit("redis-server is not on PATH")

    directory = tempfile.mkdtemp(prefix="pytest-fixture-bench.")
    try:
        with open(os.path.join(directory, "bench_timing.py"), "w") as f:
            f.write(TIMING_PLUGIN)
        warden_env = {"WARDEN_BINARY": os.path.abspath(ARGS.binary),
                      "PYTHONPATH": os.path.join(REPO, "clients/python/src")}
        warden_args = ["-p", "warden_testing.plugin"]
        suites = {
            "warden": (write_suite(directory, "warden", "", BODY, "warden_client"),
                       warden_args, warden_env),
            "redis-server": (write_suite(directory, "redis_server", REDIS_SERVER_FIXTURES, BODY,
                                         "redis_client"), [], None),
            "floor": (write_suite(directory, "floor", FLOOR_FIXTURES, FLOOR_BODY,
                                  "floor_client"), [], None),
        }
        results = {name: [] for name in suites}
        for _ in range(ARGS.rounds):
            for name, (test_file, extra_args, env_extra) in suites.items():
                results[name].append(run_suite(directory, test_file, extra_args, env_extra))
    finally:
        shutil.rmtree(directory, ignore_errors=True)

    print(f"{ARGS.tests} tests, median of {ARGS.rounds} rounds; ms per test, the first test "
          "(server start) left out")
    print(f"{'suite':<14}{'fixture':>9}{'setup':>9}{'teardown':>10}{'call':>8}{'start':>8}")
    for name, rounds in results.items():
        median = {key: statistics.median(r[key] for r in rounds) for key in rounds[0]}
        print(f"{name:<14}{median['fixture_ms']:>9.3f}{median['setup_ms']:>9.3f}"
              f"{median['teardown_ms']:>10.3f}{median['call_ms']:>8.3f}{median['start_ms']:>8.1f}")


if __name__ == "__main__":
    main()
