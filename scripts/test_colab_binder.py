#!/usr/bin/python3
"""Checks that Colab, Binder and the build agree with the lessons, and tests scripts/colab_cells.py.

    /usr/bin/python3 scripts/test_colab_binder.py     (scripts/test.sh runs it, after the build)

* every lesson has its badges and its current Colab set-up cell, and the README its badge table (what
  scripts/colab_cells.py writes; the generator itself is tested on small notebooks: idempotent, an
  older set-up cell replaced, outputs of a current one kept);
* every jar or file a lesson loads (%jars, %classpath, %load) lies in a folder that binder/colab-setup.sh
  links next to Colab's /content, was produced by the build (the jar and every entry of its manifest's
  Class-Path), and comes from a module that colab-setup.sh and binder/postBuild both build;
* binder/start's defaults are what a lesson prints under Binder: binder/start is run, the JVM options it
  exports are given to a JVM that prints Settings.get().describe() from the built jar, as every lesson's
  first output does, and the README states the same defaults;
* JJava is pinned to the same release for Colab and Binder; postBuild keeps no Maven cache; every
  package in binder/apt.txt was checked against repo2docker's base image (CHECKED_FOR_BASE_IMAGE);
* the Debian packages are named in scripts/debian-packages.sh only (the Dockerfile, setup.sh and the
  Colab and Binder scripts read it), and rapaio's version in pom.xml only (plus the launcher's constant,
  checked equal).

Standard library only; needs a JDK on PATH and the jars built (scripts/setup.sh).
"""
import copy
import glob
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import unittest
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import colab_cells  # noqa: E402

LESSONS = sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb")))
LOADS = re.compile(r"^\s*%(jars|classpath|load)\s+(.+?)\s*$", re.M)
# Packages of binder/apt.txt known to exist in the Ubuntu release of repo2docker's base image, with how
# that was checked. Empty: see binder/apt.txt.
CHECKED_FOR_BASE_IMAGE = {}


def read(relative):
    with open(os.path.join(ROOT, relative), encoding="utf-8") as f:
        return f.read()


def code_cells(nb):
    return [colab_cells.text(c.get("source", "")) for c in nb["cells"] if c.get("cell_type") == "code"]


def lesson(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def loaded_paths():
    """(lesson name, path as written) of every file a lesson loads."""
    found = []
    for path in LESSONS:
        for source in code_cells(lesson(path)):
            for _, args in LOADS.findall(source):
                for arg in args.split():
                    found.append((colab_cells.lesson_name(path), arg.strip("\"'")))
    return found


def shell_array(script, name):
    m = re.search(r"^%s=\(([^)]*)\)" % name, script, re.M)
    return shlex.split(m.group(1)) if m else []


class GeneratorTest(unittest.TestCase):
    """scripts/colab_cells.py on a small notebook."""

    def small(self):
        return {"cells": [{"cell_type": "markdown", "id": "m", "metadata": {}, "source": ["# Title\n", "\n", "Text."]},
                          {"cell_type": "code", "id": "j", "metadata": {}, "execution_count": 1, "outputs": [],
                           "source": ["%jars ../support-lib/target/d2l-multigpu.jar"]}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}

    def test_a_second_run_changes_nothing(self):
        once = colab_cells.update_notebook(self.small(), "x")
        twice = colab_cells.update_notebook(copy.deepcopy(once), "x")
        self.assertEqual(colab_cells.dumps(once), colab_cells.dumps(twice))
        self.assertEqual(["m", "colab-setup", "j"], [c["id"] for c in once["cells"]])
        self.assertEqual(["# Title\n", "\n", colab_cells.badges("x") + "\n", "\n", "Text."], once["cells"][0]["source"])

    def test_an_older_setup_cell_is_replaced_not_added_and_moved_before_the_first_code(self):
        nb = self.small()
        nb["cells"].append({"cell_type": "code", "id": "old", "metadata": {"tags": ["colab-setup"]},
                            "execution_count": 3, "outputs": [{"output_type": "stream", "name": "stdout", "text": "x"}],
                            "source": ["!bash binder/colab-setup.sh"]})
        nb["cells"][0]["source"] = ["# Title\n", "\n", "[![Open In Colab](%s)](old)\n" % colab_cells.COLAB_BADGE, "Text."]
        out = colab_cells.update_notebook(nb, "x")
        setup = [c for c in out["cells"] if colab_cells.is_setup_cell(c)]
        self.assertEqual(1, len(setup))
        self.assertEqual(colab_cells.setup_source(), colab_cells.text(setup[0]["source"]))
        self.assertEqual([], setup[0]["outputs"])
        self.assertEqual(1, out["cells"].index(setup[0]))
        self.assertEqual(1, colab_cells.text(out["cells"][0]["source"]).count(colab_cells.COLAB_BADGE))

    def test_outputs_of_a_current_setup_cell_are_kept(self):
        once = colab_cells.update_notebook(self.small(), "x")
        once["cells"][1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "recorded"}]
        again = colab_cells.update_notebook(copy.deepcopy(once), "x")
        self.assertEqual(once["cells"][1]["outputs"], again["cells"][1]["outputs"])

    def test_the_python_part_is_what_java_sees_as_a_comment(self):
        source = colab_cells.setup_source()
        java = source.replace("\\u0022", '"')  # JShell translates unicode escapes first
        block_end = java.index('"""', 4)  # the text block opened on line 1 closes on line 3
        self.assertEqual(java.index(".lines().forEach(System.out::println); /*"), block_end + 3)
        comment = java[java.index("/*", block_end):]
        self.assertTrue(comment.endswith("*/") and comment.count("*/") == 1, comment)
        for line in source.splitlines():
            self.assertFalse(line.lstrip().startswith("%") or line.startswith("//"), line)
        self.assertNotIn("=%", source.replace(" ", ""))


class LessonsTest(unittest.TestCase):

    def test_every_lesson_and_the_readme_are_as_the_generator_writes_them(self):
        self.assertTrue(LESSONS)
        changes = colab_cells.planned_changes(LESSONS)
        self.assertEqual([], [os.path.relpath(p, ROOT) for p, _ in changes],
                         "run scripts/colab_cells.py (badges or set-up cell missing or outdated)")

    def test_every_lesson_has_its_badges_and_one_setup_cell_before_its_other_code(self):
        for path in LESSONS:
            name = colab_cells.lesson_name(path)
            nb = lesson(path)
            first_md = next(c for c in nb["cells"] if c["cell_type"] == "markdown")
            self.assertIn(colab_cells.colab_url(name), colab_cells.text(first_md["source"]), name)
            self.assertIn("colab.research.google.com/github/%s/blob/main/notebooks/%s.ipynb"
                          % (colab_cells.GITHUB_REPO, name), colab_cells.text(first_md["source"]), name)
            code = [c for c in nb["cells"] if c["cell_type"] == "code"]
            self.assertTrue(colab_cells.is_setup_cell(code[0]), name)
            self.assertEqual(1, sum(colab_cells.is_setup_cell(c) for c in code), name)

    def test_every_lesson_prints_its_settings_in_its_first_output(self):
        for path in LESSONS:
            cells = code_cells(lesson(path))
            printing = [c for c in cells[1:] if "System.out" in c or "display" in c]
            self.assertTrue(printing and "Settings.get().describe()" in printing[0], colab_cells.lesson_name(path))


class JarsTest(unittest.TestCase):

    def test_every_loaded_path_is_linked_for_colab_and_built(self):
        linked = shell_array(read("binder/colab-setup.sh"), "LINKED")
        self.assertTrue(linked, "binder/colab-setup.sh has no LINKED=(...) list")
        paths = loaded_paths()
        self.assertTrue(paths)
        for name, written in paths:
            parts = written.split("/")
            self.assertEqual("..", parts[0], "%s: %s is not relative to the repository (../X/...)" % (name, written))
            self.assertIn(parts[1], linked, "%s loads %s: colab-setup.sh does not link /%s" % (name, written, parts[1]))
            target = os.path.normpath(os.path.join(ROOT, "notebooks", written))
            self.assertTrue(os.path.isfile(target), "%s loads %s, which the build did not produce" % (name, written))
            if target.endswith(".jar"):
                self.check_manifest(target)
                self.check_built_by_module(parts[1], os.path.basename(target))

    def check_manifest(self, jar):
        with zipfile.ZipFile(jar) as z:
            manifest = z.read("META-INF/MANIFEST.MF").decode("utf-8")
        joined = re.sub(r"\r?\n ", "", manifest)  # continuation lines
        m = re.search(r"^Class-Path: (.*)$", joined, re.M)
        self.assertIsNotNone(m, "%s has no Class-Path" % jar)
        entries = m.group(1).split()
        self.assertTrue(entries)
        for entry in entries:
            self.assertTrue(os.path.exists(os.path.join(os.path.dirname(jar), entry)), "%s: %s missing" % (jar, entry))

    def check_built_by_module(self, module, jar_name):
        pom = read(os.path.join(module, "pom.xml"))
        self.assertIn("<finalName>%s</finalName>" % os.path.splitext(jar_name)[0], pom)
        self.assertIn("<module>%s</module>" % module, read("pom.xml"))
        for script in ("binder/colab-setup.sh", "binder/postBuild"):
            builds = [line for line in read(script).splitlines() if re.search(r"\bmvn\b.*\bpackage\b", line)]
            self.assertTrue(builds, "%s runs no mvn package" % script)
            for line in builds:
                self.assertNotRegex(line, r"\s-pl\s|--projects", "%s builds only some modules" % script)


class BinderTest(unittest.TestCase):

    def start_env(self):
        """The environment binder/start gives Jupyter (and so the kernel)."""
        env = {k: v for k, v in os.environ.items() if k not in ("JJAVA_JVM_OPTS", "FASHION_MNIST_DIR")}
        done = subprocess.run([os.path.join(ROOT, "binder", "start"), "env", "-0"], capture_output=True, env=env,
                              check=True)
        return dict(item.split("=", 1) for item in done.stdout.decode().split("\0") if "=" in item)

    def test_binder_defaults_are_what_a_lesson_prints_under_binder(self):
        start = read("binder/start")
        value = {k: re.search(r"^%s=(\d+)$" % k, start, re.M).group(1)
                 for k in ("BINDER_DATASET_LIMIT", "BINDER_MAX_EPOCH", "BINDER_SESSION_LIMIT")}
        opts = self.start_env()["JJAVA_JVM_OPTS"].split()
        jar = os.path.join(ROOT, "support-lib", "target", "d2l-multigpu.jar")
        with tempfile.TemporaryDirectory() as d:
            program = os.path.join(d, "PrintSettings.java")
            with open(program, "w") as f:
                f.write("public class PrintSettings { public static void main(String[] a) {"
                        " System.out.println(org.d2l.multigpu.data.Settings.get().describe()); } }")
            env = {k: v for k, v in os.environ.items()
                   if k not in ("DATASET_LIMIT", "MAX_EPOCH", "D2L_DEFAULTS", "D2L_SESSION_LIMIT")}
            done = subprocess.run(["java", *opts, "-cp", jar, program], capture_output=True, text=True, env=env)
        self.assertEqual(0, done.returncode, done.stderr)
        printed = done.stdout.strip()
        self.assertTrue(printed.startswith("DATASET_LIMIT=%s, MAX_EPOCH=%s (defaults of binder/start for this "
                                           "machine's " % (value["BINDER_DATASET_LIMIT"], value["BINDER_MAX_EPOCH"])),
                        printed)
        hours = int(value["BINDER_SESSION_LIMIT"]) // 3600
        self.assertIn("sessions of about %d h" % hours, printed)
        section = read("README.md").split("## Colab and Binder", 1)[1].split("\n## ", 1)[0]
        for stated in ("DATASET_LIMIT=%s" % value["BINDER_DATASET_LIMIT"], "MAX_EPOCH=%s" % value["BINDER_MAX_EPOCH"]):
            self.assertTrue(stated in section, "README's Colab and Binder section does not say %s" % stated)

    def test_jjava_is_the_same_release_on_colab_and_binder(self):
        colab = re.search(r"^JJAVA_VERSION=(\S+)", read("binder/colab-setup.sh"), re.M).group(1)
        binder = re.search(r"jjava==(\S+)", read("environment.yml")).group(1)
        self.assertEqual(colab, binder)

    def test_post_build_leaves_no_maven_cache(self):
        post = read("binder/postBuild")
        self.assertRegex(post, r'-Dmaven\.repo\.local="\$m2"')
        self.assertRegex(post, r"m2=\"\$\(mktemp -d\)\"")
        self.assertRegex(post, r"trap 'rm -rf \"\$m2\"' EXIT")

    def test_apt_packages_were_checked_against_the_base_image(self):
        packages = [line.split("#")[0].strip() for line in read("binder/apt.txt").splitlines()]
        for package in filter(None, packages):
            self.assertIn(package, CHECKED_FOR_BASE_IMAGE, "binder/apt.txt: %s not checked against repo2docker's "
                          "base image (a missing package fails the whole Binder build)" % package)


class SingleSourceTest(unittest.TestCase):
    # scripts that install or name the project's Debian packages; try-colab-binder.sh's containers stand
    # in for Colab's and Binder's own images, so only its JDK and data packages must come from the list
    READERS = ("Dockerfile", "binder/colab-setup.sh", "binder/postBuild", "binder/start", "scripts/setup.sh",
               "scripts/common.sh", "scripts/run-notebooks.sh", "scripts/serve.sh")

    @staticmethod
    def packages():
        script = ". scripts/debian-packages.sh && printf '%s\\n' \"$JDK_PACKAGE\" \"$DATASET_PACKAGE\" $JUPYTER_PACKAGES"
        done = subprocess.run(["sh", "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
        return done.stdout.split()

    @staticmethod
    def code_lines(path):
        """The lines of a script that are not comments (a # comment after code is cut off)."""
        return [re.sub(r"(^|\s)#.*", "", line) for line in read(path).splitlines()]

    def test_debian_packages_are_named_in_debian_packages_sh_only(self):
        packages = self.packages()
        self.assertIn("openjdk-17-jdk-headless", packages)
        for path in self.READERS:
            for line in self.code_lines(path):
                for package in packages:
                    self.assertNotRegex(line, r"(?<![\w.-])%s(?![\w.-])" % re.escape(package),
                                        "%s names %s itself: use scripts/debian-packages.sh" % (path, package))
        for line in self.code_lines("scripts/try-colab-binder.sh"):
            for package in packages[:2]:
                self.assertNotIn(package, line, "scripts/try-colab-binder.sh names %s itself" % package)

    def test_rapaio_version_is_pom_xml_s(self):
        pom = re.search(r"<rapaio\.version>([^<]+)</rapaio\.version>", read("pom.xml")).group(1)
        launcher = read("kernel-launcher/src/main/java/org/d2l/multigpu/kernel/KernelLauncher.java")
        self.assertEqual(pom, re.search(r'RAPAIO_VERSION = "([^"]+)"', launcher).group(1),
                         "KernelLauncher.RAPAIO_VERSION differs from pom.xml's rapaio.version")
        done = subprocess.run(["bash", "-c", '. scripts/common.sh && printf %s "$RAPAIO_VERSION"'], cwd=ROOT,
                              capture_output=True, text=True, check=True)
        self.assertEqual(pom, done.stdout)
        self.assertNotRegex(read("scripts/common.sh"), r"RAPAIO_VERSION=\d")


if __name__ == "__main__":
    unittest.main()
