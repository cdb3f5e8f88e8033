"""One stress client process: takes, renews and releases locks the way the seeds teach, and logs
every reply with its timestamps for lock_check.py to judge.

The lock pattern is the one users learn: acquire with SET key token NX PX ttl and a fresh token,
renew with the token-checked PEXPIRE script, release with the compare-and-delete script, both by
EVALSHA with EVAL after NOSCRIPT as client libraries do. Each hold follows one plan: a quick
critical section, a long one kept alive by renewals, a stall past the lease followed by a late
renewal or release (which must be refused), or a vanish while holding (SIGKILL of the process,
or the socket closed or reset) that leaves the lock to expire.

Timestamps are CLOCK_MONOTONIC (time.monotonic_ns), which every process on the machine shares:
read before a request is written and after its reply is parsed. The log is written with one
write(2) per event, so an event logged before a SIGKILL is never lost.

With `reconnect` (lock_safety.py --kill-restarts: the server is killed and started again), a
connection that drops with a request sent and no reply is not an error: the client cannot know
whether the request ran, so it logs it as unacknowledged (UA, UR, UD lines), connects again (the
server may be down for a while) and goes on as a careful client would: an acquisition without a
reply is not a hold, so it tries again with a fresh token; a renewal without a reply cannot be
relied on, so it abandons its work and releases; a release without a reply is over.
"""

import ctypes
import hashlib
import os
import random
import signal
import socket
import struct
import time
from dataclasses import dataclass

RELEASE_SCRIPT = ("if redis.call('get', KEYS[1]) == ARGV[1] then "
                  "return redis.call('del', KEYS[1]) else return 0 end")
RENEW_SCRIPT = ("if redis.call('get', KEYS[1]) == ARGV[1] then "
                "return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end")

# Share of holds per plan; the rest vanish. Quick holds keep the locks changing hands, the others
# are the faults under test and each keeps its lock out of use for about a lease.
QUICK, LONG, STALL = 0.80, 0.10, 0.05
ACQUIRE_GIVE_UP_S = 2.0
# With reconnect: how long a client keeps trying to reach a server that is down.
RECONNECT_GIVE_UP_S = 20.0


@dataclass
class ClientConfig:
    port: int
    locks: list
    ttl_min_ms: int
    ttl_max_ms: int
    deadline_ns: int  # no new acquisition after this
    log_dir: str
    reply_timeout_s: float
    broken: bool  # release with DEL and renew with PEXPIRE: to show that the checker catches it
    reconnect: bool = False  # a dropped connection is an unacknowledged request, not an error


class ReplyError(str):
    pass


class Conn:
    """A minimal blocking RESP2 connection."""

    def __init__(self, port, timeout_s):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout_s)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.reader = self.sock.makefile("rb")

    def call(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for arg in args:
            data = arg if isinstance(arg, bytes) else str(arg).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(data), data))
        self.sock.sendall(b"".join(out))
        return self._reply()

    def _reply(self):
        line = self.reader.readline()
        if not line.endswith(b"\r\n"):
            raise ConnectionError("connection closed")
        kind, rest = line[:1], line[1:-2]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            return ReplyError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.reader.read(n + 2)
            if len(data) != n + 2:
                raise ConnectionError("connection closed")
            return data[:-2]
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._reply() for _ in range(n)]
        raise ConnectionError("not RESP: %r" % line[:40])

    def close(self, reset=False):
        if reset:  # RST instead of FIN, as when the holder's host goes away
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.reader.close()
        self.sock.close()


def die_with_parent():
    """Asks the kernel to SIGKILL this process when its parent dies, so a driver killed outright
    leaves no clients or server behind."""
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def now():
    return time.monotonic_ns()


def sleep_until(t_ns):
    delay = t_ns - now()
    if delay > 0:
        time.sleep(delay / 1e9)


class Unexpected(Exception):
    pass


class Dropped(Exception):
    """With reconnect: the connection dropped after a request was sent and before its reply.
    `send` is the send_ns of the operation (for a script, its EVALSHA's), `at` when the client
    saw the drop; the request ran, if at all, in between."""

    def __init__(self, at, error):
        super().__init__(error)
        self.at, self.error, self.send = at, error, None


class Client:
    def __init__(self, cfg, name, seed):
        self.cfg, self.name = cfg, name
        self.rng = random.Random(seed)
        self.fd = os.open(os.path.join(cfg.log_dir, name + ".log"),
                          os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.conn = None
        if cfg.reconnect:
            self.reconnect()  # a client started while the server is down waits for it
        else:
            self.conn = Conn(cfg.port, cfg.reply_timeout_s)
        self.seq = 0

    def log(self, *fields):
        os.write(self.fd, (" ".join(map(str, fields)) + "\n").encode())

    def call(self, *args):
        """One request on the connection. With reconnect, a connection lost before the reply
        raises Dropped (the socket is closed; reconnect() gets a new one); without, the OSError
        ends the client as before."""
        try:
            return self.conn.call(*args)
        except OSError as e:
            if not self.cfg.reconnect:
                raise
            at = now()
            try:
                self.conn.close()
            except OSError:
                pass
            self.conn = None
            raise Dropped(at, "%s: %s" % (type(e).__name__, e)) from None

    def reconnect(self):
        """Connects again, waiting out a server that is down, until it answers PING (redis-server
        answers -LOADING while it loads its file). Logs C when connected."""
        give_up = now() + int(RECONNECT_GIVE_UP_S * 1e9)
        while True:
            try:
                conn = Conn(self.cfg.port, self.cfg.reply_timeout_s)
                try:
                    pong = conn.call("PING")
                except OSError:
                    conn.close()
                    raise
                if pong == "PONG":
                    self.conn = conn
                    self.log("C", now())
                    return
                conn.close()
            except OSError:
                pass
            if now() > give_up:
                raise Unexpected("server unreachable for %.0f s" % RECONNECT_GIVE_UP_S)
            time.sleep(random.uniform(0.005, 0.02))  # not self.rng: the plans stay seeded

    def run(self):
        while now() < self.cfg.deadline_ns:
            acquired = self.acquire(self.rng.choice(self.cfg.locks))
            if acquired:
                self.hold(*acquired)

    def acquire(self, lock):
        give_up = min(now() + int(ACQUIRE_GIVE_UP_S * 1e9), self.cfg.deadline_ns)
        while now() < give_up:
            self.seq += 1
            token = "%s-%d-%08x" % (self.name, self.seq, self.rng.getrandbits(32))
            ttl_ms = self.rng.randint(self.cfg.ttl_min_ms, self.cfg.ttl_max_ms)
            send = now()
            try:
                reply = self.call("SET", lock, token, "NX", "PX", ttl_ms)
            except Dropped as d:
                # Maybe taken, maybe not: not a hold. Its key, if written, expires with the TTL.
                self.log("UA", lock, token, ttl_ms, send, d.at)
                self.reconnect()
                continue
            got = now()
            if reply == "OK":
                self.log("A", lock, token, ttl_ms, send, got)
                return lock, token, ttl_ms, got
            if reply is not None:
                raise Unexpected("SET NX PX answered %r" % (reply,))
            self.log("F", lock, send, got)
            time.sleep(self.rng.uniform(0.003, 0.025))
        return None

    def hold(self, lock, token, ttl_ms, got):
        ttl_ns = ttl_ms * 1_000_000
        plan = self.rng.random()
        if plan < QUICK:
            time.sleep(self.rng.uniform(0, 0.04))
            self.release(lock, token)
        elif plan < QUICK + LONG:
            if self.work_renewing(lock, token, ttl_ms, got,
                                  got + int(self.rng.uniform(0.5, 2.0) * ttl_ns)):
                self.release(lock, token)
        elif plan < QUICK + LONG + STALL:
            self.log("S", token, now())
            sleep_until(got + ttl_ns + int(self.rng.uniform(0.02, 0.3) * 1e9))
            if self.rng.random() < 0.5:
                self.renew(lock, token, ttl_ms)
            self.release(lock, token)
        else:
            if self.work_renewing(lock, token, ttl_ms, got,
                                  got + int(self.rng.uniform(0, 0.8) * ttl_ns)):
                self.vanish(token)

    def work_renewing(self, lock, token, ttl_ms, start_ns, until_ns):
        """Works until until_ns, renewing every third of the lease. False once the lock is lost,
        when a real client abandons its work."""
        last = start_ns
        while True:
            renew_at = last + ttl_ms * 1_000_000 // 3
            if renew_at >= until_ns:
                sleep_until(until_ns)
                return True
            sleep_until(renew_at)
            renewed = self.renew(lock, token, ttl_ms)
            if renewed is None:
                # Not known to be renewed: the lease cannot be relied on past its last known
                # end. Stop working and give the lock back.
                self.release(lock, token)
                return False
            if renewed != 1:
                return False
            last = now()

    def vanish(self, token):
        kind = self.rng.choice(["kill", "kill", "close", "reset"])
        self.log("V", token, kind, now())
        if kind == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if self.conn is not None:
            self.conn.close(reset=kind == "reset")
        if self.cfg.reconnect:
            self.conn = None
            self.reconnect()
        else:
            self.conn = Conn(self.cfg.port, self.cfg.reply_timeout_s)

    def renew(self, lock, token, ttl_ms):
        """The script's answer, or None when the connection dropped before it (reconnected)."""
        try:
            if self.cfg.broken:
                reply, send, got = self.timed("PEXPIRE", lock, ttl_ms)
            else:
                reply, send, got = self.script(RENEW_SCRIPT, lock, token, ttl_ms)
        except Dropped as d:
            self.log("UR", token, ttl_ms, d.send, d.at)
            self.reconnect()
            return None
        self.check_int(reply, "renewal")
        self.log("R", token, ttl_ms, send, got, reply)
        return reply

    def release(self, lock, token):
        """The script's answer, or None when the connection dropped before it (reconnected)."""
        try:
            if self.cfg.broken:
                reply, send, got = self.timed("DEL", lock)
            else:
                reply, send, got = self.script(RELEASE_SCRIPT, lock, token)
        except Dropped as d:
            self.log("UD", token, d.send, d.at)
            self.reconnect()
            return None
        self.check_int(reply, "release")
        self.log("D", token, send, got, reply)
        return reply

    def timed(self, *args):
        send = now()
        try:
            reply = self.call(*args)
        except Dropped as d:
            d.send = send
            raise
        return reply, send, now()

    def script(self, body, key, *args):
        send = now()
        try:
            reply = self.call("EVALSHA", SHA1[body], 1, key, *args)
            if isinstance(reply, ReplyError) and reply.startswith("NOSCRIPT"):
                self.log("N")
                reply = self.call("EVAL", body, 1, key, *args)
        except Dropped as d:
            d.send = send
            raise
        return reply, send, now()

    @staticmethod
    def check_int(reply, what):
        if not isinstance(reply, int):
            raise Unexpected("%s answered %r" % (what, reply))


SHA1 = {s: hashlib.sha1(s.encode()).hexdigest() for s in (RELEASE_SCRIPT, RENEW_SCRIPT)}


def client_main(cfg, name, seed):
    """Entry point of a client process. Exit status 0 when done, 3 after anything unexpected
    (logged as an E line), -SIGKILL when it vanished on purpose."""
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the driver's handler is no use here
    client = None
    try:
        client = Client(cfg, name, seed)
        client.run()
    except (Unexpected, OSError, Dropped) as e:  # OSError: timeouts, lost connections
        if client is not None:
            client.log("E", type(e).__name__, str(e).replace("\n", " "))
        os._exit(3)
    os._exit(0)
