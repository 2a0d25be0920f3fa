#!/usr/bin/python3
"""Checks that the lessons, the kernels' set-ups (local, Colab, Binder) and the build agree, and tests
scripts/lesson_links.py.

    /usr/bin/python3 scripts/test_colab_binder.py     (scripts/test.sh runs it, after the build)

* the generator (scripts/lesson_links.py) on small notebooks: idempotent, badges when the repository is
  known, no made-up address and the how-to instead when it is not, the collapsed steps at the end of the
  first cell, old Colab set-up cells removed and nothing else changed, --check's exit status;
* every lesson (and the README's block between its markers, when it has them) is as the generator
  writes it, with the repository the lessons name; no lesson loads a jar or a file itself (%jars,
  %classpath, %load);
* every kernel set-up puts the Spark jar on the kernel's class path: the rapaio kernelspec that
  scripts/setup.sh writes (RJK_CLASSPATH), Binder's binder/start (JJAVA_CLASSPATH), Colab's
  binder/colab-setup.sh (JJAVA_CLASSPATH in the real kernel's kernelspec, behind the ipc proxy); that
  jar's manifest Class-Path lists the support jar (the same bytes as support-lib's) and every entry is
  there; binder/postBuild and colab-setup.sh build every module;
* binder/start's defaults are what a lesson prints under Binder: binder/start is run, the JVM options it
  exports are given to a JVM that prints Settings.get().describe() from the built jar, as every lesson's
  first output does, and the README states the same defaults;
* JJava is pinned to the same release for Colab and Binder; postBuild keeps no Maven cache; every
  package in binder/apt.txt was checked against repo2docker's base image (CHECKED_FOR_BASE_IMAGE);
* the Debian packages are named in scripts/debian-packages.sh only (the Dockerfile, setup.sh and the
  Colab and Binder scripts read it), and rapaio's version in pom.xml only (plus the launcher's constant,
  checked equal).

Standard library only; needs a JDK on PATH and scripts/setup.sh run (the jars and the kernelspec).
"""
import copy
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.dont_write_bytecode = True  # no scripts/__pycache__ left in the checkout
import lesson_links  # noqa: E402

LESSONS = sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb")))
README = os.path.join(ROOT, "README.md")
LOADS = re.compile(r"^\s*%(jars|classpath|load)\b.*$", re.M)
SPARK_JAR = os.path.join(ROOT, "spark-lib", "target", "d2l-spark.jar")
SUPPORT_JAR = os.path.join(ROOT, "support-lib", "target", "d2l-multigpu.jar")
# Packages of binder/apt.txt known to exist in the Ubuntu release of repo2docker's base image, with how
# that was checked. Empty: see binder/apt.txt.
CHECKED_FOR_BASE_IMAGE = {}


def read(relative):
    with open(os.path.join(ROOT, relative), encoding="utf-8") as f:
        return f.read()


def code_cells(nb):
    return [lesson_links.text(c.get("source", "")) for c in nb["cells"] if c.get("cell_type") == "code"]


def lesson(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def first_markdown(nb):
    return lesson_links.text(next(c for c in nb["cells"] if c["cell_type"] == "markdown")["source"])


def manifest_class_path(jar):
    with zipfile.ZipFile(jar) as z:
        manifest = z.read("META-INF/MANIFEST.MF").decode("utf-8")
    joined = re.sub(r"\r?\n ", "", manifest)  # continuation lines
    m = re.search(r"^Class-Path: (.*)$", joined, re.M)
    return m.group(1).split() if m else []


class GeneratorTest(unittest.TestCase):
    """scripts/lesson_links.py on a small notebook."""
    REPO = "someone/d2l-multigpu"

    def small(self):
        return {"cells": [{"cell_type": "markdown", "id": "m", "metadata": {}, "source": ["# Title\n", "\n", "Text."]},
                          {"cell_type": "code", "id": "j", "metadata": {}, "execution_count": 1, "outputs": [],
                           "source": ["int x = 1;"]},
                          {"cell_type": "markdown", "id": "n", "metadata": {}, "source": ["## Next"]}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}

    def run_on(self, nb, repo, name="x"):
        return lesson_links.update_notebook(copy.deepcopy(nb), name, repo)

    def test_a_second_run_changes_nothing_and_a_new_address_replaces_the_old(self):
        for repo in (None, self.REPO):
            once = self.run_on(self.small(), repo)
            self.assertEqual(lesson_links.dumps(once), lesson_links.dumps(self.run_on(once, repo)), repo)
            self.assertEqual(["m", "j", "n"], [c["id"] for c in once["cells"]])
        unknown = self.run_on(self.small(), None)
        there_and_back = self.run_on(self.run_on(unknown, self.REPO), None)
        self.assertEqual(lesson_links.dumps(unknown), lesson_links.dumps(there_and_back))

    def test_known_repository_gives_badges_under_the_title_and_its_address_in_the_colab_line(self):
        md = lesson_links.text(self.run_on(self.small(), self.REPO)["cells"][0]["source"])
        lines = md.split("\n")
        self.assertEqual(["# Title", "", lesson_links.badges(self.REPO, "x"), "", "Text.", ""], lines[:6])
        self.assertIn("](https://colab.research.google.com/github/%s/blob/main/notebooks/x.ipynb)" % self.REPO, md)
        self.assertIn("](https://mybinder.org/v2/gh/%s/main?urlpath=lab/tree/notebooks/x.ipynb)" % self.REPO, md)
        self.assertIn("   !git clone --depth 1 https://github.com/%s /content/d2l-multigpu && bash "
                      "/content/d2l-multigpu/binder/colab-setup.sh\n" % self.REPO, md)
        self.assertNotIn(lesson_links.PLACEHOLDER, md)

    def test_unknown_repository_gives_no_made_up_address_but_how_to_find_one(self):
        md = lesson_links.text(self.run_on(self.small(), None)["cells"][0]["source"])
        readme = lesson_links.readme_block(None, ["x"])
        for text in (md, readme):
            self.assertNotIn("OWNER/REPO", text)
            self.assertNotIn("](http", text)  # no link at all, so none to a made-up address
            self.assertNotIn(lesson_links.COLAB_BADGE, text)
            self.assertIn("find this project's repository on github", text.lower())
            self.assertIn("`https://colab.research.google.com/github/<owner>/<name>/blob/main/notebooks/", text)
            self.assertIn("mybinder.org", text)
        self.assertEqual(["# Title", "", lesson_links.UNKNOWN_LINE, "", "Text."], md.split("\n")[:5])
        self.assertIn("   !git clone --depth 1 https://github.com/<owner>/<name> /content/d2l-multigpu && bash "
                      "/content/d2l-multigpu/binder/colab-setup.sh\n", md)
        self.assertIn("`notebooks/x.ipynb`", md)

    def test_the_first_cell_ends_with_the_collapsed_steps(self):
        for repo in (None, self.REPO):
            md = lesson_links.text(self.run_on(self.small(), repo)["cells"][0]["source"])
            steps = md[md.index("\n\n<details><summary>"):]
            self.assertTrue(steps.endswith("\n\n</details>"), steps)
            self.assertEqual(1, md.count("<details"))
            for step in ("Insert a code cell at the top", "Runtime > Change runtime type > java",
                         "Delete the cell you inserted, then Runtime > Run all", "**Binder**"):
                self.assertIn(step, steps)

    def test_old_setup_cells_are_removed_and_nothing_else_changes(self):
        nb = self.small()
        nb["cells"][1:1] = [
            {"cell_type": "code", "id": "a", "metadata": {"tags": ["colab-setup"]}, "outputs": [], "source": ["x"]},
            {"cell_type": "code", "id": "colab-setup", "metadata": {}, "outputs": [], "source": ["y"]},
            {"cell_type": "code", "id": "b", "metadata": {}, "outputs": [],
             "source": ["!bash /content/d2l-multigpu/binder/colab-setup.sh"]}]
        nb["cells"].append({"cell_type": "markdown", "id": "c", "metadata": {},
                            "source": ["binder/colab-setup.sh is mentioned here"]})
        out = self.run_on(nb, None)
        self.assertEqual(["m", "j", "n", "c"], [c["id"] for c in out["cells"]])
        self.assertEqual(nb["cells"][4:], out["cells"][1:])
        self.assertEqual(lesson_links.dumps(out), lesson_links.dumps(self.run_on(out, None)))

    def test_older_badges_and_an_author_s_own_details_block(self):
        nb = self.small()
        nb["cells"][0]["source"] = ["# Title\n", "[![Open In Colab](%s)](old)\n" % lesson_links.COLAB_BADGE, "Text.\n",
                                    "\n", "<details><summary>More</summary>\n", "\n", "Mine.\n", "\n", "</details>"]
        md = lesson_links.text(self.run_on(nb, self.REPO)["cells"][0]["source"])
        self.assertEqual(1, md.count(lesson_links.COLAB_BADGE))
        self.assertNotIn("(old)", md)
        self.assertIn("<details><summary>More</summary>\n\nMine.\n\n</details>\n\n<details><summary>%s"
                      % lesson_links.SUMMARY, md)

    def test_repository_address(self):
        for url in ("https://github.com/o-1/n.x", "https://github.com/o-1/n.x.git", "git@github.com:o-1/n.x.git",
                    "ssh://git@github.com/o-1/n.x", "https://user@github.com/o-1/n.x/\n"):
            self.assertEqual("o-1/n.x", lesson_links.github_repo(url), url)
        for url in ("https://gitlab.com/o/n", "/srv/git/n.git", "https://github.com/o", ""):
            self.assertIsNone(lesson_links.github_repo(url), url)
        self.assertEqual("o/n", lesson_links.repository("o/n"))
        self.assertEqual("o/n", lesson_links.repository("https://github.com/o/n.git"))
        with self.assertRaises(ValueError):
            lesson_links.repository("not a repository")
        with tempfile.TemporaryDirectory() as d:
            subprocess.run(["git", "init", "-q", d], check=True)
            self.assertIsNone(lesson_links.repository(None, d))
            subprocess.run(["git", "-C", d, "remote", "add", "origin", "git@github.com:o/n.git"], check=True)
            self.assertEqual("o/n", lesson_links.repository(None, d))
            self.assertEqual("p/q", lesson_links.repository("p/q", d))

    def script(self, *args):
        return subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "lesson_links.py"), *args],
                              capture_output=True, text=True)

    def test_check_exits_1_until_the_files_are_written_and_a_readme_without_markers_is_left_alone(self):
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "notebooks"))
            lesson_file = os.path.join(d, "notebooks", "x.ipynb")
            with open(lesson_file, "w", encoding="utf-8") as f:
                f.write(lesson_links.dumps(self.small()))
            readme = os.path.join(d, "README.md")
            with open(readme, "w", encoding="utf-8") as f:
                f.write("# R\n\n%s\nold\n%s\n\nEnd.\n" % (lesson_links.README_BEGIN, lesson_links.README_END))
            args = ["--repo", self.REPO, "--readme", readme, lesson_file]
            before = [read(lesson_file), read(readme)]
            checked = self.script("--check", *args)
            self.assertEqual(1, checked.returncode, checked.stdout + checked.stderr)
            self.assertEqual(before, [read(lesson_file), read(readme)])
            self.assertEqual(0, self.script(*args).returncode)
            checked = self.script("--check", *args)
            self.assertEqual(0, checked.returncode, checked.stdout + checked.stderr)
            text = read(readme)
            self.assertTrue(text.startswith("# R\n\n%s\n" % lesson_links.README_BEGIN), text)
            self.assertTrue(text.endswith("\n%s\n\nEnd.\n" % lesson_links.README_END), text)
            self.assertIn("| [x](notebooks/x.ipynb) | [![Open In Colab]", text)
            self.assertEqual(lesson_links.dumps(json.loads(read(lesson_file))), read(lesson_file))
            with open(readme, "w", encoding="utf-8") as f:
                f.write("# R without markers\n")
            done = self.script(*args)
            self.assertEqual(0, done.returncode, done.stdout + done.stderr)
            self.assertIn("has no lines %s and %s" % (lesson_links.README_BEGIN, lesson_links.README_END), done.stdout)
            self.assertEqual("# R without markers\n", read(readme))


class LessonsTest(unittest.TestCase):

    def test_every_lesson_and_the_readme_are_as_the_generator_writes_them(self):
        self.assertTrue(LESSONS)
        repos = lesson_links.repos_in_lessons(LESSONS)
        self.assertLessEqual(len(repos), 1, "the lessons link to different repositories: %s" % sorted(repos))
        repo = next(iter(repos), None)
        notes = []
        stale = lesson_links.stale_files(LESSONS, repo, README, check=True, out=notes.append)
        self.assertEqual([], [os.path.relpath(p, ROOT) for p in stale],
                         "run scripts/lesson_links.py%s (links or steps missing or outdated)"
                         % (" --repo " + repo if repo else ""))
        for note in notes:
            print("\n" + note, file=sys.stderr)

    def test_no_lesson_names_a_placeholder_repository(self):
        for path in LESSONS:
            with open(path, encoding="utf-8") as f:
                self.assertFalse("OWNER/REPO" in f.read(), "%s names OWNER/REPO" % os.path.basename(path))

    def test_no_lesson_loads_a_jar_or_a_file_itself(self):
        for path in LESSONS:
            for source in code_cells(lesson(path)):
                self.assertEqual([], [m.group(0) for m in LOADS.finditer(source)],
                                 "%s: the kernel's class path brings the jars" % os.path.basename(path))

    def test_every_lesson_prints_its_settings_in_its_first_output(self):
        for path in LESSONS:
            printing = [c for c in code_cells(lesson(path)) if "System.out" in c or "display" in c]
            self.assertTrue(printing and "Settings.get().describe()" in printing[0], lesson_links.lesson_name(path))


class KernelClassPathTest(unittest.TestCase):
    """Every kernel set-up puts the Spark jar on the kernel's class path; its manifest brings the rest."""

    def test_the_spark_jar_lists_the_support_jar_and_every_entry_is_there(self):
        self.assertTrue(os.path.isfile(SPARK_JAR), "%s missing: run scripts/setup.sh" % SPARK_JAR)
        entries = manifest_class_path(SPARK_JAR)
        self.assertTrue(entries, "%s has no Class-Path" % SPARK_JAR)
        for entry in entries:
            self.assertTrue(os.path.exists(os.path.join(os.path.dirname(SPARK_JAR), entry)),
                            "%s: %s missing" % (SPARK_JAR, entry))
        support = [e for e in entries if re.fullmatch(r"lib/d2l-multigpu-[^/]+\.jar", e)]
        self.assertEqual(1, len(support), "the Spark jar's Class-Path does not list the support jar: %s" % entries)
        with open(os.path.join(os.path.dirname(SPARK_JAR), support[0]), "rb") as a, open(SUPPORT_JAR, "rb") as b:
            self.assertTrue(a.read() == b.read(), "spark-lib/target/%s is not support-lib's jar: the kernel would run "
                            "older code (build both modules: mvn package)" % support[0])

    def test_rapaio_kernelspec_of_setup_sh(self):
        spec_file = os.path.join(ROOT, "build", "jupyter", "kernels", "java", "kernel.json")
        self.assertTrue(os.path.isfile(spec_file), "%s missing: run scripts/setup.sh" % spec_file)
        with open(spec_file) as f:
            classpath = json.load(f).get("env", {}).get("RJK_CLASSPATH", "")
        self.assertIn(SPARK_JAR, classpath.split(";"), "scripts/setup.sh's kernelspec: RJK_CLASSPATH=%s" % classpath)

    def test_binder_start(self):
        classpath = BinderTest.start_env()["JJAVA_CLASSPATH"]
        self.assertEqual(SPARK_JAR, classpath.split(":")[0], "binder/start: JJAVA_CLASSPATH=%s" % classpath)

    def test_colab_setup_writes_it_into_the_real_kernel_s_kernelspec_behind_the_proxy(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "kernel.json"), "w") as f:
                json.dump({"argv": ["java", "-jar", "{resource_dir}/jjava-launcher.jar", "{connection_file}"],
                           "display_name": "Java", "language": "java", "env": {}}, f)
            script = os.path.join(ROOT, "binder", "colab-setup.sh")
            subprocess.run(["bash", "-c", '. "$1" && kernel_env "$2"', "-", script, d], check=True, cwd=d, timeout=60)
            with open(os.path.join(d, "kernel.json")) as f:
                env = json.load(f)["env"]
        # the script's checkout: /content/d2l-multigpu on Colab, where the lessons' line clones it
        self.assertEqual(SPARK_JAR, env.get("JJAVA_CLASSPATH"))
        self.assertIn("-Xss4m", env.get("JJAVA_JVM_OPTS", ""))
        line = lesson_links.colab_line(None)
        self.assertRegex(line, r"^!git clone --depth 1 \S+ %s && bash %s/binder/colab-setup\.sh$"
                         % (re.escape(lesson_links.COLAB_HOME), re.escape(lesson_links.COLAB_HOME)))
        # into java_tcp's kernelspec, after the proxy's installer has moved the real kernel there
        script = read("binder/colab-setup.sh")
        proxy = script.index("install_ipc_proxy_kernel.py --kernel=java")
        self.assertRegex(script[proxy:], r'real="\$\(kernel_dir java_tcp\)"\n(?:.*\n)*?kernel_env "\$real"\n')

    def test_colab_and_binder_build_both_jars(self):
        for module, jar in (("support-lib", SUPPORT_JAR), ("spark-lib", SPARK_JAR)):
            pom = read(os.path.join(module, "pom.xml"))
            self.assertIn("<finalName>%s</finalName>" % os.path.splitext(os.path.basename(jar))[0], pom)
            self.assertIn("<module>%s</module>" % module, read("pom.xml"))
        for script in ("binder/colab-setup.sh", "binder/postBuild"):
            builds = [line for line in read(script).splitlines() if re.search(r"\bmvn\b.*\bpackage\b", line)]
            self.assertTrue(builds, "%s runs no mvn package" % script)
            for line in builds:
                self.assertNotRegex(line, r"\s-pl\s|--projects", "%s builds only some modules" % script)


class BinderTest(unittest.TestCase):

    @staticmethod
    def start_env():
        """The environment binder/start gives Jupyter (and so the kernel)."""
        env = {k: v for k, v in os.environ.items()
               if k not in ("JJAVA_JVM_OPTS", "JJAVA_CLASSPATH", "FASHION_MNIST_DIR")}
        done = subprocess.run([os.path.join(ROOT, "binder", "start"), "env", "-0"], capture_output=True, env=env,
                              check=True)
        return dict(item.split("=", 1) for item in done.stdout.decode().split("\0") if "=" in item)

    def test_binder_defaults_are_what_a_lesson_prints_under_binder(self):
        start = read("binder/start")
        value = {k: re.search(r"^%s=(\d+)$" % k, start, re.M).group(1)
                 for k in ("BINDER_DATASET_LIMIT", "BINDER_MAX_EPOCH", "BINDER_SESSION_LIMIT")}
        start_env = self.start_env()
        opts = start_env["JJAVA_JVM_OPTS"].split()
        with tempfile.TemporaryDirectory() as d:
            program = os.path.join(d, "PrintSettings.java")
            with open(program, "w") as f:
                f.write("public class PrintSettings { public static void main(String[] a) {"
                        " System.out.println(org.d2l.multigpu.data.Settings.get().describe()); } }")
            env = {k: v for k, v in os.environ.items()
                   if k not in ("DATASET_LIMIT", "MAX_EPOCH", "D2L_DEFAULTS", "D2L_SESSION_LIMIT")}
            # the kernel's class path under Binder: the Spark jar, whose manifest brings the support jar
            done = subprocess.run(["java", *opts, "-cp", start_env["JJAVA_CLASSPATH"], program], capture_output=True,
                                  text=True, env=env)
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
