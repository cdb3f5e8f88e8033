"""The pytest plugin, registered as the `pytest11` entry point `warden_testing.plugin`: installing
the package is all a suite needs, no conftest.py.

Fixtures: `warden`, a running server and its controls (a Warden), and `warden_client`, a
redis-py client on it. By default one server serves the whole session (each pytest-xdist worker
has its own) and is flushed before each test that asks for it; a test marked
`@pytest.mark.warden(fresh=True)` gets a server of its own, as does one whose marker passes
`args` or `seed`. Options (command line, or ini without the dashes): --warden-args for every
server, --warden-seed to replay a run, --warden-fresh for a server per test everywhere.
"""

import shlex
import subprocess
from collections import Counter

import pytest
import redis

from warden_testing.server import STOP_TIMEOUT_S, Warden, WardenError, find_binary

_SERVER = pytest.StashKey[Warden]()
_UNSUPPORTED = pytest.StashKey[Counter]()
_MARKER_OPTIONS = {"fresh", "args", "seed"}


def pytest_addoption(parser):
    group = parser.getgroup("warden", "warden test double (warden-testing)")
    group.addoption("--warden-args", help="arguments added to every warden's command line, "
                    "as one shell-quoted string (ini: warden_args)")
    group.addoption("--warden-seed", help="start every warden with --seed SEED, to replay a run "
                    "whose failure printed SEED (ini: warden_seed)")
    group.addoption("--warden-fresh", action="store_true", default=None,
                    help="a new warden for every test instead of one per session, flushed "
                    "between tests (ini: warden_fresh)")
    parser.addini("warden_args", "arguments added to every warden's command line", type="args")
    parser.addini("warden_seed", "start every warden with --seed warden_seed")
    parser.addini("warden_fresh", "a new warden for every test", type="bool", default=False)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "warden(fresh=False, args=(), seed=None): the warden of this test: a server "
        "of its own (fresh=True, implied by args or seed), with these arguments and seed")
    config.stash[_UNSUPPORTED] = Counter()


def _seed(config):
    seed = config.getoption("warden_seed") or config.getini("warden_seed")
    return int(seed) if seed else None


def _args(config):
    args = config.getoption("warden_args")
    return shlex.split(args) if args is not None else list(config.getini("warden_args"))


def _fresh(config):
    fresh = config.getoption("warden_fresh")
    return fresh if fresh is not None else config.getini("warden_fresh")


def pytest_report_header(config):
    try:
        binary = find_binary()
    except WardenError as e:
        return f"warden: {e}"
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
    seed = _seed(config)
    seeds = (f"seed {seed} (--warden-seed)" if seed is not None
             else "seeds drawn at start, each printed with the failures it saw")
    return f"warden: {binary} ({version.strip()}), {seeds}"


class _SharedServer:
    """The session's server, started by the first test that needs it and again if a test
    stopped it (SHUTDOWN). A start that failed fails every later test the same way."""

    def __init__(self, config):
        self._config = config
        self._server = None
        self._error = None

    def get(self):
        if self._error is not None:
            raise self._error
        if self._server is not None and self._server.running:
            try:
                self._server.flush()
                return self._server
            except redis.ConnectionError:
                # A test sent SHUTDOWN, and warden may still be on its way out.
                if not self._server.exited(within_s=STOP_TIMEOUT_S):
                    raise
        self.stop()
        try:
            self._server = Warden(args=_args(self._config), seed=_seed(self._config))
        except WardenError as e:
            self._error = e
            raise
        return self._server

    def stop(self):
        if self._server is not None:
            _stop(self._config, self._server)
            self._server = None


def _stop(config, server):
    server.stop()
    config.stash[_UNSUPPORTED].update(server.unsupported_counts)


@pytest.fixture(scope="session")
def _warden_shared(request):
    shared = _SharedServer(request.config)
    yield shared
    shared.stop()


@pytest.fixture
def warden(request):
    """A running warden (warden_testing.Warden) in the state it started in: port, host, url,
    client(), the clock (freeze, advance, real_clock, now_ms), wait_blocked, snapshots
    (snapshot, restore), faults (fail, delay, drop, drop_after), command_log, unsupported,
    flush. The session's server, flushed, unless the test is marked warden(fresh=True)."""
    config = request.config
    marker = request.node.get_closest_marker("warden")
    options = dict(marker.kwargs) if marker is not None else {}
    unknown = set(options) - _MARKER_OPTIONS
    if unknown or (marker is not None and marker.args):
        pytest.fail(f"warden marker: unknown arguments {sorted(unknown) or marker.args}; it takes "
                    "fresh, args and seed as keywords", pytrace=False)
    own = "args" in options or "seed" in options
    try:
        if options.get("fresh", own) or _fresh(config):
            seed = options["seed"] if "seed" in options else _seed(config)
            server = Warden(args=[*_args(config), *options.get("args", ())], seed=seed)
            request.addfinalizer(lambda: _stop(config, server))
        else:
            server = request.getfixturevalue("_warden_shared").get()
    except WardenError as e:
        raise pytest.fail.Exception(str(e), pytrace=False) from None
    request.node.stash[_SERVER] = server
    return server


@pytest.fixture
def warden_client(warden):
    """A redis-py client (replies decoded to str) on `warden`, closed after the test."""
    client = warden.client()
    yield client
    client.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    # A failure names the seed of the server it saw, so the run can be replayed.
    report = (yield).get_result()
    server = item.stash.get(_SERVER, None)
    if report.failed and server is not None:
        report.sections.append(
            ("warden", f"seed {server.seed} (port {server.port}): replay with "
                       f"--warden-seed {server.seed}"))


@pytest.hookimpl(trylast=True)  # after the session's server has stopped
def pytest_sessionfinish(session):
    # An xdist worker hands its counts to the controller (pytest_testnodedown).
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["warden_unsupported"] = dict(session.config.stash[_UNSUPPORTED])


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    counts = getattr(node, "workeroutput", {}).get("warden_unsupported", {})
    node.config.stash[_UNSUPPORTED].update(counts)


def pytest_terminal_summary(terminalreporter, config):
    # warden logs these at shutdown; the plugin's servers log to files it removes.
    counts = config.stash[_UNSUPPORTED]
    if counts:
        terminalreporter.write_sep("-", "warden: commands it does not have")
        terminalreporter.write_line(
            ", ".join(f"{name} ({count})" for name, count in sorted(counts.items())))
