#!/usr/bin/python3
"""Prints the peak resident memory, in MB, of the Java processes started under a process.

    /usr/bin/python3 scripts/peak_rss.py PID OUT_FILE      (scripts/run-notebooks.sh runs it beside nbconvert)

Polls every 0.5 s until PID exits, and writes to OUT_FILE the largest VmHWM (the kernel's own record of its
peak resident set) of any `java` process among PID's descendants: the notebook's kernel. VmHWM only grows, so a
poll misses nothing but the last 0.5 s of a process's life. Writes 0 when no Java process was seen.
Linux only (/proc); standard library only.
"""
import os
import sys
import time


def children():
    """Maps each running process to its parent, from /proc/PID/stat."""
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry, encoding="utf-8", errors="replace") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()  # the name may hold spaces and parentheses
        parents[int(entry)] = int(fields[1])
    return parents


def descendants(root, parents):
    found, todo = set(), [root]
    while todo:
        p = todo.pop()
        for child, parent in parents.items():
            if parent == p and child not in found:
                found.add(child)
                todo.append(child)
    return found


def peak_kb(pid):
    """The process's VmHWM in kB when it is a java process, else 0."""
    try:
        if os.path.basename(os.readlink("/proc/%d/exe" % pid)) != "java":
            return 0
        with open("/proc/%d/status" % pid, encoding="utf-8") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main():
    root, out = int(sys.argv[1]), sys.argv[2]
    peak = 0
    while os.path.exists("/proc/%d" % root):
        for pid in descendants(root, children()):
            peak = max(peak, peak_kb(pid))
        with open(out, "w", encoding="utf-8") as f:
            f.write("%d\n" % round(peak / 1024))
        time.sleep(0.5)


if __name__ == "__main__":
    main()
