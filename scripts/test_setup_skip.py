#!/usr/bin/python3
"""scripts/setup.sh builds only when the jars' inputs changed, and a changed source still rebuilds.

    /usr/bin/python3 scripts/test_setup_skip.py     (scripts/test.sh runs it after scripts/setup.sh)

The digest of scripts/build-inputs.sh, on a copy of the pom.xml files and src/ folders: unchanged by a
copy or new file times, changed by an edited or added source, an edited pom.xml, or -Dgpu (not by -o).
Then scripts/setup.sh itself, with a stand-in `mvn` first on PATH that notes each `package` and passes
everything else to the real Maven: after a build, a second start skips Maven and says so; with a
stamp that no longer matches the sources (as after an edit), it runs `package`. The stamp is restored
afterwards. About 10-20 s. Standard library only.
"""
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIGEST = os.path.join(ROOT, "scripts", "build-inputs.sh")
SETUP = os.path.join(ROOT, "scripts", "setup.sh")
STAMP = os.path.join(ROOT, "build", "setup", "jars.sha256")


def digest(folder, **env):
    return subprocess.run([DIGEST, folder], capture_output=True, text=True, check=True,
                          env=dict(os.environ, **env)).stdout.strip()


def copy_inputs(target):
    """The pom.xml files and src/ folders of this checkout, as a fresh clone would have them."""
    shutil.copy2(os.path.join(ROOT, "pom.xml"), target)
    for module in sorted(os.listdir(ROOT)):
        src = os.path.join(ROOT, module, "src")
        if os.path.isfile(os.path.join(ROOT, module, "pom.xml")):
            os.makedirs(os.path.join(target, module))
            shutil.copy2(os.path.join(ROOT, module, "pom.xml"), os.path.join(target, module))
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(target, module, "src"))


class BuildInputsTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.tree = os.path.join(self.tmp, "tree")
        os.makedirs(self.tree)
        copy_inputs(self.tree)
        self.before = digest(self.tree, MVN_ARGS="")
        self.source = os.path.join(self.tree, "support-lib", "src", "main", "java", "org", "d2l", "multigpu",
                                   "lesson", "Claim.java")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_a_copy_of_unchanged_sources_has_the_checkouts_digest(self):
        self.assertEqual(digest(ROOT, MVN_ARGS=""), self.before)
        os.utime(self.source, (0, 0))  # a new file time, same content
        self.assertEqual(self.before, digest(self.tree, MVN_ARGS=""))

    def test_an_edited_source_changes_the_digest(self):
        with open(self.source, "a", encoding="utf-8") as f:
            f.write("// edited\n")
        self.assertNotEqual(self.before, digest(self.tree, MVN_ARGS=""))

    def test_an_added_source_or_an_edited_pom_changes_the_digest(self):
        added = os.path.join(os.path.dirname(self.source), "Added.java")
        with open(added, "w", encoding="utf-8") as f:
            f.write("package org.d2l.multigpu.lesson;\n")
        after_add = digest(self.tree, MVN_ARGS="")
        self.assertNotEqual(self.before, after_add)
        with open(os.path.join(self.tree, "pom.xml"), "a", encoding="utf-8") as f:
            f.write("<!-- edited -->\n")
        self.assertNotEqual(after_add, digest(self.tree, MVN_ARGS=""))

    def test_the_gpu_build_counts_and_offline_does_not(self):
        self.assertNotEqual(self.before, digest(self.tree, MVN_ARGS="-Dgpu"))
        self.assertEqual(self.before, digest(self.tree, MVN_ARGS="-o -q"))


class SetupSkipTest(unittest.TestCase):

    def setUp(self):
        if not os.path.isfile(STAMP):
            self.fail("no %s: run scripts/setup.sh first (scripts/test.sh does)" % STAMP)
        with open(STAMP, encoding="utf-8") as f:
            self.stamp = f.read()
        self.bin = tempfile.mkdtemp()
        self.calls = os.path.join(self.bin, "calls")
        real = shutil.which("mvn")
        fake = os.path.join(self.bin, "mvn")
        with open(fake, "w", encoding="utf-8") as f:
            f.write('#!/bin/bash\nfor a in "$@"; do [[ "$a" == package ]] && { echo "$*" >>"%s"; exit 0; }; done\n'
                    'exec "%s" "$@"\n' % (self.calls, real))
        os.chmod(fake, os.stat(fake).st_mode | stat.S_IXUSR)

    def tearDown(self):
        with open(STAMP, "w", encoding="utf-8") as f:
            f.write(self.stamp)
        shutil.rmtree(self.bin)

    def setup(self):
        done = subprocess.run([SETUP], capture_output=True, text=True,
                              env=dict(os.environ, PATH=self.bin + os.pathsep + os.environ["PATH"]))
        self.assertEqual(0, done.returncode, done.stdout + done.stderr)
        calls = open(self.calls, encoding="utf-8").read() if os.path.exists(self.calls) else ""
        return done.stdout + done.stderr, calls

    def test_a_second_start_skips_maven(self):
        out, calls = self.setup()
        self.assertIn("The jars are up to date with their sources", out)
        self.assertEqual("", calls, "mvn package ran although nothing changed")

    def test_a_changed_source_rebuilds(self):
        with open(STAMP, "w", encoding="utf-8") as f:
            f.write("0" * 64 + "\n")  # the digest of other sources: as after an edit
        out, calls = self.setup()
        self.assertIn("Building the support and Spark jars", out)
        self.assertIn("package", calls)


if __name__ == "__main__":
    unittest.main()
