#!/usr/bin/python3
"""Tests of check_outputs.py on small synthetic notebooks: errors, claims and checks in each mode.

    /usr/bin/python3 scripts/test_check_outputs.py     (scripts/test.sh runs it)

Standard library only.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_outputs.py")
THREE = "✔ equal (measured: 0)\n✔ faster (measured: 1.6)\n✔ close (measured: 0.01, 0.02)\n"  # enough to record


def notebook(*stdout_texts, error=None):
    outputs = [{"output_type": "stream", "name": "stdout", "text": t} for t in stdout_texts]
    if error:
        outputs.append({"output_type": "error", "ename": "EvalException", "evalue": error, "traceback": []})
    return {"cells": [{"cell_type": "code", "source": "Claim.that(...);", "metadata": {},
                       "execution_count": 1, "outputs": outputs}],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


class CheckOutputsTest(unittest.TestCase):

    def run_check(self, nb, *args):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "lesson.ipynb")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(nb, f)
            done = subprocess.run([sys.executable, CHECK, path, *args], capture_output=True, text=True,
                                  encoding="utf-8")
            return done.returncode, done.stdout

    def test_claims_and_checks_that_hold_pass_a_recording_and_are_counted_apart(self):
        code, out = self.run_check(notebook(THREE + "other text\n", "✔ check: 16P bytes (measured: 0)\n"),
                                   "--claims", "record")
        self.assertEqual(0, code, out)
        self.assertIn("claims: 3 hold of 3; checks: 1 hold of 1", out)

    def test_a_claim_that_fails_fails_a_recording_and_is_named(self):
        code, out = self.run_check(notebook(THREE + "✘ close (measured: 0.2085)\n"), "--claims", "record")
        self.assertEqual(1, code, out)
        self.assertIn("claim does not hold: ✘ close (measured: 0.2085)", out)
        self.assertIn("claims: 3 hold of 4; checks: 0 hold of 0", out)

    def test_a_failed_claim_the_lesson_lists_as_discussed_passes_a_recording_and_a_stale_entry_fails_it(self):
        nb = notebook(THREE + "✘ close to one device (measured: 0.2085)\n")
        nb["metadata"]["d2l"] = {"discussed_failures": ["close to one device"]}
        code, out = self.run_check(nb, "--claims", "record")
        self.assertEqual(0, code, out)
        self.assertIn("failed, and discussed by the lesson: ✘ close to one device (measured: 0.2085)", out)
        self.assertIn("claims: 3 hold of 4", out)
        nb["metadata"]["d2l"] = {"discussed_failures": ["close to one device", "another claim"]}
        code, out = self.run_check(nb, "--claims", "record")
        self.assertEqual(1, code, out)
        self.assertIn('no failed claim starts with it: "another claim"', out)

    def test_a_failed_check_cannot_be_listed_as_discussed(self):
        nb = notebook(THREE + "✘ check: 16P bytes (measured: 12)\n")
        nb["metadata"]["d2l"] = {"discussed_failures": ["check: 16P bytes"]}
        code, out = self.run_check(nb, "--claims", "record")
        self.assertEqual(1, code, out)
        self.assertIn("check does not hold", out)

    def test_a_check_that_fails_fails_a_recording_as_a_claim_does(self):
        code, out = self.run_check(notebook(THREE + "✘ check: 16P bytes (measured: 12)\n"), "--claims", "record")
        self.assertEqual(1, code, out)
        self.assertIn("check does not hold: ✘ check: 16P bytes (measured: 12)", out)
        self.assertIn("claims: 3 hold of 3; checks: 0 hold of 1", out)

    def test_a_recording_with_fewer_than_three_claims_fails_and_checks_do_not_make_up_for_them(self):
        for text in ("no claims here\n", "✔ a (measured: 1)\n✔ b (measured: 2)\n✔ check: c (measured: 3)\n"
                     "✔ check: d (measured: 4)\n"):
            code, out = self.run_check(notebook(text), "--claims", "record")
            self.assertEqual(1, code, out)
            self.assertIn("a recorded lesson checks at least 3", out)

    def test_a_boolean_measured_value_is_refused_in_every_mode(self):
        for line in ("✔ peaks as predicted (measured: true)\n", "✔ check: fits (measured: 0.5, false)\n",
                     "✘ peaks (measured: false; not checked at these settings, DATASET_LIMIT=512, MAX_EPOCH=1, "
                     "which are too small to show it)\n"):
            for mode in ("smoke", "record"):
                code, out = self.run_check(notebook(THREE + line), "--claims", mode)
                self.assertEqual(1, code, out)
                self.assertIn("measured value is a boolean", out)

    def test_a_measured_value_that_is_text_or_missing_is_refused_and_numbers_pass(self):
        for line, problem in (("✔ stopped (measured: NO_IMPROVEMENT)\n", "not a number or a list of numbers"),
                              ("✔ stopped by itself\n", "without a measured value")):
            code, out = self.run_check(notebook(THREE + line))
            self.assertEqual(1, code, out)
            self.assertIn(problem, out)
        code, out = self.run_check(notebook("✔ a (measured: -0.1993, 9.313e-10, 1032544, NaN, -Infinity)\n"))
        self.assertEqual(0, code, out)

    def test_a_result_that_is_an_objects_identity_is_a_problem_and_a_value_is_not(self):
        nb = notebook(THREE)
        nb["cells"][0]["outputs"].append({"output_type": "execute_result", "execution_count": 1, "metadata": {},
                                          "data": {"text/html": ["java.io.PrintStream@45593f7b"]}})
        code, out = self.run_check(nb)
        self.assertEqual(1, code, out)
        self.assertIn("object's identity (java.io.PrintStream@45593f7b)", out)
        nb["cells"][0]["outputs"][-1]["data"] = {"text/plain": ["0.25"]}
        code, out = self.run_check(nb)
        self.assertEqual(0, code, out)

    def test_a_claim_or_check_that_fails_in_smoke_settings_is_shown_but_does_not_fail(self):
        code, out = self.run_check(notebook("✘ close (measured: 0.3; not checked at these settings, "
                                            "DATASET_LIMIT=512, MAX_EPOCH=1, which are too small to show it)\n",
                                            "✘ check: 16P (measured: 12; not checked at these settings, "
                                            "DATASET_LIMIT=512, MAX_EPOCH=1, which are too small to show it)\n"),
                                   "--claims", "smoke")
        self.assertEqual(0, code, out)
        self.assertIn("not held at these settings: ✘ close", out)
        self.assertIn("not held at these settings: ✘ check: 16P", out)
        self.assertIn("claims: 0 hold of 1; checks: 0 hold of 1", out)

    def test_an_error_output_fails_in_every_mode(self):
        for mode in ("smoke", "record"):
            code, out = self.run_check(notebook(THREE, error="boom"), "--claims", mode)
            self.assertEqual(1, code, out)
            self.assertIn("boom", out)

    def test_a_claim_not_checked_for_want_of_cores_is_neither_held_nor_failed(self):
        line = "○ not checked on 1 CPU core, it needs 2: two stages run at once (measured: 0.467)\n"
        code, out = self.run_check(notebook(THREE + line), "--claims", "record")
        self.assertEqual(0, code, out)
        self.assertIn("claims: 3 hold of 3", out)

    def test_a_cross_inside_a_line_is_not_a_claim(self):
        code, out = self.run_check(notebook("a table with ✘ in it\n"), "--claims", "smoke")
        self.assertEqual(0, code, out)
        self.assertNotIn("claims:", out)


if __name__ == "__main__":
    unittest.main()
