"""The helpers of warden_testing.py against a real warden process, as a user's suite runs them:
conftest.py takes the fixtures, which start the server from $WARDEN_BINARY."""

import threading

import pytest
import redis

from warden_testing import (Warden, advance, clear_faults, command_log, drop_snapshot, fault,
                            freeze, now_ms, real_clock, restore, snapshot, unsupported,
                            wait_blocked)


def test_frozen_clock_moves_only_when_advanced(warden):
    r = warden
    freeze(r, 1_700_000_000_000)
    assert now_ms(r) == 1_700_000_000_000
    assert r.set("lease", "me", nx=True, px=30_000)
    advance(r, 29_999)
    assert r.pttl("lease") == 1
    advance(r, 1)
    assert r.get("lease") is None
    assert r.time() == (1_700_000_030, 0)
    real_clock(r)
    assert now_ms(r) > 1_700_000_030_000


def test_each_test_starts_clean(warden):
    # The previous test left its clock frozen in 2023 and possibly keys behind.
    assert warden.dbsize() == 0
    assert now_ms(warden) > 1_700_000_030_000


def test_wait_blocked_then_advance_times_out_a_blpop(warden_server, warden):
    freeze(warden)
    waiter = warden_server.client()
    result = []
    t = threading.Thread(target=lambda: result.append(waiter.blpop("jobs", timeout=5)))
    t.start()
    assert wait_blocked(warden, 1) == 1
    advance(warden, 5_000)
    t.join(timeout=5)
    assert result == [None]
    waiter.close()


def test_wait_blocked_times_out_with_both_numbers(warden):
    with pytest.raises(redis.ResponseError, match="2 blocked clients"):
        wait_blocked(warden, 2, timeout_ms=50)


def test_snapshot_and_restore(warden):
    r = warden
    freeze(r)
    r.set("lock", "me", px=10_000)
    r.hset("user:1", mapping={"name": "Ann"})
    snapshot(r, "clean")
    r.flushall()
    r.set("stray", "1")
    restore(r, "clean")
    assert sorted(r.keys()) == ["lock", "user:1"]
    assert r.pttl("lock") == 10_000
    advance(r, 10_001)
    restore(r, "clean")  # the lease has run out since the snapshot
    assert r.keys() == ["user:1"]
    drop_snapshot(r, "clean")
    with pytest.raises(redis.ResponseError, match="no such snapshot"):
        restore(r, "clean")


def test_fault_rules_fail_and_drop_one_command(warden_server, warden):
    r = warden
    with fault(r, "ERROR", "READONLY You can't write against a read only replica.",
               command="set", key="lock:*", times=1):
        with pytest.raises(redis.ReadOnlyError):
            r.set("lock:a", "me", nx=True)
        assert r.set("lock:a", "me", nx=True)  # TIMES 1: spent
    r.client_setname("victim")
    with fault(r, "DROP-AFTER", command="set", client_name="victim"):
        with pytest.raises(redis.ConnectionError):
            r.set("lock:b", "me", nx=True)
    other = warden_server.client()
    assert other.get("lock:b") == b"me"  # taken, though its client never heard
    clear_faults(other)
    other.close()


def test_command_log_records_what_the_code_sent(warden):
    r = warden
    with command_log(r) as log:
        r.set("lock", "me", nx=True, px=30_000)
        r.eval("return redis.call('get', KEYS[1])", 1, "lock")
        assert log.commands(include_scripts=False) == [
            ["set", "lock", "me", "PX", "30000", "NX"],
            ["eval", "return redis.call('get', KEYS[1])", "1", "lock"],
        ]
        entries = log.entries()
        assert [e.origin for e in entries] == ["client", "client", "script"]
        assert entries[2].args == ["get", "lock"]


def test_unsupported_lists_unknown_commands(warden):
    warden.config_resetstat()
    for _ in range(2):
        with pytest.raises(redis.ResponseError, match="unknown command"):
            warden.execute_command("NOSUCHCOMMAND", "x")
    with pytest.raises(redis.ResponseError, match="unknown subcommand"):
        warden.execute_command("CONFIG", "NOSUCH")
    assert unsupported(warden) == {"config|nosuch": 1, "nosuchcommand": 2}


def test_a_server_with_a_seed_and_options(tmp_path):
    server = Warden(args=["--databases", "2"], seed=7)
    try:
        r = server.client()
        assert r.config_get("databases") == {"databases": "2"}
        r.close()
    finally:
        server.stop()
