"""redis-py's pipeline() (Debian's python3-redis 4.3.4) against redis-server and warden.

pipeline() is MULTI/EXEC by default; with watch() it is the optimistic-locking loop of WATCH,
reads, multi() and execute(), which raises WatchError when another client changed a watched key.
Every test runs on both servers and asserts the same results.
"""

import time

import pytest
import redis
from redis.exceptions import ExecAbortError, ResponseError, WatchError


@pytest.fixture
def r(target):
    client = redis.Redis(port=target.port, socket_timeout=10)
    client.flushall()
    yield client
    client.close()


@pytest.fixture
def r2(target):
    client = redis.Redis(port=target.port, socket_timeout=10)
    yield client
    client.close()


@pytest.fixture
def r3(target):
    """A RESP2 client that decodes replies, as most applications configure redis-py."""
    client = redis.Redis(port=target.port, socket_timeout=10, decode_responses=True)
    yield client
    client.close()


def test_pipeline_is_a_transaction_by_default(r):
    with r.pipeline() as pipe:
        pipe.set("k", "1").incr("k").incrby("k", 5).get("k")
        assert pipe.execute() == [True, 2, 7, b"7"]


def test_a_run_time_error_is_returned_in_place(r):
    with r.pipeline() as pipe:
        pipe.set("k", "v").lpush("k", "x").get("k")
        results = pipe.execute(raise_on_error=False)
    assert results[0] is True
    assert isinstance(results[1], ResponseError)
    assert str(results[1]) == "WRONGTYPE Operation against a key holding the wrong kind of value"
    assert results[2] == b"v"


def test_a_run_time_error_raises_by_default(r):
    with r.pipeline() as pipe:
        pipe.set("k", "v").incr("k")
        with pytest.raises(ResponseError, match="not an integer"):
            pipe.execute()
    assert r.get("k") == b"v"


def test_an_unknown_command_aborts_the_whole_transaction(r):
    with r.pipeline() as pipe:
        pipe.set("k", "v").execute_command("NOSUCHCOMMAND", "x")
        with pytest.raises((ExecAbortError, ResponseError)) as raised:
            pipe.execute()
    assert "unknown command" in str(raised.value) or "EXECABORT" in str(raised.value)
    assert r.exists("k") == 0


def test_watch_then_multi_commits_when_nothing_changed(r):
    r.set("balance", 10)
    with r.pipeline() as pipe:
        pipe.watch("balance")
        balance = int(pipe.get("balance"))
        pipe.multi()
        pipe.set("balance", balance - 3)
        assert pipe.execute() == [True]
    assert r.get("balance") == b"7"


def test_watch_raises_when_another_client_wrote(r, r2):
    r.set("balance", 10)
    with r.pipeline() as pipe:
        pipe.watch("balance")
        balance = int(pipe.get("balance"))
        r2.incrby("balance", 100)
        pipe.multi()
        pipe.set("balance", balance - 3)
        with pytest.raises(WatchError):
            pipe.execute()
    assert r.get("balance") == b"110"


def test_watch_does_not_raise_for_a_write_that_changed_nothing(r, r2):
    r.set("lock", "owner")
    with r.pipeline() as pipe:
        pipe.watch("lock")
        assert r2.set("lock", "intruder", nx=True) is None
        pipe.multi()
        pipe.delete("lock")
        assert pipe.execute() == [1]


def test_transaction_helper_retries_until_it_commits(r, r2):
    r.set("counter", 0)
    interfered = []

    def increment(pipe):
        value = int(pipe.get("counter"))
        if not interfered:
            interfered.append(True)
            r2.incr("counter")  # the first attempt loses the race
        pipe.multi()
        pipe.set("counter", value + 1)

    assert r.transaction(increment, "counter") == [True]
    assert r.get("counter") == b"2"
    assert len(interfered) == 1


def test_a_key_that_expires_after_watch_fails_the_transaction(r):
    r.set("lease", "me", px=100)
    with r.pipeline() as pipe:
        pipe.watch("lease")
        # The lease runs out; reading it (as the application would) removes it.
        deadline = time.monotonic() + 5
        while r.exists("lease"):
            assert time.monotonic() < deadline
        pipe.multi()
        pipe.set("lease", "me again")
        with pytest.raises(WatchError):
            pipe.execute()


def test_unwatch_through_reset_leaves_nothing_behind(r, r2):
    r.set("k", "v")
    with r.pipeline() as pipe:
        pipe.watch("k")
        pipe.reset()  # UNWATCH
        r2.set("k", "w")
        pipe.multi()
        pipe.get("k")
        assert pipe.execute() == [b"w"]


def test_decoded_pipeline_without_transaction_is_plain_pipelining(r3):
    with r3.pipeline(transaction=False) as pipe:
        pipe.set("a", "1").get("a").hset("h", "f", "v").hgetall("h")
        assert pipe.execute() == [True, "1", 1, {"f": "v"}]
