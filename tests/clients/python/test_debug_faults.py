"""DEBUG FAULT through redis-py (Debian's python3-redis 4.3.4), on warden alone.

Each action as a client sees it: ERROR as the exception redis-py raises for that error code,
DROP as a ConnectionError with the command not run, DROP-AFTER as a ConnectionError with the
command run (SET NX took the lock, its client never heard), DELAY as a reply that comes after
another client's replies. Then the matchers (KEY and CLIENT-NAME globs), the schedule (AFTER,
TIMES), PROBABILITY replayed alike by two servers started with the same --seed, and the rule list.

Warden-only controls, so there is no redis-server run to compare with. No sleeps: a test polls
DEBUG FAULT LIST until a rule has fired.
"""

import contextlib
import os
import socket
import subprocess
import threading
import time

import pytest
import redis
from redis.exceptions import BusyLoadingError, ConnectionError, ReadOnlyError, ResponseError

from conftest import targets

WAIT_S = 10


@pytest.fixture
def port():
    return targets()["warden"].port


def client(port, **kwargs):
    return redis.Redis(port=port, socket_timeout=WAIT_S, **kwargs)


@pytest.fixture
def r(port):
    c = client(port)
    c.flushall()
    c.execute_command("DEBUG", "FAULT", "CLEAR")
    yield c
    c.execute_command("DEBUG", "FAULT", "CLEAR")
    c.close()


def add(r, *args):
    return r.execute_command("DEBUG", "FAULT", "ADD", *args)


def rules(r):
    """DEBUG FAULT LIST as a list of dicts with str keys."""
    out = []
    for flat in r.execute_command("DEBUG", "FAULT", "LIST"):
        out.append({flat[i].decode(): flat[i + 1] for i in range(0, len(flat), 2)})
    return out


def wait_hits(r, rule_id, hits):
    deadline = time.monotonic() + WAIT_S
    while True:
        found = [rule for rule in rules(r) if rule["id"] == rule_id]
        if found and found[0]["hits"] >= hits:
            return
        assert time.monotonic() < deadline, "rule %d did not fire" % rule_id
        time.sleep(0.005)


# redis-py sends INCR as INCRBY n 1.

def test_error_answers_the_text_and_skips_the_command(r):
    add(r, "COMMAND", "set", "TIMES", "1", "ERROR",
        "LOADING Redis is loading the dataset in memory")
    add(r, "COMMAND", "incrby", "TIMES", "1", "ERROR",
        "READONLY You can't write against a read only replica.")
    add(r, "COMMAND", "get", "TIMES", "1", "ERROR", "MOVED 3999 127.0.0.1:6381")
    with pytest.raises(BusyLoadingError):
        r.set("k", "v")
    with pytest.raises(ResponseError, match="^MOVED 3999 127.0.0.1:6381$"):
        r.get("k")
    with pytest.raises(ReadOnlyError):
        r.incr("n")
    assert r.exists("k", "n") == 0
    assert r.set("k", "v") is True
    assert r.get("k") == b"v"
    assert rules(r) == []


def test_error_text_is_the_whole_reply(r):
    add(r, "COMMAND", "get", "ERROR", "MOVED 3999 127.0.0.1:6381")
    with pytest.raises(ResponseError) as raised:
        r.get("k")
    assert str(raised.value) == "MOVED 3999 127.0.0.1:6381"


def test_error_in_multi_aborts_the_transaction(r):
    add(r, "COMMAND", "set", "ERROR", "OOM command not allowed when used memory > 'maxmemory'.")
    pipe = r.pipeline(transaction=True)
    pipe.incr("n").set("k", "v")
    # redis-py raises the queued command's error rather than EXEC's EXECABORT.
    with pytest.raises(ResponseError, match="OOM command not allowed"):
        pipe.execute()
    assert r.exists("n", "k") == 0


def test_drop_closes_before_the_command_runs(r, port):
    victim = client(port)
    add(r, "COMMAND", "set", "KEY", "lock", "TIMES", "1", "DROP")
    with pytest.raises(ConnectionError):
        victim.set("lock", "me", nx=True, px=30000)
    assert r.get("lock") is None
    # redis-py reconnects on the next command; the rule is spent.
    assert victim.set("lock", "me", nx=True, px=30000) is True
    victim.close()


def test_drop_after_runs_the_command_but_loses_its_reply(r, port):
    victim = client(port)
    add(r, "COMMAND", "set", "KEY", "lock", "TIMES", "1", "DROP-AFTER")
    with pytest.raises(ConnectionError):
        victim.set("lock", "me", nx=True, px=30000)
    # The lock was taken; its owner does not know, and its retry finds the lock held.
    assert r.get("lock") == b"me"
    assert victim.set("lock", "me", nx=True, px=30000) is None
    victim.close()


def test_drop_after_a_blocked_pop_loses_the_element(r, port):
    victim = client(port)
    add(r, "COMMAND", "blpop", "TIMES", "1", "DROP-AFTER")
    failures = []

    def pop():
        try:
            victim.blpop("jobs", timeout=0)
        except ConnectionError as e:
            failures.append(e)

    thread = threading.Thread(target=pop)
    thread.start()
    # The rule fired once, when BLPOP blocked, and left the list.
    deadline = time.monotonic() + WAIT_S
    while rules(r):
        assert time.monotonic() < deadline
        time.sleep(0.005)
    deadline = time.monotonic() + WAIT_S
    while b"cmd=blpop" not in r.execute_command("CLIENT", "LIST"):
        assert time.monotonic() < deadline
        time.sleep(0.005)
    assert r.rpush("jobs", "job-1") == 1
    thread.join(WAIT_S)
    assert len(failures) == 1
    assert r.llen("jobs") == 0
    victim.close()


def test_delay_holds_one_client_while_another_is_served(r, port):
    slow = client(port, client_name="slow")
    fast = client(port, client_name="fast")
    r.set("k", "v")
    rule = add(r, "CLIENT-NAME", "slow", "COMMAND", "get", "DELAY", "1000")
    order = []

    def slow_get():
        order.append(("slow", slow.get("k")))

    thread = threading.Thread(target=slow_get)
    thread.start()
    wait_hits(r, rule, 1)  # the slow GET ran; its reply is held
    order.append(("fast", fast.get("k")))
    order.append(("fast", fast.incr("n")))
    thread.join(WAIT_S)
    assert order == [("fast", b"v"), ("fast", 1), ("slow", b"v")]
    slow.close()
    fast.close()


def test_delay_keeps_a_pipeline_in_order(r):
    add(r, "COMMAND", "incrby", "TIMES", "1", "DELAY", "50", "JITTER", "20")
    pipe = r.pipeline(transaction=False)
    pipe.set("a", "1").incr("a").incr("a").get("a")
    assert pipe.execute() == [True, 2, 3, b"3"]


def test_key_glob_matches_any_key_of_the_command(r):
    add(r, "KEY", "lock:*", "ERROR", "ERR no locks today")
    assert r.set("other", "1") is True
    with pytest.raises(ResponseError, match="no locks today"):
        r.set("lock:a", "1")
    with pytest.raises(ResponseError, match="no locks today"):
        r.mset({"x": "1", "lock:b": "2"})
    # A command without keys never matches a KEY rule.
    assert r.ping() is True
    # Nor do the commands a script runs: only EVAL, by its KEYS.
    assert r.eval("return redis.call('SET', 'lock:c', '1')", 0) == b"OK"
    with pytest.raises(ResponseError, match="no locks today"):
        r.eval("return 1", 1, "lock:d")


def test_client_name_glob(r, port):
    worker = client(port, client_name="worker-1")
    web = client(port, client_name="web-1")
    anonymous = client(port)
    add(r, "CLIENT-NAME", "worker-*", "ERROR", "BUSY Redis is busy running a script.")
    with pytest.raises(ResponseError, match="BUSY"):
        worker.set("k", "1")
    assert web.set("k", "2") is True
    assert anonymous.get("k") == b"2"
    for c in (worker, web, anonymous):
        c.close()


def test_after_and_times(r):
    rule = add(r, "COMMAND", "incrby", "AFTER", "2", "TIMES", "2", "ERROR", "ERR flaky")
    results = []
    for _ in range(6):
        try:
            results.append(r.incr("n"))
        except ResponseError as e:
            results.append(str(e))
    assert results == [1, 2, "flaky", "flaky", 3, 4]
    assert [x["id"] for x in rules(r)] == []
    assert isinstance(rule, int)


def test_list_shows_matchers_schedule_and_counts(r):
    first = add(r, "COMMAND", "SET", "KEY", "lock:*", "AFTER", "1", "TIMES", "3",
                "PROBABILITY", "0.5", "ERROR", "ERR x")
    second = add(r, "CLIENT-NAME", "w*", "DELAY", "10", "JITTER", "5")
    third = add(r, "DROP-AFTER")
    assert (first, second, third) == (1, 2, 3)
    assert r.execute_command("DEBUG", "FAULT", "DEL", str(third)) == 1
    assert r.execute_command("DEBUG", "FAULT", "DEL", str(third)) == 0
    r.set("lock:1", "v")
    assert rules(r) == [
        {"id": 1, "command": b"set", "key": b"lock:*", "client-name": None, "after": 1,
         "times": 3, "probability": b"0.5", "action": b"ERROR ERR x", "matched": 1, "hits": 0,
         "remaining": 3},
        {"id": 2, "command": None, "key": None, "client-name": b"w*", "after": 0, "times": -1,
         "probability": b"1", "action": b"DELAY 10 JITTER 5", "matched": 0, "hits": 0,
         "remaining": -1},
    ]
    assert r.execute_command("DEBUG", "FAULT", "CLEAR") == 2
    assert add(r, "DROP") == 1  # ids restart after CLEAR
    # DEBUG is never faulted, so the rule above cannot lock the test out.
    assert r.execute_command("DEBUG", "FAULT", "CLEAR") == 1


@pytest.mark.parametrize("args,error", [
    ((), "ERR DEBUG FAULT ADD needs an action: ERROR <text>, DELAY <ms> [JITTER <ms>], DROP or "
         "DROP-AFTER"),
    (("COMMAND", "nosuch", "DROP"), "ERR unknown command 'nosuch' in DEBUG FAULT ADD"),
    (("COMMAND", "debug", "DROP"), "ERR DEBUG commands are never faulted"),
    (("TIMES", "0", "DROP"), "ERR TIMES must be positive"),
    (("AFTER", "-1", "DROP"), "ERR AFTER must not be negative"),
    (("PROBABILITY", "1.5", "DROP"), "ERR PROBABILITY must be a number between 0 and 1"),
    (("DELAY", "x"), "ERR value is not an integer or out of range"),
    (("DROP", "extra"), "ERR syntax error"),
    (("ERROR",), "ERR syntax error"),
])
def test_add_refuses_bad_rules(r, args, error):
    with pytest.raises(ResponseError) as raised:
        add(r, *args)
    assert str(raised.value) == error.removeprefix("ERR ")


def test_fail_next_is_a_rule(r):
    r.execute_command("DEBUG", "FAIL-NEXT", "2", "boom", "COMMAND", "get")
    assert [(x["action"], x["remaining"]) for x in rules(r)] == [(b"ERROR ERR boom", 2)]
    r.execute_command("DEBUG", "FAIL-NEXT", "0", "boom")
    assert rules(r) == []


# --seed: two servers started alike replay the same faults.

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def own_warden(*extra):
    binary = os.environ.get("WARDEN_BIN")
    if not binary:
        raise pytest.UsageError("WARDEN_BIN is not set: run through tests/clients/run.sh")
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--enable-debug-command", "yes", *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                c = client(port)
                c.ping()
                break
            except ConnectionError:
                assert time.monotonic() < deadline and proc.poll() is None, "warden did not start"
                time.sleep(0.01)
        yield c
        c.close()
    finally:
        proc.terminate()
        proc.wait(timeout=WAIT_S)


def faulted_pattern(seed):
    with own_warden("--seed", str(seed)) as c:
        add(c, "COMMAND", "incrby", "PROBABILITY", "0.3", "ERROR", "ERR unlucky")
        add(c, "COMMAND", "get", "PROBABILITY", "0.5", "DELAY", "1", "JITTER", "3")
        pattern = []
        for i in range(60):
            try:
                c.incr("n")
                pattern.append(".")
            except ResponseError:
                pattern.append("x")
            if i % 3 == 0:
                c.get("n")  # draws from the other rule's generator only
        return "".join(pattern)


def test_probability_replays_under_the_same_seed():
    first = faulted_pattern(42)
    assert "x" in first and "." in first
    assert faulted_pattern(42) == first


def test_rule_cap_is_configurable():
    with own_warden("--debug-fault-max-rules", "2") as c:
        add(c, "DROP")
        add(c, "DROP")
        with pytest.raises(ResponseError) as raised:
            add(c, "DROP")
        assert str(raised.value) == (
            "too many fault rules: 2 installed, the most debug-fault-max-rules allows")
