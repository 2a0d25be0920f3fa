#!/usr/bin/python3
"""Puts the Colab and Binder badges and the Colab set-up cell into every lesson, and the badges into the README.

    scripts/colab_cells.py [--check] [NOTEBOOK.ipynb ...]

The one place that knows where the repository lives on GitHub is GITHUB_REPO below: the badges' links
and the set-up cell's `git clone` are made from it. Run this script again after changing it, after
adding a lesson, or after a lesson was edited or recorded elsewhere: it is idempotent (a second run
changes nothing), it replaces an older set-up cell or badge line instead of adding another, and it
keeps the outputs of a set-up cell whose source is already the current one. --check changes nothing
and exits 1 when a file is not as this script would write it (scripts/test_colab_binder.py runs it in CI).

Each lesson gets:
  * in its first markdown cell, right under the title, one line with an "Open in Colab" badge
    (https://colab.research.google.com/github/OWNER/REPO/blob/main/notebooks/NAME.ipynb) and a
    Binder badge (mybinder.org, JupyterLab opened on the lesson);
  * before its first code cell, the set-up cell (id and tag "colab-setup"; its source is hidden in
    JupyterLab by jupyter.source_hidden, and collapsed in Colab by cellView "form", Colab's metadata of a
    form cell, whose code Colab folds away; a form's "#@title" line is left out, as no Java kernel reads it).

The set-up cell is one text that three kernels read differently, so that "Run All" works everywhere:
  * IPython (a lesson opened from GitHub in Colab starts on Python) sees a string, then Python code that
    clones the repository and runs binder/colab-setup.sh, which ends by asking the learner to switch
    the runtime to Java. Outside Colab (no google.colab module, no COLAB_RELEASE_TAG) it only prints a
    line; D2L_COLAB_SETUP=1 forces the set-up (the simulation in scripts/try-colab-binder.sh).
  * Java (rapaio and JJava, JShell underneath) translates the \\u0022 escapes before anything else, so
    for Java the first string is a text block that closes on the third line; it prints the block's
    sentence, and the Python code after it sits in a /* ... */ comment that the last line closes.
  * Neither Java kernel sees a magic (no line starts with %, none follows an =), so rapaio does not
    mix magics and Java, and JJava has no undefined cell magic to fail on (a %%bash cell would run on
    rapaio and IPython but is an error on JJava, whose only cell magics are %%time and %%loadFromPOM).
Rules for the Python part: no "*/", no backslash-u, no "%", no line starting with "//".

Standard library only.
"""
import argparse
import glob
import json
import os
import re
import sys

# The repository on GitHub, "owner/name": the only place it is written (README and lessons are made from it).
GITHUB_REPO = "OWNER/REPO"
BRANCH = "main"
# Where the set-up cell clones the repository in Colab (/content is Colab's working folder).
COLAB_HOME = "/content/d2l-multigpu"

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CELL_ID = "colab-setup"
CELL_TAG = "colab-setup"
COLAB_BADGE = "https://colab.research.google.com/assets/colab-badge.svg"
BINDER_BADGE = "https://mybinder.org/badge_logo.svg"
README_BEGIN = "<!-- colab-binder-badges: made by scripts/colab_cells.py, do not edit -->"
README_END = "<!-- /colab-binder-badges -->"
README_ANCHOR = "## Notebooks"

JAVA_SENTENCE = ("Colab set-up cell: run under Python in Colab, it installs Java, the JJava kernel, "
                 "the jars and the data; on a Java kernel it does nothing.")

PYTHON_PART = '''import os, subprocess, sys
if "google.colab" in sys.modules or os.environ.get("COLAB_RELEASE_TAG") or os.environ.get("D2L_COLAB_SETUP"):
    if not os.path.isdir("{home}"):
        subprocess.run(["git", "clone", "--depth", "1", "https://github.com/{repo}.git", "{home}"], check=True)
    with subprocess.Popen(["bash", "{home}/binder/colab-setup.sh"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True) as setup:
        for line in setup.stdout:
            print(line, end="")
    if setup.returncode:
        raise RuntimeError("binder/colab-setup.sh failed (exit status " + str(setup.returncode) + "): see above")
else:
    print("Not on Colab: nothing to set up here. This is a Java lesson: run it on a Java kernel.")'''


def colab_url(name):
    return "https://colab.research.google.com/github/%s/blob/%s/notebooks/%s.ipynb" % (GITHUB_REPO, BRANCH, name)


def binder_url(name):
    return "https://mybinder.org/v2/gh/%s/%s?urlpath=lab/tree/notebooks/%s.ipynb" % (GITHUB_REPO, BRANCH, name)


def badges(name):
    """The badge line of lesson NAME (file name without .ipynb)."""
    return "[![Open In Colab](%s)](%s) [![Binder](%s)](%s)" % (COLAB_BADGE, colab_url(name), BINDER_BADGE,
                                                               binder_url(name))


def setup_source():
    """The set-up cell's text (see the module's docstring for how each kernel reads it)."""
    python = PYTHON_PART.format(home=COLAB_HOME, repo=GITHUB_REPO)
    for forbidden in ("*/", "\\u", "%"):
        if forbidden in python:
            raise ValueError("the Python part of the set-up cell must not contain %r" % forbidden)
    return '"""\n%s\n\\u0022\\u0022\\u0022.lines().forEach(System.out::println); /*\n"""\n%s\n# */' % (
        JAVA_SENTENCE, python)


def lines(text):
    """A notebook text field as nbformat writes it: a list of lines that keep their newlines."""
    return text.splitlines(keepends=True)


def text(value):
    return value if isinstance(value, str) else "".join(value)


def setup_cell():
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": CELL_ID,
        "metadata": {"cellView": "form", "jupyter": {"source_hidden": True}, "tags": [CELL_TAG]},
        "outputs": [],
        "source": lines(setup_source()),
    }


def is_setup_cell(cell):
    """This script's set-up cell, of this or an older version (by tag, id, or what it runs)."""
    return (CELL_TAG in cell.get("metadata", {}).get("tags", []) or cell.get("id") == CELL_ID
            or (cell.get("cell_type") == "code" and "binder/colab-setup.sh" in text(cell.get("source", ""))))


def is_badge_line(line):
    return COLAB_BADGE in line or BINDER_BADGE in line


def with_badges(markdown, name):
    """The first markdown cell's text with the badge line under its title (an older badge line is replaced)."""
    kept = [line for line in markdown.split("\n") if not is_badge_line(line)]
    title = kept[:1] if kept and kept[0].startswith("#") else []
    rest = kept[len(title):]
    while rest and not rest[0].strip():
        rest.pop(0)
    return "\n".join(title + ([""] if title else []) + [badges(name), ""] + rest)


def update_notebook(nb, name):
    """Returns NB with the badges and exactly one, current, set-up cell before the first other code cell."""
    cells = nb.get("cells", [])
    markdown = next((c for c in cells if c.get("cell_type") == "markdown"), None)
    if markdown is None:
        raise ValueError("%s has no markdown cell for the badges" % name)
    markdown["source"] = lines(with_badges(text(markdown["source"]), name))

    old = [c for c in cells if is_setup_cell(c)]
    current = next((c for c in old if text(c.get("source", "")) == setup_source()), None)
    cell = current if current is not None else setup_cell()
    cell["id"] = CELL_ID
    cell["metadata"] = dict(cell.get("metadata", {}), **setup_cell()["metadata"])
    cells = [c for c in cells if not is_setup_cell(c)]
    for other in cells:
        if other.get("id") == CELL_ID:
            raise ValueError("%s: another cell already has the id %r" % (name, CELL_ID))
    first_code = next((i for i, c in enumerate(cells) if c.get("cell_type") == "code"), len(cells))
    cells.insert(first_code, cell)
    nb["cells"] = cells
    return nb


def readme_block(names):
    rows = ["| lesson | Colab | Binder |", "|---|---|---|"]
    for name in names:
        rows.append("| [%s](notebooks/%s.ipynb) | [![Open In Colab](%s)](%s) | [![Binder](%s)](%s) |" % (
            name, name, COLAB_BADGE, colab_url(name), BINDER_BADGE, binder_url(name)))
    intro = ("Open a lesson on Colab or Binder (section \"Colab and Binder\" below says what each needs; "
             "all lessons on Binder: [![Binder](%s)](https://mybinder.org/v2/gh/%s/%s?urlpath=lab/tree/notebooks)):"
             % (BINDER_BADGE, GITHUB_REPO, BRANCH))
    return "\n".join([README_BEGIN, intro, ""] + rows + [README_END])


def update_readme(readme, names):
    """README with the badge table after the Notebooks section's lesson table (replacing an older one)."""
    block = readme_block(names)
    if README_BEGIN in readme:
        start = readme.index(README_BEGIN)
        end = readme.index(README_END, start) + len(README_END)
        return readme[:start] + block + readme[end:]
    at = readme.find(README_ANCHOR)
    if at < 0:
        raise ValueError("README.md has no %r section for the badge table" % README_ANCHOR)
    # after the first table of the section: its last line is the last "|" line of the first run of them
    table = re.compile(r"(?:^\|.*\n)+", re.M).search(readme, at)
    if table is None:
        raise ValueError("README.md: no lesson table under %r" % README_ANCHOR)
    return readme[:table.end()] + "\n" + block + "\n" + readme[table.end():]


def dumps(nb):
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"  # as nbformat writes


def lesson_name(path):
    return os.path.splitext(os.path.basename(path))[0]


def planned_changes(paths):
    """[(path, new text)] for every file that differs from what this script writes."""
    changes = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            before = f.read()
        after = dumps(update_notebook(json.loads(before), lesson_name(path)))
        if after != before:
            changes.append((path, after))
    readme = os.path.join(ROOT, "README.md")
    with open(readme, encoding="utf-8") as f:
        before = f.read()
    all_lessons = sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb")))
    after = update_readme(before, [lesson_name(p) for p in all_lessons])
    if after != before:
        changes.append((readme, after))
    return changes


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("notebooks", nargs="*", help="lessons to update (default: notebooks/*.ipynb)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file would change")
    args = parser.parse_args()
    paths = args.notebooks or sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb")))
    if not paths:
        print("no notebooks found in notebooks/")
        return 1
    try:
        changes = planned_changes(paths)
    except (OSError, ValueError) as e:
        print("error: %s" % e)
        return 2
    for path, new in changes:
        rel = os.path.relpath(path, ROOT)
        if args.check:
            print("not up to date: %s (run scripts/colab_cells.py)" % rel)
            continue
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write(new)
        os.replace(path + ".tmp", path)
        print("updated %s" % rel)
    if GITHUB_REPO == "OWNER/REPO":
        print("note: GITHUB_REPO in scripts/colab_cells.py is still the placeholder OWNER/REPO: "
              "set it to the repository's owner/name and run this script again")
    if not changes:
        print("%d lesson(s) and README.md up to date" % len(paths))
    return 1 if args.check and changes else 0


if __name__ == "__main__":
    sys.exit(main())
