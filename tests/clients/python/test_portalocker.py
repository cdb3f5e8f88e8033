"""portalocker's RedisLock (Debian's python3-portalocker 2.2.1, on python3-redis 4.3.4) against
redis-server and warden.

RedisLock holds a lock by being the one subscriber of a channel, not by a key
(/usr/lib/python3/dist-packages/portalocker/redis.py):
- acquire: PUBSUB NUMSUB <channel>; when 0, CLIENT SETNAME <channel>-lock on a pool connection,
  which the pubsub then takes, SUBSCRIBE <channel> with a worker thread, and NUMSUB again (1 or
  retry). The lock lives as long as that connection: a holder that dies frees it at once.
- when NUMSUB is not 0, check_or_kill_lock: SUBSCRIBE to a random response channel, PUBLISH a
  JSON ping naming it on <channel>, and wait for a message. The holder's worker answers with
  PUBLISH <response channel> <time>. Had no message come, it would look for the client named
  <channel>-lock in CLIENT LIST TYPE pubsub and CLIENT KILL ID it. In 2.2.1 the first message
  read is the SUBSCRIBE confirmation, which counts as an answer, so a live connection always
  keeps its lock; the stopped-holder scenario below sends that CLIENT LIST / CLIENT KILL itself.
- release: UNSUBSCRIBE <channel>.

Holders and waiters in other processes are `python3 -c HOLDER` children, told when to release
on their stdin and stopped by PID. A test subscribes to the pattern `<channel>*` to watch pings
and answers without adding a subscriber to the channel (NUMSUB counts channels only). Each
scenario records what it saw in a Transcript; on warden the scenario also runs on
redis-server, and the two transcripts must be equal. Channel names carry a uuid per test.
"""

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid

import portalocker
import pytest

from blocking_transcripts import Transcript, same_as_redis

WAIT_S = 5

# One holder or waiter: acquires with the given timeout, prints "acquired" (or "locked" when it
# gives up), releases when a line arrives on stdin and prints "released".
HOLDER = r"""
import sys
import portalocker
port, channel, timeout = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
lock = portalocker.RedisLock(channel, redis_kwargs={"port": port}, timeout=timeout,
                             check_interval=0.05)
try:
    lock.acquire()
except portalocker.AlreadyLocked:
    print("locked", flush=True)
    sys.exit(0)
print("acquired", flush=True)
sys.stdin.readline()
lock.release()
print("released", flush=True)
"""


class Child:
    """A HOLDER process whose output lines arrive on a queue."""

    def __init__(self, port, channel, timeout):
        self.proc = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(port), channel, str(timeout)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.strip())

    def expect(self, line):
        """Waits up to WAIT_S for the next output line, which must be `line`."""
        try:
            got = self.lines.get(timeout=WAIT_S)
        except queue.Empty:
            raise AssertionError("child %d printed nothing in %ds, expected %r"
                                 % (self.proc.pid, WAIT_S, line)) from None
        assert got == line
        return time.monotonic()

    def said_nothing(self):
        return self.lines.empty()

    def release(self):
        self.proc.stdin.write("release\n")
        self.proc.stdin.flush()

    def exit_code(self):
        return self.proc.wait(WAIT_S)

    def stop(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(WAIT_S)
        self.proc.stdin.close()
        self.proc.stdout.close()


@pytest.fixture
def channel():
    return "portalocker-" + uuid.uuid4().hex


@pytest.fixture
def children():
    """children(port, channel, timeout) starts a HOLDER; every one is killed at the end."""
    started = []

    def start(port, channel, timeout):
        child = Child(port, channel, timeout)
        started.append(child)
        return child

    yield start
    for child in started:
        child.stop()


def numsub(r, channel):
    return r.pubsub_numsub(channel)[0][1]


def wait_numsub(r, channel, count):
    deadline = time.monotonic() + WAIT_S
    while numsub(r, channel) != count:
        assert time.monotonic() < deadline, "NUMSUB of %s stayed at %d, expected %d" % (
            channel, numsub(r, channel), count)


def lock_clients(r, channel):
    """What check_or_kill_lock reads: CLIENT LIST TYPE pubsub entries named <channel>-lock."""
    return [{field: entry[field] for field in ("name", "sub", "psub", "cmd", "flags")}
            for entry in r.client_list("pubsub") if entry.get("name") == channel + "-lock"]


class Watch:
    """A PSUBSCRIBE to `<channel>*` seeing the pings on the channel and the holder's answers on
    the response channels, without counting as a subscriber of the channel."""

    def __init__(self, r, channel):
        self.channel = channel.encode()
        self.pubsub = r.pubsub()
        self.pubsub.psubscribe(channel + "*")
        assert self.next()["type"] == "psubscribe"

    def next(self):
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            message = self.pubsub.get_message(timeout=deadline - time.monotonic())
            if message is not None:
                return message
        raise AssertionError("no message on %r within %ds" % (self.channel, WAIT_S))

    def ping_and_answer(self):
        """The next ping on the channel, then the answer on the response channel it names.
        Returns what a transcript can compare: the ping's fields and the answer's channel."""
        ping = self.next()
        while ping["channel"] != self.channel:  # an answer to an earlier ping
            ping = self.next()
        body = json.loads(ping["data"])
        answer = self.next()
        while answer["channel"] == self.channel:  # another ping before the answer
            answer = self.next()
        assert answer["channel"] == body["response_channel"].encode()
        float(answer["data"])  # the holder's time.time()
        return sorted(body), body["message"], answer["type"]

    def close(self):
        self.pubsub.close()


def test_acquire_is_exclusive_and_a_contender_times_out(target, reference, channel,
                                                        connections):
    def scenario(port):
        r = connections(port)
        t = Transcript()
        holder = portalocker.RedisLock(channel, redis_kwargs={"port": port})
        contender = portalocker.RedisLock(channel, redis_kwargs={"port": port},
                                          timeout=0.3, check_interval=0.05)
        t["numsub before"] = numsub(r, channel)
        t["acquire"] = holder.acquire() is holder
        t["numsub held"] = numsub(r, channel)
        t["lock clients"] = lock_clients(r, channel)
        watch = Watch(r, channel)
        start = time.monotonic()
        with pytest.raises(portalocker.AlreadyLocked):
            contender.acquire()
        t.notes["contender waited"] = time.monotonic() - start
        t["contender pinged, holder answered"] = watch.ping_and_answer()
        watch.close()
        t["numsub after contention"] = numsub(r, channel)
        holder.release()  # UNSUBSCRIBE, not waiting for its reply, and disconnect
        wait_numsub(r, channel, 0)
        t["lock clients released"] = lock_clients(r, channel)
        t["contender acquires"] = contender.acquire() is contender
        t["numsub contender"] = numsub(r, channel)
        contender.release()
        holder.connection.close()
        contender.connection.close()
        return t

    t = same_as_redis(target, reference, scenario)
    assert t["numsub before"] == 0
    assert t["acquire"] is True and t["numsub held"] == 1
    assert t["lock clients"] == [{"name": channel + "-lock", "sub": "1", "psub": "0",
                                  "cmd": "subscribe", "flags": "P"}]
    assert 0.3 <= t.notes["contender waited"] < 3.0
    assert t["contender pinged, holder answered"] == (["message", "response_channel"], "ping",
                                                      "pmessage")
    assert t["numsub after contention"] == 1
    assert t["lock clients released"] == []
    assert t["contender acquires"] is True and t["numsub contender"] == 1


def test_a_second_process_waits_and_gets_the_lock_after_release(target, reference, channel,
                                                               connections, children):
    def scenario(port):
        r = connections(port)
        t = Transcript()
        holder = children(port, channel, 0)
        holder.expect("acquired")
        t["numsub held"] = numsub(r, channel)
        watch = Watch(r, channel)
        waiter = children(port, channel, 10)
        # The waiter is contending once its ping was answered by the holder.
        t["waiter pinged, holder answered"] = watch.ping_and_answer()
        watch.close()
        t["waiter still waiting"] = waiter.said_nothing()
        released_at = time.monotonic()
        holder.release()
        holder.expect("released")
        acquired_at = waiter.expect("acquired")
        t.notes["hand-over"] = acquired_at - released_at
        t["holder exit"] = holder.exit_code()
        t["numsub waiter"] = numsub(r, channel)
        t["lock clients"] = lock_clients(r, channel)
        waiter.release()
        waiter.expect("released")
        t["waiter exit"] = waiter.exit_code()
        wait_numsub(r, channel, 0)
        return t

    t = same_as_redis(target, reference, scenario)
    assert t["numsub held"] == 1
    assert t["waiter pinged, holder answered"] == (["message", "response_channel"], "ping",
                                                   "pmessage")
    assert t["waiter still waiting"] is True
    assert t.notes["hand-over"] < 2.0
    assert t["holder exit"] == 0 and t["waiter exit"] == 0
    assert t["numsub waiter"] == 1
    assert t["lock clients"] == [{"name": channel + "-lock", "sub": "1", "psub": "0",
                                  "cmd": "subscribe", "flags": "P"}]


def test_a_holder_that_dies_frees_the_lock(target, reference, channel, connections, children):
    def scenario(port):
        r = connections(port)
        t = Transcript()
        holder = children(port, channel, 0)
        holder.expect("acquired")
        contender = portalocker.RedisLock(channel, redis_kwargs={"port": port},
                                          timeout=0.2, check_interval=0.05)
        with pytest.raises(portalocker.AlreadyLocked):
            contender.acquire()
        t["refused while the holder lives"] = True
        os.kill(holder.proc.pid, signal.SIGKILL)
        t["holder exit"] = holder.exit_code()
        # The server drops the subscription when it reads the closed socket.
        wait_numsub(r, channel, 0)
        t["lock clients"] = lock_clients(r, channel)
        start = time.monotonic()
        t["contender acquires"] = contender.acquire(timeout=0) is contender
        t.notes["acquire"] = time.monotonic() - start
        t["numsub"] = numsub(r, channel)
        contender.release()
        contender.connection.close()
        return t

    t = same_as_redis(target, reference, scenario)
    assert t["holder exit"] == -signal.SIGKILL
    assert t["lock clients"] == []
    assert t["contender acquires"] is True and t["numsub"] == 1
    assert t.notes["acquire"] < 1.0


def test_a_stopped_holder_keeps_the_lock_until_its_client_is_killed(target, reference, channel,
                                                                   connections, children):
    def scenario(port):
        r = connections(port)
        t = Transcript()
        holder = children(port, channel, 0)
        holder.expect("acquired")
        os.kill(holder.proc.pid, signal.SIGSTOP)
        # The stopped holder answers no ping, but its connection is open, and 2.2.1 takes the
        # SUBSCRIBE confirmation of its response channel for an answer: still locked.
        contender = portalocker.RedisLock(channel, redis_kwargs={"port": port},
                                          timeout=0.3, check_interval=0.05)
        with pytest.raises(portalocker.AlreadyLocked):
            contender.acquire()
        t["refused while stopped"] = True
        # What check_or_kill_lock does once a holder fails to answer.
        [entry] = [e for e in r.client_list("pubsub") if e.get("name") == channel + "-lock"]
        t["kill"] = r.client_kill_filter(entry.get("id"))
        wait_numsub(r, channel, 0)
        t["lock clients"] = lock_clients(r, channel)
        t["contender acquires"] = contender.acquire(timeout=0) is contender
        t["numsub"] = numsub(r, channel)
        contender.release()
        contender.connection.close()
        holder.stop()
        return t

    t = same_as_redis(target, reference, scenario)
    assert t["kill"] == 1
    assert t["lock clients"] == []
    assert t["contender acquires"] is True and t["numsub"] == 1
