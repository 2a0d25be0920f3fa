#!/usr/bin/python3
"""The notebook runner counts claims and checks apart, a failing check refuses a recording, and a kernel over
its memory budget fails the run.

    /usr/bin/python3 scripts/test_run_notebooks.py     (scripts/test.sh runs it; needs scripts/setup.sh)

Runs scripts/run-notebooks.sh --record on two one-cell Java notebooks in a temporary folder, with the
project's kernel: one prints three claims and a check that hold (recorded: the executed notebook
replaces the source, and the PASS line gives both counts), the other the same with the check failing
(refused: FAIL, the source is left as it was); a third fills 400 MB of memory under a budget of 300 MB (FAIL,
with the kernel's peak printed). Three kernel starts, 30-90 s on a 2-core machine.
Standard library only.
"""
import json
import os
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = os.path.join(ROOT, "scripts", "run-notebooks.sh")
CLAIMS = ["✔ the loss falls (measured: 0.5)", "✔ two runs agree (measured: 0)", "✔ faster (measured: 1.6, 0.9)"]


def notebook(lines, before=""):
    source = before + "\n".join('System.out.println("%s");' % line for line in lines)
    return {"cells": [{"cell_type": "code", "id": "c0", "source": source, "metadata": {}, "execution_count": None,
                       "outputs": []}],
            "metadata": {"kernelspec": {"name": "java", "display_name": "Java", "language": "java"}},
            "nbformat": 4, "nbformat_minor": 5}


class RunNotebooksTest(unittest.TestCase):

    def record(self, name, lines, before="", **env):
        """Records a notebook printing {@code lines}; returns (exit status, runner output, source after)."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, name + ".ipynb")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(notebook(lines, before), f)
            done = subprocess.run([RUNNER, "--record", "--no-html", path], capture_output=True, text=True,
                                  encoding="utf-8",
                                  env=dict(os.environ, RECORD_DATASET_LIMIT="", RECORD_MAX_EPOCH="", **env))
            with open(path, encoding="utf-8") as f:
                after = json.load(f)
            return done.returncode, done.stdout + done.stderr, after

    def test_a_recording_counts_claims_and_checks_apart(self):
        code, out, after = self.record("d2l_runner_test_pass", CLAIMS + ["✔ check: 16P bytes (measured: 0)"])
        self.assertEqual(0, code, out)
        self.assertIn("PASS d2l_runner_test_pass", out)
        self.assertIn("claims: 3 hold of 3; checks: 1 hold of 1", out)
        self.assertRegex(out, r"PASS d2l_runner_test_pass \([0-9.]+s, peak memory [1-9][0-9]+ MB")
        self.assertTrue(after["cells"][0]["outputs"], "the executed notebook was recorded into the source")

    def test_a_kernel_over_its_memory_budget_fails(self):
        fill = "byte[] big = new byte[400_000_000];\njava.util.Arrays.fill(big, (byte) 1);\n"
        code, out, after = self.record("d2l_runner_test_memory", CLAIMS, before=fill,
                                       KERNEL_MEMORY_BUDGET_MB="300", JDK_JAVA_OPTIONS="-Xmx640m")
        self.assertEqual(1, code, out)
        self.assertIn("FAIL d2l_runner_test_memory", out)
        self.assertRegex(out, r"the kernel's peak resident memory, ([4-9][0-9]{2}|[0-9]{4}) MB, is over the budget "
                              r"of 300 MB")
        self.assertEqual([], after["cells"][0]["outputs"], "a lesson over its budget is not recorded")

    def test_a_failing_check_refuses_the_recording(self):
        code, out, after = self.record("d2l_runner_test_fail", CLAIMS + ["✘ check: 16P bytes (measured: 12)"])
        self.assertEqual(1, code, out)
        self.assertIn("FAIL d2l_runner_test_fail", out)
        self.assertIn("check does not hold: ✘ check: 16P bytes (measured: 12)", out)
        self.assertIn("claims: 3 hold of 3; checks: 0 hold of 1", out)
        self.assertEqual([], after["cells"][0]["outputs"], "a refused recording leaves the source as it was")


if __name__ == "__main__":
    unittest.main()
