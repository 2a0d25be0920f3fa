#!/usr/bin/env python3
"""Kernel > Interrupt on the project's Java kernel stops training at the next step, and the kernel runs on.

    scripts/test_kernel_interrupt.py [--kernel java] [--rounds 1]

Drives a real kernel (the kernelspec `java` that scripts/setup.sh installs) through jupyter_client, as
the Notebook server does: loads the support jar, then per round
  1. a cell that trains with DataParallelTrainer.fit and a live figure, interrupted while it trains;
  2. a cell with a hand-written loop like the from-scratch lesson's (Interrupts.check
     before each step, the live figure redrawn after each short epoch), interrupted while it trains;
and checks that each cell ends within CELL_END_S of the interrupt with the message that says where
training stopped, then that a new training call runs and prints its result. A kernel start that does
not answer fails the test (no retry). Exit status 0 when every check holds. Under a minute (47 s
on a 2-core machine at load average 10).
"""
import argparse
import os
import queue
import sys
import time

from jupyter_env import ROOT  # noqa: E402  (sets the project-local Jupyter environment)

from jupyter_client.manager import KernelManager  # noqa: E402  (after the environment is set)

START_TIMEOUT_S = 90      # a start under load takes 3-10 s; no answer at all is a hang
CELL_TIMEOUT_S = 120
TRAIN_BEFORE_INTERRUPT_S = 2   # after the first epoch's figure update
CELL_END_S = 20           # the step in progress ends, then the cell (a LeNet step takes well under 1 s)
LATE_MESSAGE_S = 10      # JJava: wait this long after the cell ended for the message
STOP_MESSAGE = "Training interrupted in epoch"

SETUP = """\
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.dataset.Batch;
import ai.djl.training.loss.Loss;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.data.FashionMnistData;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.parallel.DataParallelTrainer;
import org.d2l.multigpu.lesson.FromScratch;
import org.d2l.multigpu.notebook.Interrupts;
import org.d2l.multigpu.plot.LiveFigure;
import org.d2l.multigpu.runtime.Djl;
Djl.setup();
NDManager manager = NDManager.newBaseManager();
FashionMnistData data = FashionMnistData.builder().setSampling(64, true).optLimit(256).build();
DataParallelTrainer trainer = DataParallelTrainer.builder(LeNet.block())
        .setDevices(Devices.of(2)).optInputShape(new Shape(1, 1, 28, 28)).optLearningRate(0.1f).build();
System.out.println("ready");
"""

FIT = """\
LiveFigure fitFig = LiveFigure.of("train loss");
trainer.fit(data.train(), null, 100000, fitFig.run("fit"));
"""

LOOP = """\
LiveFigure loopFig = LiveFigure.of("train loss");
List<List<NDArray>> deviceParams = new ArrayList<>();
List<NDArray> params = LeNet.initParams(manager);
for (var d : Devices.of(2)) {
    deviceParams.add(FromScratch.getParams(params, d, manager));
}
loopFig.begin("loop", 100000);
for (int epoch = 0; epoch < 100000; epoch++) {
    int step = 0;
    double loss = 0;
    for (Batch batch : data.train().getData(manager)) {
        Interrupts.check(epoch + 1, step);
        try (batch) {
            loss += FromScratch.trainBatch(batch.getData().head(), batch.getLabels().head(), deviceParams,
                    Devices.of(2), 0.1f, Loss.softmaxCrossEntropyLoss(), LeNet::lenet);
        }
        step++;
    }
    loopFig.add("loop", epoch + 1, loss / data.train().size());
}
"""

AFTER = """\
var after = trainer.fit(data.train(), null, 1);
System.out.println("trained after the interrupt: " + after.size() + " epoch");
"""


class Cell:
    """One execute request and what came back for it."""

    def __init__(self, kc, code):
        self.kc = kc
        self.msg_id = kc.execute(code, store_history=False)
        self.text = []
        self.status = None
        self.idle = False
        self.first_output_at = None

    def pump(self, until, first_output=False, text=None):
        """Reads iopub and shell messages until the cell is done or `until` (monotonic) passes, or (with
        `first_output`) until the cell has updated its live figure (an epoch has ended)."""
        while not self.done() and time.monotonic() < until:
            if first_output and self.first_output_at is not None:
                break
            if text is not None and text in self.output():
                break
            try:
                msg = self.kc.get_iopub_msg(timeout=0.2)
            except queue.Empty:
                msg = None
            if msg and msg["parent_header"].get("msg_id") == self.msg_id:
                t, c = msg["msg_type"], msg["content"]
                if t == "stream":
                    self.text.append(c["text"])
                elif t == "error":
                    self.text.append("%s: %s" % (c["ename"], c["evalue"]))
                elif t in ("display_data", "update_display_data", "execute_result"):
                    self.text.append(c.get("data", {}).get("text/plain", ""))
                elif t == "status" and c["execution_state"] == "idle":
                    self.idle = True
                if t == "update_display_data" and self.first_output_at is None:
                    self.first_output_at = time.monotonic()  # an epoch has ended: training runs
            try:
                reply = self.kc.get_shell_msg(timeout=0)
                if reply["parent_header"].get("msg_id") == self.msg_id:
                    self.status = reply["content"]["status"]
            except queue.Empty:
                pass
        return self.done()

    def done(self):
        return self.status is not None and self.idle

    def output(self):
        return "\n".join(self.text)


def run_cell(kc, code, timeout=CELL_TIMEOUT_S):
    cell = Cell(kc, code)
    if not cell.pump(time.monotonic() + timeout):
        raise AssertionError("cell did not finish in %d s:\n%s\noutput so far:\n%s" % (timeout, code, cell.output()))
    return cell


def interrupted_cell(km, kc, code, label, failures):
    """Runs `code`, interrupts it once it has trained a while, checks the stop; returns seconds to the end."""
    cell = Cell(kc, code)
    cell.pump(time.monotonic() + CELL_TIMEOUT_S, first_output=True)
    t_out = cell.first_output_at
    if cell.done() or t_out is None:
        failures.append("%s: the cell ended, or finished no epoch, before the interrupt:\n%s" % (label, cell.output()))
        return None
    # Train a little longer after the first epoch, then interrupt as Kernel > Interrupt does.
    cell.pump(t_out + TRAIN_BEFORE_INTERRUPT_S)
    km.interrupt_kernel()
    t_int = time.monotonic()
    if not cell.pump(t_int + CELL_END_S):
        failures.append("%s: the cell still ran %d s after the interrupt" % (label, CELL_END_S))
        cell.pump(time.monotonic() + CELL_TIMEOUT_S)
        return None
    took = time.monotonic() - t_int
    if STOP_MESSAGE not in cell.output():
        # JJava ends an interrupted cell at once; the message follows when the step in progress has ended.
        cell.idle = cell.status = None
        cell.pump(time.monotonic() + LATE_MESSAGE_S, text=STOP_MESSAGE)
    out = cell.output()
    if STOP_MESSAGE not in out:
        failures.append("%s: no '%s' message in the cell's output:\n%s" % (label, STOP_MESSAGE, out[-2000:]))
    line = next((l for l in out.splitlines() if STOP_MESSAGE in l), "?")
    print("  %s: cell ended %.2f s after the interrupt: %s" % (label, took, line.strip()[:150]), flush=True)
    return took


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", default="java", help="kernelspec name (default java)")
    ap.add_argument("--rounds", type=int, default=1, help="interrupts of each kind, one kernel (default 1)")
    args = ap.parse_args()

    t0 = time.monotonic()
    km = KernelManager(kernel_name=args.kernel)
    env = dict(os.environ, D2L_PROGRESS="true")
    log_path = ROOT / "build" / "kernel-interrupt-test.log"
    log = open(log_path, "w")
    km.start_kernel(cwd=str(ROOT / "notebooks"), env=env, stdout=log, stderr=log)
    kc = km.client()
    kc.start_channels()
    failures = []
    try:
        kc.wait_for_ready(timeout=START_TIMEOUT_S)
        print("kernel '%s' ready in %.1f s" % (args.kernel, time.monotonic() - t0), flush=True)
        for code in ("%jars ../support-lib/target/d2l-multigpu.jar", SETUP):
            cell = run_cell(kc, code)
            if cell.status != "ok":
                raise AssertionError("setup cell failed:\n%s\n%s" % (code, cell.output()))
        for r in range(1, args.rounds + 1):
            interrupted_cell(km, kc, FIT, "round %d, DataParallelTrainer.fit" % r, failures)
            interrupted_cell(km, kc, LOOP, "round %d, hand-written loop" % r, failures)
            after = run_cell(kc, AFTER)
            if after.status != "ok" or "trained after the interrupt: 1 epoch" not in after.output():
                failures.append("round %d: the next training cell did not run normally (%s):\n%s"
                                % (r, after.status, after.output()[-2000:]))
            else:
                print("  round %d: the next training cell ran: %s" % (r, after.output().strip().splitlines()[-1]),
                      flush=True)
    except (AssertionError, RuntimeError) as e:
        failures.append(str(e))
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)
    log.close()
    print("kernel interrupt test: %.0f s (kernel log: %s)" % (time.monotonic() - t0, log_path.relative_to(ROOT)))
    for f in failures:
        print("FAIL " + f)
    checks = 3 * args.rounds
    print("%d passed, %d failed" % (max(0, checks - len(failures)), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
