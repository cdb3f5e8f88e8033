"""One client process of the failover lock run (failover_locks.py): finds the master through
Sentinel, takes locks on it the way the Redis lock pattern and Redisson's synced locks do, and logs
every reply with its CLOCK_MONOTONIC timestamps for lock_check.py to judge.

Finding the master is the Sentinel client protocol (https://redis.io/docs/latest/develop/reference/
sentinel-clients/): ask the Sentinels in turn `SENTINEL GET-MASTER-ADDR-BY-NAME mymaster`, connect
to the address named, and check with `ROLE` that it is a master (a node just demoted, or not yet
promoted, is asked again a little later). The address is asked again after a lost connection, a
READONLY, NOREPLICAS or other error reply, and, with WAIT, after a refused grant (a master whose
replicas do not acknowledge may be cut off from them: an old master resumed after a failover). A
connection that works is kept, as redis-py's `master_for` pools keep theirs: nothing else moves
a client off a master that still answers, until Sentinel demotes it (its `CLIENT KILL TYPE normal`
closes the connection).

One attempt:

  * `SET lock token NX PX ttl` with a fresh token; nil is a failed attempt (F);
  * with WAIT (`--mode wait`): `WAIT 1 <wait-ms>`; the lock is granted iff the SET answered OK
    and WAIT counted at least one replica (A). Otherwise the grant is refused (Q): the client
    deletes its key if it still holds its token (the compare-and-delete script, logged X) and
    asks Sentinel again. Without WAIT (`--mode nowait`) an OK is a grant;
  * a granted lock is held for a random time that ends before send + ttl - margin (most holds are
    short, some last nearly the whole lease, so that some leases span a failover), then released
    with the compare-and-delete script by EVALSHA, EVAL after NOSCRIPT (a promoted replica has an
    empty script cache: Redis 7 replicates scripts as effects only). A release answered READONLY
    did not run: it is sent again to the master Sentinel names, while the lease lasts.

A request whose connection drops (or whose reply takes longer than the reply timeout: a stopped
master) is unacknowledged, as in lock_safety.py --kill-restarts: an acquisition without a reply is
no grant (UA); a WAIT without a reply leaves the grant refused (Q ... drop) and the key is deleted
on the next master if it is there; a release without a reply is over (UD).

Lines, besides lock_check.py's A, F, D, N, UA, UD, C and E (A, Q and F carry extra fields that
lock_check.py ignores; F's is the master's port):

    A lock token ttl_ms send_ns reply_ns acks granted_ns port      granted (acks: WAIT's count,
                                                                   "-" without WAIT)
    Q lock token ttl_ms send_ns reply_ns acks granted_ns port      refused: SET OK, WAIT < 1
                                                                   (acks: the count, "drop", or
                                                                   the error's first word)
    X token send_ns reply_ns result                                the refused key's deletion
    DE token send_ns reply_ns word                                 the release answered an error
                                                                   (it is sent again after
                                                                   READONLY, see above)
    RO op t_ns port / NR op t_ns port / RE op t_ns port word       READONLY, NOREPLICAS, another
                                                                   error reply (op: set, wait,
                                                                   release, undo)
    C t_ns port                                                    connected to a master
"""

import os
import random
import signal
import time
from dataclasses import dataclass

from lock_client import RELEASE_SCRIPT, SHA1, Conn, ReplyError, die_with_parent, now

MASTER_NAME = "mymaster"
QUICK_SHARE = 0.6  # holds of 0-30 ms; the rest last up to the end of the lease
QUICK_MAX_S = 0.03
RESOLVE_RETRY_S = (0.02, 0.05)
# A client that finds no master for this long gives up (logged E, exit 3).
RESOLVE_GIVE_UP_S = 40.0


@dataclass
class FailoverConfig:
    sentinels: list  # ports
    locks: list
    ttl_min_ms: int
    ttl_max_ms: int
    margin_ms: int  # holds end this long before send + ttl
    wait_ms: int  # WAIT 1 <wait_ms>; 0: no WAIT (nowait mode)
    deadline: object  # multiprocessing RawValue('q'): no new acquisition after it (ns)
    log_dir: str
    reply_timeout_s: float
    connect_timeout_s: float


class Dropped(Exception):
    def __init__(self, at):
        super().__init__("connection lost")
        self.at = at


class NoMaster(Exception):
    pass


class FailoverClient:
    def __init__(self, cfg, name, seed):
        self.cfg, self.name = cfg, name
        self.rng = random.Random(seed)
        self.fd = os.open(os.path.join(cfg.log_dir, name + ".log"),
                          os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.conn = None
        self.port = None
        self.sentinel_conns = {}
        self.seq = 0

    def log(self, *fields):
        os.write(self.fd, (" ".join(map(str, fields)) + "\n").encode())

    def deadline(self):
        return self.cfg.deadline.value

    # --- finding the master -----------------------------------------------------------------

    def ask_sentinels(self):
        """The master's port as the first Sentinel that answers names it, or None."""
        order = list(self.cfg.sentinels)
        self.rng.shuffle(order)
        for port in order:
            conn = self.sentinel_conns.get(port)
            try:
                if conn is None:
                    conn = Conn(port, self.cfg.connect_timeout_s)
                    self.sentinel_conns[port] = conn
                reply = conn.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME)
                if isinstance(reply, list) and len(reply) == 2:
                    return int(reply[1])
            except OSError:
                self.sentinel_conns.pop(port, None)
                if conn is not None:
                    try:
                        conn.close()
                    except OSError:
                        pass
        return None

    def drop(self):
        if self.conn is not None:
            try:
                self.conn.close()
            except OSError:
                pass
        self.conn, self.port = None, None

    def resolve(self, keep=True):
        """Makes self.conn a connection to the master Sentinel names, checked with ROLE. With
        keep, a connection to that same address is kept as it is. Raises NoMaster once the run
        is over (nothing left to do) or after RESOLVE_GIVE_UP_S."""
        give_up = now() + int(RESOLVE_GIVE_UP_S * 1e9)
        while True:
            port = self.ask_sentinels()
            if port is not None and keep and self.conn is not None and port == self.port:
                return
            if port is not None:
                self.drop()
                try:
                    conn = Conn(port, self.cfg.connect_timeout_s)
                    conn.sock.settimeout(self.cfg.reply_timeout_s)
                    try:
                        role = conn.call("ROLE")
                    except OSError:
                        conn.close()
                        raise
                    if isinstance(role, list) and role and role[0] == b"master":
                        self.conn, self.port = conn, port
                        self.log("C", now(), port)
                        return
                    conn.close()
                except OSError:
                    pass
            t = now()
            if t > self.deadline():
                raise NoMaster("the run is over")
            if t > give_up:
                raise NoMaster("no master found for %.0f s" % RESOLVE_GIVE_UP_S)
            time.sleep(self.rng.uniform(*RESOLVE_RETRY_S))

    def call(self, *args):
        """One request; Dropped when the connection is lost or the reply does not come within
        the reply timeout (the connection is closed then: a late reply must not be read as the
        next request's)."""
        try:
            return self.conn.call(*args)
        except OSError:
            at = now()
            self.drop()
            raise Dropped(at) from None

    def error_reply(self, op, reply):
        """Logs an error reply by kind; the caller then asks Sentinel again."""
        word = reply.split(" ", 1)[0] if reply else "?"
        if word == "READONLY":
            self.log("RO", op, now(), self.port)
        elif word == "NOREPLICAS":
            self.log("NR", op, now(), self.port)
        else:
            self.log("RE", op, now(), self.port, word)

    # --- the lock ---------------------------------------------------------------------------

    def run(self):
        self.resolve()
        while now() < self.deadline():
            if self.conn is None:
                self.resolve()
            self.attempt(self.rng.choice(self.cfg.locks))

    def attempt(self, lock):
        self.seq += 1
        token = "%s-%d-%08x" % (self.name, self.seq, self.rng.getrandbits(32))
        ttl_ms = self.rng.randint(self.cfg.ttl_min_ms, self.cfg.ttl_max_ms)
        port = self.port
        send = now()
        try:
            reply = self.call("SET", lock, token, "NX", "PX", ttl_ms)
        except Dropped as d:
            self.log("UA", lock, token, ttl_ms, send, d.at)
            return
        got = now()
        if reply is None:
            self.log("F", lock, send, got, port)
            time.sleep(self.rng.uniform(0.003, 0.025))
            return
        if isinstance(reply, ReplyError):
            self.error_reply("set", reply)
            self.back_off()
            self.resolve()
            return
        if reply != "OK":
            raise NoMaster("SET NX PX answered %r" % (reply,))
        acks = "-"
        if self.cfg.wait_ms:
            try:
                acks = self.call("WAIT", 1, self.cfg.wait_ms)
            except Dropped:
                acks = "drop"
            if isinstance(acks, ReplyError):
                self.error_reply("wait", acks)
                acks = acks.split(" ", 1)[0] or "?"
            granted = now()
            if not (isinstance(acks, int) and acks >= 1):
                self.log("Q", lock, token, ttl_ms, send, got, acks, granted, port)
                self.undo(lock, token)
                self.back_off()
                self.resolve()
                return
        else:
            granted = got
        self.log("A", lock, token, ttl_ms, send, got, acks, granted, port)
        self.hold(lock, token, ttl_ms, send)

    def hold(self, lock, token, ttl_ms, send):
        last = send + (ttl_ms - self.cfg.margin_ms) * 1_000_000
        if self.rng.random() < QUICK_SHARE:
            until = now() + int(self.rng.uniform(0, QUICK_MAX_S) * 1e9)
        else:
            until = now() + int(self.rng.uniform(0, max(0, last - now())))
        until = min(until, last)
        delay = until - now()
        if delay > 0:
            time.sleep(delay / 1e9)
        self.release(lock, token, send + ttl_ms * 1_000_000)

    def release(self, lock, token, lease_end):
        """Compare-and-delete; sent again to the next master after READONLY (it did not run)
        while the lease lasts."""
        while True:
            if self.conn is None:
                try:
                    self.resolve()
                except NoMaster:
                    return
            send = now()
            try:
                reply = self.script(lock, token)
            except Dropped as d:
                self.log("UD", token, send, d.at)
                return
            if isinstance(reply, ReplyError):
                self.log("DE", token, send, now(), reply.split(" ", 1)[0] or "?")
                self.error_reply("release", reply)
                self.back_off()
                self.resolve()
                if not reply.startswith("READONLY") or now() >= lease_end:
                    return
                continue
            self.log("D", token, send, now(), reply)
            return

    def undo(self, lock, token):
        """Deletes a refused grant's key if it still holds the token, on this connection or,
        when the WAIT's dropped, on the next master; then asks Sentinel again."""
        for _ in range(2):
            if self.conn is None:
                self.resolve()
            send = now()
            try:
                reply = self.script(lock, token)
            except Dropped:
                self.log("X", token, send, now(), "drop")
                continue
            if isinstance(reply, ReplyError):
                self.error_reply("undo", reply)
                self.log("X", token, send, now(), "error")
            else:
                self.log("X", token, send, now(), reply)
            break

    def back_off(self):
        """After an error reply or a refused grant: the master may be changing, and a client
        that retries at once only loads it (and the Sentinels) with requests bound to fail."""
        time.sleep(self.rng.uniform(*RESOLVE_RETRY_S))

    def script(self, lock, token):
        reply = self.call("EVALSHA", SHA1[RELEASE_SCRIPT], 1, lock, token)
        if isinstance(reply, ReplyError) and reply.startswith("NOSCRIPT"):
            self.log("N")
            reply = self.call("EVAL", RELEASE_SCRIPT, 1, lock, token)
        return reply


def client_main(cfg, name, seed):
    """Entry point of a client process: exit 0 when done, 3 after anything unexpected (an E
    line)."""
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    client = None
    try:
        client = FailoverClient(cfg, name, seed)
        client.run()
    except NoMaster as e:
        if now() > cfg.deadline.value:
            os._exit(0)
        if client is not None:
            client.log("E", "NoMaster", str(e).replace("\n", " "))
        os._exit(3)
    except (OSError, ValueError) as e:
        if client is not None:
            client.log("E", type(e).__name__, str(e).replace("\n", " "))
        os._exit(3)
    os._exit(0)
