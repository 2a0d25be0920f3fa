#!/usr/bin/python3
"""Writes into every lesson and into the README how to open the lessons on Colab and Binder.

    scripts/lesson_links.py [--check] [--repo OWNER/NAME] [--readme FILE] [NOTEBOOK.ipynb ...]

The repository's address on GitHub comes from one place, repository() below: --repo OWNER/NAME (or a
GitHub URL) when given, else `git remote get-url origin` when that is a GitHub URL, else it is unknown.
Nothing is ever written with a made-up address: when it is unknown, the lessons and the README say how
to find the repository and what to open there instead of linking to it.

Each lesson's first markdown cell gets
  * right under its title, one line: an "Open in Colab" badge and a Binder badge (JupyterLab opened on
    the lesson) when the address is known, else a sentence pointing to the steps below;
  * at its end, a collapsed <details> block with the few steps: on Colab, open the lesson, run one line
    in a code cell inserted at the top (it clones the repository to /content/d2l-multigpu and runs
    binder/colab-setup.sh), switch the runtime to java, delete that cell and run all; on Binder, the
    badge, or mybinder.org with the repository's address and the lesson's path.
Code cells that set Colab up inside a lesson (id or tag "colab-setup", or code that runs
binder/colab-setup.sh) are removed: a lesson needs no set-up cell, its kernel has the jars on its class
path. Nothing else in a lesson changes, and each lesson is read again right before it is written, so
that edits made to its other cells in the meantime are kept.

In the README only the text between the lines README_BEGIN and README_END (below) is written: a table
of the lessons with their badges, or how to open a lesson without them. A README without these two
markers is left as it is, with a note.

Run it again after adding a lesson or changing the address: a second run changes nothing. --check
changes nothing and exits 1 when a file is not as this script writes it.

Standard library only.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys

BRANCH = "main"
LESSON_DIR = "notebooks"  # lessons' folder, relative to the repository's root
# Where the Colab line clones the repository (/content is Colab's working folder).
COLAB_HOME = "/content/d2l-multigpu"
COLAB_SETUP = "binder/colab-setup.sh"

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLAB_BADGE = "https://colab.research.google.com/assets/colab-badge.svg"
BINDER_BADGE = "https://mybinder.org/badge_logo.svg"
README_BEGIN = "<!-- lesson-links -->"
README_END = "<!-- /lesson-links -->"
# id or tag of a Colab set-up cell inside a lesson, which is removed
OLD_SETUP_CELL = "colab-setup"

SUMMARY = "Run this lesson on Colab or Binder"
PLACEHOLDER = "<owner>/<name>"
# The line under the title when the address is unknown; a line starting so is this script's
UNKNOWN_LINE_START = "**On Colab or Binder:**"
UNKNOWN_LINE = (UNKNOWN_LINE_START + " open this lesson from the project's repository on GitHub, as the steps "
                "at the end of this cell say.")

_OWNER = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_NAME = r"[A-Za-z0-9._-]+?"
GITHUB_URL = re.compile(r"^(?:(?:https?|ssh|git)://(?:[^@/]+@)?github\.com/|git@github\.com:)(%s)/(%s)(?:\.git)?/?$"
                        % (_OWNER, _NAME))
REPO_NAME = re.compile(r"^%s/[A-Za-z0-9._-]+$" % _OWNER)
# a <details> block (this script's holds the Colab line, so it names binder/colab-setup.sh)
DETAILS = re.compile(r"^[ \t]*<details>.*?</details>[ \t]*$", re.S | re.M)
COLAB_LINK = re.compile(r"colab\.research\.google\.com/github/(%s/[A-Za-z0-9._-]+)/blob/" % _OWNER)


# --- the repository's address --------------------------------------------------------------------
def github_repo(url):
    """owner/name of a GitHub URL (https, ssh or scp-like), else None."""
    m = GITHUB_URL.match(url.strip())
    return "%s/%s" % m.groups() if m else None


def origin_repo(root=ROOT):
    """owner/name of the checkout's remote origin when it is on GitHub, else None."""
    try:
        done = subprocess.run(["git", "-C", root, "remote", "get-url", "origin"], capture_output=True, text=True,
                              timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return github_repo(done.stdout) if done.returncode == 0 else None


def repository(explicit=None, root=ROOT):
    """The repository on GitHub as owner/name, or None when unknown: EXPLICIT (--repo), else origin's."""
    if explicit:
        repo = github_repo(explicit) or explicit.strip()
        if not REPO_NAME.match(repo):
            raise ValueError("--repo %r is neither owner/name nor a GitHub URL" % explicit)
        return repo
    return origin_repo(root)


# --- what a lesson gets ---------------------------------------------------------------------------
def lesson_path(name):
    return "%s/%s.ipynb" % (LESSON_DIR, name)


def colab_url(repo, name):
    return "https://colab.research.google.com/github/%s/blob/%s/%s" % (repo, BRANCH, lesson_path(name))


def binder_url(repo, name=None):
    """mybinder.org launching REPO with JupyterLab on lesson NAME (None: the lessons' folder)."""
    return "https://mybinder.org/v2/gh/%s/%s?urlpath=lab/tree/%s" % (
        repo, BRANCH, lesson_path(name) if name else LESSON_DIR)


def badges(repo, name):
    return "[![Open In Colab](%s)](%s) [![Binder](%s)](%s)" % (COLAB_BADGE, colab_url(repo, name), BINDER_BADGE,
                                                               binder_url(repo, name))


def colab_line(repo):
    """The line a learner runs in Colab's Python runtime before switching it to java."""
    return "!git clone --depth 1 https://github.com/%s %s && bash %s/%s" % (
        repo or PLACEHOLDER, COLAB_HOME, COLAB_HOME, COLAB_SETUP)


def title_line(repo, name):
    """The line under the lesson's title."""
    return badges(repo, name) if repo else UNKNOWN_LINE


def details(repo, name):
    """The collapsed block at the end of the lesson's first cell: the steps on Colab and on Binder."""
    steps = ["<details><summary>%s</summary>" % SUMMARY, ""]
    if repo is None:
        steps += ["Find this project's repository on GitHub; below, `%s` stands for the part of its address "
                  "after `https://github.com/`." % PLACEHOLDER, ""]
    steps += ["**Colab**", ""]
    if repo:
        steps += ["1. Open this lesson in Colab: the \"Open in Colab\" badge above.",
                  "2. Insert a code cell at the top (Insert > Code cell), put this line in it and run it. It installs",
                  "   Java, the Java kernel, the lessons' jars and the data (several minutes):"]
    else:
        steps += ["1. Open `%s`." % colab_url(PLACEHOLDER, name),
                  "2. Insert a code cell at the top (Insert > Code cell), put this line in it with `%s` replaced,"
                  % PLACEHOLDER,
                  "   and run it. It installs Java, the Java kernel, the lessons' jars and the data (several minutes):"]
    steps += ["   ```", "   " + colab_line(repo), "   ```",
              "3. Runtime > Change runtime type > java > Save.",
              "4. Delete the cell you inserted, then Runtime > Run all.", ""]
    if repo:
        steps += ["**Binder**: the Binder badge above opens this lesson in JupyterLab with everything installed",
                  "(1 CPU and 2 GB; a first launch builds the image, which takes a while)."]
    else:
        steps += ["**Binder**: on mybinder.org, enter the repository's address and, as the notebook file to open,",
                  "`%s`, then launch: JupyterLab opens this lesson with everything installed (1 CPU and 2 GB;"
                  % lesson_path(name),
                  "a first launch builds the image, which takes a while)."]
    limit, epochs = binder_defaults()
    steps += ["There a run is smaller (%s images, at most %s epochs) on one CPU core: a claim that such a run cannot"
              % ("{:,}".format(limit), epochs),
              "show prints as not checked, and says why ([how the lessons check their claims]"
              "(../README.md#how-the-lessons-check-their-claims))."]
    return "\n".join(steps + ["", "</details>"])


def binder_defaults():
    """Binder's DATASET_LIMIT and MAX_EPOCH, as binder/start sets them."""
    with open(os.path.join(ROOT, "binder", "start"), encoding="utf-8") as f:
        text = f.read()
    found = [re.search(r"^%s=(\d+)$" % name, text, re.M) for name in ("BINDER_DATASET_LIMIT", "BINDER_MAX_EPOCH")]
    if not all(found):
        sys.exit("binder/start sets no BINDER_DATASET_LIMIT or BINDER_MAX_EPOCH: say there what a Binder run uses")
    return int(found[0].group(1)), int(found[1].group(1))


def is_generated_line(line):
    return COLAB_BADGE in line or BINDER_BADGE in line or line.startswith(UNKNOWN_LINE_START)


def first_cell_text(markdown, repo, name):
    """The first markdown cell's text with this script's line under its title and its steps at its end
    (replacing those of an earlier run, whatever the address was then)."""
    kept = DETAILS.sub(lambda m: "" if COLAB_SETUP in m.group(0) else m.group(0), markdown)
    kept = [line for line in kept.split("\n") if not is_generated_line(line)]
    title = kept[:1] if kept and kept[0].startswith("#") else []
    rest = kept[len(title):]
    while rest and not rest[0].strip():
        rest.pop(0)
    while rest and not rest[-1].strip():
        rest.pop()
    return "\n".join(title + ([""] if title else []) + [title_line(repo, name), ""] + rest
                     + ([""] if rest else []) + [details(repo, name)])


def lines(text):
    """A notebook text field as nbformat writes it: a list of lines that keep their newlines."""
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def text(value):
    return value if isinstance(value, str) else "".join(value)


def is_old_setup_cell(cell):
    """A Colab set-up cell inside a lesson (by tag, id, or what it runs)."""
    return (OLD_SETUP_CELL in cell.get("metadata", {}).get("tags", []) or cell.get("id") == OLD_SETUP_CELL
            or (cell.get("cell_type") == "code" and COLAB_SETUP in text(cell.get("source", ""))))


def update_notebook(nb, name, repo):
    """NB with the links and steps in its first markdown cell and no old set-up cell; nothing else changes."""
    nb["cells"] = [c for c in nb.get("cells", []) if not is_old_setup_cell(c)]
    markdown = next((c for c in nb["cells"] if c.get("cell_type") == "markdown"), None)
    if markdown is None:
        raise ValueError("%s has no markdown cell for the links" % name)
    before = text(markdown.get("source", ""))
    after = first_cell_text(before, repo, name)
    if after != before:  # an unchanged cell keeps its source as it is stored
        markdown["source"] = lines(after)
    return nb


def dumps(nb):
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"  # as nbformat writes


def lesson_name(path):
    return os.path.splitext(os.path.basename(path))[0]


def notebook_text(before, name, repo):
    return dumps(update_notebook(json.loads(before), name, repo))


def first_markdown(path):
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    return next((text(c["source"]) for c in nb.get("cells", []) if c.get("cell_type") == "markdown"), "")


def repos_in_lessons(paths):
    """The repositories the lessons' Colab badges link to (empty when they have none)."""
    return {m.group(1) for path in paths for m in COLAB_LINK.finditer(first_markdown(path))}


# --- the README -----------------------------------------------------------------------------------
def readme_block(repo, names):
    if repo is None:
        return ("To open a lesson on Colab or Binder, find this project's repository on GitHub; below, `%s` "
                "stands for the part of its address after `https://github.com/`, and `NAME` for the lesson's file "
                "name in `%s/`. Colab opens it from `%s`; on mybinder.org, enter the repository's address and, "
                "as the notebook file to open, `%s`. The steps at the end of each lesson's first cell say what "
                "Colab needs before the lesson runs."
                % (PLACEHOLDER, LESSON_DIR, colab_url(PLACEHOLDER, "NAME"), lesson_path("NAME")))
    rows = ["| lesson | Colab | Binder |", "|---|---|---|"]
    for name in names:
        rows.append("| [%s](%s) | [![Open In Colab](%s)](%s) | [![Binder](%s)](%s) |" % (
            name, lesson_path(name), COLAB_BADGE, colab_url(repo, name), BINDER_BADGE, binder_url(repo, name)))
    intro = ("Each lesson opens on Colab or Binder from its badge (the steps at the end of a lesson's first cell "
             "say what Colab needs before the lesson runs); all lessons on Binder: [![Binder](%s)](%s)"
             % (BINDER_BADGE, binder_url(repo)))
    return "\n".join([intro, ""] + rows)


def readme_order(readme, names):
    """NAMES in the order the README first names their files (outside the block), the others after them."""
    begin, end = readme.find(README_BEGIN), readme.find(README_END)
    outside = readme[:begin] + readme[end:] if 0 <= begin < end else readme

    def key(name):
        at = outside.find(lesson_path(name))
        return (at < 0, at, name)
    return sorted(names, key=key)


def readme_text(readme, repo, names):
    """README with the block between the markers written, or None when it has no markers."""
    begin = readme.find(README_BEGIN)
    end = readme.find(README_END, begin + 1) if begin >= 0 else -1
    if end < 0:
        return None
    block = readme_block(repo, readme_order(readme, names))
    return readme[:begin + len(README_BEGIN)] + "\n" + block + "\n" + readme[end:]


# --- files ----------------------------------------------------------------------------------------
def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def sync(path, transform, check=False):
    """Makes PATH what TRANSFORM(its text) returns (with CHECK only tells whether it is). Returns True when
    it was not, None when TRANSFORM returns None (nothing to do). The file is read again right before it is
    replaced: if someone changed it meanwhile, the new text is transformed instead."""
    for _ in range(10):
        before = read(path)
        after = transform(before)
        if after is None:
            return None
        if after == before:
            return False
        if check:
            return True
        if read(path) != before:
            continue
        tmp = path + ".lesson-links.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(after)
        shutil.copymode(path, tmp)
        os.replace(tmp, path)
        return True
    raise ValueError("%s changed every time it was about to be written" % path)


def lessons_of(readme):
    return sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(readme)), LESSON_DIR, "*.ipynb")))


def stale_files(paths, repo, readme, check=True, out=print):
    """Brings the lessons PATHS and README up to date (with CHECK: only finds them); returns those that were not."""
    stale = []
    for path in paths:
        name = lesson_name(path)
        if sync(path, lambda before: notebook_text(before, name, repo), check):
            stale.append(path)
    if os.path.isfile(readme):
        names = [lesson_name(p) for p in lessons_of(readme)]
        found = sync(readme, lambda before: readme_text(before, repo, names), check)
        if found is None:
            out("note: %s has no lines %s and %s: its lesson links were not written (put the two lines where "
                "they belong and run this script again)" % (os.path.relpath(readme), README_BEGIN, README_END))
        elif found:
            stale.append(readme)
    return stale


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("notebooks", nargs="*", help="lessons to update (default: notebooks/*.ipynb)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file is not up to date")
    parser.add_argument("--repo", help="the repository on GitHub, owner/name (default: from the remote origin)")
    parser.add_argument("--readme", default=os.path.join(ROOT, "README.md"), help="the README (default: README.md)")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted(glob.glob(os.path.join(ROOT, LESSON_DIR, "*.ipynb")))
    if not paths:
        print("no notebooks found in %s/" % LESSON_DIR)
        return 2
    try:
        repo = repository(args.repo)
        origin = origin_repo()
        if args.repo and origin and origin != repo:
            print("note: --repo %s, the remote origin is %s" % (repo, origin))
        stale = stale_files(paths, repo, args.readme, check=args.check)
    except (OSError, ValueError) as e:
        print("error: %s" % e)
        return 2
    for path in stale:
        rel = os.path.relpath(path)
        print(("not up to date: %s (run scripts/lesson_links.py)" if args.check else "updated %s") % rel)
    if repo is None:
        print("note: the repository's address on GitHub is unknown (no GitHub remote origin, no --repo): the lessons "
              "say how to find the repository instead of linking to it")
    if not stale:
        print("%d lesson(s) and the README up to date (repository: %s)" % (len(paths), repo or "unknown"))
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
