"""The failover run's judgements on hand-written histories: lock_check.py's lines for refused
grants and error replies, unique tokens, and failover_locks.py's liveness figures.

    /usr/bin/python3 -m unittest discover -s tests/stress
"""

import os
import sys
import types
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import failover_locks  # noqa: E402
import lock_check  # noqa: E402
from test_lock_check import released, t  # noqa: E402


def granted(lock, token, ttl_ms, send_ms, reply_ms, granted_ms, port, acks=1):
    return "A %s %s %d %d %d %s %d %d" % (lock, token, ttl_ms, t(send_ms), t(reply_ms), acks,
                                          t(granted_ms), port)


def refused(lock, token, ttl_ms, send_ms, reply_ms, acks, port):
    return "Q %s %s %d %d %d %s %d %d" % (lock, token, ttl_ms, t(send_ms), t(reply_ms), acks,
                                          t(reply_ms + 1), port)


def judge(histories):
    history = lock_check.load(histories, 2)
    violations = (history.violations + lock_check.check_overlaps(history.holds) +
                  lock_check.check_unique_tokens(history.holds))
    return history, sorted(v.kind for v in violations)


class FailoverLinesTest(unittest.TestCase):
    def test_grant_carries_its_wait_time_and_node(self):
        history, kinds = judge({"a": [granted("L", "a1", 100, 0, 1, 3, 7001),
                                      released("a1", 50, 51, 1)]})
        self.assertEqual(kinds, [])
        hold = history.holds[0]
        self.assertEqual((hold.granted_at, hold.node, hold.start), (t(3), "7001", t(1)))

    def test_refused_grant_is_no_hold(self):
        # b's SET answered OK inside a's lease (a zombie master), WAIT counted no replica: refused.
        history, kinds = judge({
            "a": [granted("L", "a1", 100, 0, 1, 2, 7001), released("a1", 50, 51, 1)],
            "b": [refused("L", "b1", 100, 10, 11, 0, 7002), "X b1 %d %d 1" % (t(12), t(13)),
                  refused("L", "b2", 100, 20, 21, "drop", 7002),
                  "X b2 %d %d drop" % (t(22), t(23))],
        })
        self.assertEqual(kinds, [])
        self.assertEqual(len(history.holds), 1)
        c = history.counts
        self.assertEqual((c["refused_grants"], c["refused_wait0"], c["refused_drop"],
                          c["undo_deleted"], c["undo_drop"]), (2, 1, 1, 1, 1))

    def test_two_grants_on_two_masters_overlap(self):
        # The split brain: a granted on the old master, b on the new one within a's lease.
        _, kinds = judge({
            "a": [granted("L", "a1", 1000, 0, 1, 2, 7001)],
            "b": [granted("L", "b1", 1000, 400, 401, 402, 7002)],
        })
        self.assertEqual(kinds, ["overlap"])

    def test_release_answered_an_error_ends_the_window_at_its_send(self):
        # a's release met a master that had lost its replicas (NOREPLICAS): a stopped using the
        # lock then, so b's later grant overlaps nothing, though a's lease had not run out.
        history, kinds = judge({
            "a": [granted("L", "a1", 1000, 0, 1, 2, 7001),
                  "DE a1 %d %d NOREPLICAS" % (t(30), t(31)), "NR release %d 7001" % t(31)],
            "b": [granted("L", "b1", 1000, 100, 101, 102, 7002), released("b1", 150, 151, 1)],
        })
        self.assertEqual(kinds, [])
        self.assertEqual(history.holds[0].end, t(30))
        self.assertEqual(history.counts["release_errors"], 1)

    def test_error_replies_are_counted_by_kind(self):
        history, kinds = judge({"a": [
            "RO set %d 7001" % t(1), "NR set %d 7001" % t(2), "NR release %d 7001" % t(3),
            "RE wait %d 7001 UNBLOCKED" % t(4), "C %d 7002" % t(5)]})
        self.assertEqual(kinds, [])
        c = history.counts
        self.assertEqual((c["readonly_replies"], c["noreplicas_replies"], c["error_replies"],
                          c["error_reply_UNBLOCKED"], c["reconnects"]), (1, 2, 1, 1, 1))
        self.assertNotIn("torn_lines", c)

    def test_a_token_granted_twice_is_a_violation(self):
        _, kinds = judge({
            "a": [granted("L", "x1", 100, 0, 1, 2, 7001), released("x1", 10, 11, 1)],
            "b": [granted("L", "x1", 100, 20, 21, 22, 7002), released("x1", 30, 31, 1)],
        })
        self.assertEqual(kinds, ["duplicate-token"])


class LivenessTest(unittest.TestCase):
    def test_longest_gap_includes_the_run_edges(self):
        grants = [(t(ms), None) for ms in (300, 400, 2400, 2500)]
        self.assertEqual(failover_locks.gaps(grants, t(0), t(3000)), (t(2000), t(400)))
        self.assertEqual(failover_locks.gaps([], t(0), t(3000)), (t(3000), t(0)))

    @staticmethod
    def run_with(grants_ms, faults, switches_ms):
        """grants_ms: [(granted ms, port)], one client each, released at once."""
        histories = {"c%d" % i: [granted("L", "g%d" % i, 100, ms - 2, ms - 1, ms, port),
                                 released("g%d" % i, ms + 1, ms + 2, 1)]
                     for i, (ms, port) in enumerate(grants_ms)}
        args = types.SimpleNamespace(slack_ms=2, min_failovers=len(faults), mode="wait")
        run = types.SimpleNamespace(args=args, problems=[], start=0, end=t(10_000),
                                    faults=faults, histories=lambda: histories, first_master=7001)
        run.events = types.SimpleNamespace(since=lambda since, channel: [
            (t(ms), channel, "mymaster 127.0.0.1 %d 127.0.0.1 %d" % (old, new))
            for ms, old, new in switches_ms])
        return run, failover_locks.judge(run)

    @staticmethod
    def fault(start_ms, old_port, switch_ms, new_port=None):
        node = types.SimpleNamespace(name="node", port=old_port)
        f = failover_locks.Fault("kill", node, t(start_ms))
        f.switch_at = t(switch_ms) if switch_ms is not None else None
        f.new_port = new_port
        return f

    def test_first_grant_after_a_fault_is_on_the_promoted_node(self):
        f1 = self.fault(1000, 7001, 3000, 7002)
        # 7003 grants before the switch: the master Sentinel names a little before +switch-master
        # ... is 7002 here, so 7003's grant is made by a node nobody named master.
        run, (_, safety, problems, grants) = self.run_with(
            [(500, 7001), (1500, 7001), (2900, 7002), (3100, 7002), (3200, 7001),
             (3300, 7003), (6100, 7003)], [f1], [(3000, 7001, 7002), (6000, 7002, 7003)])
        self.assertEqual((safety, problems, len(grants)), ([], [], 7))
        self.assertEqual(f1.first_grant, t(2900))
        self.assertEqual([s for s, _ in run.unprovoked], [t(6000)])
        self.assertEqual(run.deposed_grants, 1)  # 3200 on 7001; 3300 on 7003 is the next master

    def test_a_failover_without_grants_on_the_new_master_fails_liveness(self):
        f1 = self.fault(1000, 7001, 3000, 7002)
        f2 = self.fault(5000, 7002, None)
        _, (_, _, problems, _) = self.run_with([(500, 7001), (3500, 7001), (5500, 7002)],
                                               [f1, f2], [(3000, 7001, 7002)])
        self.assertEqual(sorted(p.kind for p in problems), ["failover", "liveness"])


if __name__ == "__main__":
    unittest.main()
