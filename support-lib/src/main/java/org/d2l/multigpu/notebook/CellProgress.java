package org.d2l.multigpu.notebook;

import ai.djl.training.util.ProgressBar;
import java.util.Locale;
import org.d2l.multigpu.loop.EpochListener;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.loop.TrainingInterruptedException;

/**
 * What every training run shows in the notebook cell that started it: DJL's progress bar per epoch (when
 * the run wants one), printed from the output thread so that the training thread keeps a Kernel &gt;
 * Interrupt, and the message of an interrupt, in that cell even when the kernel has ended it already.
 */
final class CellProgress implements EpochListener {

    private final boolean progress;
    private ProgressBar bar;

    private CellProgress(boolean progress) {
        this.progress = progress;
    }

    @Override
    public void onEpochStart(int epoch, long examples) {
        CellOutput.remember(); // where the message of an interrupt goes, should the kernel end the cell first
        bar = progress ? new ProgressBar("epoch " + epoch, examples) : null;
    }

    @Override
    public void onStep(int epoch, long examplesSeen, double meanLoss) {
        ProgressBar b = bar;
        if (b != null) {
            String loss = String.format(Locale.ROOT, "loss %.3f", meanLoss);
            KernelIo.run(() -> b.update(examplesSeen, loss)); // printed here, it could swallow an interrupt
        }
    }

    @Override
    public void onEpoch(EpochMetrics metrics) {
        bar = null;
    }

    @Override
    public void onInterrupt(TrainingInterruptedException stop) {
        // JJava ends the cell at once on an interrupt and drops what the cell throws later: say it here too.
        CellOutput.println((bar != null ? "\n" : "") + stop.getMessage());
    }

    @Override
    public void onCheckpointNote(String message) {
        CellOutput.println(message); // e.g. "Resumed from build/checkpoints/...: epochs 1 to 3 done before"
    }

    /** Gives every run this listener; registered in {@code META-INF/services}. */
    public static final class Provider implements EpochListener.Provider {

        @Override
        public EpochListener newListener(boolean progress) {
            return new CellProgress(progress);
        }
    }
}
