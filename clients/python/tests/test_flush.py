"""What one test leaves on the session's server, the next test does not see: each case leaves
something behind, flush() runs as the fixture runs it between tests, and the case checks that a
new client sees the server as it started."""

import threading

import pytest
import redis


def leave_keys(warden, r):
    for db in range(3):
        r.execute_command("SELECT", db)
        r.set(f"k{db}", "v")


def check_keys(warden, r):
    for db in range(3):
        r.execute_command("SELECT", db)
        assert r.dbsize() == 0


def leave_moved_clock(warden, r):
    warden.freeze(1_700_000_000_000)
    warden.advance(60_000)


def check_moved_clock(warden, r):
    assert warden.debug("CLOCK")[0] == "real"
    assert abs(warden.now_ms() - int(r.time()[0]) * 1000) < 60_000


def leave_pause_on_advanced_clock(warden, r):
    # Its end lies an hour ahead of the system clock once the clock is real again.
    warden.freeze(warden.now_ms() + 3_600_000)
    r.client_pause(10_000, all=True)


def check_pause_on_advanced_clock(warden, r):
    assert r.set("k", "v")


def leave_command_held_by_pause(warden, r):
    r.client_pause(60_000, all=True)
    writer = warden.client()
    threading.Thread(target=lambda: _swallow(writer.set, "held", "v"), daemon=True).start()
    warden.wait_blocked(1)  # the SET, held


def check_command_held_by_pause(warden, r):
    assert r.dbsize() == 0


def leave_controls_disconnected(warden, r):
    warden.simulate_restart()  # closes every connection, the controls' too
    r.client_kill_filter(_type="normal", skipme=True)


def check_controls_disconnected(warden, r):
    assert r.ping()


def leave_faults(warden, r):
    warden.fail("ERR injected")  # every command but DEBUG: the reset's own too
    warden.debug("REPLY-DELAY", 10_000)


def check_faults(warden, r):
    assert r.get("k") is None
    assert warden.faults() == []


def leave_command_log(warden, r):
    warden.debug("COMMAND-LOG", "ON")
    r.set("k", "v")


def check_command_log(warden, r):
    status = dict(zip(*[iter(warden.debug("COMMAND-LOG", "STATUS"))] * 2))
    assert (status["state"], status["entries"]) == ("off", 0)


def leave_snapshots(warden, r):
    warden.snapshot("a")
    warden.snapshot("b")


def check_snapshots(warden, r):
    assert warden.snapshots() == []


def leave_scripts(warden, r):
    r.script_load("return 1")
    r.function_load("#!lua name=lib\nredis.register_function('f', function() return 1 end)")


def check_scripts(warden, r):
    assert r.script_exists("e0e1f9fabfc9d4800c877a703b823ac0578ff8db") == [False]
    assert r.function_list() == []


def leave_config(warden, r):
    r.config_set("maxmemory", "1mb")
    r.config_set("notify-keyspace-events", "KEA")


def check_config(warden, r):
    assert r.config_get("maxmemory") == {"maxmemory": "0"}
    assert r.config_get("notify-keyspace-events") == {"notify-keyspace-events": ""}


def leave_acl(warden, r):
    r.acl_setuser("bob", enabled=True, passwords=["+pw"], commands=["+get"], keys=["a*"])
    r.acl_setuser("default", passwords=["+secret"])
    r.execute_command("ACL", "SETUSER", "carl", "on", "nopass", "(~b* +set)")


def check_acl(warden, r):
    assert r.acl_list() == ["user default on nopass ~* &* +@all"]
    assert r.acl_log() == []


def leave_blocked_client(warden, r):
    waiter = warden.client()
    threading.Thread(target=lambda: _swallow(waiter.blpop, "jobs", 0), daemon=True).start()
    warden.wait_blocked(1)


def check_blocked_client(warden, r):
    r.lpush("jobs", "next test's job")
    assert r.lrange("jobs", 0, -1) == ["next test's job"]
    assert sorted(c["name"] for c in r.client_list()) == ["", "warden-testing"]


def leave_stats(warden, r):
    r.config_set("slowlog-log-slower-than", 0)
    r.set("k", "v")
    with pytest.raises(redis.ResponseError):
        r.execute_command("NOSUCHCOMMAND")


def check_stats(warden, r):
    assert "cmdstat_set" not in r.info("commandstats")
    assert r.slowlog_len() == 0
    assert warden.unsupported() == {}
    assert warden.unsupported_counts["nosuchcommand"] >= 1


def leave_debug_switches(warden, r):
    warden.debug("SET-ACTIVE-EXPIRE", 0)
    warden.debug("PAUSE-CRON", 1)


def check_debug_switches(warden, r):
    warden.freeze()
    r.set("k", "v", px=10)
    warden.advance(10)  # expires at once only with active expiry on
    assert r.dbsize() == 0


def leave_replication(warden, r):
    r.replicaof("127.0.0.1", 1)  # nobody listens there: the link stays down


def check_replication(warden, r):
    assert r.execute_command("ROLE")[0] == "master"
    assert r.set("k", "v")


def _swallow(call, *args):
    try:
        call(*args)
    except redis.ConnectionError:  # flush() closed its connection
        pass


CASES = {
    "keys in every database": (leave_keys, check_keys),
    "a frozen, advanced clock": (leave_moved_clock, check_moved_clock),
    "a pause on an advanced clock": (leave_pause_on_advanced_clock,
                                     check_pause_on_advanced_clock),
    "a command held by a pause": (leave_command_held_by_pause, check_command_held_by_pause),
    "the controls' connection closed": (leave_controls_disconnected,
                                        check_controls_disconnected),
    "fault rules": (leave_faults, check_faults),
    "the command log": (leave_command_log, check_command_log),
    "snapshots": (leave_snapshots, check_snapshots),
    "scripts and functions": (leave_scripts, check_scripts),
    "configuration": (leave_config, check_config),
    "ACL users and log": (leave_acl, check_acl),
    "a blocked client": (leave_blocked_client, check_blocked_client),
    "statistics": (leave_stats, check_stats),
    "active expiry and the cron": (leave_debug_switches, check_debug_switches),
    "replication": (leave_replication, check_replication),
}


@pytest.mark.parametrize("leave, check", CASES.values(), ids=CASES.keys())
def test_flush_resets(warden, leave, check):
    r = warden.client(socket_timeout=10)  # a reset that left a pause on fails, not hangs
    leave(warden, r)
    r.close()
    warden.flush()
    r = warden.client(socket_timeout=10)
    check(warden, r)
    r.close()
