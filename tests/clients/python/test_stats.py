"""INFO commandstats/errorstats, SLOWLOG and LATENCY on redis-server and warden, compared.

Each scenario runs on its server from CONFIG RESETSTAT and returns what must match Redis: the
calls, rejected_calls and failed_calls of every cmdstat line, every errorstat count,
total_error_replies, and the fixed fields of slow log entries and latency events. Durations,
timestamps, ids and ports are checked for shape only, since they legitimately differ. The
scenarios restore every option they change. DEBUG SLEEP makes a command slow on both servers;
nothing in the tests sleeps, and no timing threshold is asserted beyond "slower than it slept".
"""

import time

import pytest

from resp_conn import Conn, RespError, parse

WAIT_S = 5


def info_lines(conn, section):
    text = conn.value("INFO", section)
    return [line for line in text.decode().split("\r\n") if line and not line.startswith("#")]


def command_counts(conn):
    """cmdstat name -> (calls, rejected_calls, failed_calls); usec is left out."""
    counts = {}
    for line in info_lines(conn, "commandstats"):
        name, fields = line.split(":", 1)
        values = dict(field.split("=") for field in fields.split(","))
        assert set(values) == {"calls", "usec", "usec_per_call", "rejected_calls",
                               "failed_calls"}, line
        counts[name[len("cmdstat_"):]] = (int(values["calls"]), int(values["rejected_calls"]),
                        int(values["failed_calls"]))
    return counts


def error_counts(conn):
    return dict(line[len("errorstat_"):].split(":count=") for line in info_lines(conn, "errorstats"))


def total_error_replies(conn):
    for line in info_lines(conn, "stats"):
        if line.startswith("total_error_replies:"):
            return int(line.split(":")[1])
    raise AssertionError("no total_error_replies in INFO stats")


def wait_blocked(observer, count):
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        for line in info_lines(observer, "clients"):
            if line == "blocked_clients:%d" % count:
                return
    raise AssertionError("blocked_clients never reached %d" % count)


def counting_rules(port):
    with Conn(port) as c, Conn(port) as waiter:
        assert c.call("CONFIG", "RESETSTAT") == b"+OK\r\n"
        c.call("DEL", "s", "l")
        c.call("SET", "s", "v")
        c.call("GET", "s")
        c.call("LPUSH", "s", "x")            # WRONGTYPE: a failed call
        c.call("GET")                        # arity: a rejected call
        c.call("NOSUCH", "a")                # no cmdstat line, one ERR
        c.call("CLIENT", "NOSUCH")
        c.call("CLIENT", "SETNAME", "counted")
        c.call("CONFIG")                     # the container's arity
        c.call("EVAL", "redis.call('set','k','v') return redis.call('lpush','k','x')", "0")
        c.call("EVAL", "return redis.pcall('lpush','k','x')", "0")
        c.call("EVAL", "return {err='lowercase x'}", "0")
        c.call("EVAL", "return {err='-DASH x'}", "0")
        c.call("EVAL", "redis.pcall('nosuch')", "0")
        c.call("EVAL", "redis.pcall('get')", "0")
        c.call("EVAL", "return redis.call('debug', 'sleep', 0)", "0")  # not allowed
        c.call("INCR", "s")
        c.call("SET", "n", "1", "EX", "0")
        # A blocked command counts once, when it is called.
        waiter.send("BLPOP", "l", "0")
        wait_blocked(c, 1)
        c.call("RPUSH", "l", "a")
        assert parse(waiter.reply()) == [b"l", b"a"]
        c.call("BLPOP", "l", "0.01")         # times out
        commands = command_counts(c)
        # wait_blocked polls INFO until the waiter shows as blocked: how many polls that takes is
        # timing, not a counting rule.
        info_calls, info_rejected, info_failed = commands.pop("info")
        assert info_calls >= 1 and (info_rejected, info_failed) == (0, 0)
        return {"commands": commands, "errors": error_counts(c),
                "total_error_replies": total_error_replies(c)}


def test_counting_rules(target, reference):
    got = counting_rules(target.port)
    assert got["commands"]["get"] == (1, 2, 0)
    assert got["commands"]["lpush"] == (3, 0, 3)
    assert got["errors"]["WRONGTYPE"] == "3"
    assert got["total_error_replies"] == sum(int(n) for n in got["errors"].values())
    if target.name == "warden":
        assert got == counting_rules(reference.port)


def resetstat_leaves_slowlog(port):
    with Conn(port) as c:
        c.call("CONFIG", "SET", "slowlog-log-slower-than", "0")
        c.call("SLOWLOG", "RESET")
        c.call("GET", "nosuch-command-args")
        c.call("CONFIG", "RESETSTAT")
        after = {"slowlog_len": c.value("SLOWLOG", "LEN"), "commands": command_counts(c),
                 "errors": error_counts(c), "total": total_error_replies(c)}
        c.call("CONFIG", "SET", "slowlog-log-slower-than", "10000")
        c.call("SLOWLOG", "RESET")
        return after


def test_resetstat_clears_statistics_but_not_the_slowlog(target, reference):
    got = resetstat_leaves_slowlog(target.port)
    assert got["slowlog_len"] == 3
    assert got["commands"] == {"config|resetstat": (1, 0, 0), "slowlog|len": (1, 0, 0)}
    if target.name == "warden":
        assert got == resetstat_leaves_slowlog(reference.port)


def slow_command(port):
    with Conn(port) as c:
        c.call("SLOWLOG", "RESET")
        c.call("CLIENT", "SETNAME", "slowpoke")
        c.call("DEBUG", "SLEEP", "0.02")
        entries = c.value("SLOWLOG", "GET")
        local = c.value("CLIENT", "INFO").decode().split(" ")
        c.call("CLIENT", "SETNAME", "")
        assert len(entries) == 1, entries
        entry_id, unix_s, duration_us, args, addr, name = entries[0]
        assert isinstance(entry_id, int)
        assert abs(unix_s - time.time()) < 60
        assert duration_us >= 20000
        assert "addr=" + addr.decode() in local
        return args, name


def test_slowlog_logs_a_slow_command(target, reference):
    got = slow_command(target.port)
    assert got == ([b"DEBUG", b"SLEEP", b"0.02"], b"slowpoke")
    if target.name == "warden":
        assert got == slow_command(reference.port)


def blocked_command_in_slowlog(port):
    with Conn(port) as c, Conn(port) as waiter:
        c.call("CONFIG", "SET", "slowlog-log-slower-than", "0")
        c.call("DEL", "l")
        c.call("SLOWLOG", "RESET")
        waiter.send("BLPOP", "l", "0")
        wait_blocked(c, 1)
        c.call("RPUSH", "l", "a")
        waiter.reply()
        entries = c.value("SLOWLOG", "GET", "-1")
        c.call("CONFIG", "SET", "slowlog-log-slower-than", "10000")
        c.call("SLOWLOG", "RESET")
        # The INFO polls in between are logged too: keep the rest.
        return [e[3] for e in entries if e[3][0].upper() != b"INFO"]


def test_a_served_blocked_command_is_logged_when_served(target, reference):
    got = blocked_command_in_slowlog(target.port)
    assert [b"BLPOP", b"l", b"0"] in got
    if target.name == "warden":
        assert got == blocked_command_in_slowlog(reference.port)


def latency_events(port):
    with Conn(port) as c:
        c.call("LATENCY", "RESET")
        c.call("CONFIG", "SET", "latency-monitor-threshold", "10")
        c.call("DEBUG", "SLEEP", "0.02")
        c.call("PING")
        latest = c.value("LATENCY", "LATEST")
        history = c.value("LATENCY", "HISTORY", "command")
        graph = c.value("LATENCY", "GRAPH", "command").decode()
        doctor = c.value("LATENCY", "DOCTOR").decode()
        c.call("CONFIG", "SET", "latency-monitor-threshold", "0")
        reset = c.value("LATENCY", "RESET")
        assert len(latest) == 1 and latest[0][0] == b"command", latest
        _, unix_s, latency_ms, max_ms = latest[0]
        assert abs(unix_s - time.time()) < 60 and latency_ms >= 20 and max_ms == latency_ms
        assert len(history) == 1 and history[0][1] == latency_ms
        return {"graph_lines": len(graph.split("\n")),
                "graph_head": graph.split(" - ")[0],
                "doctor_starts": doctor.split("\n")[0],
                "reset": reset}


def test_latency_monitor_records_slow_commands(target, reference):
    got = latency_events(target.port)
    assert got["reset"] == 1
    if target.name == "warden":
        assert got == latency_events(reference.port)


def latencystats_names(port):
    with Conn(port) as c:
        c.call("CONFIG", "RESETSTAT")
        c.call("SET", "k", "v")
        c.call("CLIENT", "GETNAME")
        c.call("CONFIG", "SET", "latency-tracking-info-percentiles", "0 50 100")
        lines = info_lines(c, "latencystats")
        c.call("CONFIG", "SET", "latency-tracking-info-percentiles", "50 99 99.9")
        shapes = {}
        for line in lines:
            name, fields = line.split(":", 1)
            shapes[name] = [field.split("=")[0] for field in fields.split(",")]
            for field in fields.split(","):
                assert float(field.split("=")[1]) >= 0.001, line
        return shapes


def test_latencystats_lines(target, reference):
    got = latencystats_names(target.port)
    assert got["latency_percentiles_usec_set"] == ["p0", "p50", "p100"]
    if target.name == "warden":
        assert got == latencystats_names(reference.port)
