#!/usr/bin/python3
"""Checks an executed notebook for errors that Jupyter's exit status does not show.

    check_outputs.py EXECUTED.ipynb [--source-dir DIR] [--relativize DIR]... [--claims MODE]

Notebooks are executed with errors allowed (so that the whole notebook and its HTML are kept), and
the rapaio Java kernel reports some failures without an error status at all. This script reports:

  * every `error` output (Java exceptions "EvalException", compile errors "CompilerException",
    incomplete code, failed magics such as `%jars` of a missing jar: "MagicEvalException"), except in
    cells tagged `raises-exception` (cells that are meant to fail);
  * stream output that rapaio or the JVM prints for a failure without an error output: a failed
    `%dependency` ("Could not resolve dependencies..."), an uncaught exception in another thread;
  * `%load FILE` of a file that does not exist: rapaio ignores it silently (no output at all), so the
    file is looked up relative to the source notebook's folder (--source-dir, default: the notebook's).
  * a cell's result that is a Java object's identity ("java.io.PrintStream@45593f7b", shown when a
    cell ends with an expression such as `System.out.printf(...)`): nothing a reader can use.

It also counts the lesson's claims and checks: lines of stream output that start with "✔" (it
holds) or "✘" (it does not), as the support jar's `Claim.that` (a claim about the run's outcome) and
`Claim.check` (a check that the code agrees with a formula or an invariant; "✔ check: ...") print
them. Every such line ends with "(measured: V)", V a number or numbers separated by ", ": a boolean
("true", "false") or a text there is a problem in every mode, since the mark already says whether it
holds. With --claims record (a recording) a claim or check that does not hold is a problem, and so
is a lesson with fewer than 3 claims: a recording must check its lesson's outcome, not only its
code. A claim that failed in a recording may stay in the lesson if its prose discusses the failure:
the notebook's metadata lists the start of each such claim's statement under "d2l" ->
"discussed_failures"; in a recording such a claim's cross is kept and reported as discussed, while a
listed statement that no failed claim starts with is a problem (the list must not outlive its
failure), and a failed check never passes (a check that fails is a fault of the code). With --claims
smoke (CI's tiny settings) failed claims and checks are counted and shown but are not problems. The last line of output is "claims: N hold of M; checks: K hold of L" (when
anything was printed or in record mode).

For each problem (the first 5) it prints the cell number, execution count, first source line and the
message.
Exit status: 0 when clean, 1 when problems were found, 2 on bad usage or an unreadable notebook.

--relativize DIR removes the absolute path DIR/ from text outputs (rapaio prints absolute jar paths,
e.g. "Add /home/me/repo/notebooks/../support-lib/..."), so that recorded outputs do not depend on
where the repository was checked out; several may be given (applied in order: the notebook's folder
first, then the repository root); the notebook is then saved in place.

Standard library only: runs with any Python 3.
"""
import argparse
import json
import os
import re
import sys

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")

# Text in stream output (stdout or stderr) that means a failure without an error output.
STREAM_ERRORS = [
    (re.compile(r"Could not resolve dependencies.*"), "failed %dependency"),
    (re.compile(r'^Exception in thread ".*', re.M), "uncaught exception in a thread"),
]

CLAIM = re.compile(r"^([✔✘]) .*$", re.M)
CHECK_WORD = "check: "
MEASURED = re.compile(r"\(measured: (.*?)(; not checked at (?:the smoke|these) settings.*)?\)$")
NUMBER = re.compile(r"-?(\d+(\.\d*)?([eE][-+]?\d+)?|NaN|Infinity)$")
MIN_CLAIMS = 3  # outcome claims a recorded lesson makes at least
IDENTITY = re.compile(r"[\w.$]+@[0-9a-f]+")  # Object.toString(): class name @ hash code
LOAD = re.compile(r"^\s*%load\s+(.+?)\s*$", re.M)
MAX_MESSAGE_LINES = 8
MAX_PROBLEMS = 5  # later cells often only fail because of the first failure


def text(value):
    """Notebook text fields are a string or a list of strings."""
    return value if isinstance(value, str) else "".join(value)


def clean(s):
    return ANSI.sub("", s).replace("\r", "")


def first_line(source):
    for line in source.splitlines():
        if line.strip():
            return line.strip()
    return ""


def error_message(output):
    """ename/evalue and the traceback that rapaio fills with the useful part (compile errors)."""
    lines = []
    for entry in output.get("traceback", []):
        lines.extend(clean(entry).splitlines())
    # Frames of the kernel itself (for magics, incomplete code) say nothing about the notebook.
    lines = [line.rstrip() for line in lines
             if line.strip() and not line.strip().startswith("at org.rapaio.jupyter.")]
    evalue = output.get("evalue", "")
    if not lines or (evalue and evalue not in "\n".join(lines)):
        lines.insert(0, "%s: %s" % (output.get("ename", "error"), evalue))
    if len(lines) > MAX_MESSAGE_LINES:
        lines = lines[:MAX_MESSAGE_LINES] + ["... (%d more lines)" % (len(lines) - MAX_MESSAGE_LINES)]
    return "\n".join(lines)


def load_target(arg):
    arg = arg.strip()
    if len(arg) >= 2 and arg[0] == arg[-1] and arg[0] in "\"'":
        arg = arg[1:-1]
    return os.path.expanduser(arg)


def check(nb, source_dir, claims_mode="smoke"):
    """The problems found, and the claim and check lines printed: [(mark, "claim" or "check", line)]."""
    problems = []  # (cell number, execution count, first line, message)
    claims = []
    discussed = list(nb.get("metadata", {}).get("d2l", {}).get("discussed_failures", []))
    used = set()
    for number, cell in enumerate(nb.get("cells", []), start=1):
        if cell.get("cell_type") != "code":
            continue
        source = text(cell.get("source", ""))
        expected_error = "raises-exception" in cell.get("metadata", {}).get("tags", [])

        def report(message):
            problems.append((number, cell.get("execution_count"), first_line(source), message))

        for match in LOAD.finditer(source):
            path = load_target(match.group(1))
            if not os.path.isabs(path):
                path = os.path.join(source_dir, path)
            if not os.path.exists(path):
                report("%%load: file not found: %s (the kernel ignores this silently)" % match.group(1))

        for output in cell.get("outputs", []):
            kind = output.get("output_type")
            if kind == "error" and not expected_error:
                report(error_message(output))
            elif kind == "execute_result":
                shown = {clean(text(v)).strip() for v in output.get("data", {}).values()}
                for value in sorted(v for v in shown if IDENTITY.fullmatch(v)):
                    report("the cell's result is an object's identity (%s): end the cell with a statement, "
                           "e.g. System.out.println(String.format(...)) instead of System.out.printf(...)" % value)
            elif kind == "stream":
                body = clean(text(output.get("text", "")))
                for pattern, what in STREAM_ERRORS:
                    found = pattern.search(body)
                    if found:
                        report("%s (%s): %s" % (what, output.get("name", "stream"), found.group(0).strip()))
                for found in CLAIM.finditer(body):
                    line = found.group(0).strip()
                    kind = "check" if line[2:].startswith(CHECK_WORD) else "claim"
                    claims.append((found.group(1), kind, line))
                    bad = measured_problem(line)
                    if bad:
                        report(bad)
                    if found.group(1) == "✘" and claims_mode == "record":
                        known = [d for d in discussed if kind == "claim" and line[2:].startswith(d)]
                        if known:
                            used.update(known)
                        else:
                            report("%s does not hold: %s" % (kind, line))
    if claims_mode == "record":
        for d in discussed:
            if d not in used:
                problems.append((0, None, "(notebook metadata)",
                                 "listed as a discussed failure, but no failed claim starts with it: \"%s\" "
                                 "(remove it from d2l.discussed_failures once the claim holds)" % d))
    outcome = sum(1 for _, kind, _ in claims if kind == "claim")
    if claims_mode == "record" and outcome < MIN_CLAIMS:
        problems.append((0, None, "(whole notebook)",
                         "%d claim(s) about the run's outcome printed: a recorded lesson checks at least %d with "
                         "Claim.that(...) (checks of the code with Claim.check do not count)" % (outcome, MIN_CLAIMS)))
    return problems, claims


def measured_problem(line):
    """Why the measured value of a claim or check line is not a number or a list of numbers, or None."""
    found = MEASURED.search(line)
    if not found:
        return "a claim or check without a measured value (\"(measured: ...)\" at its end): %s" % line
    values = [v.strip() for v in found.group(1).split(",")]
    if any(v.lower() in ("true", "false") for v in values):
        return ("measured value is a boolean, which says no more than the mark: measure the number the statement "
                "judges (a difference, a ratio, a count): %s" % line)
    if not all(NUMBER.match(v) for v in values):
        return "measured value is not a number or a list of numbers: %s" % line
    return None


def summary(claims):
    """"claims: N hold of M; checks: K hold of L"."""
    parts = []
    for kind in ("claim", "check"):
        lines = [mark for mark, k, _ in claims if k == kind]
        parts.append("%ss: %d hold of %d" % (kind, lines.count("✔"), len(lines)))
    return "; ".join(parts)


def relativize(nb, directory):
    """Removes "DIR/" from text outputs, keeping each field's form (string or list of lines)."""
    prefix = os.path.abspath(directory).rstrip(os.sep) + os.sep
    changed = False

    def strip(value):
        nonlocal changed
        if isinstance(value, str) and prefix in value:
            changed = True
            return value.replace(prefix, "")
        if isinstance(value, list):
            return [strip(item) for item in value]
        return value

    for cell in nb.get("cells", []):
        for output in cell.get("outputs", []):
            if "text" in output:
                output["text"] = strip(output["text"])
            for mime, value in output.get("data", {}).items():
                if mime.startswith("text/"):
                    output["data"][mime] = strip(value)
            if "traceback" in output:
                output["traceback"] = strip(output["traceback"])
    return changed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("notebook")
    parser.add_argument("--source-dir", help="folder of the source notebook (for %%load paths)")
    parser.add_argument("--relativize", metavar="DIR", action="append", default=[],
                        help="strip the absolute path DIR/ from outputs (repeatable)")
    parser.add_argument("--claims", choices=["record", "smoke", "interactive"], default="smoke",
                        help="record: a failed claim or check, or fewer than 3 claims, is a problem (default smoke)")
    args = parser.parse_args()
    try:
        with open(args.notebook, encoding="utf-8") as f:
            nb = json.load(f)
    except (OSError, ValueError) as e:
        print("cannot read %s: %s" % (args.notebook, e))
        return 2

    changed = False
    for directory in args.relativize:
        changed = relativize(nb, directory) or changed
    if changed:
        with open(args.notebook, "w", encoding="utf-8") as f:
            json.dump(nb, f, indent=1, sort_keys=True, ensure_ascii=False)  # as nbformat writes
            f.write("\n")

    source_dir = args.source_dir or os.path.dirname(os.path.abspath(args.notebook))
    problems, claims = check(nb, source_dir, args.claims)
    for number, count, line, message in problems[:MAX_PROBLEMS]:
        if number == 0:
            print("  %s" % message)
            continue
        print("  cell %d (In [%s]): %s" % (number, count if count is not None else " ", line))
        for message_line in message.splitlines():
            print("      " + message_line)
    if len(problems) > MAX_PROBLEMS:
        print("  ... and %d more problems in later cells" % (len(problems) - MAX_PROBLEMS))
    if claims or args.claims == "record":
        failed = [line for mark, _, line in claims if mark == "✘"]
        if failed and args.claims != "record":
            for line in failed:
                print("  not held at these settings: %s" % line)
        elif failed and not problems:
            for line in failed:
                print("  failed, and discussed by the lesson: %s" % line)
        print(summary(claims))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
