"""Lock leases checked by moving warden's clock instead of sleeping."""
import pytest
from redis.exceptions import LockNotOwnedError


def test_lease_expires_when_the_clock_moves(warden, warden_client):
    r = warden_client
    warden.freeze()
    assert r.set("lock:job", "owner1", nx=True, px=30000) is True
    assert r.pttl("lock:job") == 30000
    warden.advance(29999)
    assert r.set("lock:job", "owner2", nx=True, px=30000) is None
    warden.advance(1)
    assert r.set("lock:job", "owner2", nx=True, px=30000) is True
    assert r.get("lock:job") == "owner2"


def test_redis_py_lock_is_lost_after_its_timeout(warden, warden_client):
    warden.freeze()
    first = warden_client.lock("resource", timeout=30, blocking=False)
    assert first.acquire() is True
    assert first.owned()
    warden.advance(30000)
    second = warden_client.lock("resource", timeout=30, blocking=False)
    assert second.acquire() is True
    with pytest.raises(LockNotOwnedError):
        first.release()
    second.release()
    assert warden_client.exists("resource") == 0


def test_extend_keeps_the_lock_past_its_first_lease(warden, warden_client):
    warden.freeze()
    lock = warden_client.lock("resource", timeout=10, blocking=False)
    assert lock.acquire()
    warden.advance(8000)
    assert lock.extend(10)
    assert warden_client.pttl("resource") == 12000
    warden.advance(11000)
    assert lock.owned()
    lock.release()
