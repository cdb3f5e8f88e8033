"""The options that act on the process, each checked against redis-server started the same
way: rename-command, the seed in use, oom-score-adj, always-show-logo, syslog,
shutdown-on-sigint/-sigterm, and a relative aclfile. Each test starts its own servers on free
ports and stops them by PID.
"""

import os
import shutil
import socket
import subprocess
import tempfile
import time

import pytest
import redis

from operator_support import (WAIT_S, log_message, run_to_exit, select_wait, start_with_file,
                              wait_for_names)
from replication_support import free_port, warden_bin
from resp_conn import Conn, parse


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
        proc, port = start_with_file(warden_bin(), "seed random\n", work, "w")
        try:
            with redis.Redis(port=port) as r:
                seed = r.config_get("seed")["seed"]
                assert r.config_rewrite()
        finally:
            proc.terminate()
            proc.communicate(timeout=WAIT_S)
        with open(os.path.join(work, "w.conf")) as f:
            rewritten = f.read()
    assert "* Seed %s (drawn at start: --seed repeats" % seed in proc.start_log
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
