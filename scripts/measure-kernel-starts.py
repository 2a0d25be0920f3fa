#!/usr/bin/env python3
"""Starts the project's Java kernel many times in a row and counts the starts that hang.

    scripts/measure-kernel-starts.py [--count 200] [--timeout 60] [--stock]

Each start is what a notebook does: jupyter_client starts the kernel named `java` from build/jupyter
(scripts/setup.sh installs it), waits for its kernel_info reply, then shuts it down with a
shutdown_request (killed if it has not exited 10 s later). A start with no reply within --timeout
seconds gets --grace seconds more: one that answers then is counted as slow, one that never does as a
hang; its stderr is kept in build/kernel-starts/ and the summary says whether it shows rapaio's
start-up races.

--stock starts rapaio 3.0.1 as its own installer would (`java -jar rapaio-jupyter-kernel-3.0.1.jar`,
same JVM options) instead of through the project's launcher: the figure before the fix.
Prints one line per start and a summary with the load average of the machine.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from jupyter_env import ROOT  # noqa: E402  (sets the project-local Jupyter environment)

from jupyter_client.kernelspec import KernelSpecManager  # noqa: E402  (after the environment is set)
from jupyter_client.manager import KernelManager  # noqa: E402

RACE_MARK = 'because "this.handlers" is null'
LOOP_RESTART_MARK = "had ended at start (rapaio LoopThread race)"


def stock_spec_dir(project_dir: Path, into: Path) -> Path:
    """A kernelspec that starts rapaio with `-jar`, as rapaio's installer does, next to the project's one."""
    spec = json.loads((project_dir / "kernel.json").read_text())
    argv = spec["argv"]
    cp = argv.index("-cp")
    jar = next(p for p in argv[cp + 1].split(":") if "rapaio-jupyter-kernel" in p)
    jar = jar.replace("{resource_dir}", str(project_dir))
    spec["argv"] = argv[:cp] + ["-jar", jar, "{connection_file}"]
    spec["display_name"] += " (stock start)"
    d = into / "java-stock"
    d.mkdir(parents=True)
    (d / "kernel.json").write_text(json.dumps(spec, indent=2))
    return into


def one_start(km: KernelManager, timeout: float, grace: float, err_path: Path):
    """Starts, waits for kernel_info, shuts down. Returns (seconds to the reply or None, slow): a kernel
    that has not answered after `timeout` s gets `grace` s more; one that answers then was slow, not hung."""
    with open(err_path, "w") as err:
        km.start_kernel(stdout=err, stderr=err, cwd=str(ROOT / "notebooks"))
        kc = km.client()
        kc.start_channels()
        t0 = time.monotonic()
        ready, slow = None, False
        try:
            kc.wait_for_ready(timeout=timeout)
            ready = time.monotonic() - t0
        except RuntimeError:
            if grace > 0:
                try:
                    kc.wait_for_ready(timeout=grace)
                    ready, slow = time.monotonic() - t0, True
                except RuntimeError:
                    pass
        finally:
            kc.stop_channels()
        km.shutdown_kernel(now=ready is None)
    return ready, slow


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=200, help="consecutive starts (default 200)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds to wait for kernel_info (default 60)")
    ap.add_argument("--grace", type=float, default=120,
                    help="more seconds for a start past --timeout: answering then is a slow start, not a hang")
    ap.add_argument("--stock", action="store_true", help="start rapaio with -jar (no launcher): the before figure")
    args = ap.parse_args()

    project_dir = ROOT / "build" / "jupyter" / "kernels" / "java"
    if not (project_dir / "kernel.json").is_file():
        sys.exit("error: no kernel in %s: run scripts/setup.sh first" % project_dir)
    out = ROOT / "build" / "kernel-starts"
    out.mkdir(parents=True, exist_ok=True)
    tmp = tempfile.TemporaryDirectory(prefix="kernel-starts-")
    if args.stock:
        ksm = KernelSpecManager(kernel_dirs=[str(stock_spec_dir(project_dir, Path(tmp.name)))])
        name = "java-stock"
    else:
        ksm = KernelSpecManager()
        name = "java"
    argv = ksm.get_kernel_spec(name).argv
    label = "stock rapaio (-jar)" if args.stock else "project launcher"
    print("kernel: %s: %s" % (label, " ".join(argv)), flush=True)
    load_before = os.getloadavg()
    print("load average before: %.2f %.2f %.2f (%d cores)" % (*load_before, os.cpu_count()), flush=True)

    times, hangs, slow_starts = [], [], []
    t_start = time.monotonic()
    for i in range(1, args.count + 1):
        err_path = out / ("%s-%03d.stderr" % ("stock" if args.stock else "launcher", i))
        km = KernelManager(kernel_name=name, kernel_spec_manager=ksm, shutdown_wait_time=10)
        ready, slow = one_start(km, args.timeout, args.grace, err_path)
        err = err_path.read_text(errors="replace")
        note = ""
        if LOOP_RESTART_MARK in err:
            note = " (launcher restarted a polling thread that had ended at start)"
        if slow:
            note += " (SLOW: no answer within %.0f s, answered later)" % args.timeout
            slow_starts.append(i)
        if ready is None:
            if RACE_MARK in err:
                cause = "shell thread died on the null handler map (rapaio's Channels.connect race)"
            elif "Binding" not in err:
                cause = "the JVM never got as far as binding its sockets (nothing logged)"
            elif "Handling message" not in err:
                cause = "shell thread never handled a message (rapaio's LoopThread start race)"
            else:
                cause = "see " + str(err_path.relative_to(ROOT))
            hangs.append((i, cause))
            print("start %3d: HANG (no kernel_info reply in %.0f s): %s" % (i, args.timeout + args.grace, cause),
                  flush=True)
        else:
            times.append(ready)
            print("start %3d: ready in %.2f s%s" % (i, ready, note), flush=True)
            if not note.strip():
                err_path.unlink()
    load_after = os.getloadavg()
    print()
    print("%s: %d starts, %d hangs (no answer in %.0f s), %d slow (answered after %.0f s) in %.0f s" % (
        label, args.count, len(hangs), args.timeout + args.grace, len(slow_starts), args.timeout,
        time.monotonic() - t_start))
    if times:
        print("ready: median %.2f s, max %.2f s" % (statistics.median(times), max(times)))
    for i, cause in hangs:
        print("  hang at start %d: %s" % (i, cause))
    print("load average after: %.2f %.2f %.2f" % load_after)
    return 1 if hangs else 0


if __name__ == "__main__":
    sys.exit(main())
