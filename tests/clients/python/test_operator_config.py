"""warden as an operator's drop-in for redis-server: Debian's stock redis.conf starts it (only
port, dir and logfile changed, daemonized as the file says), a config mistake gets
redis-server's exact FATAL report and exit status, and CONFIG GET knows every option
redis-server 7.0 knows, INFO and the Prometheus exporter read the same fields, and the log says
what an operator looks for. The options that act on the process (renamed commands, the seed,
the OOM score, the logo, syslog, signals, the ACL file) are in test_operator_process.py.

Each test starts its own servers on free ports, by PID or, for the daemonized one, stops it
with SHUTDOWN and waits on the PID INFO gave.
"""

import os
import socket
import subprocess
import tempfile
import time
import urllib.request

import pytest
import redis

from operator_support import (WAIT_S, log_message, read_until, run_to_exit, wait_for_exit,
                              wait_for_names, wait_for_port)
from replication_support import free_port, warden_bin
from resp_conn import Conn, parse

STOCK_CONF = "/etc/redis/redis.conf"


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


@pytest.mark.parametrize("target", ["/nonexistent/redis.conf", "/"])
def test_a_config_file_that_cannot_be_read(target):
    with tempfile.TemporaryDirectory(prefix="warden-conf-") as work:
        status, out, _ = run_to_exit(warden_bin(), [target], work)
    assert status == 1
    reason = "No such file or directory" if target != "/" else "Is a directory"
    assert log_message(out.strip()) == (
        "# Fatal error, can't open config file '%s': %s" % (target, reason))


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
