"""Judges a lock history recorded by the stress clients: safety and liveness.

The clients only log what they saw, with CLOCK_MONOTONIC timestamps (one clock for every process
on the machine); every judgement lives here, where it can be tested on hand-written histories
(test_lock_check.py). One event per line, in the order the client saw them:

    A lock token ttl_ms send_ns reply_ns          SET lock token NX PX ttl_ms answered OK
    F lock send_ns reply_ns                       SET ... NX answered nil (someone holds it)
    R token ttl_ms send_ns reply_ns result        the token-checked PEXPIRE script answered result
    D token send_ns reply_ns result               the compare-and-delete script answered result
    S token t_ns                                  the holder stalls past its lease from here
    V token kind t_ns                             the holder vanished (kill, close, reset)
    N                                             EVALSHA answered NOSCRIPT; EVAL was sent
    E text                                        anything unexpected (error reply, lost link)

and, when the server is killed and restarted (lock_safety.py --kill-restarts), for a request whose
connection dropped before its reply (the request ran at some instant in [send_ns, at_ns], or not
at all) and for each new connection:

    UA lock token ttl_ms send_ns at_ns            SET lock token NX PX ttl_ms, no reply
    UR token ttl_ms send_ns at_ns                 the renewal script, no reply
    UD token send_ns at_ns                        the release script, no reply
    C t_ns                                        connected again (the server answered PING)

and, from the failover run (failover_locks.py, failover_client.py), where the lock is granted only
once replicas acknowledged it: A carries three more fields (WAIT's count or "-", the instant the
grant was known, the master's port), and

    Q lock token ttl_ms send_ns reply_ns acks ... SET NX answered OK but the grant was refused
                                                  (WAIT counted no replica): no hold
    X token send_ns reply_ns result               the refused grant's key deleted if still its own
    DE token send_ns reply_ns word                the release answered an error (NOREPLICAS from a
                                                  master that lost its replicas, READONLY from a
                                                  demoted one): it did not run, but the holder
                                                  stopped using the lock when it sent it
    RO op t_ns port                               a READONLY reply (op: set, wait, release, undo)
    NR op t_ns port                               a NOREPLICAS reply
    RE op t_ns port word                          another error reply, by its first word

A refused grant is judged like an acquisition without a reply: no window, no overlap. A release
answered with an error ends the window at its send, as an unacknowledged one does.

send_ns is read before the request is written and reply_ns after the reply is parsed, so the
server ran the command at some instant inside [send_ns, reply_ns]. For a script retried with
EVAL after NOSCRIPT, send_ns is the EVALSHA's: earlier, so every bound below stays conservative.

How a hold is judged. The server stamps a lease with its own (wall) clock when it runs the
command: run at instant s with PX ttl, the key lives at least until s + ttl and, with Redis's
rule "expired when now_ms > deadline_ms" on whole milliseconds, at most until s + ttl + 1 ms.
Tokens are unique per acquisition and only the SET NX that won writes one, so a script that finds
the token proves the key held it without a break since that SET. From the client's side:

  * surely held from reply_ns of the SET (the server ran it no later) to send_ns + ttl (it ran
    it no earlier);
  * a renewal answering 1 proves the key was still ours when it ran (after its send_ns), and the
    new deadline is at least renew send_ns + ttl: the window now ends there, which may be earlier
    than before if the new ttl is shorter, or later than our own clock said the lease was over if
    the SET had run late in its round trip;
  * a release answering 1 likewise proves the hold lasted until its send_ns, and the window ends
    there;
  * every window end is pulled in by `slack` for the gap between the server's wall clock and
    CLOCK_MONOTONIC (NTP slews the former by up to 0.05 %).

Two windows of one lock that overlap mean two clients held it at once: a violation, judged only
from these conservative windows, never from a client's mere belief. The same bounds give two
more checks per script reply:

  * lost early: a renewal or release answered 0 before the window ended, while the key was
    surely ours. Someone removed or overwrote the lock (a release that deleted another client's
    key shows here, at its victim) or the server expired it early;
  * stale success: a renewal or release answered 1 though it was sent after the latest instant
    the lease could have run to (last OK reply + ttl + 1 ms + slack): the server honoured an
    expired lease, e.g. extended or deleted a lock that was no longer this client's.

A stalled client that releases or renews late therefore passes when it gets 0 back. Should its
late release get 1, the release window extends to the send time, so the overlap check catches the
case where another client held the lock meanwhile, and the stale-success check catches the case
where the server kept the key past its deadline.

Unacknowledged requests only ever weaken what is proven. UA is no hold (no window, no overlap),
but it may have written its key: for liveness it counts as an acquisition that may have run
anywhere in [send_ns, at_ns]. UR proves nothing, so the window keeps its end, but the lease may
have been extended: the latest instant it can last becomes at least at_ns + ttl. UD may have
deleted the key at any instant from its send_ns, where the window ends, as a release's that
answered 1 would.

A server killed and restarted on its append-only file (appendfsync always) keeps every lease it
acknowledged, with its absolute deadline, so all of the above holds across restarts; without the
file, it forgets them, and the overlap and lost-early checks show it.

SIGSTOP pauses of the server do not weaken any of this: the server's clock runs on during a pause
exactly as the clients' does, so a lease that runs out "during" the pause is expired by the time
the server runs the next command, and every bound above holds. A pause only delays replies, which
shrinks windows (the reply comes later) and never widens them.

Liveness. For a holder that vanished, the lock must be free again once its lease is over: after
deadline = last OK reply + ttl + 1 ms + slack. The contenders' SET NX attempts are the probes.
A failed attempt F on the lock proves the vanished holder's key was still there when F ran if no
other acquisition of the lock can have run between the vanished holder's SET and F, that is,
if F's reply came before the send of every other acquisition whose reply came after the vanished
holder's SET was sent. The lock "lingered" until F's send_ns; more than `margin` after the
deadline is a violation. The time to free, reported as a figure, is the reply of the next
acquisition minus the deadline, less any server pause inside that span (nobody can acquire while
the server is stopped).
"""

import bisect
from dataclasses import dataclass, field

MS = 1_000_000  # nanoseconds per millisecond
# Redis keeps a key while now_ms <= deadline_ms, on whole milliseconds: up to 1 ms past s + ttl.
ROUNDING_NS = 1 * MS


@dataclass
class Hold:
    lock: str
    token: str
    client: str
    ttl_ms: int
    acq_send: int
    acq_reply: int
    start: int  # the conservative window: surely held in [start, end)
    end: int
    last_ok_reply: int  # reply of the last SET or renewal that answered OK / 1
    last_ttl_ms: int
    gone_at: int | None = None  # reply of a script that answered 0: surely gone by then
    stalled: bool = False
    vanished: str | None = None  # kind
    vanished_at: int | None = None
    unacked_until: int | None = None  # at_ns + ttl of unacknowledged renewals (UR), the latest
    granted_at: int | None = None  # failover run: when the grant was known (after WAIT)
    node: str | None = None  # failover run: the master's port

    def latest_deadline(self, slack_ns):
        """The last instant the server can still hold this lease, on the client's clock."""
        known = self.last_ok_reply + self.last_ttl_ms * MS
        if self.unacked_until is not None and self.unacked_until > known:
            known = self.unacked_until
        return known + ROUNDING_NS + slack_ns


@dataclass
class MaybeAcquisition:
    """An SET NX PX without a reply (UA): it may have taken the lock anywhere in its span."""
    lock: str
    acq_send: int
    acq_reply: int  # when the client saw its connection drop


@dataclass
class Violation:
    kind: str  # overlap, lost-early, stale-success, lingering, error
    text: str


@dataclass
class Liveness:
    hold: Hold
    deadline: int
    free_after_ms: float | None  # next acquisition reply - deadline - pauses; None: none came
    vanish_to_free_ms: float | None  # next acquisition reply - vanish - pauses
    lingered_ms: float | None  # proven presence past the deadline, if any probe saw it


@dataclass
class History:
    holds: list = field(default_factory=list)
    fails: dict = field(default_factory=dict)  # lock -> sorted [(send, reply)]
    maybe: dict = field(default_factory=dict)  # lock -> [MaybeAcquisition]
    counts: dict = field(default_factory=dict)
    errors: list = field(default_factory=list)
    violations: list = field(default_factory=list)

    def count(self, name, n=1):
        self.counts[name] = self.counts.get(name, 0) + n


def _ms(ns):
    return ns / MS


def load(histories, slack_ms):
    """Replays each client's events ({client: [line, ...]}) into holds, judging every script
    reply on the way (lost early, stale success). A line cut short by a kill is ignored."""
    slack_ns = int(slack_ms * MS)
    h = History()
    for client, lines in histories.items():
        by_token = {}
        for line in lines:
            parts = line.split()
            if not parts:
                continue
            try:
                _apply(h, client, by_token, parts, slack_ns)
            except (ValueError, IndexError):
                h.count("torn_lines")  # a client killed mid-write leaves at most its last line
    for lock in h.fails:
        h.fails[lock].sort()
    return h


def _apply(h, client, by_token, parts, slack_ns):
    kind = parts[0]
    if kind == "A":
        lock, token, ttl_ms, send, reply = parts[1], parts[2], int(parts[3]), int(parts[4]), int(
            parts[5])
        hold = Hold(lock, token, client, ttl_ms, send, reply, start=reply,
                    end=send + ttl_ms * MS - slack_ns, last_ok_reply=reply, last_ttl_ms=ttl_ms)
        if len(parts) >= 9:  # failover run: acks, granted_ns, port
            hold.granted_at, hold.node = int(parts[7]), parts[8]
        by_token[token] = hold
        h.holds.append(hold)
        h.count("holds")
    elif kind == "F":
        h.fails.setdefault(parts[1], []).append((int(parts[2]), int(parts[3])))
        h.count("failed_acquires")
    elif kind in "RD":
        hold = by_token[parts[1]]
        if kind == "R":
            ttl_ms, send, reply, result = int(parts[2]), int(parts[3]), int(parts[4]), int(parts[5])
        else:
            ttl_ms, send, reply, result = None, int(parts[2]), int(parts[3]), int(parts[4])
        _judge_script(h, hold, kind, ttl_ms, send, reply, result, slack_ns)
    elif kind == "S":
        by_token[parts[1]].stalled = True
        h.count("stalls")
    elif kind == "V":
        hold = by_token[parts[1]]
        hold.vanished, hold.vanished_at = parts[2], int(parts[3])
        h.count("vanished")
        h.count("vanished_" + parts[2])
    elif kind == "N":
        h.count("noscript_fallbacks")
    elif kind == "UA":
        lock, send, at = parts[1], int(parts[4]), int(parts[5])
        h.maybe.setdefault(lock, []).append(MaybeAcquisition(lock, send, at))
        h.count("unacked_acquires")
    elif kind == "UR":
        hold = by_token[parts[1]]
        until = int(parts[4]) + int(parts[2]) * MS
        if hold.unacked_until is None or until > hold.unacked_until:
            hold.unacked_until = until
        h.count("unacked_renewals")
    elif kind == "UD":
        hold = by_token[parts[1]]
        hold.end = min(hold.end, int(parts[2]))
        h.count("unacked_releases")
    elif kind == "C":
        int(parts[1])
        h.count("reconnects")
    elif kind == "Q":
        int(parts[3]), int(parts[4]), int(parts[5])
        h.count("refused_grants")
        h.count("refused_" + ("wait0" if parts[6] == "0" else parts[6].lower()))
    elif kind == "X":
        int(parts[2])
        h.count("undo_" + {"1": "deleted", "0": "gone"}.get(parts[4], parts[4]))
    elif kind == "DE":
        hold = by_token[parts[1]]
        hold.end = min(hold.end, int(parts[2]))
        int(parts[3])
        h.count("release_errors")
    elif kind in ("RO", "NR", "RE"):
        int(parts[2])
        h.count({"RO": "readonly_replies", "NR": "noreplicas_replies",
                 "RE": "error_replies"}[kind])
        if kind == "RE":
            h.count("error_reply_" + parts[4])
    elif kind == "E":
        h.errors.append("%s: %s" % (client, " ".join(parts[1:])))
    else:
        raise ValueError(kind)


def _judge_script(h, hold, kind, ttl_ms, send, reply, result, slack_ns):
    what = "renewal" if kind == "R" else "release"
    if result == 1:
        h.count("renewals" if kind == "R" else "releases")
        if hold.gone_at is not None or send > hold.latest_deadline(slack_ns):
            h.violations.append(Violation("stale-success", (
                "%s of %s by %s answered 1 though sent %.1f ms after the lease could last "
                "(last OK %.1f ms before the send, ttl %d ms)%s") % (
                what, hold.lock, hold.client, _ms(send - hold.latest_deadline(slack_ns)),
                _ms(send - hold.last_ok_reply), hold.last_ttl_ms,
                ", after a script had found the lock gone" if hold.gone_at is not None else "")))
        if kind == "R":
            hold.end = send + ttl_ms * MS - slack_ns
            hold.last_ok_reply, hold.last_ttl_ms = reply, ttl_ms
        else:
            hold.end = send
    elif result == 0:
        if reply < hold.end:
            h.violations.append(Violation("lost-early", (
                "%s of %s by %s answered 0 %.1f ms before its lease could end: the lock was "
                "removed or replaced under its holder") % (
                what, hold.lock, hold.client, _ms(hold.end - reply))))
        if hold.gone_at is None:
            hold.gone_at = reply
        h.count("stale_rejected" if hold.stalled else "lost_" + what)
    else:
        h.errors.append("%s: %s of %s answered %r" % (hold.client, what, hold.lock, result))


def check_overlaps(holds):
    """Pairs of holds of one lock whose conservative windows overlap: two holders at once."""
    found = []
    by_lock = {}
    for hold in holds:
        if hold.end > hold.start:  # a reply later than send + ttl proves nothing about the lease
            by_lock.setdefault(hold.lock, []).append(hold)
    for lock, group in sorted(by_lock.items()):
        group.sort(key=lambda x: x.start)
        widest = group[0]
        for hold in group[1:]:
            if hold.start < widest.end:
                found.append(Violation("overlap", (
                    "%s held by %s and %s at once for %.1f ms (windows [%d, %d] and [%d, %d] ms)"
                ) % (lock, widest.client, hold.client,
                     _ms(min(widest.end, hold.end) - hold.start), widest.start // MS,
                     widest.end // MS, hold.start // MS, hold.end // MS)))
            if hold.end > widest.end:
                widest = hold
    return found


def check_unique_tokens(holds):
    """Tokens must be unique per acquisition: a repeated one would make two holds one."""
    seen, found = {}, []
    for hold in holds:
        other = seen.setdefault(hold.token, hold)
        if other is not hold:
            found.append(Violation("duplicate-token", "token %s granted to %s and %s" % (
                hold.token, other.client, hold.client)))
    return found


def _paused_ns(pauses, lo, hi):
    return sum(max(0, min(hi, b) - max(lo, a)) for a, b in pauses)


def check_liveness(history, pauses, slack_ms, margin_ms):
    """Liveness records for every vanished holder, and the lingering violations among them."""
    slack_ns, margin_ns = int(slack_ms * MS), int(margin_ms * MS)
    by_lock = {}
    for hold in history.holds:
        by_lock.setdefault(hold.lock, []).append(hold)
    records, violations = [], []
    for hold in history.holds:
        if hold.vanished is None:
            continue
        deadline = hold.latest_deadline(slack_ns)
        others = [o for o in by_lock[hold.lock] if o is not hold]
        # Any acquisition that may have run after this hold's SET bounds the span in which a
        # failed attempt can only have met this holder's key; one without a reply may have too.
        after = [o for o in others if o.acq_reply >= hold.acq_send]
        maybe = [m for m in history.maybe.get(hold.lock, ()) if m.acq_reply >= hold.acq_send]
        bound = min((o.acq_send for o in after + maybe), default=None)
        fails = history.fails.get(hold.lock, [])
        lingered = None
        i = bisect.bisect_right(fails, (deadline, float("inf")))
        for send, reply in fails[i:]:
            if bound is not None and send >= bound:
                break
            if bound is None or reply < bound:
                lingered = max(lingered or 0, send - deadline)
        nexts = [o.acq_reply for o in after if o.acq_send > hold.acq_send]
        free_at = min(nexts, default=None)
        free_after = vanish_to_free = None
        if free_at is not None:
            free_after = _ms(free_at - deadline - _paused_ns(pauses, deadline, free_at))
            vanish_to_free = _ms(free_at - hold.vanished_at -
                                 _paused_ns(pauses, hold.vanished_at, free_at))
        records.append(Liveness(hold, deadline, free_after, vanish_to_free,
                                None if lingered is None else _ms(lingered)))
        if lingered is not None and lingered > margin_ns:
            violations.append(Violation("lingering", (
                "%s still held %.1f ms after the lease of vanished %s (%s, ttl %d ms) ran out; "
                "limit %d ms") % (hold.lock, _ms(lingered), hold.client, hold.vanished,
                                  hold.last_ttl_ms, margin_ms)))
    return records, violations
