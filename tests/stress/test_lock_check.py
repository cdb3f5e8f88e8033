"""The checker on hand-written histories: each violation is found, and what a correct server may
legitimately do (late replies, pauses, refused late releases) is not reported.

    /usr/bin/python3 -m unittest discover -s tests/stress
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lock_check  # noqa: E402

SLACK_MS, MARGIN_MS = 2, 250


def t(ms):
    return int(ms * lock_check.MS)


def acquired(lock, token, ttl_ms, send_ms, reply_ms):
    return "A %s %s %d %d %d" % (lock, token, ttl_ms, t(send_ms), t(reply_ms))


def failed(lock, send_ms, reply_ms):
    return "F %s %d %d" % (lock, t(send_ms), t(reply_ms))


def renewed(token, ttl_ms, send_ms, reply_ms, result):
    return "R %s %d %d %d %d" % (token, ttl_ms, t(send_ms), t(reply_ms), result)


def released(token, send_ms, reply_ms, result):
    return "D %s %d %d %d" % (token, t(send_ms), t(reply_ms), result)


def vanished(token, kind, at_ms):
    return "V %s %s %d" % (token, kind, t(at_ms))


def judge(histories, pauses_ms=()):
    history = lock_check.load(histories, SLACK_MS)
    pauses = [(t(a), t(b)) for a, b in pauses_ms]
    liveness, lingering = lock_check.check_liveness(history, pauses, SLACK_MS, MARGIN_MS)
    violations = history.violations + lock_check.check_overlaps(history.holds) + lingering
    return history, liveness, sorted(v.kind for v in violations)


class LockCheckTest(unittest.TestCase):
    def test_holds_one_after_another_pass(self):
        _, _, kinds = judge({
            "a": [acquired("L", "a1", 100, 0, 1), released("a1", 50, 51, 1)],
            "b": [failed("L", 10, 11), acquired("L", "b1", 100, 52, 53), released("b1", 60, 61, 1)],
        })
        self.assertEqual(kinds, [])

    def test_second_holder_inside_a_lease_is_an_overlap(self):
        _, _, kinds = judge({
            "a": [acquired("L", "a1", 100, 0, 1), released("a1", 50, 51, 1)],
            "b": [acquired("L", "b1", 100, 29, 30), released("b1", 60, 61, 1)],
        })
        self.assertEqual(kinds, ["overlap"])

    def test_acquire_sent_before_the_lease_ends_but_answered_after_it_passes(self):
        # The server may have run b's SET after a's lease ran out: nothing is proven.
        _, _, kinds = judge({
            "a": [acquired("L", "a1", 100, 0, 1)],
            "b": [acquired("L", "b1", 100, 97, 99)],
        })
        self.assertEqual(kinds, [])

    def test_renewal_extends_the_window(self):
        _, _, kinds = judge({
            "a": [acquired("L", "a1", 100, 0, 1), renewed("a1", 100, 80, 81, 1)],
            "b": [acquired("L", "b1", 100, 149, 150)],
        })
        self.assertEqual(kinds, ["overlap"])

    def test_release_answering_zero_inside_the_lease_is_lost_early(self):
        _, _, kinds = judge({"a": [acquired("L", "a1", 100, 0, 1), released("a1", 40, 41, 0)]})
        self.assertEqual(kinds, ["lost-early"])

    def test_late_release_refused_after_a_stall_passes(self):
        history, _, kinds = judge({
            "a": [acquired("L", "a1", 100, 0, 1), "S a1 %d" % t(2),
                  renewed("a1", 100, 150, 151, 0), released("a1", 152, 153, 0)],
            "b": [acquired("L", "b1", 100, 120, 121)],
        })
        self.assertEqual(kinds, [])
        self.assertEqual(history.counts["stale_rejected"], 2)

    def test_late_release_answering_one_is_stale_success(self):
        _, _, kinds = judge({"a": [acquired("L", "a1", 100, 0, 1), released("a1", 150, 151, 1)]})
        self.assertEqual(kinds, ["stale-success"])

    def test_release_answering_one_after_a_refusal_is_stale_success(self):
        _, _, kinds = judge({"a": [acquired("L", "a1", 100, 0, 1), renewed("a1", 100, 200, 201, 0),
                                   released("a1", 202, 203, 1)]})
        self.assertEqual(kinds, ["stale-success"])

    def test_late_release_answering_one_while_another_holds_is_an_overlap_too(self):
        # The server gave the lock to b and still let a delete it.
        _, _, kinds = judge({
            "a": [acquired("L", "a1", 100, 0, 1), released("a1", 150, 151, 1)],
            "b": [acquired("L", "b1", 100, 120, 121)],
        })
        self.assertEqual(kinds, ["overlap", "stale-success"])

    def test_server_pause_gives_no_false_violation(self):
        # Server stopped from 50 to 500 ms: a's lease (to ~100 ms) runs out during the pause,
        # a's renewal sent at 40 is answered after it with 0, and b's SET sent at 60 wins.
        _, _, kinds = judge({
            "a": [acquired("L", "a1", 100, 0, 1), renewed("a1", 100, 40, 501, 0)],
            "b": [acquired("L", "b1", 100, 60, 501), released("b1", 520, 521, 1)],
        }, pauses_ms=[(50, 500)])
        self.assertEqual(kinds, [])

    def test_vanished_lock_taken_soon_after_its_lease_passes(self):
        _, liveness, kinds = judge({
            "a": [acquired("L", "a1", 100, 0, 1), vanished("a1", "kill", 10)],
            "b": [failed("L", 50, 51), failed("L", 100, 101), acquired("L", "b1", 100, 104, 105)],
        })
        self.assertEqual(kinds, [])
        self.assertAlmostEqual(liveness[0].free_after_ms, 1)  # 105 - (1 + 100 + 1 + 2)
        self.assertAlmostEqual(liveness[0].vanish_to_free_ms, 95)

    def test_vanished_lock_still_held_past_the_margin_is_lingering(self):
        _, liveness, kinds = judge({
            "a": [acquired("L", "a1", 100, 0, 1), vanished("a1", "close", 10)],
            "b": [failed("L", 400, 401), acquired("L", "b1", 100, 500, 501)],
        })
        self.assertEqual(kinds, ["lingering"])
        self.assertAlmostEqual(liveness[0].lingered_ms, 296)

    def test_failed_attempt_after_another_acquisition_proves_no_lingering(self):
        _, _, kinds = judge({
            "a": [acquired("L", "a1", 100, 0, 1), vanished("a1", "reset", 10)],
            "c": [acquired("L", "c1", 1000, 104, 105)],
            "b": [failed("L", 400, 401)],
        })
        self.assertEqual(kinds, [])

    def test_time_to_free_leaves_out_server_pauses(self):
        _, liveness, _ = judge({
            "a": [acquired("L", "a1", 100, 0, 1), vanished("a1", "kill", 10)],
            "b": [acquired("L", "b1", 100, 90, 605)],
        }, pauses_ms=[(95, 595)])
        # 605 - 104 (deadline) - 491 (the part of the pause after the deadline)
        self.assertAlmostEqual(liveness[0].free_after_ms, 10)

    def test_line_torn_by_a_kill_is_ignored(self):
        history, _, kinds = judge({"a": [acquired("L", "a1", 100, 0, 1), "D a1 12"]})
        self.assertEqual(kinds, [])
        self.assertEqual(history.counts["torn_lines"], 1)


if __name__ == "__main__":
    unittest.main()
