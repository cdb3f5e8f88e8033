"""What test_redisson_locks.py and test_redisson_sync.py share: a scene per run, the run on
both servers, and the waiter thread.

Each scenario runs against one server and returns a transcript (step -> reply); on warden it
also runs against redis-server and the two transcripts must be equal (blocking_transcripts.
same_as_redis). Each run gets fresh key names, while client ids, request ids and permit ids
depend only on the role, so two runs send the same bytes apart from the names and the clock.
Replies that hold a remaining time are recorded by `ttl` as a range. No scenario sleeps: expiry
is brought forward with PEXPIRE or awaited by polling with a deadline.
"""

import itertools
import threading
import time
import uuid

from blocking_transcripts import Transcript, same_as_redis
from redisson_replay import Redisson


RUN = uuid.uuid4().hex[:8]
WAIT_S = 5  # the longest a scenario waits for a message, a thread or an expiry
_runs = itertools.count()


class Scene:
    """One run of a scenario on one server: fresh names, Redisson instances by role, the
    connections to close, and the transcript."""

    def __init__(self, port):
        self.port = port
        self.prefix = "redisson:%s:%d" % (RUN, next(_runs))
        self.t = Transcript()
        self.closing = []

    def name(self, suffix):
        return "%s:%s" % (self.prefix, suffix)

    def client(self, role, **options):
        client = Redisson(self.port, role, RUN, **options)
        self.closing.append(client)
        return client

    def subscriber(self, client, channel):
        sub = client.subscriber()
        self.closing.append(sub)
        sub.subscribe(channel)
        return sub

    def relative(self, text):
        """A channel or key name with this run's prefix replaced by "~"."""
        return text.replace(self.prefix, "~")

    def message(self, sub, timeout=WAIT_S):
        """The next message as (relative channel, payload), or None."""
        got = sub.next_message(timeout)
        return None if got is None else (self.relative(got[0]), got[1])

    def close(self):
        for item in self.closing:
            item.close()


def run(target, reference, scenario):
    """Runs scenario(scene) on the target (and on warden, also on redis-server) and returns the
    target's transcript."""
    def on(port):
        scene = Scene(port)
        try:
            scenario(scene)
        finally:
            scene.close()
        return scene.t
    return same_as_redis(target, reference, on)


def ttl(value, bound_ms, slack_ms=2000):
    """A remaining time as a transcript value: the range when bound - slack < value <= bound,
    else the value itself, so a wrong one shows."""
    if isinstance(value, int) and bound_ms - slack_ms < value <= bound_ms:
        return "in (%d, %d]" % (bound_ms - slack_ms, bound_ms)
    return value


def marker_follows(scene, client, sub, channel):
    """Publishes a marker and returns the next message, so a test can show that nothing came
    before it without waiting for silence."""
    client.redis.publish(channel, "marker")
    return scene.message(sub)


def wait_until(condition, what):
    deadline = time.monotonic() + WAIT_S
    pause = threading.Event()
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("%s did not happen within %ds" % (what, WAIT_S))
        pause.wait(0.005)


class Waiter(threading.Thread):
    """A Redisson call that blocks, run in a thread on its own client: `body(ready)` sets
    `ready` just before it first waits for a message, and returns what the test records."""

    def __init__(self, body):
        super().__init__(daemon=True)
        self.body = body
        self.ready = threading.Event()
        self.result = None
        self.error = None

    def run(self):
        try:
            self.result = self.body(self.ready)
        except BaseException as error:  # reported by join_result
            self.error = error
            self.ready.set()

    def wait_ready(self):
        assert self.ready.wait(WAIT_S), "the waiter did not start waiting"
        if self.error:
            raise self.error

    def join_result(self):
        self.join(WAIT_S * 2)
        assert not self.is_alive(), "the waiter is still blocked"
        if self.error:
            raise self.error
        return self.result
