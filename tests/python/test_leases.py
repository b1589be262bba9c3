"""#14, problem 6, from the client's side against a real `hpt serve`:
suggest() never over-hands parallelTrialCount (409, or a wait when asked),
optimize() with more workers than slots waits its turn, its heartbeats keep
a slow trial alive, and a trial whose client went away is freed."""

import threading
import time
import unittest

import hpt
from hpt_server import ServerTestCase

SPACE = [hpt.Float("x", -5, 5)]


class LeaseTest(ServerTestCase):

    def create(self, prefix: str, max_trials: int, parallel: int,
               lease: int = 0) -> "hpt.Experiment":
        return self.client.create_experiment(self.unique(prefix), space=SPACE, objective="loss",
                                             max_trials=max_trials, parallel=parallel,
                                             lease_seconds=lease or None)

    def test_suggest_is_refused_when_every_slot_is_taken(self) -> None:
        exp = self.create("full", max_trials=6, parallel=2)
        first = exp.suggest(count=5)
        self.assertEqual(len(first), 2)
        with self.assertRaises(hpt.ApiError) as caught:
            exp.suggest()
        self.assertEqual(caught.exception.code, 409)
        self.assertIn("parallelTrialCount", caught.exception.message)
        self.assertIn(first[0].name, caught.exception.message)

        # Asked to wait, it gets the slot as soon as a trial completes.
        threading.Timer(0.5, lambda: first[0].complete(loss=1.0)).start()
        started = time.monotonic()
        (third,) = exp.suggest(wait=20)
        self.assertLess(time.monotonic() - started, 15)
        self.assertNotIn(third.name, {t.name for t in first})

    def test_more_workers_than_slots_take_turns(self) -> None:
        exp = self.create("turns", max_trials=8, parallel=2)
        active, most = [0], [0]
        lock = threading.Lock()

        def objective(trial: "hpt.Trial") -> float:
            with lock:
                active[0] += 1
                most[0] = max(most[0], active[0])
            time.sleep(0.1)
            with lock:
                active[0] -= 1
            return trial.params["x"] ** 2

        exp.optimize(objective, n_trials=8, n_jobs=4, show_progress_bar=False)
        trials = exp.trials()
        self.assertEqual(len(trials), 8)
        self.assertTrue(all(t.phase == "Succeeded" for t in trials), [t.phase for t in trials])
        self.assertLessEqual(most[0], 2)

    def test_heartbeats_keep_a_slow_trial_and_a_silent_one_is_abandoned(self) -> None:
        exp = self.create("lease", max_trials=4, parallel=1, lease=1)
        self.assertEqual(exp.spec["trialLeaseSeconds"], 1)

        # optimize() renews the lease while a step runs longer than it.
        exp.optimize(lambda t: time.sleep(2.5) or t.params["x"] ** 2, n_trials=1,
                     show_progress_bar=False)
        (slow,) = exp.trials()
        self.assertEqual(slow.phase, "Succeeded")

        # A client that asks and goes silent loses the trial; its slot is free.
        (silent,) = exp.suggest()
        deadline = time.monotonic() + 10
        while exp.trial(silent.name).phase == "Running" and time.monotonic() < deadline:
            time.sleep(0.1)
        gone = exp.trial(silent.name)
        self.assertEqual(gone.phase, "Failed")
        self.assertEqual(gone.raw["reason"], "Abandoned")
        with self.assertRaises(hpt.ApiError) as caught:
            silent.complete(loss=0.0)
        self.assertEqual(caught.exception.code, 409)
        self.assertEqual(len(exp.suggest()), 1)


if __name__ == "__main__":
    unittest.main()
