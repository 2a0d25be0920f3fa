#!/usr/bin/env python3
"""A run with checkpoints survives a dead kernel: restarted mid-run, the same cell resumes and ends where an
unbroken run ends.

    scripts/test_kernel_restart.py [--kernel java]

Drives a real kernel (the kernelspec `java` that scripts/setup.sh installs) through jupyter_client, as the
Notebook server does: a cell trains LeNet on 2 virtual replicas for EPOCHS epochs with checkpoints in
build/kernel-restart-test/resumed; once two epochs have ended, the kernel is restarted (Kernel > Restart:
the JVM is killed, as when a kernel dies), and the same cells run again. Checks that the second run says
what it resumed, trains only the remaining epochs, and ends with the parameters (a SHA-256 of every
parameter's bytes) of an unbroken run of the same cell in another folder. Exit status 0 when every check
holds. About a minute.
"""
import argparse
import re
import shutil
import sys
import time

from test_kernel_interrupt import ROOT, START_TIMEOUT_S, Cell, run_cell, KernelManager  # noqa: E402

EPOCHS = 6
FOLDER = ROOT / "build" / "kernel-restart-test"

SETUP = """\
import ai.djl.engine.Engine;
import ai.djl.ndarray.types.Shape;
import java.nio.file.Path;
import org.d2l.multigpu.data.FashionMnistData;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.parallel.DataParallelTrainer;
import org.d2l.multigpu.plot.LiveFigure;
import org.d2l.multigpu.runtime.Djl;
Djl.setup();
FashionMnistData data = FashionMnistData.builder().setSampling(64, true).optLimit(3072).build();
// the parameters' bytes, hashed: equal digests are equal parameters, bit for bit
String digest(DataParallelTrainer t) throws Exception {
    var sha = java.security.MessageDigest.getInstance("SHA-256");
    for (var p : t.getNet().getParameters()) sha.update(p.getValue().getArray().toByteArray());
    return java.util.HexFormat.of().formatHex(sha.digest()).substring(0, 16);
}
DataParallelTrainer lenet(String folder) {
    Engine.getInstance().setRandomSeed(42);
    return DataParallelTrainer.builder(LeNet.block()).setDevices(Devices.of(2)).optInputShape(new Shape(1, 1, 28, 28))
            .optLearningRate(0.1f).optCheckpoints(Path.of("%(folder)s", folder)).build();
}
System.out.println("ready");
"""

FIT = """\
DataParallelTrainer trainer = lenet("%(name)s");
LiveFigure fig = LiveFigure.of("train loss");
var history = trainer.fit(data.train(), null, %(epochs)d, fig.run("%(name)s"));
System.out.println("epochs in the history: " + history.size() + "; parameters: " + digest(trainer));
"""


def start(km, kc, label):
    kc.wait_for_ready(timeout=START_TIMEOUT_S)
    for code in ("%jars ../support-lib/target/d2l-multigpu.jar", SETUP % {"folder": FOLDER}):
        cell = run_cell(kc, code)
        if cell.status != "ok":
            raise AssertionError("%s: setup cell failed:\n%s" % (label, cell.output()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", default="java", help="kernelspec name (default java)")
    args = ap.parse_args()
    shutil.rmtree(FOLDER, ignore_errors=True)
    t0 = time.monotonic()
    km = KernelManager(kernel_name=args.kernel)
    log_path = ROOT / "build" / "kernel-restart-test.log"
    log = open(log_path, "w")
    # D2L_RESUME unset: a learner's kernel resumes
    km.start_kernel(cwd=str(ROOT / "notebooks"), stdout=log, stderr=log)
    kc = km.client()
    kc.start_channels()
    failures = []
    try:
        start(km, kc, "first kernel")
        cell = Cell(kc, FIT % {"name": "resumed", "epochs": EPOCHS})
        deadline = time.monotonic() + 300
        while not (FOLDER / "resumed" / "epoch-0002").is_dir() and time.monotonic() < deadline and not cell.done():
            cell.pump(time.monotonic() + 0.5)
        if cell.done() or not (FOLDER / "resumed" / "epoch-0002").is_dir():
            raise AssertionError("the run ended, or wrote no second checkpoint, before the restart:\n" + cell.output())
        km.restart_kernel(now=True)  # Kernel > Restart: the JVM is killed mid-run
        print("  kernel restarted %.1f s in, after epoch 2's checkpoint" % (time.monotonic() - t0), flush=True)
        start(km, kc, "restarted kernel")
        resumed = run_cell(kc, FIT % {"name": "resumed", "epochs": EPOCHS}, timeout=300).output()
        unbroken = run_cell(kc, FIT % {"name": "unbroken", "epochs": EPOCHS}, timeout=300).output()
        line = next((l for l in resumed.splitlines() if l.startswith("Resumed from")), None)
        done_before = int(re.search(r"epochs 1 to (\d+) done before", line).group(1)) if line else 0
        if line is None or done_before < 2:
            failures.append("the run after the restart did not say it resumed from epoch 2 or later:\n" + resumed[-2000:])
        else:
            print("  " + line.strip(), flush=True)
        digests = [re.search(r"epochs in the history: (\d+); parameters: (\w+)", o) for o in (resumed, unbroken)]
        if not all(digests):
            failures.append("a run printed no history and parameters:\n%s\n%s" % (resumed[-1500:], unbroken[-1500:]))
        else:
            (n1, d1), (n2, d2) = (m.groups() for m in digests)
            print("  resumed run: %s epochs, parameters %s; unbroken run: %s epochs, parameters %s" % (n1, d1, n2, d2))
            if n1 != str(EPOCHS) or n2 != str(EPOCHS):
                failures.append("a history does not hold %d epochs: %s and %s" % (EPOCHS, n1, n2))
            if d1 != d2:
                failures.append("the resumed run's parameters differ from the unbroken run's: %s vs %s" % (d1, d2))
    except (AssertionError, RuntimeError) as e:
        failures.append(str(e))
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        log.close()
        shutil.rmtree(FOLDER, ignore_errors=True)
    print("kernel restart test: %.0f s (kernel log: %s)" % (time.monotonic() - t0, log_path.relative_to(ROOT)))
    for f in failures:
        print("FAIL " + f)
    print("%d passed, %d failed" % (3 - min(3, len(failures)), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
