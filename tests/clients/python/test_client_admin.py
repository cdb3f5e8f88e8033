"""The operator's commands across connections, on redis-server and warden.

CLIENT KILL with each filter (the victim's connection is closed; the caller is closed after its
reply when it kills itself), CLIENT PAUSE WRITE and ALL holding another client's commands until
CLIENT UNPAUSE or the timeout, and SHUTDOWN delivering the replies it has already computed.
Each scenario returns a Transcript of reply bytes; on warden it is also run on redis-server and
must match step for step (the conventions of test_blocking.py). No sleeps: a scenario polls
CLIENT LIST until a held client shows flag b.

SHUTDOWN ends the server it is sent to, so those scenarios start servers of their own: a
redis-server from PATH and warden from WARDEN_BIN (exported by tests/clients/run.sh).

The last tests are warden's alone: a pause ended by DEBUG CLOCK ADVANCE, and SHUTDOWN SAVE
refused because warden keeps nothing on disk.
"""

import contextlib
import os
import socket
import subprocess
import time

import pytest

from resp_conn import Conn
from blocking_transcripts import (OK, Transcript, client_fields, connections, integer, same_as_redis,
                           wait_blocked)

WAIT_S = 5


def closed(conn):
    """What the server sent before closing conn: its bytes, or raises if it stays open."""
    return conn.read_until_eof(timeout=WAIT_S)


def addr_of(observer, conn):
    return client_fields(observer, conn)["addr"], client_fields(observer, conn)["laddr"]


# --- CLIENT KILL -------------------------------------------------------------------------------

def kill_by_id(port):
    t = Transcript()
    with connections(port, 2) as (a, b):
        t["A CLIENT KILL ID b"] = a.call("CLIENT", "KILL", "ID", str(b.id()))
        t["B closed with"] = closed(b)
        t["A CLIENT KILL ID b again"] = a.call("CLIENT", "KILL", "ID", str(b.id()))
        t["A PING"] = a.call("PING")
    return t


def kill_old_form(port):
    t = Transcript()
    with connections(port, 2) as (a, b):
        addr, _ = addr_of(a, b)
        t["A CLIENT KILL addr"] = a.call("CLIENT", "KILL", addr)
        t["B closed with"] = closed(b)
        t["A CLIENT KILL addr again"] = a.call("CLIENT", "KILL", addr)
    return t


def kill_filters_and(port):
    t = Transcript()
    with connections(port, 3) as (a, b, c):
        b_addr, b_laddr = addr_of(a, b)
        t["ID b TYPE pubsub"] = a.call("CLIENT", "KILL", "ID", str(b.id()), "TYPE", "pubsub")
        t["ID b ADDR of c"] = a.call("CLIENT", "KILL", "ID", str(b.id()),
                                     "ADDR", addr_of(a, c)[0])
        t["B PING"] = b.call("PING")
        t["USER default ADDR b LADDR b TYPE normal"] = a.call(
            "CLIENT", "KILL", "USER", "default", "ADDR", b_addr, "LADDR", b_laddr,
            "TYPE", "normal")
        t["B closed with"] = closed(b)
        t["C PING"] = c.call("PING")
    return t


def kill_self_new_form(port):
    t = Transcript()
    with connections(port, 2) as (a, b):
        a_addr, _ = addr_of(b, a)
        t["A CLIENT KILL ADDR own"] = a.call("CLIENT", "KILL", "ADDR", a_addr)
        # Pipelined: the count comes first, then the connection closes before the PING runs.
        a.send_raw(b"*6\r\n$6\r\nCLIENT\r\n$4\r\nKILL\r\n$4\r\nADDR\r\n$%d\r\n%s\r\n"
                   b"$6\r\nSKIPME\r\n$2\r\nno\r\n*1\r\n$4\r\nPING\r\n"
                   % (len(a_addr), a_addr.encode()))
        t["A closed with"] = closed(a)
        t["B PING"] = b.call("PING")
    return t


def kill_self_old_form(port):
    t = Transcript()
    with connections(port, 2) as (a, b):
        a_addr, _ = addr_of(b, a)
        a.send("CLIENT", "KILL", a_addr)
        t["A closed with"] = closed(a)
    return t


@pytest.mark.parametrize("scenario", [kill_by_id, kill_old_form, kill_filters_and,
                                      kill_self_new_form, kill_self_old_form])
def test_client_kill(target, reference, scenario):
    same_as_redis(target, reference, scenario)


def test_kill_by_id_counts_one(target):
    t = kill_by_id(target.port)
    assert t["A CLIENT KILL ID b"] == integer(1)
    assert t["A CLIENT KILL ID b again"] == integer(0)


# --- CLIENT PAUSE ------------------------------------------------------------------------------

def pause_write_holds_writes(port):
    t = Transcript()
    with connections(port, 3) as (a, b, c):
        t["A CLIENT PAUSE WRITE"] = a.call("CLIENT", "PAUSE", "100000", "WRITE")
        b.send("SET", "pause:k", "v")
        wait_blocked(c, b)
        t["B flags"] = client_fields(c, b)["flags"]
        t["C GET k while paused"] = c.call("GET", "pause:k")
        t["C EVAL_RO while paused"] = c.call("EVAL_RO", "return 1", "0")
        # A script without a no-writes shebang may write: held.
        c.send("EVAL", "return 2", "0")
        wait_blocked(a, c)
        t["A CLIENT UNPAUSE"] = a.call("CLIENT", "UNPAUSE")
        t["B SET"] = b.reply()
        t["C EVAL"] = c.reply()
        t["A GET k"] = a.call("GET", "pause:k")
    return t


def pause_all_holds_everything_in_order(port):
    t = Transcript()
    with connections(port, 2) as (a, b):
        b.send_raw(b"*1\r\n$4\r\nPING\r\n")
        t["B PING before"] = b.reply()
        t["A CLIENT PAUSE 300 ALL"] = a.call("CLIENT", "PAUSE", "300", "ALL")
        b.send_raw(b"*3\r\n$3\r\nSET\r\n$7\r\npause:n\r\n$1\r\n1\r\n"
                   b"*2\r\n$4\r\nINCR\r\n$7\r\npause:n\r\n*1\r\n$4\r\nPING\r\n")
        t["B SET"] = b.reply()
        t["B INCR"] = b.reply()
        t["B PING"] = b.reply()
        t["A GET n"] = a.call("GET", "pause:n")
    return t


def pause_keeps_the_later_end(port):
    t = Transcript()
    with connections(port, 2) as (a, b):
        t["A PAUSE 100000 WRITE"] = a.call("CLIENT", "PAUSE", "100000", "WRITE")
        t["A PAUSE 10 WRITE"] = a.call("CLIENT", "PAUSE", "10", "WRITE")
        b.send("INCR", "pause:c")
        wait_blocked(a, b)
        t["A GET c"] = a.call("GET", "pause:c")
        t["A UNPAUSE"] = a.call("CLIENT", "UNPAUSE")
        t["B INCR"] = b.reply()
    return t


@pytest.mark.parametrize("scenario", [pause_write_holds_writes,
                                      pause_all_holds_everything_in_order,
                                      pause_keeps_the_later_end])
def test_client_pause(target, reference, scenario):
    same_as_redis(target, reference, scenario)


def test_paused_write_is_answered_after_unpause(target):
    t = pause_write_holds_writes(target.port)
    assert t["B flags"] == "b"
    assert t["B SET"] == OK
    assert t["A GET k"] == b"$1\r\nv\r\n"


# --- SHUTDOWN ----------------------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def own_server(kind, extra=()):
    """A server of the given kind for this test alone, `extra` arguments last; yields (port,
    process)."""
    port = free_port()
    if kind == "redis-server":
        argv = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no"]
    else:
        binary = os.environ.get("WARDEN_BIN")
        if not binary:
            raise pytest.UsageError("WARDEN_BIN is not set: run through tests/clients/run.sh")
        argv = [binary, "--port", str(port), "--save", "", "--enable-debug-command", "yes"]
    proc = subprocess.Popen(argv + list(extra), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                with Conn(port) as c:
                    if c.call("PING") == b"+PONG\r\n":
                        break
            except OSError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise AssertionError("%s did not start on port %d" % (kind, port))
        yield port, proc
    finally:
        if proc.poll() is None:
            proc.terminate()
        proc.wait(timeout=WAIT_S)


PIPELINE_WITH_SHUTDOWN = (
    b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nw\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"
    b"*2\r\n$8\r\nSHUTDOWN\r\n$6\r\nNOSAVE\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n")


def test_shutdown_ends_the_server_without_a_reply(target):
    with own_server(target.name) as (port, proc):
        with Conn(port) as a, Conn(port) as b:
            assert b.call("SET", "k", "v") == OK
            a.send("SHUTDOWN", "NOSAVE", "NOW")
            assert closed(a) == b""
            assert closed(b) == b""
        assert proc.wait(timeout=WAIT_S) == 0


def test_shutdown_delivers_replies_already_computed(target):
    """warden, as on SIGTERM, first sends the replies it computed before SHUTDOWN; Redis exits
    at once and drops them (a known, deliberate difference)."""
    with own_server(target.name) as (port, proc):
        with Conn(port) as a:
            a.send_raw(PIPELINE_WITH_SHUTDOWN)
            sent = closed(a)
        assert proc.wait(timeout=WAIT_S) == 0
    assert sent == (b"+OK\r\n$1\r\nw\r\n" if target.name == "warden" else b"")


def test_shutdown_during_a_busy_script_needs_nosave(target):
    with own_server(target.name) as (port, proc):
        with Conn(port) as a, Conn(port) as b:
            assert b.call("CONFIG", "SET", "busy-reply-threshold", "100") == OK
            a.send("EVAL", "while true do end", "0")
            deadline = time.monotonic() + WAIT_S
            while not b.call("PING").startswith(b"-BUSY"):
                assert time.monotonic() < deadline, "the script never became busy"
            busy = b.call("SHUTDOWN")
            assert busy.startswith(b"-BUSY Redis is busy running a script.")
            b.send("SHUTDOWN", "NOSAVE")
            assert closed(b) == b""
            a.read_until_eof(timeout=WAIT_S)
        assert proc.wait(timeout=WAIT_S) == 0


# --- CONFIG SET port and bind move the listeners -------------------------------------------------

def refused(port):
    try:
        with Conn(port):
            return False
    except ConnectionRefusedError:
        return True


def test_config_set_port_moves_the_listener(target):
    with own_server(target.name) as (port, proc):
        new_port = free_port()
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            with Conn(port) as a:
                assert a.call("CONFIG", "SET", "port", str(new_port)) == OK
                assert a.call("PING") == b"+PONG\r\n"
                with Conn(new_port) as b:
                    assert b.call("CONFIG", "GET", "port") == (
                        b"*2\r\n$4\r\nport\r\n$%d\r\n%d\r\n" % (len(str(new_port)), new_port))
                assert refused(port)
                failed = a.call("CONFIG", "SET", "port", str(taken.getsockname()[1]), "hz", "20")
                assert failed == (b"-ERR CONFIG SET failed (possibly related to argument 'port') - "
                                  b"Unable to listen on this port. Check server logs.\r\n")
                assert a.call("CONFIG", "GET", "hz") == b"*2\r\n$2\r\nhz\r\n$2\r\n10\r\n"
                with Conn(new_port) as c:
                    assert c.call("PING") == b"+PONG\r\n"
                assert a.call("CONFIG", "SET", "bind", "127.0.0.1 -::1") == OK
                with Conn(new_port) as c:
                    assert c.call("CONFIG", "GET", "bind") == (
                        b"*2\r\n$4\r\nbind\r\n$14\r\n127.0.0.1 -::1\r\n")
                assert a.call("CONFIG", "SET", "bind", "1.2.3.4") == (
                    b"-ERR CONFIG SET failed (possibly related to argument 'bind') - "
                    b"Failed to bind to specified addresses.\r\n")
                with Conn(new_port) as c:
                    assert c.call("PING") == b"+PONG\r\n"


@pytest.mark.parametrize("kind", ["warden", "redis-server"])
def test_shutdown_save_writes_the_snapshot_or_keeps_running(kind, tmp_path):
    """SHUTDOWN SAVE whose save fails (its dir gone) answers the error and keeps serving;
    SHUTDOWN SAVE FORCE exits; with a dir it saves, then exits 0."""
    gone = tmp_path / "gone"
    gone.mkdir()
    with own_server(kind, ["--dir", str(gone)]) as (port, proc):
        gone.rmdir()
        with Conn(port) as a:
            assert a.call("SHUTDOWN", "SAVE") == b"-ERR Errors trying to SHUTDOWN. Check logs.\r\n"
            assert a.call("PING") == b"+PONG\r\n"
            a.send("SHUTDOWN", "SAVE", "FORCE")
            assert closed(a) == b""
        assert proc.wait(timeout=WAIT_S) == 0
    kept = tmp_path / "kept"
    kept.mkdir()
    with own_server(kind, ["--dir", str(kept)]) as (port, proc):
        with Conn(port) as a:
            assert a.call("SET", "k", "v") == b"+OK\r\n"
            a.send("SHUTDOWN", "SAVE")
            assert closed(a) == b""
        assert proc.wait(timeout=WAIT_S) == 0
    assert (kept / "dump.rdb").read_bytes().startswith(b"REDIS0010")


# --- warden's own: the pause follows the injected clock ----------------------------------------

def test_client_unblock_of_a_paused_client_is_refused_by_warden(target):
    """redis-server 7.0.15 crashes here (unblockClient on a postponed client); warden answers 0."""
    if target.name != "warden":
        pytest.skip("crashes redis-server 7.0")
    with connections(target.port, 2) as (a, b):
        assert a.call("CLIENT", "PAUSE", "100000", "WRITE") == OK
        try:
            b.send("SET", "pause:u", "v")
            wait_blocked(a, b)
            assert a.call("CLIENT", "UNBLOCK", str(b.id())) == integer(0)
        finally:
            assert a.call("CLIENT", "UNPAUSE") == OK
        assert b.reply() == OK


def test_pause_ended_by_debug_clock_advance(target):
    if target.name != "warden":
        pytest.skip("DEBUG CLOCK is warden's")
    with connections(target.port, 2) as (a, b):
        assert a.call("DEBUG", "CLOCK", "FREEZE") == OK
        try:
            assert a.call("CLIENT", "PAUSE", "60000", "WRITE") == OK
            b.send("SET", "pause:clock", "v")
            wait_blocked(a, b)
            assert a.call("DEBUG", "CLOCK", "ADVANCE", "59999") == OK
            assert "b" in client_fields(a, b)["flags"]
            assert a.call("DEBUG", "CLOCK", "ADVANCE", "1") == OK
            assert b.reply() == OK
            assert a.call("GET", "pause:clock") == b"$1\r\nv\r\n"
        finally:
            a.call("CLIENT", "UNPAUSE")
            a.call("DEBUG", "CLOCK", "REAL")
