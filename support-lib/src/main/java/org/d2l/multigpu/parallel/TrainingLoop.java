package org.d2l.multigpu.parallel;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The one epoch loop of every trainer: {@code fit} for a number of epochs, and early stopping, over an
 * {@link EpochTrainer} in this process or on Spark; listeners hear of every epoch.
 */
public final class TrainingLoop {

    private TrainingLoop() {}

    /** Trains {@code numEpochs} epochs and returns their metrics; {@code listeners} hear of the run. */
    public static List<EpochMetrics> fit(EpochTrainer trainer, int numEpochs, EpochListener... listeners) {
        if (numEpochs < 1) {
            throw new IllegalArgumentException("numEpochs must be at least 1, got " + numEpochs + ".");
        }
        return run(trainer, numEpochs, m -> false, listeners);
    }

    /**
     * Trains epoch after epoch until {@code stopAfter} says stop after an epoch, or {@code maxEpochs} have
     * run (0: no maximum), and returns the metrics of the epochs run.
     */
    public static List<EpochMetrics> run(EpochTrainer trainer, int maxEpochs, Predicate<EpochMetrics> stopAfter,
            EpochListener... listeners) {
        EpochListeners events = EpochListeners.of(trainer.progress(), listeners);
        events.onFitStart(maxEpochs);
        List<EpochMetrics> run = new ArrayList<>();
        boolean stop = false;
        while (!stop && (maxEpochs == 0 || run.size() < maxEpochs)) {
            EpochMetrics m = trainer.trainEpoch(events);
            run.add(m);
            events.onEpoch(m);
            stop = stopAfter.test(m);
        }
        return run;
    }
}
