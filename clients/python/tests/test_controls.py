"""The controls of the `warden` fixture against a real warden, as a user's suite runs them: no
conftest.py, the fixtures come from the installed plugin."""

import threading

import pytest
import redis

from warden_testing import Warden


def test_frozen_clock_moves_only_when_advanced(warden, warden_client):
    r = warden_client
    warden.freeze(1_700_000_000_000)
    assert warden.now_ms() == 1_700_000_000_000
    assert r.set("lease", "me", nx=True, px=30_000)
    warden.advance(29_999)
    assert r.pttl("lease") == 1
    warden.advance(1)
    assert r.get("lease") is None
    assert r.time() == (1_700_000_030, 0)
    warden.real_clock()
    assert warden.now_ms() > 1_700_000_030_000


def test_wait_blocked_then_advance_times_out_a_blpop(warden):
    warden.freeze()
    waiter = warden.client()
    result = []
    t = threading.Thread(target=lambda: result.append(waiter.blpop("jobs", timeout=5)))
    t.start()
    assert warden.wait_blocked(1) == 1
    warden.advance(5_000)
    t.join(timeout=5)
    assert result == [None]
    waiter.close()


def test_wait_blocked_times_out_with_both_numbers(warden):
    with pytest.raises(redis.ResponseError, match=r"2 blocked clients \(0 blocked\)"):
        warden.wait_blocked(2, timeout_ms=50)


def test_snapshot_and_restore(warden, warden_client):
    r = warden_client
    warden.freeze()
    r.set("lock", "me", px=10_000)
    r.hset("user:1", mapping={"name": "Ann"})
    warden.snapshot("clean")
    assert warden.snapshots() == ["clean"]
    r.flushall()
    r.set("stray", "1")
    warden.restore("clean")
    assert sorted(r.keys()) == ["lock", "user:1"]
    assert r.pttl("lock") == 10_000
    warden.advance(10_001)
    warden.restore("clean")  # the lease has run out since the snapshot
    assert r.keys() == ["user:1"]
    assert warden.drop_snapshot("clean")
    assert not warden.drop_snapshot("clean")
    with pytest.raises(redis.ResponseError, match="no such snapshot"):
        warden.restore("clean")


def test_fail_answers_the_error_and_is_spent_after_its_times(warden, warden_client):
    r = warden_client
    with warden.fail("READONLY You can't write against a read only replica.",
                     command="set", key="lock:*", times=1) as rule:
        with pytest.raises(redis.ReadOnlyError):
            r.set("lock:a", "me", nx=True)
        assert r.set("lock:a", "me", nx=True)
        assert not rule.remove()  # TIMES 1: spent and gone


def test_drop_after_runs_the_command_and_loses_its_reply(warden, warden_client):
    warden_client.client_setname("victim")
    with warden.drop_after(command="set", client_name="victim"):
        with pytest.raises(redis.ConnectionError):
            warden_client.set("lock:b", "me", nx=True)
    other = warden.client()
    assert other.get("lock:b") == "me"  # taken, though its client never heard
    other.close()


def test_faults_lists_the_rules_in_order(warden):
    warden.delay(5, jitter_ms=2, command="get")
    warden.drop(key="lock:*", after=3)
    rules = warden.faults()
    assert [(rule["action"], rule["command"], rule["key"], rule["after"]) for rule in rules] == [
        ("DELAY 5 JITTER 2", "get", None, 0), ("DROP", None, "lock:*", 3)]
    warden.clear_faults()
    assert warden.faults() == []


def test_command_log_records_what_the_code_sent(warden, warden_client):
    r = warden_client
    with warden.command_log() as log:
        r.set("lock", "me", nx=True, px=30_000)
        warden.advance(1)  # the controls' own commands are not the code's
        r.eval("return redis.call('get', KEYS[1])", 1, "lock")
        assert log.commands(include_scripts=False) == [
            ["set", "lock", "me", "PX", "30000", "NX"],
            ["eval", "return redis.call('get', KEYS[1])", "1", "lock"],
        ]
        entries = [e for e in log.entries() if e.client_name != "warden-testing"]
        assert [e.origin for e in entries] == ["client", "client", "script"]
        assert entries[2].args == ["get", "lock"]


def test_unsupported_lists_unknown_commands(warden, warden_client):
    for _ in range(2):
        with pytest.raises(redis.ResponseError, match="unknown command"):
            warden_client.execute_command("NOSUCHCOMMAND", "x")
    with pytest.raises(redis.ResponseError, match="unknown subcommand"):
        warden_client.execute_command("CONFIG", "NOSUCH")
    assert warden.unsupported() == {"config|nosuch": 1, "nosuchcommand": 2}


@pytest.mark.warden(args=["--databases", "2"], seed=7)
def test_a_marker_gives_a_server_of_its_own(warden, warden_client):
    assert warden_client.config_get("databases") == {"databases": "2"}
    assert warden.seed == 7
    assert warden.url == f"redis://127.0.0.1:{warden.port}"


def test_warden_runs_outside_pytest_fixtures():
    with Warden(args=["--databases", "3"]) as server:
        client = server.client(decode_responses=False)
        client.set("k", "v")
        assert client.get("k") == b"v"
        assert client.config_get("databases") == {"databases": "3"}
        client.close()
    assert not server.running
