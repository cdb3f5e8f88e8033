"""The plugin as a user's suite meets it: test files without conftest.py run by pytest, whose
output is checked. The failures to start show warden's own words."""

import importlib.util
import os
import socket
import sys

import pytest

pytest_plugins = ["pytester"]

WARDEN = os.environ.get("WARDEN_BINARY")

# Two tests, each recording the server it saw; the second also sees what the first left behind.
TWO_TESTS = """
import os

def record(warden):
    with open(os.path.join(os.environ["RECORD_DIR"], f"{os.getpid()}-{warden.port}"), "a"):
        pass

def test_leaves_state(warden, warden_client):
    record(warden)
    warden.freeze(1_700_000_000_000)
    warden_client.set("lock", "me")

def test_sees_none(warden, warden_client):
    record(warden)
    assert warden_client.dbsize() == 0
    assert warden.debug("CLOCK")[0] == "real"
"""


@pytest.fixture
def record_dir(tmp_path, monkeypatch):
    path = tmp_path / "record"
    path.mkdir()
    monkeypatch.setenv("RECORD_DIR", str(path))
    return path


def servers_seen(record_dir):
    """{pid: set of ports}: the servers each pytest process used."""
    seen = {}
    for name in os.listdir(record_dir):
        pid, port = name.split("-")
        seen.setdefault(pid, set()).add(port)
    return seen


def run(pytester, *args):
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)


def test_one_server_per_session_flushed_between_tests(pytester, record_dir):
    pytester.makepyfile(TWO_TESTS)
    result = run(pytester)
    result.assert_outcomes(passed=2)
    assert [len(ports) for ports in servers_seen(record_dir).values()] == [1]
    result.stdout.fnmatch_lines([f"warden: {WARDEN} (warden v=*), seeds drawn at start, *"])


def test_warden_fresh_starts_a_server_per_test(pytester, record_dir):
    pytester.makepyfile(TWO_TESTS)
    run(pytester, "--warden-fresh").assert_outcomes(passed=2)
    assert [len(ports) for ports in servers_seen(record_dir).values()] == [2]


def test_fresh_marker_starts_a_server_for_its_test(pytester, record_dir):
    pytester.makepyfile(TWO_TESTS + """
import pytest

@pytest.mark.warden(fresh=True)
def test_fresh(warden):
    record(warden)
""")
    run(pytester).assert_outcomes(passed=3)
    assert [len(ports) for ports in servers_seen(record_dir).values()] == [2]


@pytest.mark.skipif(importlib.util.find_spec("xdist") is None,
                    reason="pytest-xdist is not installed (Debian: python3-pytest-xdist)")
def test_each_xdist_worker_has_a_server_of_its_own(pytester, record_dir):
    pytester.makepyfile(**{f"test_{i}": TWO_TESTS for i in range(4)})
    run(pytester, "-n", "2").assert_outcomes(passed=8)
    seen = servers_seen(record_dir)
    assert len(seen) == 2  # two worker processes
    assert all(len(ports) == 1 for ports in seen.values())
    assert len(set.union(*seen.values())) == 2


def test_a_failure_names_the_seed_to_replay(pytester):
    pytester.makepyfile("""
def test_fails(warden):
    assert warden.seed == 0
""")
    result = run(pytester)
    result.assert_outcomes(failed=1)
    line = next(line for line in result.outlines if line.startswith("seed "))
    seed = line.split()[1]
    assert line.endswith(f"replay with --warden-seed {seed}")
    replay = run(pytester, "--warden-seed", seed)
    replay.assert_outcomes(failed=1)
    replay.stdout.fnmatch_lines([f"warden: * seed {seed} (--warden-seed)",
                                 f"seed {seed} (port *): replay with --warden-seed {seed}"])


def test_warden_seed_from_the_ini_file(pytester):
    pytester.makeini("[pytest]\nwarden_seed = 42\n")
    pytester.makepyfile("""
def test_seed(warden, warden_client):
    assert warden.seed == 42
    assert warden_client.config_get("seed") == {"seed": "42"}
""")
    run(pytester).assert_outcomes(passed=1)


def test_a_server_stopped_by_a_test_is_started_again(pytester):
    pytester.makepyfile("""
def test_shutdown(warden_client):
    warden_client.shutdown(nosave=True)

def test_next(warden_client):
    assert warden_client.ping()
""")
    run(pytester).assert_outcomes(passed=2)


def test_commands_warden_lacks_are_summed_up(pytester):
    pytester.makepyfile("""
import pytest, redis

@pytest.mark.parametrize("n", range(2))
def test_unknown(warden_client, n):
    with pytest.raises(redis.ResponseError):
        warden_client.execute_command("NOSUCHCOMMAND")
""")
    result = run(pytester)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*warden: commands it does not have*", "nosuchcommand (2)"])


def test_a_marker_with_unknown_arguments_fails_its_test(pytester):
    pytester.makepyfile("""
import pytest

@pytest.mark.warden(fersh=True)
def test_typo(warden):
    pass
""")
    result = run(pytester)
    result.assert_outcomes(errors=1)
    assert ("warden marker: unknown arguments ['fersh']; it takes fresh, args and seed as "
            "keywords") in result.outlines


def test_naming_the_installed_plugin_loads_it_once_and_no_turns_it_off(pytester):
    pytester.makepyfile("def test_needs_warden(warden):\n    assert warden.port\n")
    run(pytester, "-p", "warden_testing.plugin").assert_outcomes(passed=1)
    off = run(pytester, "-p", "no:warden_testing.plugin")
    off.assert_outcomes(errors=1)
    off.stdout.fnmatch_lines(["E       fixture 'warden' not found"])


# --- Failures to start -------------------------------------------------------------------------

ONE_TEST = "def test_needs_warden(warden):\n    pass\n"


def test_no_binary_says_where_it_looked(pytester, monkeypatch):
    monkeypatch.delenv("WARDEN_BINARY")
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable))
    pytester.makepyfile(ONE_TEST)
    result = run(pytester)
    result.assert_outcomes(errors=1)
    expected = ("no warden binary: WARDEN_BINARY is not set and there is no warden on PATH "
                f"({os.path.dirname(sys.executable)})")
    assert f"warden: {expected}" in result.outlines  # the header
    assert expected in result.outlines  # the test's error


def test_a_bad_option_shows_wardens_error(pytester):
    pytester.makepyfile(ONE_TEST)
    result = run(pytester, "--warden-args=--nosuch-option 1")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([
        "warden did not start (exit status 1): * --nosuch-option 1",
        "",
        "[*][*][*] FATAL CONFIG FILE ERROR (Redis *) [*][*][*]",
        "Reading the configuration file, at line *",
        ">>> 'nosuch-option \"1\"'",
        "Bad directive or wrong number of arguments",
    ], consecutive=True)


def test_a_busy_port_shows_wardens_error(pytester):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        pytester.makepyfile(ONE_TEST)
        result = run(pytester, f"--warden-args=--port {port}")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([
        f"warden did not start (exit status 1): * --port {port}",
        f"* # Could not create server TCP listening socket 127.0.0.1:{port}: "
        "address already in use",
    ])

