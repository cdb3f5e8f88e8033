"""redis-py's pubsub() (Debian's python3-redis 4.3.4, RESP2) against redis-server and warden.

Subscriptions and messages as redis-py decodes them, PING while subscribed (the pong message),
and the health check redis-py sends on a subscribed connection (PING redis-py-health-check),
whose reply it must recognise and swallow. No sleeps: reads use get_message with a timeout, and
the health check is made due by moving the connection's next_health_check back.
"""

import time

import pytest
import redis

WAIT_S = 5


@pytest.fixture
def r(target):
    client = redis.Redis(port=target.port, socket_timeout=10, health_check_interval=30)
    yield client
    client.close()


@pytest.fixture
def publisher(target):
    client = redis.Redis(port=target.port, socket_timeout=10)
    yield client
    client.close()


def next_message(p, timeout=WAIT_S):
    """The next message other than a subscribe confirmation, or None after `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        message = p.get_message(timeout=max(0.0, deadline - time.monotonic()))
        if message is not None:
            return message
    return None


def confirmations(p, count):
    got = []
    for _ in range(count):
        got.append(next_message(p))
    return got


def test_subscribe_publish_and_unsubscribe(r, publisher):
    p = r.pubsub()
    p.subscribe("rp:news")
    p.psubscribe("rp:n*")
    assert confirmations(p, 2) == [
        {"type": "subscribe", "pattern": None, "channel": b"rp:news", "data": 1},
        {"type": "psubscribe", "pattern": None, "channel": b"rp:n*", "data": 2},
    ]
    assert publisher.publish("rp:news", "hello") == 2
    assert next_message(p) == {"type": "message", "pattern": None, "channel": b"rp:news",
                               "data": b"hello"}
    assert next_message(p) == {"type": "pmessage", "pattern": b"rp:n*", "channel": b"rp:news",
                               "data": b"hello"}
    assert publisher.pubsub_numsub("rp:news") == [(b"rp:news", 1)]
    assert publisher.pubsub_numpat() == 1
    assert publisher.pubsub_channels("rp:*") == [b"rp:news"]
    p.unsubscribe()
    p.punsubscribe()
    assert confirmations(p, 2) == [
        {"type": "unsubscribe", "pattern": None, "channel": b"rp:news", "data": 1},
        {"type": "punsubscribe", "pattern": None, "channel": b"rp:n*", "data": 0},
    ]
    assert publisher.publish("rp:news", "gone") == 0
    p.close()


def test_handlers_and_ignore_subscribe_messages(r, publisher):
    received = []
    p = r.pubsub(ignore_subscribe_messages=True)
    p.subscribe(**{"rp:h": lambda m: received.append(m["data"])})
    assert next_message(p, timeout=0.2) is None  # the confirmation is swallowed
    publisher.publish("rp:h", "one")
    publisher.publish("rp:h", "two")
    deadline = time.monotonic() + WAIT_S
    while len(received) < 2 and time.monotonic() < deadline:
        p.get_message(timeout=0.1)
    assert received == [b"one", b"two"]
    p.close()


def test_ping_while_subscribed_is_a_pong_message(r):
    p = r.pubsub()
    p.subscribe("rp:ping")
    confirmations(p, 1)
    p.ping()
    assert next_message(p) == {"type": "pong", "pattern": None, "channel": None, "data": b""}
    p.ping("hi")
    assert next_message(p) == {"type": "pong", "pattern": None, "channel": None, "data": b"hi"}
    p.close()


def test_health_check_on_a_subscribed_connection(r, publisher):
    p = r.pubsub()
    p.subscribe("rp:hc")
    confirmations(p, 1)
    # Due now: the next read sends PING redis-py-health-check and swallows its reply.
    p.connection.next_health_check = 0
    assert p.get_message(timeout=0.5) is None
    fields = [dict(f.split("=", 1) for f in line.split())
              for line in publisher.execute_command("CLIENT", "LIST", "TYPE", "pubsub")
              .decode().splitlines()]
    assert [f["cmd"] for f in fields] == ["ping"]
    assert publisher.publish("rp:hc", "after") == 1
    assert next_message(p) == {"type": "message", "pattern": None, "channel": b"rp:hc",
                               "data": b"after"}
    # A health check on a connection that has not subscribed yet is a plain PING.
    q = r.pubsub()
    q.subscribe("rp:hc2")
    q.unsubscribe("rp:hc2")
    confirmations(q, 2)
    q.connection.next_health_check = 0
    assert q.get_message(timeout=0.5) is None
    p.close()
    q.close()


def test_a_script_publishes_to_redis_py_subscribers(r, publisher):
    p = r.pubsub()
    p.psubscribe("rp:lua:*")
    confirmations(p, 1)
    assert publisher.eval("return redis.call('publish', KEYS[1], ARGV[1])", 1, "rp:lua:x",
                          "released") == 1
    assert next_message(p) == {"type": "pmessage", "pattern": b"rp:lua:*",
                               "channel": b"rp:lua:x", "data": b"released"}
    p.close()
