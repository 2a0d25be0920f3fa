package org.d2l.multigpu.loop;

import java.util.List;
import java.util.function.Predicate;
import org.d2l.multigpu.checkpoint.Stateful;

/**
 * The one epoch loop of every trainer: {@code fit} for a number of epochs, and early stopping, over an
 * {@link EpochTrainer} in this process or on Spark; listeners hear of every epoch. When the trainer keeps
 * checkpoints ({@link EpochTrainer#checkpoints()}) the loop writes one after every epoch and a run resumes
 * from the newest valid one of its epochs, which listeners hear of ({@link EpochListener#onCheckpointNote}).
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
        return run(trainer, maxEpochs, stopAfter, null, listeners);
    }

    /**
     * The same, with {@code caller}'s own state (early stopping's best model and scores; may be null) in
     * every checkpoint beside the trainer's; a resumed run's finished epochs are told to the listeners'
     * {@code onEpoch} again and returned with the new ones, and {@code stopAfter} is asked only of new ones.
     */
    public static List<EpochMetrics> run(EpochTrainer trainer, int maxEpochs, Predicate<EpochMetrics> stopAfter,
            Stateful caller, EpochListener... listeners) {
        RunListeners events = RunListeners.of(trainer.progress(), listeners);
        try (RunCheckpoints checkpoints = RunCheckpoints.of(trainer, caller)) {
            events.onFitStart(maxEpochs);
            List<EpochMetrics> run = checkpoints.resume(maxEpochs, events);
            boolean stop = checkpoints.stopped();
            if (stop || (maxEpochs > 0 && run.size() >= maxEpochs)) {
                return run;
            }
            trainer.beginRun(maxEpochs == 0 ? 0 : maxEpochs - run.size());
            try {
                while (!stop && (maxEpochs == 0 || run.size() < maxEpochs)) {
                    EpochMetrics m = trainer.trainEpoch(events);
                    run.add(m);
                    events.onEpoch(m);
                    stop = stopAfter.test(m);
                    checkpoints.save(stop);
                }
            } finally {
                trainer.endRun();
            }
            return run;
        }
    }
}
