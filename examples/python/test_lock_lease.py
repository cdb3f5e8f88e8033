"""Lock leases checked by moving warden's clock instead of sleeping."""
import redis
from redis.exceptions import LockNotOwnedError
import pytest


def advance(client, ms):
    client.execute_command("DEBUG", "CLOCK", "ADVANCE", ms)


def test_lease_expires_when_the_clock_moves(warden):
    warden.execute_command("DEBUG", "CLOCK", "FREEZE")
    assert warden.set("lock:job", "owner1", nx=True, px=30000) is True
    assert warden.pttl("lock:job") == 30000
    advance(warden, 29999)
    assert warden.set("lock:job", "owner2", nx=True, px=30000) is None
    advance(warden, 1)
    assert warden.set("lock:job", "owner2", nx=True, px=30000) is True
    assert warden.get("lock:job") == "owner2"


def test_redis_py_lock_is_lost_after_its_timeout(warden):
    warden.execute_command("DEBUG", "CLOCK", "FREEZE")
    first = warden.lock("resource", timeout=30, blocking=False)
    assert first.acquire() is True
    assert first.owned()
    advance(warden, 30000)
    second = warden.lock("resource", timeout=30, blocking=False)
    assert second.acquire() is True
    with pytest.raises(LockNotOwnedError):
        first.release()
    second.release()
    assert warden.exists("resource") == 0


def test_extend_keeps_the_lock_past_its_first_lease(warden):
    warden.execute_command("DEBUG", "CLOCK", "FREEZE")
    lock = warden.lock("resource", timeout=10, blocking=False)
    assert lock.acquire()
    advance(warden, 8000)
    assert lock.extend(10)
    assert warden.pttl("resource") == 12000
    advance(warden, 11000)
    assert lock.owned()
    lock.release()
