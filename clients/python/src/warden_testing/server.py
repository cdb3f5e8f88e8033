"""A warden process for a test suite, and the test controls it answers over the wire.

`Warden` starts warden on a loopback port the kernel picks (`--port 0 --port-file`), with the
DEBUG controls on, nothing saved on shutdown and its files in a temporary directory of its own,
and stops it by its PID. The controls go through a connection of the object's own, named
`warden-testing`, never through a client the test holds. `flush()` returns a running server to
the state it started in, so one server can serve a whole session.
"""

import contextlib
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass

import redis

START_TIMEOUT_S = 10
STOP_TIMEOUT_S = 10
CONTROL_CLIENT_NAME = "warden-testing"
# DEBUG CLOCK saturates at the last instant it can hold, which is past the end of any pause.
_END_OF_TIME_MS = 2**63 - 1

# flush()'s first round trip. The order matters. A CLIENT PAUSE holds every command but DEBUG
# CLOCK (CLIENT UNPAUSE and DEBUG's others included) and ends once the clock passes its end, which
# may lie on a clock the test moved forward (DEBUG CLOCK REAL keeps it there): so the clock first
# jumps past every end, which also expires every key with a deadline, and comes back. Fault rules
# go before any command that is not DEBUG, which they may fail or delay. Then the other
# connections close (a client left blocked in BLPOP would take the next test's pushes). A
# server that started as a master stops replicating (a replica refuses FLUSHALL); REPLICAOF NO ONE
# changes nothing on a master. The queries read what the second round trip repairs, and the
# statistics are reset last, so that the reset's own commands leave none behind.
_RESET_CONNECTIONS = (
    ("DEBUG", "CLOCK", "FREEZE", _END_OF_TIME_MS),
    ("DEBUG", "CLOCK", "REAL"),
    ("DEBUG", "FAULT", "CLEAR"),
    ("DEBUG", "DROP-CLIENTS"),
)
_RESET_MASTER = (("REPLICAOF", "NO", "ONE"),)
_RESET_REST = (
    ("DEBUG", "SET-ACTIVE-EXPIRE", 1),
    ("DEBUG", "PAUSE-CRON", 0),
    ("DEBUG", "SET-DISABLE-DENY-SCRIPTS", 0),
    ("DEBUG", "COMMAND-LOG", "OFF"),
    ("DEBUG", "COMMAND-LOG", "RESET"),
    ("FLUSHALL", "SYNC"),
    ("SCRIPT", "FLUSH", "SYNC"),
    ("FUNCTION", "FLUSH", "SYNC"),
    ("ACL", "LOG", "RESET"),
)
_QUERIES = (
    ("DEBUG", "UNSUPPORTED"),
    ("DEBUG", "SNAPSHOT", "LIST"),
    ("CONFIG", "GET", "*"),
    ("ACL", "LIST"),
)
_RESET_STATISTICS = (
    ("SLOWLOG", "RESET"),
    ("LATENCY", "RESET"),
    ("CONFIG", "RESETSTAT"),
)
# What ACL SETUSER's `reset` does but set sanitize-payload, which the user may not have had.
_USER_RESET = ("resetpass", "resetkeys", "resetchannels", "clearselectors", "-@all", "off")


class WardenError(RuntimeError):
    """warden was not found or did not start; the message carries warden's own output."""


def find_binary():
    """The warden to run: $WARDEN_BINARY, else `warden` on PATH."""
    configured = os.environ.get("WARDEN_BINARY")
    if configured:
        if not (os.path.isfile(configured) and os.access(configured, os.X_OK)):
            raise WardenError(f"WARDEN_BINARY={configured} is not an executable file")
        return os.path.abspath(configured)
    found = shutil.which("warden")
    if found is None:
        raise WardenError("no warden binary: WARDEN_BINARY is not set and there is no warden on "
                          f"PATH ({os.environ.get('PATH', '')})")
    return found


class Warden:
    """A running warden and its controls. Also a context manager that stops it."""

    host = "127.0.0.1"

    def __init__(self, args=(), seed=None, binary=None):
        """Starts warden with `args` after the plugin's own options (a later option wins) and
        `--seed seed` if given; returns once it accepts connections. Raises WardenError with
        warden's output if it exits or takes longer than START_TIMEOUT_S."""
        self.binary = binary or find_binary()
        self._dir = tempfile.mkdtemp(prefix="warden-testing.")
        self._control = None
        self.unsupported_counts = Counter()  # what flush() and stop() read before it was reset
        port_file = os.path.join(self._dir, "port")
        self.command = [self.binary, "--port", "0", "--port-file", port_file, "--bind", self.host,
                        "--enable-debug-command", "yes", "--save", "", "--dir", self._dir,
                        *(str(a) for a in args)]
        if seed is not None:
            self.command += ["--seed", str(seed)]
        with open(self._log_path, "wb") as log:
            self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT)
        try:
            self.port = self._wait_for_port(port_file)
            # Replies are text; a logged argument that is not UTF-8 reads with U+FFFD for its
            # bad bytes rather than failing the test that looks at it.
            self._control = redis.Redis(host=self.host, port=self.port, decode_responses=True,
                                        encoding_errors="replace", client_name=CONTROL_CLIENT_NAME)
            self.seed = int(self._control.config_get("seed")["seed"])
            self._config = _pairs(self._control.execute_command("CONFIG", "GET", "*"))
            self._acl = self._control.acl_list()
            master = self._control.execute_command("ROLE")[0] == "master"
            self._reset = [*_RESET_CONNECTIONS, *(_RESET_MASTER if master else ()), *_RESET_REST,
                           *_QUERIES, *_RESET_STATISTICS]
        except BaseException:
            self.stop()
            raise

    @property
    def _log_path(self):
        return os.path.join(self._dir, "warden.log")

    def _wait_for_port(self, port_file):
        # warden writes the file, complete, once it accepts connections.
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            with contextlib.suppress(FileNotFoundError, ValueError):
                with open(port_file) as f:
                    return int(f.read())
            if self.process.poll() is not None:
                raise WardenError(self._start_failure(f"exit status {self.process.returncode}"))
            if time.monotonic() > deadline:
                raise WardenError(self._start_failure(f"no port after {START_TIMEOUT_S} s"))
            time.sleep(0.002)

    def _start_failure(self, why):
        self._terminate()
        return f"warden did not start ({why}): {shlex.join(self.command)}\n{self.log()}"

    @property
    def url(self):
        return f"redis://{self.host}:{self.port}"

    @property
    def running(self):
        return self.process.poll() is None

    def exited(self, within_s):
        """Whether warden has exited, waiting up to `within_s` for it to."""
        try:
            self.process.wait(timeout=within_s)
            return True
        except subprocess.TimeoutExpired:
            return False

    def log(self):
        """What warden has logged so far."""
        with open(self._log_path, errors="replace") as f:
            return f.read()

    def client(self, **options):
        """A new redis-py client on this server; replies are decoded (str) unless
        decode_responses=False is passed. The caller closes it."""
        return redis.Redis(host=self.host, port=self.port, **{"decode_responses": True, **options})

    def stop(self):
        """Stops warden (SIGTERM, SIGKILL after STOP_TIMEOUT_S) and removes its files."""
        if self._control is not None:
            with contextlib.suppress(redis.RedisError):
                if self.running:
                    self.unsupported_counts.update(self.unsupported())
            self._control.close()
            self._control = None
        self._terminate()
        shutil.rmtree(self._dir, ignore_errors=True)

    def _terminate(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    # --- Between tests --------------------------------------------------------------------------

    def flush(self):
        """Returns the server to the state it started in, in one round trip, two when the test
        left snapshots or changed configuration or ACL users: other connections closed, any
        CLIENT PAUSE ended, the system clock, active expiry and the cron on, no fault rules,
        the command log off and empty, not replicating (unless it started as a replica), every
        database empty, no scripts or functions, statistics, slow log, latency and ACL logs
        reset, no snapshots, and each configuration parameter and ACL user as at start."""
        pipe = self._control.pipeline(transaction=False)
        for command in self._reset:
            pipe.execute_command(*command)
        queried = pipe.execute()[-len(_QUERIES) - len(_RESET_STATISTICS):]
        unsupported, snapshots, config, acl = queried[:len(_QUERIES)]
        self.unsupported_counts.update(_counts(unsupported))

        repair = self._control.pipeline(transaction=False)
        for snapshot in snapshots:
            repair.execute_command("DEBUG", "SNAPSHOT", "DROP", _pairs(snapshot)["name"])
        config = _pairs(config)
        changed = [item for name, value in self._config.items() if config.get(name) != value
                   for item in (name, value)]
        if changed:
            repair.execute_command("CONFIG", "SET", *changed)
        if acl != self._acl:
            _repair_acl(repair, before=self._acl, now=acl)
        if len(repair):
            for command in _RESET_STATISTICS:  # of the commands before the repair
                repair.execute_command(*command)
            repair.execute()

    # --- The clock ------------------------------------------------------------------------------

    def now_ms(self):
        """warden's clock, in unix milliseconds."""
        _mode, ms = self.debug("CLOCK")  # ["real" or "frozen", unix ms]
        return int(ms)

    def freeze(self, at_ms=None):
        """Stops warden's clock, now or at `at_ms` (unix ms). Everything timed follows it: TTLs,
        TIME, expiry, the timeouts of blocking commands and of CLIENT PAUSE."""
        self.debug("CLOCK", "FREEZE", *([] if at_ms is None else [int(at_ms)]))

    def advance(self, ms):
        """Moves the clock forward `ms`, frozen or not: leases over by then expire, blocked
        commands time out and pauses end before this returns."""
        self.debug("CLOCK", "ADVANCE", int(ms))

    def real_clock(self):
        """Back to the system clock."""
        self.debug("CLOCK", "REAL")

    def wait_blocked(self, count, timeout_ms=5000):
        """Returns how many clients are blocked in a blocking command (BLPOP, ...) once at least
        `count` are; raises redis.ResponseError after `timeout_ms` of real time."""
        return self.debug("WAIT-BLOCKED", int(count), int(timeout_ms))

    # --- Snapshots ------------------------------------------------------------------------------

    def snapshot(self, name="default"):
        """Keeps an in-memory copy of every database, values and deadlines, under `name`."""
        self.debug("SNAPSHOT", "SAVE", name)

    def restore(self, name="default"):
        """Replaces the data with snapshot `name`; keys whose deadline has passed are left out."""
        self.debug("SNAPSHOT", "LOAD", name)

    def drop_snapshot(self, name="default"):
        """Frees snapshot `name`; returns whether there was one."""
        return self.debug("SNAPSHOT", "DROP", name) == 1

    def snapshots(self):
        """The names of the snapshots held."""
        return [_pairs(s)["name"] for s in self.debug("SNAPSHOT", "LIST")]

    # --- Faults ---------------------------------------------------------------------------------
    # Each takes the same keywords saying which commands it hits: command ("set", "client|kill"),
    # key (a glob over the command's keys), client_name (a glob), after (let the first n pass),
    # times (remove the rule after n firings) and probability (drawn from the server's seed).
    # Each returns a Fault, a context manager that removes the rule on exit.

    def fail(self, error, **match):
        """The command does not run; it is answered `-error` (e.g. "READONLY You can't write
        against a read only replica.")."""
        return self._fault(["ERROR", error], match)

    def delay(self, ms, jitter_ms=None, **match):
        """The command runs; its reply is held `ms` (plus up to `jitter_ms`) of real time."""
        jitter = [] if jitter_ms is None else ["JITTER", int(jitter_ms)]
        return self._fault(["DELAY", int(ms), *jitter], match)

    def drop(self, **match):
        """The connection closes before the command runs."""
        return self._fault(["DROP"], match)

    def drop_after(self, **match):
        """The command runs, and the connection closes instead of its reply."""
        return self._fault(["DROP-AFTER"], match)

    def faults(self):
        """The rules in the order they are tried, each a dict with its counts."""
        return [_pairs(rule) for rule in self.debug("FAULT", "LIST")]

    def clear_faults(self):
        self.debug("FAULT", "CLEAR")

    def _fault(self, action, match):
        return Fault(self, self.debug("FAULT", "ADD", *_match_args(**match), *action))

    # --- Observing ------------------------------------------------------------------------------

    @contextlib.contextmanager
    def command_log(self, max_entries=None):
        """Records every command the server runs inside the block; yields a CommandLog."""
        self.debug("COMMAND-LOG", "ON", *([] if max_entries is None else [int(max_entries)]))
        self.debug("COMMAND-LOG", "RESET")
        try:
            yield CommandLog(self)
        finally:
            self.debug("COMMAND-LOG", "OFF")

    def unsupported(self):
        """Commands warden answered as unknown since the last flush(): {name: count}, a
        subcommand as "config|nosuch"."""
        return _counts(self.debug("UNSUPPORTED"))

    # --- Anything else --------------------------------------------------------------------------

    def drop_clients(self):
        """Closes every connection but the controls'."""
        self.debug("DROP-CLIENTS")

    def simulate_restart(self):
        """Loses every key, script, fault rule and connection, as a restart without persistence."""
        self.debug("SIMULATE-RESTART")

    def debug(self, *args):
        """DEBUG with `args` on the controls' connection; returns the reply."""
        return self._control.execute_command("DEBUG", *args)


class Fault:
    """A fault rule, removed by remove() or at the end of a `with` block."""

    def __init__(self, server, rule_id):
        self._server = server
        self.id = rule_id

    def remove(self):
        """Removes the rule; False if it was gone already (a TIMES rule is removed when spent)."""
        return self._server.debug("FAULT", "DEL", self.id) == 1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


@dataclass(frozen=True)
class LoggedCommand:
    seq: int
    time_ms: int  # on warden's clock
    client_id: int
    client_name: str
    db: int
    args: list  # the command name first, as sent
    origin: str  # "client", "exec" (queued in MULTI) or "script" (redis.call from a script)

    @property
    def name(self):
        return self.args[0].lower()


class CommandLog:
    """What the server ran while the log was on."""

    def __init__(self, server):
        self._server = server

    def entries(self, count=None):
        """Every entry, the controls' own DEBUG commands included, oldest first; the newest
        `count` if given."""
        raw = self._server.debug("COMMAND-LOG", "GET", *([] if count is None else [int(count)]))
        return [LoggedCommand(int(seq), int(time_ms), int(client_id), client_name, int(db),
                              list(args), origin)
                for seq, time_ms, client_id, client_name, db, args, origin in raw]

    def commands(self, include_scripts=True):
        """What the code under test sent, each command a list of str with its name in lower
        case, e.g. [["set", "lock", "me", "NX", "PX", "30000"]]; the controls' commands are left
        out, and so are scripts' redis.call unless include_scripts."""
        return [[e.name, *e.args[1:]] for e in self.entries()
                if e.client_name != CONTROL_CLIENT_NAME
                and (include_scripts or e.origin != "script")]

    def reset(self):
        self._server.debug("COMMAND-LOG", "RESET")


def _match_args(command=None, key=None, client_name=None, after=None, times=None,
                probability=None):
    args = []
    for option, value in (("COMMAND", command), ("KEY", key), ("CLIENT-NAME", client_name),
                          ("AFTER", after), ("TIMES", times), ("PROBABILITY", probability)):
        if value is not None:
            args += [option, value]
    return args


def _pairs(flat):
    """[k1, v1, k2, v2, ...] (a map in RESP2) as a dict."""
    return dict(zip(flat[::2], flat[1::2]))


def _counts(reply):
    return Counter({name: int(count) for name, count in _pairs(reply).items()})


# An ACL LIST line: "user NAME RULE ...", where a selector is one rule in parentheses.
_ACL_RULE = re.compile(r"\([^)]*\)|\S+")


def _repair_acl(pipe, before, now):
    """Deletes the users a test added and gives those it changed their rules back."""
    rules_before = {line.split()[1]: _ACL_RULE.findall(line)[2:] for line in before}
    for line in now:
        name = line.split()[1]
        if name not in rules_before:
            pipe.execute_command("ACL", "DELUSER", name)
    for line in set(before) - set(now):
        name = line.split()[1]
        pipe.execute_command("ACL", "SETUSER", name, *_USER_RESET, *rules_before[name])
