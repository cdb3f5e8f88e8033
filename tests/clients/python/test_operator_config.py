"""warden as an operator's drop-in for redis-server: Debian's stock redis.conf starts it (only
port, dir and logfile changed, daemonized as the file says), a config mistake gets
redis-server's exact FATAL report and exit status, and CONFIG GET knows every option
redis-server 7.0 knows.

Each test starts its own servers on free ports, by PID or, for the daemonized one, stops it
with SHUTDOWN and waits on the PID INFO gave.
"""

import os
import select
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request

import pytest
import redis

from replication_support import free_port, warden_bin
from resp_conn import Conn, parse

STOCK_CONF = "/etc/redis/redis.conf"
WAIT_S = 20


def run_to_exit(binary, args, cwd):
    """Runs a server that must refuse to start; returns (exit status, stdout, stderr)."""
    proc = subprocess.run([binary] + args, cwd=cwd, capture_output=True, text=True,
                          timeout=WAIT_S)
    return proc.returncode, proc.stdout, proc.stderr


# A table of mistakes: each config file text, and extra command-line words.
MISTAKES = [
    ("maxmemroy 100mb\n", []),
    ("port 7000\n\n# comment\nappendonly maybe\n", []),
    ("port\n", []),
    ("hz 0 1\n", []),
    ("requirepass \"unbalanced\n", []),
    ("maxmemory lots\n", []),
    ("port 70000\n", []),
    ("loglevel loud\n", []),
    ("appendfsync sometimes\n", []),
    ("io-threads 0\n", []),
    ("oom-score-adj-values 0 200\n", []),
    ("shutdown-on-sigterm save nosave\n", []),
    ("supervised launchd\n", []),
    ("rename-command nosuch foo\n", []),
    ("rename-command set get\n", []),
    ("rename-command set\n", []),
    ("rename-command flushall \"\"\nrename-command flushall x\n", []),
    ("port 7001\n", ["--rename-command", "get|x", "y"]),
    ("port 7001\n", ["--hz", "fast"]),
    ("port 7001\n", ["--nosuch", "1", "2"]),
    ("", ["--port", "7002", "--maxmemory-policy", "sometimes"]),
]


@pytest.mark.parametrize("text,extra", MISTAKES)
def test_config_mistakes_fail_as_redis_server_fails(text, extra):
    with tempfile.TemporaryDirectory(prefix="warden-conf-") as work:
        path = os.path.join(work, "bad.conf")
        with open(path, "w") as f:
            f.write(text)
        args = [path] + extra if text else extra
        redis_status, _, redis_err = run_to_exit("redis-server", args, work)
        warden_status, _, warden_err = run_to_exit(warden_bin(), args, work)
    assert redis_status == 1
    assert "FATAL CONFIG FILE ERROR" in redis_err
    assert (warden_status, warden_err) == (redis_status, redis_err)


def log_message(line):
    """A log line without its pid, role and time stamp ("123:C 07 Dec ... # text")."""
    return line.split(" ", 5)[-1] if line.count(" ") >= 5 else line


@pytest.mark.parametrize("target", ["/nonexistent/redis.conf", "/"])
def test_a_config_file_that_cannot_be_read(target):
    with tempfile.TemporaryDirectory(prefix="warden-conf-") as work:
        status, out, _ = run_to_exit(warden_bin(), [target], work)
    assert status == 1
    reason = "No such file or directory" if target != "/" else "Is a directory"
    assert log_message(out.strip()) == (
        "# Fatal error, can't open config file '%s': %s" % (target, reason))


def config_names(port):
    with redis.Redis(port=port) as r:
        return set(r.config_get("*"))


def test_config_get_knows_every_option_redis_server_knows():
    procs = []
    try:
        ports = {}
        with tempfile.TemporaryDirectory(prefix="warden-conf-") as work:
            for kind, binary in (("redis", "redis-server"), ("warden", warden_bin())):
                ports[kind] = free_port()
                procs.append(subprocess.Popen(
                    [binary, "--port", str(ports[kind]), "--save", "", "--dir", work],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            names = {kind: wait_for_names(port, procs) for kind, port in ports.items()}
    finally:
        for p in procs:
            p.terminate()
            p.wait(timeout=WAIT_S)
    assert names["redis"] - names["warden"] == set()
    assert names["warden"] - names["redis"] == {
        "command-log-max-entries", "debug-fault-max-rules", "lua-native-scripts", "port-file",
        "preload", "script-memory-limit", "seed", "snapshot-max-bytes",
        "snapshot-max-count", "tls-handshake-timeout"}


def wait_for_names(port, procs):
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            return config_names(port)
        except redis.ConnectionError:
            for p in procs:
                assert p.poll() is None, "a server exited at start"
            if time.monotonic() > deadline:
                raise
            # The server is not listening yet: wait on its port instead of sleeping.
            wait_for_port(port, deadline)


def wait_for_port(port, deadline):
    """Blocks in connect() until the port accepts, or the deadline passes."""
    while time.monotonic() < deadline:
        with socket.socket() as s:
            s.settimeout(max(0.01, deadline - time.monotonic()))
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        # A refused connect returns at once: wait a moment before the next try.
        select_wait(0.02)


def select_wait(seconds):
    select.select([], [], [], seconds)


def stock_conf(work, port):
    """Debian's redis.conf with only port, dir and logfile changed."""
    out = []
    with open(STOCK_CONF) as f:
        for line in f:
            word = line.split(" ", 1)[0]
            if word == "port":
                line = "port %d\n" % port
            elif word == "dir":
                line = "dir %s\n" % work
            elif word == "logfile":
                line = "logfile %s\n" % os.path.join(work, "warden.log")
            out.append(line)
    path = os.path.join(work, "redis.conf")
    with open(path, "w") as f:
        f.writelines(out)
    return path


@pytest.mark.skipif(not os.access(STOCK_CONF, os.R_OK), reason="needs Debian's redis.conf")
def test_debians_stock_redis_conf_starts_warden_daemonized():
    with tempfile.TemporaryDirectory(prefix="warden-stock-") as work:
        port = free_port()
        conf = stock_conf(work, port)
        # daemonize yes: the started process exits 0 once the server has forked away.
        status = subprocess.run([warden_bin(), conf], cwd=work, timeout=WAIT_S).returncode
        assert status == 0
        deadline = time.monotonic() + WAIT_S
        wait_for_port(port, deadline)
        with redis.Redis(port=port) as r:
            info = r.info("server")
            pid = info["process_id"]
            try:
                assert r.set("lock:stock", "token", nx=True, px=30000)
                assert r.config_get("daemonize") == {"daemonize": "yes"}
                assert r.config_get("bind") == {"bind": "127.0.0.1 -::1"}
                assert r.config_get("lazyfree-lazy-eviction") == {"lazyfree-lazy-eviction": "no"}
                assert r.config_get("oom-score-adj-values") == {
                    "oom-score-adj-values": "0 200 800"}
                assert r.config_get("dir") == {"dir": os.path.realpath(work)}
            finally:
                try:
                    r.shutdown(nosave=True)
                except redis.ConnectionError:
                    pass
        wait_for_exit(pid, deadline)
        with open(os.path.join(work, "warden.log")) as f:
            log = f.read()
        assert "Ready to accept connections" in log
        # The stock file sets options that mean nothing here; the log says which, once each.
        assert log.count("Option 'jemalloc-bg-thread' is accepted") == 0  # at its default
        assert "Option 'io-threads'" not in log


def wait_for_exit(pid, deadline):
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        select_wait(0.02)
    raise AssertionError("the daemonized server (pid %d) did not exit" % pid)


def read_until(proc, text):
    """Reads a server's output line by line until a line holds `text`; returns all read. A
    server that never prints it is killed after WAIT_S, which ends the read."""
    seen = []
    watchdog = threading.Timer(WAIT_S, proc.kill)
    watchdog.start()
    try:
        for line in proc.stdout:
            seen.append(line)
            if text in line:
                return "".join(seen)
    finally:
        watchdog.cancel()
    raise AssertionError("no %r in:\n%s" % (text, "".join(seen)))


def test_supervised_systemd_tells_readiness_and_stopping():
    with tempfile.TemporaryDirectory(prefix="warden-notify-") as work:
        path = os.path.join(work, "notify")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(path)
        sock.settimeout(WAIT_S)
        port = free_port()
        env = dict(os.environ, NOTIFY_SOCKET=path)
        proc = subprocess.Popen([warden_bin(), "--port", str(port), "--supervised", "systemd",
                                 "--save", "", "--dir", work], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            ready = sock.recv(4096)
            # Ready means ready: a client is served at once.
            with redis.Redis(port=port) as r:
                assert r.ping()
        finally:
            proc.terminate()
            proc.wait(timeout=WAIT_S)
        stopping = sock.recv(4096)
        sock.close()
    assert ready == b"STATUS=Ready to accept connections\nREADY=1\n"
    assert stopping == b"STOPPING=1\n"


def test_pidfile_is_written_and_removed():
    with tempfile.TemporaryDirectory(prefix="warden-pid-") as work:
        port = free_port()
        pidfile = os.path.join(work, "w.pid")
        proc = subprocess.Popen([warden_bin(), "--port", str(port), "--pidfile", pidfile,
                                 "--save", "", "--io-threads", "4", "--dir", work],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            out = read_until(proc, "Ready to accept connections")
            with open(pidfile) as f:
                assert int(f.read()) == proc.pid
        finally:
            proc.terminate()
            rest, _ = proc.communicate(timeout=WAIT_S)
        assert not os.path.exists(pidfile)
        assert ("Option 'io-threads' is accepted for Redis compatibility but has no effect"
                in out)
        assert "Removing the pid file." in rest


def test_config_rewrite_writes_what_redis_server_writes():
    """The same file and the same changes on both servers: the rewritten files hold the same
    lines (Redis orders appended options by its hash table, which differs from run to run, so
    the lines after the signature are compared as a set)."""
    texts = {}
    with tempfile.TemporaryDirectory(prefix="warden-rewrite-") as work:
        for kind, binary in (("redis", "redis-server"), ("warden", warden_bin())):
            port = free_port()
            path = os.path.join(work, kind + ".conf")
            with open(path, "w") as f:
                f.write("port %d\nmaxmemory 128mb\nuser alice on >pw ~k* +get\n# kept\n"
                        "io-threads 2\nappendonly no\nhz 15\nhz 16\n" % port)
            proc = subprocess.Popen([binary, path], cwd=work, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)
            try:
                read_until(proc, "Ready to accept connections")
                with redis.Redis(port=port) as r:
                    r.config_set("maxmemory", "256mb")
                    r.config_set("hz", "20")
                    r.config_set("maxmemory-clients", "10%")
                    r.acl_setuser("bob", enabled=True, nopass=True, keys=["*"],
                                  commands=["+@all"])
                    assert r.config_rewrite()
            finally:
                proc.terminate()
                proc.communicate(timeout=WAIT_S)
            with open(path) as f:
                texts[kind] = f.read().replace(str(port), "PORT")
    head = {k: t.split("# Generated by CONFIG REWRITE\n")[0] for k, t in texts.items()}
    tail = {k: sorted(t.split("# Generated by CONFIG REWRITE\n")[1].splitlines())
            for k, t in texts.items()}
    assert head["warden"] == head["redis"]
    assert tail["warden"] == tail["redis"]
    assert "maxmemory 256mb\n" in head["warden"]


def info_fields(port):
    """INFO's field names in order, and its section headers."""
    with Conn(port) as c:
        text = parse(c.call("INFO")).decode()
    lines = [line for line in text.split("\r\n") if line]
    return ([line.split(":", 1)[0] for line in lines if not line.startswith("#")],
            [line for line in lines if line.startswith("#")])


def test_info_has_every_field_of_redis_server_in_its_order():
    procs = []
    try:
        ports = {}
        with tempfile.TemporaryDirectory(prefix="warden-info-") as work:
            for kind, binary in (("redis", "redis-server"), ("warden", warden_bin())):
                ports[kind] = free_port()
                proc = subprocess.Popen([binary, "--port", str(ports[kind]), "--save", "",
                                         "--dir", work], stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
                procs.append(proc)
                read_until(proc, "Ready to accept connections")
            fields = {kind: info_fields(port) for kind, port in ports.items()}
            with redis.Redis(port=ports["warden"]) as r:
                server = r.info("server")
                # The rates are sampled every 100 ms: traffic shows within a few samples.
                deadline = time.monotonic() + WAIT_S
                while r.info("stats")["instantaneous_ops_per_sec"] == 0:
                    assert time.monotonic() < deadline, "no ops/sec after traffic"
                    with r.pipeline(transaction=False) as p:
                        for _ in range(200):
                            p.ping()
                        p.execute()
                memory = r.info("memory")
    finally:
        for p in procs:
            p.terminate()
            p.communicate(timeout=WAIT_S)
    names, sections = fields["warden"]
    own = {"warden_version", "active_expire_slices"}
    assert [n for n in names if n not in own] == fields["redis"][0]
    assert sections == fields["redis"][1]
    assert server["executable"] == os.path.realpath(warden_bin())
    assert memory["used_memory_peak"] >= memory["used_memory"] > 0
    assert memory["total_system_memory"] > memory["used_memory"]
    assert memory["mem_fragmentation_ratio"] > 0


EXPORTER = "/usr/bin/prometheus-redis-exporter"


def metric_names(port):
    """The metric names Debian's Prometheus exporter reports scraping the server on `port`."""
    listen = free_port()
    proc = subprocess.Popen([EXPORTER, "--redis.addr=redis://127.0.0.1:%d" % port,
                             "--web.listen-address=127.0.0.1:%d" % listen],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(listen, time.monotonic() + WAIT_S)
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % listen,
                                    timeout=WAIT_S) as response:
            text = response.read().decode()
    finally:
        proc.terminate()
        proc.wait(timeout=WAIT_S)
    return {line.split("{")[0].split(" ")[0] for line in text.splitlines()
            if line and not line.startswith("#")}


def workload(port):
    """The same traffic on both servers: keys with and without TTLs, a hash, an error, a
    script, a subscriber's channel."""
    with redis.Redis(port=port) as r:
        r.set("lock:a", "token", px=30000)
        r.set("plain", "1")
        r.hset("h", "f", "v")
        r.eval("return redis.call('GET', KEYS[1])", 1, "lock:a")
        with pytest.raises(redis.ResponseError):
            r.execute_command("INCR", "h")
        r.select(1)
        r.set("other", "x")


def test_the_prometheus_exporter_reads_warden_as_redis_server():
    assert os.access(EXPORTER, os.X_OK), "tests/clients/run.sh installs prometheus-redis-exporter"
    procs = []
    names = {}
    try:
        with tempfile.TemporaryDirectory(prefix="warden-exporter-") as work:
            for kind, binary in (("redis", "redis-server"), ("warden", warden_bin())):
                port = free_port()
                proc = subprocess.Popen([binary, "--port", str(port), "--save", "",
                                         "--dir", work], stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
                procs.append(proc)
                read_until(proc, "Ready to accept connections")
                workload(port)
                names[kind] = metric_names(port)
    finally:
        for p in procs:
            p.terminate()
            p.communicate(timeout=WAIT_S)
    assert {"redis_memory_used_peak_bytes", "redis_mem_fragmentation_ratio",
            "redis_cpu_sys_children_seconds_total"} <= names["warden"]
    assert names["warden"] == names["redis"]


def test_the_log_names_config_seed_debug_addresses_and_verbose_clients():
    with tempfile.TemporaryDirectory(prefix="warden-log-") as work:
        port = free_port()
        conf = os.path.join(work, "w.conf")
        with open(conf, "w") as f:
            f.write("port %d\nseed 42\nloglevel verbose\nenable-debug-command local\n" % port)
        proc = subprocess.Popen([warden_bin(), conf, "--save", "", "--dir", work],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            start = read_until(proc, "Ready to accept connections")
            # A raw socket, closed here (redis-py's pool would keep it open).
            with socket.create_connection(("127.0.0.1", port), timeout=WAIT_S) as s:
                s.sendall(b"PING\r\n")
                assert s.recv(64) == b"+PONG\r\n"
            # The client's close is logged when the server reads its EOF.
            closed = read_until(proc, "Client closed connection")
        finally:
            proc.terminate()
            proc.communicate(timeout=WAIT_S)
    messages = [log_message(line) for line in start.splitlines()]
    assert messages[0].startswith("* warden ") and "(Redis 7.0.15 compatible) starting" in messages[0]
    assert "* Configuration loaded from %s" % os.path.realpath(conf) in messages
    assert "* Seed 42 (set by the seed option)" in messages
    assert "* DEBUG and its test controls: enabled for local clients" in messages
    assert any(m.startswith("* Listening on port=%d (127.0.0.1" % port) for m in messages)
    assert "- Accepted 127.0.0.1:" in closed
    assert " addr=127.0.0.1:" in closed.splitlines()[-1]


RENAMES = 'rename-command set myset\nrename-command CONFIG cfg\nrename-command flushall ""\n'

# Sent to both servers started with RENAMES; every reply must be the same bytes.
RENAMED_TRANSCRIPT = [
    ("SET", "k", "v"),
    ("myset", "k", "v"),
    ("MYSET", "k"),
    ("flushall",),
    ("cfg", "get", "maxmemory-policy"),
    ("config", "get", "maxmemory-policy"),
    ("cfg", "nosuch"),
    ("cfg",),
    ("cfg|get", "hz"),
    ("COMMAND", "INFO", "myset", "set", "flushall", "cfg|get", "config|get"),
    ("COMMAND", "DOCS", "myset", "set", "flushall"),
    ("COMMAND", "GETKEYS", "myset", "k", "v"),
    ("COMMAND", "GETKEYS", "set", "k", "v"),
    ("EVAL", "return redis.call('myset', 'a', 'b')", "0"),
    ("EVAL", "return redis.call('set', 'a', 'b')", "0"),
    ("EVAL", "return redis.pcall('config', 'get', 'hz')", "0"),
    ("EVAL", "return redis.acl_check_cmd('myset', 'a', 'b')", "0"),
    ("EVAL", "return redis.acl_check_cmd('set', 'a', 'b')", "0"),
    ("MULTI",), ("myset", "a", "1"), ("EXEC",),
    ("MULTI",), ("set", "a", "2"), ("EXEC",),
    ("GET", "a"),
    # ACL rules keep the commands' own names (Redis's orig_commands).
    ("ACL", "SETUSER", "u1", "on", "nopass", "+set", "~*"),
    ("ACL", "SETUSER", "u2", "+myset"),
    ("ACL", "DRYRUN", "u1", "myset", "a", "b"),
    ("ACL", "DRYRUN", "u1", "set", "a", "b"),
    ("AUTH", "u1", "x"),
    ("myset", "u1key", "v"),
    ("GET", "u1key"),
]


def start_with_file(binary, text, work, name):
    """A server started with a config file holding `text` after its port; returns (proc, port)
    and keeps what it logged up to ready in proc.start_log."""
    port = free_port()
    path = os.path.join(work, name + ".conf")
    with open(path, "w") as f:
        f.write("port %d\nsave \"\"\nappendonly no\n%s" % (port, text))
    proc = subprocess.Popen([binary, path], cwd=work, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    proc.start_log = read_until(proc, "Ready to accept connections")
    return proc, port


def renamed_replies(port):
    with Conn(port) as c:
        transcript = [c.call(*command) for command in RENAMED_TRANSCRIPT]
    with Conn(port) as c:
        names = set(parse(c.call("COMMAND", "LIST")))
        count = parse(c.call("COMMAND", "COUNT"))
        listed = len(parse(c.call("COMMAND")))
    return transcript, names, count, listed


def test_renamed_commands_answer_as_on_redis_server():
    procs = []
    seen = {}
    try:
        with tempfile.TemporaryDirectory(prefix="warden-rename-") as work:
            for kind, binary in (("redis", "redis-server"), ("warden", warden_bin())):
                proc, port = start_with_file(binary, RENAMES, work, kind)
                procs.append(proc)
                seen[kind] = renamed_replies(port)
    finally:
        for p in procs:
            p.terminate()
            p.communicate(timeout=WAIT_S)
    for command, redis_reply, warden_reply in zip(RENAMED_TRANSCRIPT, seen["redis"][0],
                                                   seen["warden"][0]):
        assert (command, warden_reply) == (command, redis_reply)
    for kind in ("redis", "warden"):
        _, names, count, listed = seen[kind]
        # Listed by their own names; the disabled one neither listed nor counted.
        assert {b"set", b"config", b"config|get"} <= names
        assert not {b"myset", b"cfg", b"flushall"} & names
        assert count == listed == len([n for n in names if b"|" not in n])


def test_config_rewrite_keeps_rename_command_lines():
    with tempfile.TemporaryDirectory(prefix="warden-rename-") as work:
        proc, port = start_with_file(warden_bin(), RENAMES + "hz 11\n", work, "w")
        try:
            with Conn(port) as c:
                assert c.call("cfg", "set", "hz", "12") == b"+OK\r\n"
                assert c.call("cfg", "rewrite") == b"+OK\r\n"
        finally:
            proc.terminate()
            proc.communicate(timeout=WAIT_S)
        with open(os.path.join(work, "w.conf")) as f:
            text = f.read()
    assert RENAMES in text
    assert "hz 12\n" in text


def test_a_renamed_command_an_append_only_file_names_fails_its_load_as_on_redis_server():
    """Redis writes SET ... EX as SET ... PXAT by SET's own name, which a server with SET
    renamed does not know when it loads the file: both refuse to start."""
    logs = {}
    for kind, binary in (("redis", "redis-server"), ("warden", warden_bin())):
        with tempfile.TemporaryDirectory(prefix="warden-rename-aof-") as work:
            proc, port = start_with_file(binary, "appendonly yes\nrename-command set myset\n",
                                         work, "aof")
            with Conn(port) as c:
                assert c.call("myset", "k", "v", "EX", "100") == b"+OK\r\n"
            proc.terminate()
            proc.communicate(timeout=WAIT_S)
            status, out, _ = run_to_exit(binary, [os.path.join(work, "aof.conf")], work)
            logs[kind] = (status, out)
    for kind, (status, out) in logs.items():
        assert status == 1, kind
        assert "Unknown command 'SET' reading the append only file" in out, kind


def test_config_get_seed_shows_the_seed_drawn_at_start():
    with tempfile.TemporaryDirectory(prefix="warden-seed-") as work:
        port = free_port()
        path = os.path.join(work, "w.conf")
        with open(path, "w") as f:
            f.write("port %d\nseed random\n" % port)
        proc = subprocess.Popen([warden_bin(), path, "--save", "", "--dir", work],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            start = read_until(proc, "Ready to accept connections")
            with redis.Redis(port=port) as r:
                seed = r.config_get("seed")["seed"]
                assert r.config_rewrite()
        finally:
            proc.terminate()
            proc.communicate(timeout=WAIT_S)
        with open(path) as f:
            rewritten = f.read()
    assert "* Seed %s (drawn at start: --seed repeats" % seed in start
    # A rewrite does not pin the seed.
    assert "seed random\n" in rewritten and "seed " + seed not in rewritten


def oom_score(pid):
    with open("/proc/%d/oom_score_adj" % pid) as f:
        return int(f.read())


def child_oom_score(pid):
    """The score of `pid`'s forked child once the child has set its own (it differs)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            children = f.read().split()
        if children:
            score = oom_score(int(children[0]))
            if score != oom_score(pid) or time.monotonic() > deadline:
                return score
        assert time.monotonic() < deadline, "no child after BGSAVE"
        select_wait(0.01)


def oom_transcript(binary, work, base):
    """oom-score-adj's steps on one server: each CONFIG SET's reply and the score after it,
    then a BGSAVE child's score."""
    top = min(base + 250, 1000)
    proc, port = start_with_file(binary, 'oom-score-adj yes\noom-score-adj-values "100 300 900"\n',
                                 work, os.path.basename(binary))
    try:
        steps = []
        with Conn(port) as c:
            # Served after the server set its score, which it does once it is ready.
            assert c.call("PING") == b"+PONG\r\n"
            steps.append((None, oom_score(proc.pid)))
            for name, value in (("oom-score-adj-values", "%d 300 900" % top),
                                ("oom-score-adj", "absolute"),
                                ("oom-score-adj-values", "1 2"),
                                ("oom-score-adj", "no"),
                                ("oom-score-adj", "relative"),
                                ("oom-score-adj-values", "0 0 50"),
                                # Keeps the BGSAVE child alive while its score is read.
                                ("rdb-key-save-delay", "1000000")):
                reply = c.call("CONFIG", "SET", name, value)
                steps.append((reply, oom_score(proc.pid)))
            assert c.call("SET", "k", "v") == b"+OK\r\n"
            assert c.call("BGSAVE") == b"+Background saving started\r\n"
            steps.append(("child", child_oom_score(proc.pid)))
    finally:
        proc.terminate()
        proc.communicate(timeout=WAIT_S)
    return steps


def test_oom_score_adj_sets_the_score_as_redis_server_does():
    base = oom_score(os.getpid())
    top = min(base + 250, 1000)
    with tempfile.TemporaryDirectory(prefix="warden-oom-") as work:
        redis_steps = oom_transcript("redis-server", work, base)
        warden_steps = oom_transcript(warden_bin(), work, base)
    assert warden_steps == redis_steps
    # Raising the score and going back to the one at start need no privilege.
    assert [score for _, score in warden_steps] == [
        min(base + 100, 1000), min(base + top, 1000), top, top, base, min(base + top, 1000),
        base, base, min(base + 50, 1000)]


def test_always_show_logo_prints_the_logo_with_version_port_and_pid():
    logs = {}
    with tempfile.TemporaryDirectory(prefix="warden-logo-") as work:
        for show in ("yes", "no"):
            proc, port = start_with_file(warden_bin(), "always-show-logo %s\n" % show, work,
                                         "logo-" + show)
            proc.terminate()
            proc.communicate(timeout=WAIT_S)
            logs[show] = (proc.pid, port, proc.start_log)
    pid, port, out = logs["yes"]
    assert "warden " in out and "Running in standalone mode" in out
    assert "     Port: %d\n" % port in out and "     PID: %d\n" % pid in out
    # Redis's rule: without the option, only a terminal that the log goes to shows it.
    assert "Running in standalone mode" not in logs["no"][2]


def can_mount_a_log_socket():
    """Whether this user may make a mount namespace (unshare -rm) to put a socket at /dev/log."""
    try:
        return subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "true"],
                              capture_output=True, timeout=WAIT_S).returncode == 0
    except FileNotFoundError:
        return False


# Runs a command with /dev replaced by a directory holding the usual devices and, as /dev/log,
# the test's own datagram socket: syslog(3) always writes to /dev/log.
SANDBOX = """set -e
dev="$1/dev"; shift
mkdir -p "$dev"
for d in null zero random urandom; do touch "$dev/$d"; mount --bind "/dev/$d" "$dev/$d"; done
touch "$dev/log"
mount --bind "$SYSLOG_SOCKET" "$dev/log"
mount --rbind "$dev" /dev
exec "$@"
"""


def syslog_lines(binary, work, ident):
    """What `binary` sends to syslog from its start to its first verbose client line."""
    name = os.path.basename(binary)
    path = os.path.join(work, "syslog-" + name)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(WAIT_S)
    port = free_port()
    conf = os.path.join(work, name + ".conf")
    with open(conf, "w") as f:
        f.write("port %d\nsave \"\"\nloglevel verbose\nsyslog-enabled yes\nsyslog-ident %s\n"
                "syslog-facility local4\n" % (port, ident))
    sandbox_dir = os.path.join(work, "sandbox-" + name)
    proc = subprocess.Popen(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", SANDBOX, "sandbox",
         sandbox_dir, binary, conf], cwd=work, env=dict(os.environ, SYSLOG_SOCKET=path),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    lines = []
    try:
        while not any("Ready to accept connections" in line for line in lines):
            lines.append(sock.recv(65536).decode())
        with socket.create_connection(("127.0.0.1", port), timeout=WAIT_S) as s:
            s.sendall(b"PING\r\n")
            assert s.recv(64) == b"+PONG\r\n"
        while not any("Accepted 127.0.0.1:" in line for line in lines):
            lines.append(sock.recv(65536).decode())
    finally:
        proc.terminate()
        proc.wait(timeout=WAIT_S)
        sock.close()
    return proc.pid, lines


def syslog_line(lines, text):
    """The one line holding `text`, without glibc's time stamp: (priority, ident[pid], message)."""
    [line] = [line for line in lines if text in line]
    priority, rest = line[1:].split(">", 1)
    tag, message = rest[16:].split(": ", 1)
    return int(priority), tag, message


@pytest.mark.skipif(not can_mount_a_log_socket(), reason="needs unshare -rm for a /dev/log")
def test_syslog_gets_each_line_at_its_level_as_from_redis_server():
    ident = "warden-test-%d" % os.getpid()
    seen = {}
    with tempfile.TemporaryDirectory(prefix="warden-syslog-") as work:
        for kind, binary in (("redis", shutil.which("redis-server")), ("warden", warden_bin())):
            seen[kind] = syslog_lines(binary, work, ident)
    local4 = 20 << 3
    for kind, (pid, lines) in seen.items():
        tag = "%s[%d]" % (ident, pid)
        assert syslog_line(lines, "Ready to accept") == (
            local4 | 5, tag, "Ready to accept connections"), kind  # LOG_NOTICE
        priority, line_tag, message = syslog_line(lines, "Accepted 127.0.0.1:")
        assert (priority, line_tag) == (local4 | 6, tag), kind  # LOG_INFO: verbose


SIGNAL_CASES = [
    # (signal, option, its value, save points): whether a dump.rdb is left on the way out.
    (15, "shutdown-on-sigterm", "default", "3600 1"),
    (15, "shutdown-on-sigterm", "nosave", "3600 1"),
    (2, "shutdown-on-sigint", "save", ""),
    (2, "shutdown-on-sigint", "default", ""),
]


def saved_on_signal(binary, work, signum, option, value, save):
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", work,
                             "--save", save, "--" + option, *value.split()],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_names(port, [proc])
        client = redis.Redis(port=port)
        client.set("k", "v")
        got = client.execute_command("CONFIG", "GET", option)[1].decode()
        client.close()
    finally:
        proc.send_signal(signum)
        proc.wait(timeout=WAIT_S)
    saved = os.path.exists(os.path.join(work, "dump.rdb"))
    return got, saved, proc.returncode


@pytest.mark.parametrize("signum,option,value,save", SIGNAL_CASES)
def test_shutdown_on_a_signal_takes_the_flags_set_for_it(signum, option, value, save):
    got = {}
    for name, binary in (("redis-server", "redis-server"), ("warden", warden_bin())):
        with tempfile.TemporaryDirectory() as work:
            got[name] = saved_on_signal(binary, work, signum, option, value, save)
    assert got["warden"] == got["redis-server"]
    assert got["warden"][1] == (value == "save" or (value == "default" and save != ""))


def test_shutdown_on_signal_values_are_checked_as_redis_checks_them():
    port = free_port()
    proc = subprocess.Popen([warden_bin(), "--port", str(port), "--bind", "127.0.0.1",
                             "--save", ""], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ref_port = free_port()
    ref = subprocess.Popen(["redis-server", "--port", str(ref_port), "--bind", "127.0.0.1",
                            "--save", ""], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_names(port, [proc])
        wait_for_names(ref_port, [ref])
        replies = {}
        for name, p in (("warden", port), ("redis-server", ref_port)):
            conn = Conn(p)
            replies[name] = [conn.call("CONFIG", "SET", "shutdown-on-sigterm", value)
                             for value in ("save now", "SAVE nosave", "force", "bogus",
                                           "default")] + \
                            [conn.call("CONFIG", "GET", "shutdown-on-sigterm"),
                             conn.call("CONFIG", "GET", "shutdown-on-sigint")]
            conn.close()
        assert replies["warden"] == replies["redis-server"]
    finally:
        for p in (proc, ref):
            p.terminate()
            p.wait(timeout=WAIT_S)


def acl_file_transcript(binary, work):
    """A relative aclfile is under `dir`, as Redis (which chdirs there) reads and saves it."""
    data = os.path.join(work, "data")
    os.mkdir(data)
    with open(os.path.join(data, "users.acl"), "w") as f:
        f.write("user default on nopass ~* &* +@all\nuser alice on #%s ~a:* +get\n"
                % ("0" * 64))
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--dir", data, "--aclfile", "users.acl"], cwd=work,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_names(port, [proc])
        conn = Conn(port)
        got = [conn.call("ACL", "LIST"), conn.call("ACL", "SETUSER", "bob", "on", "+ping"),
               conn.call("ACL", "SAVE"), conn.call("ACL", "LOAD"), conn.call("ACL", "USERS")]
        conn.close()
    finally:
        proc.terminate()
        proc.wait(timeout=WAIT_S)
    with open(os.path.join(data, "users.acl")) as f:
        got.append(f.read())
    got.append(os.path.exists(os.path.join(work, "users.acl")))
    status, out, _ = run_to_exit(binary, ["--port", str(free_port()), "--dir", data,
                                          "--aclfile", "missing.acl"], work)
    got.append(status)
    got.append([log_message(line) for line in out.splitlines() if "ACL" in line])
    return got


def test_a_relative_aclfile_is_read_and_saved_under_dir_as_on_redis_server():
    got = {}
    for name, binary in (("redis-server", "redis-server"), ("warden", warden_bin())):
        with tempfile.TemporaryDirectory() as work:
            got[name] = acl_file_transcript(binary, work)
    assert got["warden"] == got["redis-server"]
    assert got["warden"][4] == b"*3\r\n$5\r\nalice\r\n$3\r\nbob\r\n$7\r\ndefault\r\n"
