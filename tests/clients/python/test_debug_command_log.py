"""DEBUG COMMAND-LOG through redis-py against a real warden process.

The log is warden's own control (redis-server has no such subcommand), so these scenarios run on
warden only. A test asserts what the code under test sent: the exact commands, in order, with the
client that sent them, its database, warden's clock time, and whether a script or EXEC ran them.
Every test starts from an empty, running log on a frozen clock, and leaves the log off and the
clock real.
"""

import pytest
import redis

from conftest import targets

T0_MS = 1_700_000_000_000


def warden_port():
    return targets()["warden"].port


def entries(ctl, *count):
    """DEBUG COMMAND-LOG GET as dicts, oldest first."""
    out = []
    for seq, time_ms, client_id, name, db, args, origin in ctl.execute_command(
            "DEBUG", "COMMAND-LOG", "GET", *count):
        out.append({"seq": seq, "time_ms": time_ms, "client_id": client_id,
                    "client_name": name.decode(), "db": db,
                    "args": [a.decode() for a in args], "origin": origin.decode()})
    return out


def status(ctl):
    flat = ctl.execute_command("DEBUG", "COMMAND-LOG", "STATUS")
    return {k.decode(): v.decode() if isinstance(v, bytes) else v
            for k, v in zip(flat[::2], flat[1::2])}


def sent_by(ctl, name="worker-1"):
    """(args, db, origin, time_ms) of every entry of the client named `name`. Its CLIENT SETNAME
    is not among them: an entry is made before its command runs, under the name it had then."""
    return [(e["args"], e["db"], e["origin"], e["time_ms"])
            for e in entries(ctl) if e["client_name"] == name]


@pytest.fixture
def ctl():
    conn = redis.Redis(port=warden_port())
    conn.execute_command("DEBUG", "CLOCK", "FREEZE", T0_MS)
    conn.execute_command("DEBUG", "COMMAND-LOG", "ON")
    conn.execute_command("DEBUG", "COMMAND-LOG", "RESET")
    yield conn
    conn.execute_command("DEBUG", "COMMAND-LOG", "OFF")
    conn.execute_command("DEBUG", "COMMAND-LOG", "RESET")
    conn.execute_command("DEBUG", "CLOCK", "REAL")
    conn.close()


@pytest.fixture
def app():
    """The code under test: a named client, connected lazily (after the log is on)."""
    conn = redis.Redis(port=warden_port(), client_name="worker-1")
    yield conn
    conn.close()


def test_set_nx_from_a_named_client(ctl, app):
    app.flushall()  # connects: CLIENT SETNAME first
    assert app.set("lock:a", "token", nx=True, px=30000)
    ctl.execute_command("DEBUG", "CLOCK", "ADVANCE", 1500)
    assert app.get("lock:a") == b"token"

    app_id = app.client_id()

    log = entries(ctl)
    mine = [e for e in log if e["client_id"] == app_id]
    assert [(e["args"], e["client_name"], e["time_ms"]) for e in mine] == [
        (["CLIENT", "SETNAME", "worker-1"], "", T0_MS),
        (["FLUSHALL"], "worker-1", T0_MS),
        (["SET", "lock:a", "token", "PX", "30000", "NX"], "worker-1", T0_MS),
        (["GET", "lock:a"], "worker-1", T0_MS + 1500),
        (["CLIENT", "ID"], "worker-1", T0_MS + 1500),
    ]
    assert [e["seq"] for e in log] == list(range(log[0]["seq"], log[0]["seq"] + len(log)))
    # The other client's DEBUG CLOCK is logged too; the log's own commands are not.
    assert [e["args"] for e in log if e["client_id"] != app_id] == [
        ["DEBUG", "CLOCK", "ADVANCE", "1500"]]


def test_commands_of_a_script_are_marked(ctl, app):
    body = "redis.call('SET', KEYS[1], ARGV[1]) return redis.call('GET', KEYS[1])"
    assert app.eval(body, 1, "k", "v") == b"v"

    assert sent_by(ctl) == [
        (["EVAL", body, "1", "k", "v"], 0, "client", T0_MS),
        (["SET", "k", "v"], 0, "script", T0_MS),
        (["GET", "k"], 0, "script", T0_MS),
    ]


def test_register_script_shows_evalsha_retry(ctl, app):
    app.script_flush()
    incr = app.register_script("return redis.call('INCRBY', KEYS[1], ARGV[1])")
    app.delete("n")

    assert incr(keys=["n"], args=[2]) == 2

    got = [(args[0], origin) for args, _, origin, _ in sent_by(ctl)]
    # redis-py tries EVALSHA, is told NOSCRIPT, loads the script and tries again.
    assert got == [("SCRIPT", "client"), ("DEL", "client"), ("EVALSHA", "client"),
                   ("SCRIPT", "client"), ("EVALSHA", "client"), ("INCRBY", "script")]


def test_multi_exec_contents_follow_exec(ctl, app):
    pipe = app.pipeline(transaction=True)
    pipe.set("a", "1").incr("a").get("a")
    assert pipe.execute() == [True, 2, b"2"]

    assert [(args, origin) for args, _, origin, _ in sent_by(ctl)] == [
        (["MULTI"], "client"),
        (["EXEC"], "client"),
        (["SET", "a", "1"], "exec"),
        (["INCRBY", "a", "1"], "exec"),
        (["GET", "a"], "exec"),
    ]


def test_database_numbers(ctl):
    app = redis.Redis(port=warden_port(), db=3, client_name="worker-3")
    try:
        app.set("k", "v")
        app.execute_command("SELECT", "5")
        app.execute_command("SWAPDB", "5", "6")
    finally:
        app.close()
    # SELECT is logged in the database it was sent from.
    assert [(args, db) for args, db, _, _ in sent_by(ctl, "worker-3")] == [
        (["SELECT", "3"], 0), (["SET", "k", "v"], 3), (["SELECT", "5"], 3),
        (["SWAPDB", "5", "6"], 5)]


def test_max_entries_keeps_the_newest(ctl, app):
    ctl.execute_command("DEBUG", "COMMAND-LOG", "ON", 3)
    for key in ["a", "b", "c", "d", "e"]:
        ctl.incr(key)

    log = entries(ctl)
    assert [e["args"] for e in log] == [["INCRBY", "c", "1"], ["INCRBY", "d", "1"],
                                        ["INCRBY", "e", "1"]]
    assert [e["args"] for e in entries(ctl, 2)] == [["INCRBY", "d", "1"], ["INCRBY", "e", "1"]]
    assert status(ctl) == {"state": "on", "max-entries": 3, "entries": 3, "dropped": 2,
                           "next-seq": log[-1]["seq"] + 1}


def test_max_entries_past_the_cap_is_refused(ctl):
    with pytest.raises(redis.ResponseError,
                       match=r"^max-entries must be between 1 and 1000000 "
                             r"\(command-log-max-entries\)$"):
        ctl.execute_command("DEBUG", "COMMAND-LOG", "ON", 1_000_001)
    with pytest.raises(redis.ResponseError, match="^syntax error$"):
        ctl.execute_command("DEBUG", "COMMAND-LOG", "SOMETIMES")
    assert status(ctl)["max-entries"] == 10000


def test_off_keeps_entries_and_reset_forgets_them(ctl):
    ctl.ping()
    ctl.execute_command("DEBUG", "COMMAND-LOG", "OFF")
    ctl.echo("unseen")
    assert [e["args"] for e in entries(ctl)] == [["PING"]]
    assert status(ctl)["state"] == "off"

    ctl.execute_command("DEBUG", "COMMAND-LOG", "RESET")
    assert entries(ctl) == []
    ctl.execute_command("DEBUG", "COMMAND-LOG", "ON")
    ctl.echo("seen")
    assert [e["args"] for e in entries(ctl)] == [["ECHO", "seen"]]


def command_calls(conn):
    return {name[len("cmdstat_"):]: stats["calls"]
            for name, stats in conn.info("commandstats").items()}


def test_exactly_one_set_nx_and_no_keys(ctl, app):
    """The assertion the log exists for, made twice: by INFO commandstats and by the log."""
    app.ping()  # connected before the counters start
    ctl.config_resetstat()
    ctl.execute_command("DEBUG", "COMMAND-LOG", "RESET")

    # The code under test: take a lock once, without scanning the keyspace.
    app.set("job:42", "worker-1", nx=True, ex=30)
    app.expire("job:42", 60)

    calls = command_calls(app)
    assert calls.get("set") == 1 and "keys" not in calls
    log = [args for args, _, _, _ in sent_by(ctl)]
    assert [a for a in log if a[0] == "SET"] == [["SET", "job:42", "worker-1", "EX", "30", "NX"]]
    assert not [a for a in log if a[0] == "KEYS"]
    # CONFIG RESETSTAT does not touch the log, nor the log the counters.
    ctl.config_resetstat()
    assert len(entries(ctl)) >= 3
