"""redis-py over TLS (rediss://), against redis-server and warden alike.

tests/clients/run.sh makes a CA with a server and a client certificate for the run (TLS_DIR)
and gives the first instance of each server a TLS port (REDIS_TLS_PORT, WARDEN_TLS_PORT), which
requires a client certificate, as Redis does by default. The lock pattern, redis-py's Lock, a
pipeline, pub/sub and a blocking pop run over TLS; a client without a certificate is refused.
"""

import os
import threading

import pytest
import redis
from redis.lock import Lock

TLS_PORTS = {"redis-server": "REDIS_TLS_PORT", "warden": "WARDEN_TLS_PORT"}


def tls_dir():
    value = os.environ.get("TLS_DIR")
    if not value:
        raise pytest.UsageError("TLS_DIR is not set: run these tests through tests/clients/run.sh")
    return value


@pytest.fixture
def tls_port(target):
    return int(os.environ[TLS_PORTS[target.name]])


def cert_options(with_client_cert=True):
    d = tls_dir()
    options = {"ssl_ca_certs": os.path.join(d, "ca.crt")}
    if with_client_cert:
        options["ssl_certfile"] = os.path.join(d, "client.crt")
        options["ssl_keyfile"] = os.path.join(d, "client.key")
    return options


@pytest.fixture
def tls_client(tls_port):
    made = []

    def connect(**options):
        c = redis.Redis.from_url("rediss://127.0.0.1:%d/0" % tls_port, socket_timeout=10,
                                 **cert_options(), **options)
        made.append(c)
        return c

    yield connect
    for c in made:
        c.close()


def test_lock_pattern_over_tls(tls_client, target):
    r = tls_client()
    key = "tls:lock:pattern"
    r.delete(key)
    assert r.set(key, "owner-a", nx=True, px=30000) is True
    assert r.set(key, "owner-b", nx=True, px=30000) is None
    assert 29000 < r.pttl(key) <= 30000
    release = r.register_script(
        "if redis.call('get', KEYS[1]) == ARGV[1] then "
        "return redis.call('del', KEYS[1]) else return 0 end")
    assert release(keys=[key], args=["owner-b"]) == 0
    assert release(keys=[key], args=["owner-a"]) == 1
    assert r.exists(key) == 0


def test_redis_py_lock_over_tls(tls_client):
    r = tls_client()
    r.delete("tls:lock:class")
    first = Lock(r, "tls:lock:class", timeout=10, blocking=False)
    second = Lock(r, "tls:lock:class", timeout=10, blocking=False)
    assert first.acquire() is True
    assert second.acquire() is False
    first.release()
    assert second.acquire() is True
    second.release()


def test_pipeline_and_large_value_over_tls(tls_client):
    r = tls_client()
    r.delete("tls:counter")
    with r.pipeline(transaction=False) as p:
        for _ in range(1000):
            p.incr("tls:counter")
        assert p.execute() == list(range(1, 1001))
    value = b"x" * (3 * 1024 * 1024 + 1)
    assert r.set("tls:big", value) is True
    assert r.get("tls:big") == value
    r.delete("tls:big", "tls:counter")


def test_pubsub_and_blocking_pop_over_tls(tls_client):
    r = tls_client()
    sub = tls_client().pubsub()
    sub.subscribe("tls:released")
    assert sub.get_message(timeout=5)["type"] == "subscribe"
    assert r.publish("tls:released", "job-1") == 1
    message = sub.get_message(timeout=5)
    assert (message["type"], message["data"]) == ("message", b"job-1")
    sub.close()

    r.delete("tls:queue")
    popped = []
    waiter = tls_client()
    thread = threading.Thread(target=lambda: popped.append(waiter.blpop("tls:queue", 10)))
    thread.start()
    # The pop is served once the waiter is blocked; CLIENT LIST shows it so.
    for _ in range(5000):
        if any(c.get("cmd") == "blpop" for c in r.client_list()):
            break
    assert r.rpush("tls:queue", "job-2") == 1
    thread.join(10)
    assert popped == [(b"tls:queue", b"job-2")]


def test_client_without_a_certificate_is_refused(tls_port):
    r = redis.Redis.from_url("rediss://127.0.0.1:%d" % tls_port, socket_timeout=5,
                             **cert_options(with_client_cert=False))
    with pytest.raises(redis.ConnectionError):
        r.ping()
    r.close()


def test_server_certificate_is_checked_by_the_client(tls_port, tmp_path):
    # A CA that did not sign the server's certificate: the client refuses the server.
    other = tmp_path / "other-ca.crt"
    other.write_text(open(os.path.join(tls_dir(), "client.crt")).read())
    options = cert_options()
    options["ssl_ca_certs"] = str(other)
    r = redis.Redis.from_url("rediss://127.0.0.1:%d" % tls_port, socket_timeout=5, **options)
    with pytest.raises(redis.ConnectionError):
        r.ping()
    r.close()


def test_script_debug_over_tls(tls_client, target):
    # The Lua debugger speaks on the socket itself: warden refuses it over TLS (README's "Known
    # differences"), where Redis runs the session through its TLS connection.
    client = tls_client()
    if target.name == "warden":
        with pytest.raises(redis.ResponseError,
                           match="SCRIPT DEBUG is not supported on TLS connections"):
            client.execute_command("SCRIPT", "DEBUG", "YES")
    else:
        assert client.execute_command("SCRIPT", "DEBUG", "YES") == b"OK"
    assert client.execute_command("SCRIPT", "DEBUG", "NO") == b"OK"
    assert client.eval("return 1", 0) == 1
