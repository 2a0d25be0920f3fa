package org.d2l.multigpu.lesson;

import ai.djl.ndarray.NDManager;
import ai.djl.training.dataset.Batch;
import ai.djl.training.dataset.RandomAccessDataset;
import java.util.Locale;
import java.util.OptionalLong;
import org.d2l.multigpu.data.Batches;
import org.d2l.multigpu.data.Settings;
import org.d2l.multigpu.eval.Timer;
import org.d2l.multigpu.loop.ParameterSnapshot;
import org.d2l.multigpu.parallel.DataParallelTrainer;
import org.d2l.multigpu.parallel.StepResult;

/**
 * How long a training run will take on this machine at the current settings, timed from a few
 * training steps of the trainer (its parameters are restored afterwards).
 */
public record TimeEstimate(double secondsPerExample, long trainExamples, long testExamples, int numEpochs) {

    /** Evaluating an image costs about this fraction of training on it (measured for ResNet-18 on CPU). */
    static final double TEST_COST = 0.45;

    /**
     * Times {@code steps} steps of {@code trainer} on {@code trainSet} after one warm-up step and takes the
     * median time per example (the first steps after the warm-up are often still slow), then restores the
     * parameters.
     */
    public static TimeEstimate of(DataParallelTrainer trainer, RandomAccessDataset trainSet,
            RandomAccessDataset testSet, int numEpochs, int steps) {
        if (steps < 1 || numEpochs < 1) {
            throw new IllegalArgumentException("steps and numEpochs must be at least 1, got " + steps + ", " + numEpochs);
        }
        Timer perExample = new Timer();
        try (ParameterSnapshot before = trainer.snapshot(); NDManager manager = NDManager.newBaseManager()) {
            int done = 0;
            for (Batch batch : Batches.of(trainSet, manager, "training")) {
                try (batch) {
                    long start = System.nanoTime();
                    StepResult r = trainer.trainStep(batch.getData().head(), batch.getLabels().head());
                    double seconds = (System.nanoTime() - start) / 1e9 / Math.max(1, r.examples());
                    if (done++ == 1) { // the first step warms up (allocation, kernels): counted only if alone
                        perExample = new Timer();
                    }
                    perExample.record(seconds);
                }
                if (done > steps) {
                    break;
                }
            }
            trainer.restore(before);
        }
        if (perExample.times().isEmpty()) {
            throw new IllegalArgumentException("the training set is empty: nothing to time");
        }
        return new TimeEstimate(perExample.median(), trainSet.size(), testSet == null ? 0 : testSet.size(), numEpochs);
    }

    /** The estimated seconds of the whole run. */
    public double seconds() {
        return secondsPerExample * (trainExamples + TEST_COST * testExamples) * numEpochs;
    }

    /** The estimate in words, with the settings for a shorter run (DATASET_LIMIT, which limits each split, and MAX_EPOCH). */
    @Override
    public String toString() {
        return describe(Settings.get().sessionLimit());
    }

    /**
     * The estimate in words, warning first when the run takes longer than {@code sessionLimit} seconds (a
     * session's length on this machine, {@code D2L_SESSION_LIMIT}: binder/start sets mybinder.org's hour).
     */
    public String describe(OptionalLong sessionLimit) {
        long limit = Math.max(1000, trainExamples / 10);
        String shorter;
        if (trainExamples > limit) {
            double at = new TimeEstimate(secondsPerExample, limit, Math.min(limit, testExamples), numEpochs).seconds();
            shorter = String.format(Locale.ROOT, "For a shorter run set DATASET_LIMIT=%d (%s) and/or MAX_EPOCH "
                    + "in the environment Jupyter starts from.", limit, human(at));
        } else {
            shorter = numEpochs > 1 ? "For a shorter run lower MAX_EPOCH." : "This is already a short run.";
        }
        String warning = sessionLimit.isPresent() && seconds() > sessionLimit.getAsLong()
                ? String.format(Locale.ROOT, " Warning: that is longer than a session on this machine lasts (%s, "
                        + "D2L_SESSION_LIMIT=%d s): the session would end before the run does.",
                        human(sessionLimit.getAsLong()), sessionLimit.getAsLong())
                : "";
        return String.format(Locale.ROOT, "Estimated time: %s for %d epoch(s) of %d training and %d test images "
                + "(%.1f ms per training image, timed here).%s %s", human(seconds()), numEpochs, trainExamples,
                testExamples, secondsPerExample * 1e3, warning, shorter);
    }

    /** A duration in words: "about 40 s", "about 20 min" or "about 9.1 h". */
    public static String human(double seconds) {
        if (seconds < 90) {
            return String.format(Locale.ROOT, "about %.0f s", seconds);
        }
        return seconds < 5400 ? String.format(Locale.ROOT, "about %.0f min", seconds / 60)
                : String.format(Locale.ROOT, "about %.1f h", seconds / 3600);
    }
}
