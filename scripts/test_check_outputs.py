#!/usr/bin/python3
"""Tests of check_outputs.py on small synthetic notebooks: errors and claims in each mode.

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

    def test_claims_that_hold_pass_a_recording_and_are_counted(self):
        code, out = self.run_check(notebook("✔ equal (measured: 0)\nother text\n", "✔ faster (measured: 1.6)\n"),
                                   "--claims", "record")
        self.assertEqual(0, code, out)
        self.assertIn("claims: 2 printed, 2 hold", out)

    def test_a_claim_that_fails_fails_a_recording_and_is_named(self):
        code, out = self.run_check(notebook("✔ equal (measured: 0)\n✘ close (measured: 0.2085)\n"),
                                   "--claims", "record")
        self.assertEqual(1, code, out)
        self.assertIn("claim does not hold: ✘ close (measured: 0.2085)", out)
        self.assertIn("claims: 2 printed, 1 hold", out)

    def test_a_recording_without_claims_fails(self):
        code, out = self.run_check(notebook("no claims here\n"), "--claims", "record")
        self.assertEqual(1, code, out)
        self.assertIn("no claims printed", out)

    def test_a_result_that_is_an_objects_identity_is_a_problem_and_a_value_is_not(self):
        nb = notebook("✔ equal (measured: 0)\n")
        nb["cells"][0]["outputs"].append({"output_type": "execute_result", "execution_count": 1, "metadata": {},
                                          "data": {"text/html": ["java.io.PrintStream@45593f7b"]}})
        code, out = self.run_check(nb)
        self.assertEqual(1, code, out)
        self.assertIn("object's identity (java.io.PrintStream@45593f7b)", out)
        nb["cells"][0]["outputs"][-1]["data"] = {"text/plain": ["0.25"]}
        code, out = self.run_check(nb)
        self.assertEqual(0, code, out)

    def test_a_claim_that_fails_in_smoke_settings_is_shown_but_does_not_fail(self):
        code, out = self.run_check(notebook("✘ close (measured: 0.3; not checked at the smoke settings)\n"),
                                   "--claims", "smoke")
        self.assertEqual(0, code, out)
        self.assertIn("not held at these settings: ✘ close", out)
        self.assertIn("claims: 1 printed, 0 hold", out)

    def test_an_error_output_fails_in_every_mode(self):
        for mode in ("smoke", "record"):
            code, out = self.run_check(notebook("✔ equal (measured: 0)\n", error="boom"), "--claims", mode)
            self.assertEqual(1, code, out)
            self.assertIn("boom", out)

    def test_a_cross_inside_a_line_is_not_a_claim(self):
        code, out = self.run_check(notebook("a table with ✘ in it\n"), "--claims", "smoke")
        self.assertEqual(0, code, out)
        self.assertNotIn("claims:", out)


if __name__ == "__main__":
    unittest.main()
