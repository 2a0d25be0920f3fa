#!/usr/bin/python3
"""The GPU kit's notebook runner keeps what cells print and reports what fails, as a kernel would.

    /usr/bin/python3 gpu-kit/test_run_notebook.py     (scripts/test.sh runs it; needs the support jar built)

Runs gpu-kit/RunNotebook.java with the support jar's class path on a small Java notebook: a cell that prints,
a cell that does not compile, a cell whose value is shown, a cell that throws, a declaration of a type that does
not exist (JShell keeps it, undefined), a cell after the failures that prints to both streams. The executed
notebook must hold the printed lines, an error output for each failing cell, the value, and the last cell's
output (every cell runs after an error), and scripts/check_outputs.py must report the three failures; the exit
status is 1; each cell's wall time is kept. One JVM start, about 10 s. Standard library only.
"""
import json
import os
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = os.path.join(ROOT, "gpu-kit", "RunNotebook.java")
JAR = os.path.join(ROOT, "support-lib", "target", "d2l-multigpu.jar")
CELLS = ['int x = 20;\nSystem.out.println("printed " + (x + 1));',
         "int y = ;",
         "x * 2",
         'throw new IllegalStateException("boom");',
         "Missing m = null;",
         'System.err.println("warned");\nSystem.out.println("after the failures");']


class RunNotebookTest(unittest.TestCase):

    def test_printed_output_values_and_both_failures_are_kept_and_reported(self):
        nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None}
                        for c in CELLS] + [{"cell_type": "markdown", "metadata": {}, "source": "text"}],
              "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        with tempfile.TemporaryDirectory() as d:
            src, out = os.path.join(d, "nb.ipynb"), os.path.join(d, "executed.ipynb")
            with open(src, "w", encoding="utf-8") as f:
                json.dump(nb, f)
            # the support jar's manifest lists its dependencies (gson among them)
            ran = subprocess.run(["java", "-cp", JAR, RUNNER, src, out], capture_output=True, text=True)
            self.assertEqual(1, ran.returncode, ran.stdout + ran.stderr)
            with open(out, encoding="utf-8") as f:
                cells = [c for c in json.load(f)["cells"] if c["cell_type"] == "code"]
            text = ["".join(o.get("text", o.get("data", {}).get("text/plain", ""))) for c in cells for o in c["outputs"]]
            kinds = [[o["output_type"] for o in c["outputs"]] for c in cells]
            self.assertEqual([["stream"], ["error"], ["execute_result"], ["error"], ["error"], ["stream", "stream"]], kinds)
            self.assertEqual("printed 21\n", text[0])
            self.assertEqual("40", text[2])
            self.assertEqual([("stdout", "after the failures\n"), ("stderr", "warned\n")],
                             [(o["name"], "".join(o["text"])) for o in cells[5]["outputs"]])
            self.assertIn("IllegalStateException: boom", cells[3]["outputs"][0]["evalue"])
            self.assertIn("Missing", cells[4]["outputs"][0]["evalue"] + "".join(cells[4]["outputs"][0]["traceback"]))
            self.assertEqual([1, 2, 3, 4, 5, 6], [c["execution_count"] for c in cells])
            self.assertTrue(all(c["metadata"]["execution"]["seconds"] >= 0 for c in cells))
            self.assertIn("--- cell 1 took ", ran.stdout)
            checked = subprocess.run(["python3", os.path.join(ROOT, "scripts", "check_outputs.py"), out,
                                      "--claims", "smoke"], capture_output=True, text=True)
            self.assertEqual(1, checked.returncode, checked.stdout)
            self.assertIn("cell 2", checked.stdout)
            self.assertIn("cell 4", checked.stdout)
            self.assertIn("cell 5", checked.stdout)


if __name__ == "__main__":
    unittest.main()
