package org.d2l.multigpu.loop;

/**
 * Told about a training run as it goes: before the first epoch, at the start of every epoch, after
 * every step and every epoch, and when an interrupt stops it (a live figure, a progress line, early
 * stopping). Every method but {@link #onEpoch} does nothing by default.
 */
public interface EpochListener {

    /** Called once before the first epoch of a run, with the number of epochs planned (0 when not known). */
    default void onFitStart(int numEpochs) {}

    /** Called when epoch {@code epoch} (from 1) starts, which will train on {@code examples} examples. */
    default void onEpochStart(int epoch, long examples) {}

    /** Called after every step (or round) of epoch {@code epoch}: the examples it has seen so far and their mean loss. */
    default void onStep(int epoch, long examplesSeen, double meanLoss) {}

    /** Called after every finished epoch with its metrics. */
    void onEpoch(EpochMetrics metrics);

    /** Called when an interrupt of the training thread stops the run, just before {@code stop} is thrown. */
    default void onInterrupt(TrainingInterruptedException stop) {}

    /** Called with one line about the run's checkpoints: what it resumed from, or a damaged checkpoint it skipped. */
    default void onCheckpointNote(String message) {}

    /**
     * Makes a listener that every run gets without being asked (the notebook package's progress line and
     * interrupt message), found with {@link java.util.ServiceLoader}: the engine knows nothing of notebooks.
     */
    interface Provider {
        /** A new listener for one run; {@code progress} says whether the run wants a progress line. */
        EpochListener newListener(boolean progress);
    }
}
