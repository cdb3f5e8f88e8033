"""The judgements of the crash tests on hand-written histories: lock_check.py's handling of
requests left unacknowledged by a server kill (lock_safety.py --kill-restarts), and aof_crash.py's
per-key verdict after a restart.

    /usr/bin/python3 -m unittest discover -s tests/stress
"""

import argparse
import os
import sys
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aof_crash  # noqa: E402
import lock_check  # noqa: E402
from test_lock_check import acquired, failed, judge, released, t, vanished  # noqa: E402


def unacked_acquire(lock, token, ttl_ms, send_ms, at_ms):
    return "UA %s %s %d %d %d" % (lock, token, ttl_ms, t(send_ms), t(at_ms))


def unacked_renewal(token, ttl_ms, send_ms, at_ms):
    return "UR %s %d %d %d" % (token, ttl_ms, t(send_ms), t(at_ms))


def unacked_release(token, send_ms, at_ms):
    return "UD %s %d %d" % (token, t(send_ms), t(at_ms))


class UnacknowledgedTest(unittest.TestCase):
    def test_unacknowledged_acquisition_is_no_hold(self):
        # c's SET may have run; it is nobody's hold, so b's acquisition overlaps nothing.
        history, _, kinds = judge({
            "c": [unacked_acquire("L", "c1", 1000, 0, 5), "C %d" % t(300)],
            "b": [acquired("L", "b1", 100, 400, 401), released("b1", 450, 451, 1)],
        })
        self.assertEqual(kinds, [])
        self.assertEqual(history.counts["unacked_acquires"], 1)
        self.assertEqual(history.counts["reconnects"], 1)

    def test_failed_attempt_after_an_unacknowledged_acquisition_proves_no_lingering(self):
        # a vanished; c's SET without a reply may have taken the lock when a's lease ran out:
        # b's failure at 400 may have met c's key, not a's.
        _, _, kinds = judge({
            "a": [acquired("L", "a1", 100, 0, 1), vanished("a1", "kill", 10)],
            "c": [unacked_acquire("L", "c1", 1000, 100, 110)],
            "b": [failed("L", 400, 401), acquired("L", "b1", 100, 1200, 1201)],
        })
        self.assertEqual(kinds, [])

    def test_same_failed_attempt_without_it_is_lingering(self):
        _, _, kinds = judge({
            "a": [acquired("L", "a1", 100, 0, 1), vanished("a1", "kill", 10)],
            "b": [failed("L", 400, 401), acquired("L", "b1", 100, 1200, 1201)],
        })
        self.assertEqual(kinds, ["lingering"])

    def test_unacknowledged_renewal_keeps_the_window(self):
        # The renewal may not have run: b taking the lock after a's known lease is no overlap.
        _, _, kinds = judge({
            "a": [acquired("L", "a1", 100, 0, 1), unacked_renewal("a1", 1000, 50, 60)],
            "b": [acquired("L", "b1", 100, 120, 121)],
        })
        self.assertEqual(kinds, [])

    def test_release_answering_one_within_an_unacknowledged_renewal_passes(self):
        # The renewal may have run at 60, making the lease last to 1060.
        _, _, kinds = judge({"a": [acquired("L", "a1", 100, 0, 1),
                                   unacked_renewal("a1", 1000, 50, 60),
                                   released("a1", 500, 501, 1)]})
        self.assertEqual(kinds, [])

    def test_release_answering_one_past_an_unacknowledged_renewal_is_stale(self):
        _, _, kinds = judge({"a": [acquired("L", "a1", 100, 0, 1),
                                   unacked_renewal("a1", 1000, 50, 60),
                                   released("a1", 1100, 1101, 1)]})
        self.assertEqual(kinds, ["stale-success"])

    def test_unacknowledged_release_ends_the_window_at_its_send(self):
        _, _, kinds = judge({
            "a": [acquired("L", "a1", 100, 0, 1), unacked_release("a1", 20, 25)],
            "b": [acquired("L", "b1", 100, 30, 31)],
        })
        self.assertEqual(kinds, [])

    def test_lease_forgotten_by_a_restart_is_an_overlap_and_lost_early(self):
        # What --no-persistence shows: the server restarted empty at 50, b took a's lock.
        _, _, kinds = judge({
            "a": [acquired("L", "a1", 1000, 0, 1), unacked_renewal("a1", 1000, 40, 45),
                  "C %d" % t(60), released("a1", 61, 62, 0)],
            "b": [acquired("L", "b1", 1000, 55, 56)],
        }, pauses_ms=[(45, 55)])
        self.assertEqual(kinds, ["lost-early", "overlap"])


KILL = 10_000 * lock_check.MS  # the kill, on the run's CLOCK_MONOTONIC


def rec(op, key, token, result, reply_ms_before_kill):
    reply = KILL - int(reply_ms_before_kill * lock_check.MS)
    return (op, key, token, result, reply - lock_check.MS, reply)


def verdict(records, value, start=None, inflight=None, appendonly="yes", appendfsync="always"):
    args = argparse.Namespace(seed=1, appendonly=appendonly, appendfsync=appendfsync,
                              lost_window_ms=1500)
    run = aof_crash.Run(args, tmp=None)
    lossy = appendonly == "no" or appendfsync != "always"
    run.judge_key("k", start, records, inflight, value, KILL, lossy)
    return run.violations, run.stats


class AofCrashJudgeTest(unittest.TestCase):
    def test_acknowledged_set_present_passes(self):
        violations, s = verdict([rec("S", "k", "t1", 1, 5)], "t1")
        self.assertEqual((violations, s.checked_held, s.lost), ([], 1, 0))

    def test_acknowledged_set_lost_fails_under_always(self):
        violations, s = verdict([rec("S", "k", "t1", 1, 5)], None)
        self.assertEqual((len(violations), s.lost_sets), (1, 1))
        self.assertIn("acknowledged SET k t1 NX lost", violations[0])

    def test_release_undone_fails_under_always(self):
        violations, s = verdict([rec("S", "k", "t1", 1, 50), rec("D", "k", "t1", 1, 5)], "t1")
        self.assertEqual((len(violations), s.undone_releases), (1, 1))
        self.assertIn("acknowledged release of k", violations[0])

    def test_released_key_absent_passes(self):
        violations, s = verdict([rec("S", "k", "t1", 1, 50), rec("D", "k", "t1", 1, 5)], None)
        self.assertEqual((violations, s.checked_released), ([], 1))

    def test_request_in_flight_may_go_either_way(self):
        inflight = ("S", "k", "t2", KILL - lock_check.MS, 0.0)
        for value in (None, "t2"):
            violations, s = verdict([], value, inflight=inflight)
            self.assertEqual((violations, s.lost, s.checked_held), ([], 0, 0))
        violations, _ = verdict([], "t3", inflight=inflight)
        self.assertEqual(len(violations), 1)  # but nothing else

    def test_release_in_flight_may_go_either_way(self):
        inflight = ("D", "k", "t1", KILL - lock_check.MS, 0.0)
        for value in (None, "t1"):
            violations, _ = verdict([rec("S", "k", "t1", 1, 50)], value, inflight=inflight)
            self.assertEqual(violations, [])

    def test_everysec_loss_within_the_window_passes_and_counts(self):
        # The release answered 400 ms before the kill is undone: allowed under everysec.
        violations, s = verdict([rec("S", "k", "t1", 1, 900), rec("D", "k", "t1", 1, 400)],
                                "t1", appendfsync="everysec")
        self.assertEqual((violations, s.lost, round(s.max_lost_age_ms)), ([], 1, 400))

    def test_everysec_loss_older_than_the_window_fails(self):
        violations, s = verdict([rec("S", "k", "t1", 1, 2000)], None, appendfsync="everysec")
        self.assertEqual((len(violations), s.lost), (1, 1))
        self.assertIn("window 1500 ms", violations[0])

    def test_no_persistence_counts_losses_without_judging(self):
        violations, s = verdict([rec("S", "k", "t1", 1, 2000)], None, appendonly="no")
        self.assertEqual((violations, s.lost_sets), ([], 1))

    def test_value_no_write_left_is_corruption(self):
        violations, _ = verdict([rec("S", "k", "t1", 1, 5)], "t9", appendfsync="everysec")
        self.assertEqual(len(violations), 1)
        self.assertIn("no acknowledged write", violations[0])

    def test_replies_inconsistent_with_the_key_fail(self):
        violations, _ = verdict([rec("S", "k", "t1", 0, 5)], None)  # nil on a free key
        self.assertEqual(len(violations), 1)
        violations, _ = verdict([rec("S", "k", "t2", 1, 5)], "t2", start="t1")  # OK on a held one
        self.assertEqual(len(violations), 1)
        violations, _ = verdict([rec("D", "k", "t1", 0, 5)], "t1", start="t1")  # 0 for its token
        self.assertEqual(len(violations), 1)


if __name__ == "__main__":
    unittest.main()
